"""A local OpenAI-compatible chat endpoint whose replies come from a text agent, for tests and for trying the
evaluation command without a model:

    python -m train.llm.endpoint --env Mastermind-v0 --port 8000
    python -m train.llm --base-url http://127.0.0.1:8000/v1 --model ises --env Mastermind-v0

The request's model names the text agent that answers. On a single-player game a text agent sees only the
conversation's last message (the game so far, as text) and replies with text: the reference agent's query in the
game's notation (``ises``, ``random_consistent``), or replies that go wrong in every way the text layer must survive
(``bad``: malformed, empty, very long, repeated and illegal questions, then a good one now and then, so that games
end both ways). On Algo, Clue and Generalized Clue (``--env clue_v0``...) it reads the rules (the system message)
and what its seat was asked, and plays a legal move at random (``random``), or a bad reply every third time
(``random_bad``). It answers on the loopback address only.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import gymnasium as gym

import agents.base
from agents import ISES, RandomAgent
from deduction_envs.text import SingleText

__all__ = [
    "AGENTS",
    "MAX_BODY",
    "TABLE_AGENTS",
    "BadRequest",
    "BadTextAgent",
    "RandomSeatText",
    "TextAgent",
    "read_request",
    "running",
    "serve",
    "text_agent",
]


class TextAgent:
    """A reference agent that plays through the text: from an observation's text alone it rebuilds the game
    (:meth:`SingleText.history_of`), replays it into ``agent`` and replies with its query, as a model would."""

    def __init__(self, agent: agents.base.Agent, text: SingleText, seed: int = 0) -> None:
        self.agent, self.text, self.seed = agent, text, seed

    def reply(self, observation: str) -> str:
        history = self.text.history_of(observation)
        self.agent.reset(self.text.rules, seed=self.seed + len(history))
        for query, answer in history:
            self.agent.observe(query, answer)
        return f"My query is the most informative one.\n<answer>{self.text.action_text(self.agent.act())}</answer>"


class BadTextAgent:
    """Replies in turn: malformed text, nothing, a very long ramble with no answer, the first question again, a
    query of another game's form, non-ASCII bytes, then a good query (ISES's) every ``good_every``-th reply."""

    def __init__(self, text: SingleText, good_every: int = 7) -> None:
        self.good = TextAgent(ISES(), text)
        self.text, self.good_every = text, good_every
        self.calls = itertools.count(1)

    def reply(self, observation: str) -> str:
        call = next(self.calls)
        history = self.text.history_of(observation)
        if call % self.good_every == 0 or not history:
            return self.good.reply(observation)
        bad = [
            "I am not sure what to ask.",
            "",
            "Let me think about this very carefully. " * 500,
            f"Answer: {self.text.action_text(history[0][0])}",  # asked already
            "Answer: <script>alert(1)</script> ZZZZZZZZ",
            "Answer: \xff\u2603\x00",
        ]
        return bad[call % len(bad)]


class RandomSeatText:
    """A seat of Algo, Clue or Generalized Clue played at random from the text alone: the legal moves are read from
    what the seat was asked (the observation's request line) and the sizes from the rules (the system message);
    every reply is a legal move (now and then an accusation or a guess at random, so that games end).
    ``bad_every``: every so many-th reply is a bad one instead (malformed, empty,
    long, illegal, non-ASCII), so that some games end in a forfeit."""

    def __init__(self, seed: int = 0, bad_every: int = 0) -> None:
        self.rng = random.Random(seed)
        self.bad_every, self.calls = bad_every, itertools.count(1)

    def reply(self, system: str, observation: str) -> str:
        call = next(self.calls)
        if self.bad_every and call % self.bad_every == 0:
            bad = ["I pass.", "", "Hmm. " * 3000, "Answer: suggest Nobody, Nothing, Nowhere", "Answer: P9 9 9",
                   "Answer: \xff\u2603"]  # fmt: skip
            return bad[call % len(bad)]
        return f"A move at random.\n<answer>{self.move(system, observation)}</answer>"

    def move(self, system: str, observation: str) -> str:
        """A legal move for the seat that ``observation`` asks to move, in the game ``system`` describes."""
        pick = self.rng.choice
        if found := re.search(r"show P\d+ one of: (.+)$", observation, re.M):  # Clue
            return "show " + pick(found[1].split(", "))
        if found := re.search(r"show one of cards ([\d, ]+)\.$", observation, re.M):  # Generalized Clue
            return "show " + pick(found[1].split(", "))
        if "Accuse, or end your turn." in observation:
            return "end"
        if "Your turn: suggest or accuse." in observation or "The board: you move the token" in system:  # Clue
            kinds = re.search(r"The cards \(suspects, weapons, rooms\):\n- (.+)\n- (.+)\n- (.+)", system)
            assert kinds is not None, "the Clue prompt lists the cards"
            cards = [kinds[k].split(", ") for k in (1, 2, 3)]
            if "accuse" in observation.strip().splitlines()[-1] and self.rng.random() < 0.05:
                return "accuse " + ", ".join(pick(names) for names in cards)
            if "Your turn: suggest or accuse." in observation:
                return "suggest " + ", ".join(pick(names) for names in cards)
            return self._on_the_board(observation, cards)
        if found := re.search(r"There are (\d+) cards, numbered 0 to \d+; (\d+) of them are hidden", system):
            cards, hidden = int(found[1]), int(found[2])
            asked = re.search(r"Your turn: ask one of ([P\d, ]+) about", observation)
            if asked is None or self.rng.random() < 0.05:
                return "guess " + ", ".join(map(str, self.rng.sample(range(cards), hidden)))
            count = self.rng.randint(1, min(3, cards))
            return f"ask {pick(asked[1].split(', '))} about {', '.join(map(str, self.rng.sample(range(cards), count)))}"
        if found := re.search(r"Cards are black \(B\) or white \(W\), numbered 0 to (\d+)", system):  # Algo
            request = observation.strip().splitlines()[-1]  # what it is asked now (a refused reply's note names
            if "reveal one of your face-down cards" in request:  # every move, 'stop' too)
                own = re.search(r"you: (.+)$", observation, re.M)
                assert own is not None, "the Algo table shows the seat's hand"
                return "reveal " + pick(re.findall(r"(\d+):\[", own[1]))
            if "'stop'" in request and self.rng.random() < 0.5:
                return "stop"
            targets = [(player, position) for player, line in re.findall(r"^\s+(P\d+): (.+)$", observation, re.M)
                       for position in re.findall(r"(\d+):[BW]\?", line)]  # fmt: skip
            player, position = pick(targets)
            return f"{player} {position} {self.rng.randint(0, int(found[1]))}"
        raise ValueError("the observation asks for no move this agent knows")

    def _on_the_board(self, observation: str, cards: list[list[str]]) -> str:
        """A move at random on Clue's board (but an accusation), from the request line and the board drawn."""
        request = observation.strip().splitlines()[-1]
        if request.startswith("Your turn: 'roll'"):
            return "passage" if "'passage'" in request and self.rng.random() < 0.5 else "roll"
        if request.startswith("Nothing is within reach"):
            return "stay"
        if request.startswith("Move: 'go ROOM'"):
            squares = [f"{int(line[:2])},{x - 3}" for line in observation.splitlines() if re.match(r"[ \d]\d ", line)
                       for x, mark in enumerate(line) if mark == "*" and x >= 3]  # fmt: skip
            rooms = re.search(r"^rooms within reach: (.+)$", observation, re.M)
            return "go " + self.rng.choice(squares + (rooms[1].split(", ") if rooms else []))
        if found := re.match(r"You may suggest \(in the (.+)\), accuse or end your turn\.$", request):
            return f"suggest {self.rng.choice(cards[0])}, {self.rng.choice(cards[1])}, {found[1]}"
        if request == "You may accuse or end your turn.":
            return "end"
        raise ValueError(f"the observation asks for no move of Clue's board this agent knows: {request!r}")


#: The largest request body the endpoint reads (bytes); a larger one is refused with HTTP 413.
MAX_BODY = 4 * 1024 * 1024
#: The most choices a request may ask for (``n``).
MAX_CHOICES = 8


class BadRequest(ValueError):
    """A request the endpoint refuses: its HTTP status and message, as OpenAI words them."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def usage(messages: list[dict[str, str]], replies: list[str]) -> dict[str, int]:
    """What the endpoint reports as token counts: whitespace-separated words (it has no model's tokenizer)."""
    prompt = sum(len(message["content"].split()) for message in messages)
    completion = sum(len(reply.split()) for reply in replies)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def read_request(raw: bytes) -> dict[str, Any]:
    """A chat completion request's fields, checked: ``model`` (a name), ``messages`` (each a role and its text,
    or a list of text parts), ``n``, ``stream``, ``stream_options``.

    Raises:
        BadRequest: what is wrong, named.
    """
    try:
        body = json.loads(raw)
    except RecursionError:
        raise BadRequest("the body nests too deeply to be a chat completion request") from None
    except ValueError:
        raise BadRequest("the body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("a chat completion request is a JSON object with a model and messages")
    model, messages = body.get("model"), body.get("messages")
    if not isinstance(model, str):
        raise BadRequest(f"'model' must be a model's name (a string), got {type(model).__name__}")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty list of messages")
    texts = []
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # text parts, as OpenAI also takes them
            parts = [part.get("text") for part in content if isinstance(part, dict)]
            content = "".join(part for part in parts if isinstance(part, str)) if len(parts) == len(content) else None
        if not isinstance(content, str) or not isinstance(message.get("role"), str):
            raise BadRequest(f"messages[{i}] must have a 'role' and a 'content' (text)")
        texts.append({"role": message["role"], "content": content})
    n = body.get("n", 1)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_CHOICES:
        raise BadRequest(f"'n' must be an integer from 1 to {MAX_CHOICES}, got {n!r}")
    stream, options = body.get("stream", False), body.get("stream_options")
    if not isinstance(stream, bool):
        raise BadRequest(f"'stream' must be true or false, got {stream!r}")
    if options is not None and not isinstance(options, dict):
        raise BadRequest(f"'stream_options' must be an object, got {type(options).__name__}")
    return {"model": model, "messages": texts, "n": n, "stream": stream, "usage": bool((options or {}).get(
        "include_usage"))}  # fmt: skip


#: The text agents the endpoint can be, by model name: for a single-player game, and for a multiplayer one.
AGENTS = ("ises", "random_consistent", "bad")
TABLE_AGENTS = ("random", "random_bad")


def text_agent(name: str, env_id: str, sizes: dict[str, Any] | None = None) -> Any:
    """The text agent ``name`` (one of :data:`AGENTS`, or :data:`TABLE_AGENTS` for a multiplayer ``env_id``) for
    ``env_id`` at ``sizes``."""
    from deduction_envs import registry

    if registry.game(env_id).multiplayer:
        if name not in TABLE_AGENTS:
            raise ValueError(f"the endpoint's agents for {env_id} are {', '.join(TABLE_AGENTS)}, got {name!r}")
        return RandomSeatText(bad_every=3 if name == "random_bad" else 0)
    env = gym.make(env_id, **(sizes or {}))
    text = SingleText(env.unwrapped.rules, env.unwrapped.max_steps)  # type: ignore[attr-defined]
    if name == "ises":
        return TextAgent(ISES(), text)
    if name == "random_consistent":
        return TextAgent(RandomAgent(consistent=True), text)
    if name == "bad":
        return BadTextAgent(text)
    raise ValueError(f"the endpoint's agents are {', '.join(AGENTS)}, got {name!r}")


def app(env_id: str, sizes: dict[str, Any] | None = None, fail_every: int = 0, delay: float = 0.0) -> Any:
    """The Starlette app: ``POST /v1/chat/completions`` answered by the text agent the request's model names.

    ``fail_every``: every so many calls fail (HTTP 503), to try a client's retries; ``delay``: seconds before
    each reply (to try its timeout)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    from deduction_envs import registry

    multiplayer = registry.game(env_id).multiplayer
    names = TABLE_AGENTS if multiplayer else AGENTS
    agents: dict[str, Any] = {}
    calls = itertools.count(1)
    lock = threading.Lock()

    def refused(message: str, status: int) -> JSONResponse:
        kind = "invalid_request_error" if status < 500 else "server_error"
        return JSONResponse({"error": {"message": message, "type": kind}}, status)

    async def completions(request: Request) -> Response:
        try:
            declared = request.headers.get("content-length")
            if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
                raise BadRequest(f"the body is larger than {MAX_BODY:,} bytes", 413)
            raw = bytearray()
            async for chunk in request.stream():
                raw += chunk
                if len(raw) > MAX_BODY:
                    raise BadRequest(f"the body is larger than {MAX_BODY:,} bytes", 413)
            asked = read_request(bytes(raw))
        except BadRequest as error:
            return refused(str(error), error.status)
        model, messages = asked["model"], asked["messages"]
        observation = messages[-1]["content"]
        system = messages[0]["content"] if messages[0]["role"] == "system" else ""
        with lock:
            call = next(calls)
            if model not in agents and model in names:
                agents[model] = text_agent(model, env_id, sizes)
        if model not in agents:
            return refused(f"no model {model!r}; this endpoint has {names}", 404)
        if fail_every and call % fail_every == 0:
            return refused("overloaded, try again", 503)
        if delay:
            time.sleep(delay)
        try:
            with lock:  # one agent object serves every game: one reply at a time
                agent = agents[model]
                replies = [agent.reply(system, observation) if multiplayer else agent.reply(observation)
                           for _ in range(asked["n"])]  # fmt: skip
        except ValueError as error:  # the last message is no game's observation this agent can read
            return refused(f"the last message is not this endpoint's game ({env_id}) as its text layer writes it: "
                           f"{error}", 400)  # fmt: skip
        counted = usage(messages, replies)
        head = {"id": f"local-{call}", "created": int(time.time()), "model": model}
        if asked["stream"]:  # server-sent events, as OpenAI streams: each whole reply in one chunk, then the end
            chunks = [{**head, "object": "chat.completion.chunk", "choices": [
                {"index": i, "delta": {"role": "assistant", "content": reply}, "finish_reason": None}]}
                for i, reply in enumerate(replies)]  # fmt: skip
            chunks += [{**head, "object": "chat.completion.chunk",
                        "choices": [{"index": i, "delta": {}, "finish_reason": "stop"}]}
                       for i in range(len(replies))]  # fmt: skip
            if asked["usage"]:
                chunks.append({**head, "object": "chat.completion.chunk", "choices": [], "usage": counted})
            events = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
            return Response(events, media_type="text/event-stream")
        choices = [{"index": i, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}
                   for i, reply in enumerate(replies)]  # fmt: skip
        return JSONResponse({**head, "object": "chat.completion", "usage": counted, "choices": choices})

    async def models(request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": name, "object": "model", "created": 0,
                                                         "owned_by": "deduction-envs"} for name in names]})  # fmt: skip

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"]),
                             Route("/v1/models", models, methods=["GET"])])  # fmt: skip


@contextmanager
def running(asgi_app: Any, port: int = 0, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve ``asgi_app`` with uvicorn in a thread of this process while the ``with`` block runs; yields its
    address (``http://HOST:PORT``). ``port`` 0: a free one."""
    import socket

    import uvicorn

    listener = socket.socket()
    # Accepted connections inherit it: without it each reply on a kept-alive connection waited ~40 ms on Nagle's
    # algorithm and the client's delayed acknowledgement (20 requests a second; about 480 with it).
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # started again at once on the same port
    listener.bind((host, port))
    # A second to finish what is in flight on shutdown, not the time a kept-alive client takes to hang up.
    server = uvicorn.Server(uvicorn.Config(asgi_app, log_level="warning", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://{host}:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()


@contextmanager
def serve(env_id: str, sizes: dict[str, Any] | None = None, port: int = 0, **options: Any) -> Iterator[str]:
    """Run the endpoint on 127.0.0.1 in a thread of this process while the ``with`` block runs; yields its base
    URL (``http://127.0.0.1:PORT/v1``). ``port`` 0: a free one. ``options``: :func:`app`'s."""
    with running(app(env_id, sizes, **options), port) as address:
        yield address + "/v1"


def main(argv: list[str] | None = None) -> None:
    from train import arguments

    parser = arguments.Parser(prog="python -m train.llm.endpoint", description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--env", default="Mastermind-v0", help="the env its agents play (any env id)")
    arguments.add_size_option(parser)
    parser.add_argument("--port", type=arguments.port, default=8000, help="its port on 127.0.0.1 (default 8000)")
    args = parser.parse_args(argv)
    with serve(args.env, dict(args.size), args.port) as url:
        from deduction_envs import registry

        names = TABLE_AGENTS if registry.game(args.env).multiplayer else AGENTS
        print(f"serving {', '.join(names)} on {args.env} at {url} (Ctrl-C to stop)", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()

