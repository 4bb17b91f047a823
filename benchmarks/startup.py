"""Start-up cost of the large single-player envs: construction, first reset, first step.

Each measurement runs in a fresh process, so nothing memoised by an earlier
run (feedback rows, traced rays, word tables) is reused; FrozenLake-v1 is
measured the same way as the reference.

    python -m benchmarks.startup
    python -m benchmarks.startup --repeats 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from train import arguments

DEFAULT_ENVS: list[tuple[str, dict]] = [
    ("FrozenLake-v1", {}),
    ("BlackBox-v0", {}),
    ("Wordle-v0", {}),
    ("Mastermind-v0", {}),
]

_PROBE = """
import json, sys, time
import gymnasium as gym
import deduction_envs  # noqa: F401
env_id, kwargs = sys.argv[1], json.loads(sys.argv[2])
t0 = time.perf_counter()
env = gym.make(env_id, **kwargs)
t1 = time.perf_counter()
env.reset(seed=0)
t2 = time.perf_counter()
env.step(1)
t3 = time.perf_counter()
env.reset(seed=1)
t4 = time.perf_counter()
env.step(1)
t5 = time.perf_counter()
print(json.dumps([t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4]))
"""

COLUMNS = ("make", "first reset", "first step", "second reset", "second step")


def measure(env_id: str, kwargs: dict) -> list[float]:
    """Seconds for make, reset, step, then a second reset and step, in a fresh interpreter."""
    output = subprocess.run(
        [sys.executable, "-c", _PROBE, env_id, json.dumps(kwargs)], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(output)


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per env; the median is kept")
    args = parser.parse_args(argv)
    print(f"{'env':<18}" + "".join(f"{c + ' (ms)':>20}" for c in COLUMNS))
    for env_id, kwargs in DEFAULT_ENVS:
        runs = [measure(env_id, kwargs) for _ in range(args.repeats)]
        medians = [statistics.median(column) for column in zip(*runs, strict=True)]
        print(f"{env_id:<18}" + "".join(f"{1e3 * m:>20.2f}" for m in medians))


if __name__ == "__main__":
    main()
