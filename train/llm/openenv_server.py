"""The deduction games as an `OpenEnv <https://github.com/meta-pytorch/OpenEnv>`_ environment server: any OpenEnv
client (TRL's trainers, verifiers' ``openenv`` taskset, OpenEnv's own ``GenericEnvClient``) plays them over HTTP and
WebSocket, one game a session.

    python -m train.llm.openenv_server --env Mastermind-v0 --port 8001
    python -m train.llm.openenv_server --env clue_v0 --size players=4 --opponents deduction_sheet

Then any OpenEnv client connects to ``http://127.0.0.1:8001``; here with OpenEnv's own, the server in this
process::

    from openenv import GenericEnvClient
    from train.llm.openenv_server import serve

    with serve("Mastermind-v0") as url, GenericEnvClient(base_url=url).sync() as env:
        result = env.reset(game=0, seed=0)  # the rules: result.observation["prompt"]
        result = env.step({"reply": "I will try <answer>AABB</answer>"})
        print(result.observation["text"], result.reward, result.done)

An action is the player's reply (``{"reply": TEXT}``, any text, read as :mod:`deduction_envs.text` says); an
observation is what the player sees (``text``: the game so far, what was wrong with the last reply if anything,
what to do), the rules (``prompt``), and at the end the game's ``outcome`` (solved or the seat's reward, invalid
replies, information efficiency, each question's bits). ``reset(game=i, seed=s)`` is game ``i`` of the evaluation
seeded ``s``: a single-player game on the secret the reference agents' evaluation draws for episode ``i`` (or
``secret=k``), or seat ``i mod players`` of a multiplayer game against the reference agents, dealt from ``(s, i)``
(:mod:`train.llm.session`). The reward of a step is the env's: single-player, -1 a query or a reply that is not one;
multiplayer, the seat's reward (-1 to 1) at the end, the lowest for a forfeit. The server listens on 127.0.0.1
unless ``--host`` says otherwise.
"""

from __future__ import annotations

import argparse
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

__all__ = ["DeductionAction", "DeductionEnvironment", "DeductionObservation", "app", "serve"]


class DeductionAction(Action):
    """The player's reply: any text; its answer is read as its move."""

    reply: str = Field(description="the player's reply: a move in the game's notation, or text ending with one")


class DeductionObservation(Observation):
    """What the player sees, and at the end how the game went."""

    text: str = Field(default="", description="the game so far as the player has seen it, and what to do")
    prompt: str = Field(default="", description="the rules, for a system prompt (at reset)")
    outcome: dict[str, Any] = Field(default_factory=dict, description="how the game went (once done)")


class DeductionEnvironment(Environment[DeductionAction, DeductionObservation, State]):
    """One game at a time of ``env_id`` for a text player (see the module docstring).

    Args:
        env_id: an env id of this package; ``sizes`` its keyword arguments.
        opponents: roster agents in a multiplayer game's other seats (default the game's usual opponent).
        max_invalid: replies that are not a legal move a game allows.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, env_id: str = "Mastermind-v0", sizes: dict[str, Any] | None = None,
                 opponents: list[str] | None = None, max_invalid: int = 5) -> None:  # fmt: skip
        super().__init__()
        from deduction_envs import registry

        registry.game(env_id)  # a clear error for an unknown id
        self.env_id, self.sizes, self.opponents, self.max_invalid = env_id, dict(sizes or {}), opponents, max_invalid
        self._session: Any = None
        self._state = State()
        self._reward = 0.0

    def reset(self, seed: int | None = None, episode_id: str | None = None, game: int = 0,
              secret: int | None = None, **kwargs: Any) -> DeductionObservation:  # fmt: skip
        """A new game: game ``game`` of the evaluation seeded ``seed`` (default 0), or single-player ``secret``."""
        from deduction_envs.core.rules import check_int
        from train.llm.session import GameSession, session

        if kwargs:
            raise ValueError(f"reset takes seed, episode_id, game and secret, got {', '.join(kwargs)}")
        game = check_int("game", game, low=0)
        seed = 0 if seed is None else check_int("seed", seed, low=0)
        if secret is not None:
            self._session = GameSession(self.env_id, self.sizes, {"options": {"secret": secret}}, self.max_invalid)
        else:
            self._session = session(self.env_id, self.sizes, game, seed, self.opponents, self.max_invalid)
        self._state = State(episode_id=episode_id or str(uuid.uuid4()), step_count=0)
        self._reward = 0.0
        return self._observe(prompt=self._session.prompt)

    def step(self, action: DeductionAction, timeout_s: float | None = None, **kwargs: Any) -> DeductionObservation:
        """Play the player's reply."""
        if self._session is None or self._session.done:
            raise RuntimeError("no game in progress: reset() first")
        before = self._session.reward
        self._session.reply(action.reply)
        self._state.step_count += 1
        if self._session.done and "won" in (outcome := self._session.outcome()):
            return self._observe(reward=outcome["reward"] - before)  # a forfeit's lowest reward, not 0
        return self._observe(reward=self._session.reward - before)

    def _observe(self, reward: float | None = None, prompt: str = "") -> DeductionObservation:
        done = bool(self._session.done)
        return DeductionObservation(text=self._session.observation, prompt=prompt, done=done, reward=reward,
                                    outcome=self._session.outcome() if done else {})  # fmt: skip

    @property
    def state(self) -> State:
        return self._state


def app(env_id: str = "Mastermind-v0", sizes: dict[str, Any] | None = None, opponents: list[str] | None = None,
        max_invalid: int = 5, sessions: int = 8) -> Any:  # fmt: skip
    """The OpenEnv FastAPI app serving ``env_id`` (up to ``sessions`` games at once)."""
    from openenv.core.env_server.http_server import create_fastapi_app

    DeductionEnvironment(env_id, sizes, opponents, max_invalid)  # its checks, before serving
    return create_fastapi_app(lambda: DeductionEnvironment(env_id, sizes, opponents, max_invalid), DeductionAction,
                              DeductionObservation, max_concurrent_envs=sessions)  # fmt: skip


@contextmanager
def serve(env_id: str = "Mastermind-v0", sizes: dict[str, Any] | None = None, port: int = 0, host: str = "127.0.0.1",
          **options: Any) -> Iterator[str]:  # fmt: skip
    """Run the server in a thread of this process while the ``with`` block runs; yields its base URL.
    ``port`` 0: a free one. ``options``: :func:`app`'s."""
    from train.llm.endpoint import running

    with running(app(env_id, sizes, **options), port, host) as url:
        yield url


def main(argv: list[str] | None = None) -> None:
    """``python -m train.llm.openenv_server``."""
    from train import arguments

    parser = arguments.Parser(prog="python -m train.llm.openenv_server", description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--env", default="Mastermind-v0", help="the env it serves (any env id)")
    arguments.add_size_option(parser)
    parser.add_argument("--opponents", type=arguments.names, default=None, metavar="NAME[,NAME...]",
                        help="multiplayer: roster agents in the other seats (default: the game's)")  # fmt: skip
    parser.add_argument("--max-invalid", type=arguments.count(1), default=5, help="bad replies that end a game")
    parser.add_argument("--sessions", type=arguments.count(1), default=8, help="games at once (default 8)")
    parser.add_argument("--host", default="127.0.0.1", help="the address it listens on (default 127.0.0.1)")
    parser.add_argument("--port", type=arguments.port, default=8001, help="its port (default 8001)")
    args = parser.parse_args(argv)
    try:
        with serve(args.env, dict(args.size), args.port, args.host, opponents=args.opponents,
                   max_invalid=args.max_invalid, sessions=args.sessions) as url:  # fmt: skip
            print(f"serving {args.env} as an OpenEnv environment at {url} (Ctrl-C to stop)", flush=True)
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    except (ValueError, TypeError) as error:
        parser.error(str(error))


if __name__ == "__main__":
    main()
