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

__all__ = ["AGENTS", "TABLE_AGENTS", "BadTextAgent", "RandomSeatText", "TextAgent", "running", "serve", "text_agent"]


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
        if "Your turn: suggest or accuse." in observation:
            kinds = re.search(r"The cards \(suspects, weapons, rooms\):\n- (.+)\n- (.+)\n- (.+)", system)
            assert kinds is not None, "the Clue prompt lists the cards"
            kind = "accuse" if self.rng.random() < 0.05 else "suggest"
            return f"{kind} " + ", ".join(pick(kinds[k].split(", ")) for k in (1, 2, 3))
        if found := re.search(r"There are (\d+) cards, numbered 0 to \d+; (\d+) of them are hidden", system):
            cards, hidden = int(found[1]), int(found[2])
            asked = re.search(r"Your turn: ask one of ([P\d, ]+) about", observation)
            if asked is None or self.rng.random() < 0.05:
                return "guess " + ", ".join(map(str, self.rng.sample(range(cards), hidden)))
            count = self.rng.randint(1, min(3, cards))
            return f"ask {pick(asked[1].split(', '))} about {', '.join(map(str, self.rng.sample(range(cards), count)))}"
        if found := re.search(r"Cards are black \(B\) or white \(W\), numbered 0 to (\d+)", system):  # Algo
            if "reveal one of your face-down cards" in observation:
                own = re.search(r"you: (.+)$", observation, re.M)
                assert own is not None, "the Algo table shows the seat's hand"
                return "reveal " + pick(re.findall(r"(\d+):\[", own[1]))
            if "'stop'" in observation and self.rng.random() < 0.5:
                return "stop"
            targets = [(player, position) for player, line in re.findall(r"^\s+(P\d+): (.+)$", observation, re.M)
                       for position in re.findall(r"(\d+):[BW]\?", line)]  # fmt: skip
            player, position = pick(targets)
            return f"{player} {position} {self.rng.randint(0, int(found[1]))}"
        raise ValueError("the observation asks for no move this agent knows")


#: Token counts the endpoint reports (it counts none).
USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}

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

    async def completions(request: Request) -> JSONResponse:
        try:
            body = await request.json()
            model, messages = body["model"], body["messages"]
            observation = str(messages[-1]["content"])
            system = str(messages[0]["content"]) if messages[0].get("role") == "system" else ""
        except (ValueError, KeyError, IndexError, TypeError):
            return JSONResponse({"error": {"message": "a chat completion request has a model and messages"}}, 400)
        with lock:
            call = next(calls)
            if model not in agents and model in names:
                agents[model] = text_agent(model, env_id, sizes)
        if model not in agents:
            return JSONResponse({"error": {"message": f"no model {model!r}; this endpoint has {names}"}}, 404)
        if fail_every and call % fail_every == 0:
            return JSONResponse({"error": {"message": "overloaded, try again"}}, 503)
        if delay:
            time.sleep(delay)
        with lock:  # one agent object serves every game: one reply at a time
            agent = agents[model]
            content = agent.reply(system, observation) if multiplayer else agent.reply(observation)
        message = {"role": "assistant", "content": content}
        if body.get("stream"):  # server-sent events, as OpenAI streams: the whole reply in one chunk, then the end
            head = {"id": f"local-{call}", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": model}  # fmt: skip
            chunks = [{**head, "choices": [{"index": 0, "delta": message, "finish_reason": None}]},
                      {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]  # fmt: skip
            if (body.get("stream_options") or {}).get("include_usage"):
                chunks.append({**head, "choices": [], "usage": USAGE})
            events = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
            return Response(events, media_type="text/event-stream")
        return JSONResponse({"id": f"local-{call}", "object": "chat.completion", "created": int(time.time()),
                             "model": model, "usage": USAGE,
                             "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})  # fmt: skip

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


@contextmanager
def running(asgi_app: Any, port: int = 0, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve ``asgi_app`` with uvicorn in a thread of this process while the ``with`` block runs; yields its
    address (``http://HOST:PORT``). ``port`` 0: a free one."""
    import socket

    import uvicorn

    listener = socket.socket()
    listener.bind((host, port))
    server = uvicorn.Server(uvicorn.Config(asgi_app, log_level="warning"))
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

