"""A client for an OpenAI-compatible chat endpoint (``POST BASE_URL/chat/completions``), with bounded retries."""

from __future__ import annotations

import os
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
        timeout: seconds to wait for one reply.
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
                response = requests.post(url, json=body, headers=headers, timeout=self.timeout)
            except requests.Timeout:
                last = f"no reply within {self.timeout:g} s"
                continue
            except requests.RequestException as error:
                last = f"{type(error).__name__}: {error}"
                continue
            if response.status_code in RETRIED:
                last = f"HTTP {response.status_code}: {response.text[:200]}"
                continue
            if response.status_code != 200:
                raise ChatError(f"{url} answered HTTP {response.status_code}: {response.text[:300]}")
            try:
                content = response.json()["choices"][0]["message"]["content"]
            except (ValueError, KeyError, IndexError, TypeError):
                raise ChatError(f"{url} answered with no chat completion: {response.text[:300]}") from None
            return content if isinstance(content, str) else ""
        raise ChatError(f"{url} gave no reply in {self.retries + 1} tries; the last: {last}")
