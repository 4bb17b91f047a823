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
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["app", "quiet_disconnects", "serve"]


def app(env_id: str = "Mastermind-v0", sizes: dict[str, Any] | None = None, opponents: list[str] | None = None,
        max_invalid: int = 5, sessions: int = 8) -> Any:  # fmt: skip
    """The OpenEnv FastAPI app serving ``env_id`` (up to ``sessions`` games at once)."""
    from fastapi.responses import JSONResponse
    from openenv.core.env_server.http_server import create_fastapi_app

    from train.llm.openenv_env import DeductionAction, DeductionEnvironment, DeductionObservation, RefusedRequest

    DeductionEnvironment(env_id, sizes, opponents, max_invalid)  # its checks (sizes, opponents), before serving
    served = create_fastapi_app(lambda: DeductionEnvironment(env_id, sizes, opponents, max_invalid), DeductionAction,
                                DeductionObservation, max_concurrent_envs=sessions)  # fmt: skip

    async def refused(request: Any, error: Exception) -> JSONResponse:
        status = getattr(error, "status", 400)
        return JSONResponse({"detail": str(error)}, status_code=status)

    served.add_exception_handler(RefusedRequest, refused)
    return served


def quiet_disconnects(asgi_app: Any) -> Any:
    """``asgi_app``, with a WebSocket session its client closed ending quietly: OpenEnv's session handler raises
    on the closed socket, and uvicorn logged two tracebacks for every client that hung up."""
    from starlette.websockets import WebSocketDisconnect

    async def served(scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            await asgi_app(scope, receive, send)
        except WebSocketDisconnect:
            if scope.get("type") != "websocket":
                raise

    return served


@contextmanager
def serve(env_id: str = "Mastermind-v0", sizes: dict[str, Any] | None = None, port: int = 0, host: str = "127.0.0.1",
          **options: Any) -> Iterator[str]:  # fmt: skip
    """Run the server in a thread of this process while the ``with`` block runs; yields its base URL.
    ``port`` 0: a free one. ``options``: :func:`app`'s."""
    from train.llm.endpoint import running

    with running(quiet_disconnects(app(env_id, sizes, **options)), port, host) as url:
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
    from train.llm.session import say_preparing

    say_preparing(args.env)
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
