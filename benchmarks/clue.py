"""Speed of ``clue_v0``: random-play turns per second, and per-turn times with the probability table.

    python -m benchmarks.clue [--games 200]

1. PettingZoo's ``performance_benchmark`` (random legal actions for 5 s) on
   ``clue_v0`` with the probability table off, at 3 to 6
   players, next to ``connect_four_v3`` measured in the same run (needs
   pygame: ``pip install -e ".[bench]"``).
2. With the table on: ``--games`` random games per player count, each turn
   timed from the step to the acting agent's observation (``last()``), which
   is when the table is computed (for that agent only, and only when its
   knowledge changed): p50, p99 and the maximum.
3. Whole games of four ``ClueDeductionSheet`` agents on the pure rules
   (``agents.play_game``): games per second.

With ``--board``, the board (``clue_v0(board=True)``, issue 47) instead:

1. random play with the table off at 2 to 6 players, next to ``connect_four_v3`` in the same run;
2. Velma's decisions on the board at 6 players (``--games`` games of Velma against five deduction sheets,
   every decision of Velma timed: its start-of-turn choice, its move, its suggestion, its refutations):
   p50, p95 and the maximum, per score.
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings

import numpy as np

from benchmarks.algo import turns_per_second
from deduction_envs.envs import clue_v0
from train import arguments


def turn_times(players: int, games: int, seed: int = 0) -> np.ndarray:
    """Seconds from each step to the next acting agent's observation, random play with the table on."""
    env = clue_v0.env(players=players)
    rng = np.random.default_rng(seed)
    times = []
    for game in range(games):
        env.reset(seed=game)
        start = time.perf_counter()
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            times.append(time.perf_counter() - start)
            if termination or truncation:
                env.step(None)
                start = time.perf_counter()
                continue
            start = time.perf_counter()
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return np.array(times)


def sheet_games_per_second(players: int, games: int) -> float:
    from agents import ClueDeductionSheet, play_game
    from deduction_envs.games.clue import ClueRules

    rules = ClueRules(players)
    agents = [ClueDeductionSheet() for _ in range(players)]
    start = time.perf_counter()
    for g in range(games):
        play_game(rules, agents, seed=g)
    return games / (time.perf_counter() - start)


def velma_decision_times(players: int, games: int, score: str) -> np.ndarray:
    """Seconds of each of Velma's decisions on the board, in ``games`` games against deduction sheets."""
    from agents import ClueDeductionSheet, play_game
    from agents.clue_velma import ClueVelma
    from deduction_envs.games.clue_board import ClueBoardRules

    times: list[float] = []

    class Timed(ClueVelma):
        def act(self, mask: np.ndarray) -> int:
            start = time.perf_counter()
            action = super().act(mask)
            times.append(time.perf_counter() - start)
            return action

    rules = ClueBoardRules(players)
    for game in range(games):
        agents = [Timed(score), *(ClueDeductionSheet() for _ in range(players - 1))]
        play_game(rules, agents, seed=game)
    return np.array(times)


def board(games: int) -> None:
    """The board's figures (see the module docstring)."""
    from pettingzoo.classic import connect_four_v3

    reference = turns_per_second(connect_four_v3.env())
    print(f"the board: random play, turns per second, table off (connect_four_v3 in the same run: {reference:,.0f})")
    for players in (2, 3, 4, 5, 6):
        rate = turns_per_second(clue_v0.env(players=players, probabilities=False, board=True))
        print(f"  {players} players: {rate:,.0f} (x{rate / reference:.2f})")
    print(f"\nVelma's decisions on the board, 6 players, against deduction sheets, {games} games each, ms")
    velma_decision_times(6, 1, "sum")  # compile the kernels outside the timings
    for score in ("sum", "rate"):
        t = 1e3 * velma_decision_times(6, games, score)
        print(
            f"  {score}: {t.size} decisions, p50 {np.median(t):.1f}, p95 {np.percentile(t, 95):.1f}, max {t.max():.1f}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="random games per player count with the table on")
    parser.add_argument("--board", action="store_true", help="the board's figures instead (issue 47)")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    if args.board:
        board(args.games)
        return
    from pettingzoo.classic import connect_four_v3

    turn_times(4, 3)  # compile the counting kernels outside the timings
    reference = turns_per_second(connect_four_v3.env())
    print(f"random play, turns per second, table off (connect_four_v3 in the same run: {reference:,.0f})")
    for players in (3, 4, 5, 6):
        rate = turns_per_second(clue_v0.env(players=players, probabilities=False))
        print(f"  {players} players: {rate:,.0f} (x{rate / reference:.2f})")
    print(f"\nrandom play with the table on, ms per turn (step to the next observation), {args.games} games each")
    for players in (3, 4, 5, 6):
        t = 1e3 * turn_times(players, args.games)
        print(
            f"  {players} players: {t.size} turns, p50 {np.median(t):.2f}, p99 {np.percentile(t, 99):.1f}, "
            f"max {t.max():.1f}"
        )
    print("\ndeduction-sheet self-play on the pure rules, games per second")
    for players in (3, 4, 5, 6):
        print(f"  {players} players: {sheet_games_per_second(players, 50):.0f}")


if __name__ == "__main__":
    main()
