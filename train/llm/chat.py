"""A client for an OpenAI-compatible chat endpoint (``POST BASE_URL/chat/completions``), with bounded retries."""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

__all__ = ["ChatClient", "ChatError"]

#: HTTP statuses worth asking again: rate limited, or the server's own failure.
RETRIED = {408, 409, 429, 500, 502, 503, 504}


class ChatError(RuntimeError):
    """The endpoint gave no reply: an error that asking again will not mend, or the retries ran out."""


@dataclass
class ChatClient:
    """Asks ``model`` at ``base_url`` (``https://api.openai.com/v1``, ``http://127.0.0.1:8000/v1``...) for the next
    message of a conversation.

    Args:
        base_url: the API's base URL, up to and including ``/v1``.
        model: the model's name, as the endpoint knows it.
        api_key_env: the environment variable that holds the key (sent as a bearer token; none if unset). The key
            itself is never stored, logged or written to a result.
        timeout: seconds one reply may take, whole: from the request to the reply's last byte (a reply that trickles
            in is cut off there, where a timeout between two bytes would wait for ever).
        retries: how many times a failed call (no connection, a timeout, HTTP 408/409/429/5xx) is made again,
            ``backoff`` seconds doubling between them, before :class:`ChatError`.
        temperature, max_tokens: sent when given.
    """

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 120.0
    retries: int = 3
    backoff: float = 1.0
    temperature: float | None = None
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.base_url, str) or not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http:// or https:// URL, got {self.base_url!r}")
        if not isinstance(self.model, str) or not self.model.strip():
            raise ValueError(f"model must be a model's name, got {self.model!r}")
        if isinstance(self.retries, bool) or not isinstance(self.retries, int) or self.retries < 0:
            raise ValueError(f"retries must be an integer >= 0, got {self.retries!r}")
        for name in ("timeout", "backoff"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < float("inf"):
                raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")
        #: Calls made again so far (each retry once).
        self.retried = 0

    def reply(self, messages: list[dict[str, str]]) -> str:
        """The model's next message after ``messages`` (``{"role": ..., "content": ...}`` each).

        Raises:
            ChatError: no reply, with the last error and how many tries were made.
        """
        import requests

        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        key = os.environ.get(self.api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        url = self.base_url.rstrip("/") + "/chat/completions"
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                self.retried += 1
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                status, text = self._post(url, body, headers)
            except requests.Timeout:
                last = f"no whole reply within {self.timeout:g} s"
                continue
            except requests.RequestException as error:
                last = f"{type(error).__name__}: {error}"
                continue
            if status in RETRIED:
                last = f"HTTP {status}: {text[:200]}"
                continue
            if status != 200:
                raise ChatError(f"{url} answered HTTP {status}: {text[:300]}")
            try:
                content = json.loads(text)["choices"][0]["message"]["content"]
            except (ValueError, KeyError, IndexError, TypeError):
                raise ChatError(f"{url} answered with no chat completion: {text[:300]}") from None
            return content if isinstance(content, str) else ""
        raise ChatError(f"{url} gave no reply in {self.retries + 1} tries; the last: {last}")

    def _post(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, str]:
        """The status and text of one POST, whole within :attr:`timeout` seconds of its start.

        requests' own timeout bounds each wait for the next bytes, not the reply: one that trickles in a byte a
        second is never cut off. Here the call runs in a thread the caller waits for until the deadline, and the
        thread reads the body a little at a time, giving up at the deadline too.

        Raises:
            requests.Timeout: no whole reply by the deadline. requests.RequestException: the call failed.
        """
        import requests

        deadline = time.monotonic() + self.timeout
        outcome: dict[str, Any] = {}

        def call() -> None:
            try:
                with requests.post(url, json=body, headers=headers, timeout=self.timeout, stream=True) as response:
                    chunks = []
                    for chunk in response.iter_content(chunk_size=64):
                        chunks.append(chunk)
                        if time.monotonic() > deadline:
                            raise requests.Timeout(f"no whole reply within {self.timeout:g} s")
                    outcome["reply"] = (response.status_code, b"".join(chunks).decode(response.encoding or "utf-8",
                                                                                      errors="replace"))  # fmt: skip
            except Exception as error:  # handed to the caller as it is
                outcome["error"] = error

        thread = threading.Thread(target=call, daemon=True)  # a thread left waiting ends with its next byte
        thread.start()
        thread.join(max(0.0, deadline - time.monotonic()))
        if "reply" in outcome:
            return outcome["reply"]
        if "error" in outcome:
            raise outcome["error"]
        raise requests.Timeout(f"no whole reply within {self.timeout:g} s")
