"""MaskablePPO end to end on one core, 4-player Clue (or 2-player Algo): copies of the AEC env, the batched seats
(one learner's seat a game), and self-play on the batched games (the learner on every seat, learning from each).

    python -m benchmarks.batched_training                        # Clue, N = 1024 batched games, 4 players
    python -m benchmarks.batched_training --games 256 --rollouts 3
    python -m benchmarks.batched_training --env algo_v0          # 2-player Algo against epsilon-greedy
    python -m benchmarks.batched_training --env algo_v0 --opponent max_entropy --games 256
    python -m benchmarks.batched_training --n-epochs 4 --batch-size 1024   # a cheaper update

All three train ``python -m train``'s MaskablePPO for the game (its hyperparameters: ``n_steps`` 128, batch 256,
10 epochs, an MLP of 256 x 256, unless ``--n-epochs`` / ``--batch-size`` say otherwise) with torch on one thread;
Clue observed without probabilities, Algo with them:

* reference: ``--copies`` single-seat envs of the AEC env in one process (``python -m train --vec-env dummy``),
  the learner against ``--opponent`` (by default the game's: Clue's deduction sheet, Algo's epsilon-greedy), its
  Python agent;
* batched, one seat: :class:`~train.batched_seats.BatchedSeatsVecEnv` with ``--games`` games, the learner on one
  seat a game against that opponent's compiled twin;
* self-play: :class:`~train.self_play.SelfPlayMaskablePPO` on ``--games`` games whose every seat is the learner's
  (``python -m train --vec-env batched --opponents self``), each seat's decisions a trajectory of its own.

Each is timed over whole rollouts and their updates, torch's checks of distributions off as ``python -m train``
learns (the first rollout, which compiles and warms up, is not counted); the table gives the learner's steps a
second (the decisions trained on: the run's timesteps), the moves of every seat a second (the env's steps), and
the share of the time in the rollouts (env, opponents and the learner's forward passes) and in the updates.
"""

from __future__ import annotations

import platform
import time
from typing import Any

import numpy as np

from train import arguments
from train.training import unchecked_distributions

#: Per game: its sizes, and the opponent both sides train against (the batched side adds ``self``).
GAMES = {
    "clue_v0": ({"players": 4, "probabilities": False}, "deduction_sheet"),
    "algo_v0": ({"players": 2}, "epsilon_greedy"),
}
SIZES = GAMES["clue_v0"][0]


def _model(envs: Any, seed: int = 0, env: str = "clue_v0", algorithm: Any = None, **changes: Any) -> Any:
    from sb3_contrib import MaskablePPO

    from train.config import hyperparameters

    settings = {**hyperparameters("maskable_ppo", env), **changes}
    return (algorithm or MaskablePPO)("MlpPolicy", envs, seed=seed, device="cpu", verbose=0, **settings)


def _timer() -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    class Timer(BaseCallback):
        """The wall time of each rollout and of each update (between a rollout's end and the next's start)."""

        def __init__(self) -> None:
            super().__init__()
            self.rollouts: list[float] = []
            self.updates: list[float] = []
            self._mark = 0.0

        def _on_rollout_start(self) -> None:
            now = time.perf_counter()
            if self.rollouts:
                self.updates.append(now - self._mark)
            self._mark = now

        def _on_rollout_end(self) -> None:
            now = time.perf_counter()
            self.rollouts.append(now - self._mark)
            self._mark = now

        def _on_step(self) -> bool:
            return True

    return Timer()


def measure(envs: Any, rollouts: int, moves: Any, env: str = "clue_v0", algorithm: Any = None,
            **changes: Any) -> dict[str, float]:
    """Train on ``envs`` (of ``env``, with ``algorithm``, MaskablePPO by default) for ``rollouts + 1`` rollouts; the
    figures of all but the first (``moves()``: the moves of every seat so far). ``changes``: hyperparameters other
    than ``python -m train``'s."""
    model = _model(envs, env=env, algorithm=algorithm, **changes)
    per_rollout = model.n_steps * envs.num_envs
    timer = _timer()
    with unchecked_distributions():  # as python -m train learns
        model.learn(per_rollout, callback=timer)  # compiles and warms up
        before, timer.rollouts, timer.updates = moves(), [], []
        trained = model.num_timesteps
        model.learn(per_rollout * rollouts, callback=timer, reset_num_timesteps=False)
    timer.updates.append(time.perf_counter() - timer._mark)  # the last update
    rollout, update = sum(timer.rollouts), sum(timer.updates)
    total = rollout + update
    return {
        "steps": (model.num_timesteps - trained) / total,
        "moves": (moves() - before) / total,
        "rollout": rollout / total,
        "update": update / total,
    }


def _counting(step: Any, counter: list[int]) -> Any:
    def counted(action: Any) -> None:
        counter[0] += 1
        step(action)

    return counted


def _counted_moves(seats: Any) -> Any:
    """Count every seat's moves through the batched ``seats``; returns the counter's reader."""
    step, played = seats.step, [0]

    def counted(actions: np.ndarray, moving: np.ndarray | None = None) -> Any:
        live = ~seats.games.over if moving is None else moving & ~seats.games.over
        played[0] += int(live.sum())
        return step(actions, moving)

    seats.step = counted
    return lambda: played[0]


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(prog="python -m benchmarks.batched_training", description=__doc__)
    parser.add_argument("--env", choices=tuple(GAMES), default="clue_v0", help="the game (default clue_v0)")
    parser.add_argument("--games", type=arguments.count(1), default=1024, help="batched games N (default 1024)")
    parser.add_argument("--copies", type=arguments.count(1), default=8, help="AEC env copies (default 8)")
    parser.add_argument("--rollouts", type=arguments.count(1), default=2, help="rollouts timed (default 2)")
    parser.add_argument("--n-epochs", type=arguments.count(1), default=None, help="epochs an update (default 10)")
    parser.add_argument("--batch-size", type=arguments.count(1), default=None, help="minibatch (default 256)")
    parser.add_argument("--opponent", default=None, help="a reference agent with a compiled twin (default the game's)")
    args = parser.parse_args(argv)
    import tempfile
    from pathlib import Path

    import torch

    from train.config import hyperparameters
    from train.multiplayer import SeatEnvs, make_seat_envs
    from train.self_play import SelfPlayMaskablePPO

    torch.set_num_threads(1)
    changes = {k: v for k, v in (("n_epochs", args.n_epochs), ("batch_size", args.batch_size)) if v is not None}
    settings = {**hyperparameters("maskable_ppo", args.env), **changes}
    with tempfile.TemporaryDirectory() as folder:
        sizes, opponent = GAMES[args.env]
        opponent = args.opponent or opponent
        aec = make_seat_envs(SeatEnvs(args.env, sizes, [opponent], args.copies, 0, Path(folder) / "aec"))
        aec_moves = [0]
        for copy in aec.envs:  # count every seat's moves
            raw = copy.unwrapped.env
            raw.step = _counting(raw.step, aec_moves)
        reference = measure(aec, max(1, args.rollouts // 2), lambda: aec_moves[0], args.env, **changes)
        one_seat = make_seat_envs(SeatEnvs(args.env, sizes, [opponent], args.games, 0, Path(folder) / "b"), "batched")
        batched = measure(one_seat, args.rollouts, _counted_moves(one_seat.venv.seats), args.env, **changes)
        every = make_seat_envs(SeatEnvs(args.env, sizes, ["self"], args.games, 0, Path(folder) / "self"), "batched")
        self_play = measure(every, args.rollouts, _counted_moves(every.seats), args.env, SelfPlayMaskablePPO,
                            **changes)  # fmt: skip
    net = "x".join(map(str, settings.get("policy_kwargs", {}).get("net_arch", [64, 64])))
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, torch "
          f"{torch.__version__}, 1 thread; MaskablePPO (n_steps {settings['n_steps']}, batch "
          f"{settings['batch_size']}, {settings['n_epochs']} epochs, {net})")  # fmt: skip
    print(f"# {args.env} {sizes}, {args.rollouts} rollouts timed after one of warm-up\n")
    print("| run | learner steps/s | moves/s (every seat) | rollout | update | ratio (learner steps) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    rows = [(f"`{args.env}` x {args.copies} (dummy), vs {opponent}", reference),
            (f"batched N = {args.games}, one seat vs {opponent}", batched),
            (f"self-play N = {args.games}, every seat", self_play)]  # fmt: skip
    for label, row in rows:
        print(f"| {label} | {row['steps']:,.0f} | {row['moves']:,.0f} | {row['rollout']:.0%} | {row['update']:.0%} | "
              f"x{row['steps'] / reference['steps']:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
