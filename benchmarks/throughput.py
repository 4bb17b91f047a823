"""Random-play throughput of the deduction envs next to Gymnasium's FrozenLake-v1.

Every env is created with ``gym.make`` (so the standard wrappers are
included), played with uniformly random actions from its action space (among
the legal ones, drawn with numpy, for games whose legal actions change with
the state), and reset whenever an episode ends. FrozenLake-v1 is measured in
the same run, interleaved, and each figure is reported as a ratio to it,
since absolute rates vary with the machine and its load.

    python -m benchmarks.throughput            # the default envs
    python -m benchmarks.throughput --steps 50000 --repeats 5
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

REFERENCE = ("FrozenLake-v1", {})
DEFAULT_ENVS: list[tuple[str, dict]] = [
    ("Mastermind-v0", {}),
    ("SimpleMastermind-v0", {}),
    ("BullsAndCows-v0", {}),
    ("Wordle-v0", {}),
    ("BlackBox-v0", {}),
    ("FakeCoin-v0", {}),
    ("TreasureHunt-v0", {}),
    ("LowMiddleHigh-v0", {}),
]


def steps_per_second(env_id: str, kwargs: dict, steps: int, seed: int = 0) -> float:
    """Random-play steps per second of one env, resets included."""
    env = gym.make(env_id, **kwargs)
    _, info = env.reset(seed=seed)
    # Not ``seed``: the same seed gives the same stream, and every guess would hit the secret.
    env.action_space.seed(seed + 1)
    sample, step, reset = env.action_space.sample, env.step, env.reset
    rules = getattr(env.unwrapped, "rules", None)
    masked = rules is not None and rules.knowledge_dependent_actions
    # Legal actions drawn by numpy: Gymnasium's sample(mask=...) checks the mask on every call and costs more
    # than a Fake Coin step itself, which would measure the harness rather than the env.
    integers = np.random.default_rng(seed + 1).integers
    start = time.perf_counter()
    for _ in range(steps):
        if masked:
            legal = np.flatnonzero(info["action_mask"])
            action = legal[integers(legal.size)]
        else:
            action = sample()
        _, _, terminated, truncated, info = step(action)
        if terminated or truncated:
            _, info = reset()
    elapsed = time.perf_counter() - start
    env.close()
    return steps / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=50_000, help="steps per measurement (default 50000)")
    parser.add_argument("--repeats", type=int, default=3, help="measurements per env; the median is kept")
    args = parser.parse_args(argv)

    envs = [REFERENCE, *DEFAULT_ENVS]
    rates: dict[str, list[float]] = {env_id: [] for env_id, _ in envs}
    for _ in range(args.repeats):  # interleaved, so load drifts hit every env alike
        for env_id, kwargs in envs:
            rates[env_id].append(steps_per_second(env_id, kwargs, args.steps))
    reference = statistics.median(rates[REFERENCE[0]])
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"{'env':<24}{'steps/s':>12}{'ratio':>10}")
    for env_id, _ in envs:
        rate = statistics.median(rates[env_id])
        print(f"{env_id:<24}{rate:>12,.0f}{rate / reference:>10.2f}")


if __name__ == "__main__":
    main()
