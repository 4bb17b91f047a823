"""Should the Python rules become a thin facade over the compiled twin (PGX-style)? One game stepped at a time, as
the AEC env and a tree search's play-outs step it: the Python rules against the twin with a batch of one.

    python -m benchmarks.rules_facade                 # every multiplayer game with a twin, default sizes
    python -m benchmarks.rules_facade --seconds 3 --repeats 5

Both play uniformly random legal actions from a new deal to the end, again and again: the Python side is
``rules.legal_mask(state)`` then ``rules.apply(state, action)`` (what SO-ISMCTS's play-outs and the AEC env's
``step`` call), the twin's ``legal_masks()`` then ``step(actions)`` of a batch of one game (what a facade would
call for each step of one game), with a new deal at each game's end on both sides. The two alternate
``--repeats`` times and the medians are kept, so that a busy machine slows both alike. The ratio is the twin's
steps per second over the rules': above 1 a facade would speed single games up.
"""

from __future__ import annotations

import platform
import statistics
import time

import numpy as np

from deduction_envs import registry
from train import arguments


def rules_rate(env_id: str, sizes: dict, seconds: float, seed: int = 0) -> float:
    """Steps per second of the Python rules, one game at a time, in random legal play."""
    rules, rng = registry.game(env_id).make_rules(**sizes), np.random.default_rng(seed)
    state, steps, start = rules.new_game(rng), 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if rules.is_over(state):
            state = rules.new_game(rng)
        rules.apply(state, int(rng.choice(np.flatnonzero(rules.legal_mask(state)))))
        steps += 1
    return steps / (time.perf_counter() - start)


def twin_rate(env_id: str, sizes: dict, seconds: float, seed: int = 0) -> float:
    """Steps per second of the compiled twin with a batch of one game, in random legal play."""
    game = registry.game(env_id)
    make_games = registry.load(game.batched_seats[0])
    games, rng = make_games(game.make_rules(**sizes), 1, seed), np.random.default_rng(seed)
    games.reset()
    every, action = np.ones(1, dtype=bool), np.zeros(1, dtype=np.int64)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if games.over[0]:
            games.reset_games(np.arange(1))
        action[0] = rng.choice(np.flatnonzero(games.legal_masks()[0]))
        games.step(action, every)
        steps += 1
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(prog="python -m benchmarks.rules_facade", description=__doc__)
    parser.add_argument("--seconds", type=arguments.number(0, open_low=True), default=2.0, help="each timing")
    parser.add_argument("--repeats", type=arguments.count(1), default=3, help="alternations (default 3)")
    args = parser.parse_args(argv)
    print(f"{platform.machine()}, Python {platform.python_version()}, medians of {args.repeats}\n")
    print("| game | Python rules (steps/s) | twin, batch of 1 (steps/s) | twin / rules |")
    print("| --- | ---: | ---: | ---: |")
    for game in registry.games(multiplayer=True):
        if game.batched_seats is None:
            continue
        twin_rate(game.env_id, {}, 0.2)  # compile first
        rules, twin = [], []
        for repeat in range(args.repeats):
            rules.append(rules_rate(game.env_id, {}, args.seconds, seed=repeat))
            twin.append(twin_rate(game.env_id, {}, args.seconds, seed=repeat))
        a, b = statistics.median(rules), statistics.median(twin)
        print(f"| {game.env_id} {game.default_sizes()} | {a:,.0f} | {b:,.0f} | x{b / a:.2f} |", flush=True)


if __name__ == "__main__":
    main()
