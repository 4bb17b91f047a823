"""The long fuzz: random play with nonsense in it for minutes, then the fuzz suite at many times its examples.

    python -m benchmarks.fuzz                      # about 6 minutes on the 2-core machine
    python -m benchmarks.fuzz --minutes 1 --scale 2

1. *Single-player play*: every game at its default size through ``gym.make`` (Gymnasium's checkers on),
   actions drawn legal (80%), anywhere in the action space (15%) or outside it (5%: -1, n, 1.5, None, a
   string), which must raise ValueError naming the action and change nothing.
2. *Multiplayer play*: every multiplayer game of the registry (default sizes), legal actions
   with a masked one now and then (the game ends, -1 for its player); at every end, rewards that lie in
   [-1, 1] and sum to 0 (but where a masked action ended the game, or every Clue accusation was wrong: then
   everyone gets the same loss, as documented).
3. *Determinism*: each multiplayer game replayed from its seed and actions in a fresh env: every observation
   the same.
4. *The fuzz suite* (``tests/test_fuzz*.py``, ``tests/test_worst_cases.py``) with each property's examples
   multiplied by ``--scale``.

Any failure is printed with what reproduces it, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
from tqdm import tqdm

from deduction_envs import registry
from train import arguments

MULTIPLAYER = {game.env_id: game.make_env for game in registry.games(multiplayer=True)}
OUTSIDE = [-1, None, 1.5, "0", [0]]
ROOT = Path(__file__).resolve().parent.parent


def single_player(seconds: float, rng: np.random.Generator, counts: Counter, failures: list[str]) -> None:
    """Random play with nonsense in it, every game in turn, for ``seconds``."""
    envs = {game.env_id: game.make_env() for game in registry.games(multiplayer=False)}
    end = time.perf_counter() + seconds
    with tqdm(desc="single-player steps", unit=" steps", disable=None) as bar:
        while time.perf_counter() < end:
            for env_id, env in envs.items():
                seed = int(rng.integers(2**31))
                _, info = env.reset(seed=seed)
                counts["single-player episodes"] += 1
                done, steps = False, []
                while not done:
                    draw = rng.random()
                    n = env.action_space.n
                    if draw < 0.05:
                        action = OUTSIDE[int(rng.integers(len(OUTSIDE)))]
                        action = n if action == -1 and rng.random() < 0.5 else action
                        try:
                            env.step(action)
                        except ValueError:
                            counts["single-player nonsense refused"] += 1
                            continue
                        failures.append(f"{env_id} seed {seed} after {steps}: took {action!r}")
                        break
                    legal = np.flatnonzero(info["action_mask"])
                    action = int(rng.choice(legal)) if draw < 0.85 else int(rng.integers(n))
                    try:
                        _, _, terminated, truncated, info = env.step(action)
                    except Exception as error:  # a fuzzer reports every failure
                        failures.append(f"{env_id} seed {seed} after {steps}: {action} raised {error!r}")
                        break
                    steps.append(action)
                    counts["single-player steps"] += 1
                    bar.update()
                    done = terminated or truncated


def play_game(make, seed: int, rng: np.random.Generator | None, actions: list[int] | None = None):
    """One game: random legal actions (masked now and then) from ``rng``, or ``actions`` replayed.
    Returns the actions, a hash of every observation, the final rewards and whether a masked action ended it."""
    env = make()
    env.reset(seed=seed)
    taken, seen, rewards, masked = [], [], {}, False
    for agent in env.agent_iter(100_000):
        observation, reward, termination, truncation, _ = env.last()
        seen.append(hash(observation["observation"].tobytes()))
        rewards[agent] = reward
        if termination or truncation:
            env.step(None)
            continue
        if actions is not None:
            action = actions[len(taken)]
        else:
            legal = np.flatnonzero(observation["action_mask"])
            anywhere = rng.random() < 0.002
            action = int(rng.integers(env.action_space(agent).n)) if anywhere else int(rng.choice(legal))
        masked |= not observation["action_mask"][action]
        taken.append(action)
        env.step(action)
    return taken, seen, rewards, masked


def multiplayer(seconds: float, rng: np.random.Generator, counts: Counter, failures: list[str]) -> None:
    """Random multiplayer games, each replayed once for determinism, for ``seconds``."""
    end = time.perf_counter() + seconds
    with tqdm(desc="multiplayer games", unit=" games", disable=None) as bar, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a masked action's warning
        while time.perf_counter() < end:
            for name, make in MULTIPLAYER.items():
                seed = int(rng.integers(2**31))
                try:
                    actions, seen, rewards, masked = play_game(make, seed, rng)
                    counts["multiplayer games ended by a masked action"] += masked
                    values = list(rewards.values())
                    lost_by_all = len(set(values)) == 1 and values[0] < 0  # Clue: every accusation wrong
                    if not masked and abs(sum(values)) > 1e-9 and not lost_by_all:  # a masked -1 is alone
                        failures.append(f"{name} seed {seed}: rewards {rewards} do not sum to 0")
                    if any(not -1 <= r <= 1 for r in rewards.values()):
                        failures.append(f"{name} seed {seed}: rewards {rewards} outside [-1, 1]")
                    _, again, _, _ = play_game(make, seed, None, actions)
                    counts["determinism replays"] += 1
                    if again != seen:
                        failures.append(f"{name} seed {seed}: a replay of the same actions observed otherwise")
                except Exception as error:  # a fuzzer reports every failure
                    failures.append(f"{name} seed {seed}: raised {error!r}")
                    continue
                counts["multiplayer games"] += 1
                counts["multiplayer steps"] += len(actions)
                bar.update()


def fuzz_suite(scale: int, counts: Counter, failures: list[str]) -> None:
    """The fuzz suite at ``scale`` times its examples, in a subprocess (pytest)."""
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_fuzz*.py"))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--hypothesis-show-statistics",
               *files, "tests/test_worst_cases.py"]  # fmt: skip
    print(f"DEDUCTION_ENVS_FUZZ_SCALE={scale} {' '.join(command[1:])}", flush=True)
    done = subprocess.run(
        command, cwd=ROOT, env={**os.environ, "DEDUCTION_ENVS_FUZZ_SCALE": str(scale)}, capture_output=True, text=True
    )
    counts["fuzz-suite examples"] += sum(int(n) for n in re.findall(r"(\d+) passing examples", done.stdout))
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:]
    counts["fuzz-suite tests passed"] += int(m[1]) if (m := re.search(r"(\d+) passed", summary)) else 0
    if done.returncode != 0:
        failures.append(f"the fuzz suite: {summary}\n{done.stdout[-4000:]}")


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=4.0, help="random play, split between 1-3 (default 4)")
    parser.add_argument("--scale", type=int, default=5, help="times the fuzz suite's examples (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random play (default 0)")
    args = parser.parse_args(argv)
    if not (0 < args.minutes < float("inf")) or args.scale < 0 or args.seed < 0:
        parser.error("--minutes must be positive and finite, --scale and --seed at least 0")
    rng = np.random.default_rng(args.seed)
    counts: Counter = Counter()
    failures: list[str] = []
    started = time.perf_counter()
    single_player(args.minutes * 30, rng, counts, failures)
    multiplayer(args.minutes * 30, rng, counts, failures)
    if args.scale:
        fuzz_suite(args.scale, counts, failures)
    print(f"\n{time.perf_counter() - started:.0f} s in all; seed {args.seed}, --minutes {args.minutes:g}, "
          f"--scale {args.scale}")  # fmt: skip
    for name, value in counts.items():
        print(f"{name:>34}: {value:,}")
    print(f"{'failures':>34}: {len(failures)}")
    for failure in failures:
        print(f"- {failure}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
