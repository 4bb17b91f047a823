"""The batched VectorEnv against Gymnasium's SyncVectorEnv of single envs: steps per second, random play.

    python -m benchmarks.batched                      # Mastermind, N = 64 and 1024
    python -m benchmarks.batched --env Wordle-v0 --envs 64 256 --seconds 5

Both built by ``gym.make_vec`` (the batched env is the registry's vector
entry point; ``vectorization_mode="sync"`` gives N single envs), stepped with
the same pre-drawn uniform random actions, autoreset on; each measurement
runs ``--seconds`` after a warm-up step, and the two alternate ``--repeats``
times (the median kept), so that a noisy machine affects both alike.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import gymnasium as gym
import numpy as np

import deduction_envs  # noqa: F401  (registers the envs)
from train import arguments


def steps_per_second(envs: gym.vector.VectorEnv, seconds: float, seed: int = 0) -> float:
    """Sub-env steps per second of random play (``num_envs`` per ``step``)."""
    envs.reset(seed=seed)
    n, actions = envs.num_envs, envs.single_action_space.n
    pool = np.random.default_rng(seed).integers(actions, size=(64, n))
    envs.step(pool[0])  # warm-up: memo rows, first allocations
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        envs.step(pool[steps % 64])
        steps += 1
    return steps * n / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="Mastermind-v0", help="a game with a batched env (default Mastermind-v0)")
    parser.add_argument("--envs", type=int, nargs="+", default=[64, 1024], help="num_envs values (default 64 1024)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="alternating measurements; the median is kept")
    args = parser.parse_args(argv)
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}")
    print(f"# {args.env}, random play, sub-env steps per second (median of {args.repeats})\n")
    print("| num_envs | sync | batched | ratio |")
    print("|---:|---:|---:|---:|")
    for n in args.envs:
        sync = gym.make_vec(args.env, num_envs=n, vectorization_mode="sync")
        batched = gym.make_vec(args.env, num_envs=n, vectorization_mode="vector_entry_point")
        rates: dict[str, list[float]] = {"sync": [], "batched": []}
        for _ in range(args.repeats):
            rates["sync"].append(steps_per_second(sync, args.seconds))
            rates["batched"].append(steps_per_second(batched, args.seconds))
        a, b = (statistics.median(rates[k]) for k in ("sync", "batched"))
        print(f"| {n} | {a:,.0f} | {b:,.0f} | x{b / a:.1f} |")


if __name__ == "__main__":
    main()
