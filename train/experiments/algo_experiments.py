"""The Algo article's experiments, reproduced: the epsilon-greedy round robin and max-entropy against it.

    python -m train.experiments.algo_experiments                 # the article's numbers of games
    python -m train.experiments.algo_experiments --games 1000 --duel-games 1000 --ismcts-games 100 --search-games 500

Experiment 1: ``AlgoEpsilonGreedy(epsilon)`` for epsilon in {0, 0.1, 0.5, 1}
(epsilon is the probability of stopping after a hit) plays every ordered
pairing, first player against second, ``--games`` times on two-player Algo.
The table is the article's: the first player's win rate per pairing, the
row means (each epsilon moving first) and the column means of the second
player's win rate (each epsilon moving second), then both with 95% Wilson
intervals.

Experiment 2: ``AlgoMaxEntropy()`` against ``AlgoEpsilonGreedy(0.1)``,
``--duel-games`` games with each moving first (the article: 50), with the
article's one-sided z-test of the max-entropy agent's win rate against 0.5.
Experiment 3 (not in the article): ``SOISMCTS(iterations=200)`` against
each of them, ``--ismcts-games`` games with each moving first. Experiment 4
(not in the article): SO-ISMCTS with :class:`~agents.multiplayer_ismcts.AlgoSearchPolicy`
(the likeliest attack and stopping at the root, epsilon-greedy(0.1) players
in the rollouts; 100 iterations, the roster's ``ismcts_greedy``) against
each of them, ``--search-games`` games with each moving first. Writes
``algo.md`` to ``--output``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.stats import binomtest, norm
from tqdm import tqdm

from agents.algo_agents import AlgoEpsilonGreedy, AlgoMaxEntropy
from agents.multiplayer import SeatAgent, play_game
from agents.multiplayer_ismcts import SOISMCTS
from agents.roster import seat_agent
from deduction_envs.games.algo import AlgoRules
from train import arguments
from train.stats import format_p, interval

EPSILONS = (0.0, 0.1, 0.5, 1.0)

#: The article's Experiment 1 table (first player's win rate, 100 games per cell; rows first, columns second).
ARTICLE_TABLE = np.array(
    [[0.60, 0.48, 0.60, 0.77], [0.55, 0.49, 0.59, 0.82], [0.44, 0.48, 0.47, 0.85], [0.28, 0.25, 0.12, 0.54]]
)


def round_robin(games: int, seed: int = 0) -> np.ndarray:
    """``wins[i, j]``: games the first player (epsilon i) won against the second (epsilon j)."""
    rules = AlgoRules()
    wins = np.zeros((len(EPSILONS), len(EPSILONS)), dtype=int)
    with tqdm(total=wins.size * games, desc="Experiment 1 games") as bar:
        for i, first in enumerate(EPSILONS):
            for j, second in enumerate(EPSILONS):
                agents = [AlgoEpsilonGreedy(first), AlgoEpsilonGreedy(second)]
                for g in range(games):
                    wins[i, j] += play_game(rules, agents, seed=(seed, i, j, g), first=0).winner == 0
                    bar.update()
    return wins


def duel(games: int, seed: int = 0, first: SeatAgent | None = None, second: SeatAgent | None = None) -> tuple[int, int]:
    """Wins of ``first`` (default max-entropy) against ``second`` (default epsilon-greedy(0.1)):
    (moving first, moving second), ``games`` each."""
    first = first or AlgoMaxEntropy()
    second = second or AlgoEpsilonGreedy(0.1)
    rules = AlgoRules()
    wins = [0, 0]
    with tqdm(total=2 * games, desc=f"{first.name} v {second.name}") as bar:
        for seat in (0, 1):
            agents = [first, second] if seat == 0 else [second, first]
            for g in range(games):
                wins[seat] += play_game(rules, agents, seed=(seed, 9, seat, g), first=0).winner == seat
                bar.update()
    return wins[0], wins[1]


def z_test(wins: int, games: int) -> tuple[float, float]:
    """The article's one-sided z-test of a win rate against 0.5: (u0, p-value)."""
    u0 = (wins / games - 0.5) / np.sqrt(0.25 / games)
    return float(u0), float(norm.sf(u0))


def _interval(successes: int, trials: int) -> str:
    low, high = interval(successes, trials)
    return f"{successes / trials:.3f} [{low:.3f}, {high:.3f}]"


def write_report(
    wins: np.ndarray,
    games: int,
    duel_wins: tuple[int, int],
    duel_games: int,
    ismcts: dict[str, tuple[int, int]],
    ismcts_games: int,
    path: Path,
    command: str,
    search: dict[str, tuple[int, int]] | None = None,
    search_games: int = 0,
) -> str:
    rates = wins / games
    header = " | ".join(f"{e:g}" for e in EPSILONS)
    lines = [
        "# Algo: the article's experiments",
        "",
        f"Command: `{command}`. Two players, epsilon-greedy agents with exact hit probabilities "
        "(`AlgoHandPosterior`); epsilon is the probability of stopping after a hit.",
        "",
        "## Experiment 1: epsilon round robin",
        "",
        f"First player's win rate, {games} games per cell (rows: first player's epsilon; columns: second's). "
        "The article's figure (100 games per cell) is in brackets.",
        "",
        f"| first \\ second | {header} | mean |",
        "| --- | " + " | ".join("---:" for _ in EPSILONS) + " | ---: |",
    ]
    for i, e in enumerate(EPSILONS):
        cells = " | ".join(f"{rates[i, j]:.2f} ({ARTICLE_TABLE[i, j]:.2f})" for j in range(len(EPSILONS)))
        lines.append(f"| {e:g} | {cells} | {rates[i].mean():.3f} |")
    second = 1 - rates.mean(axis=0)
    lines.append("| mean as second (1 - win rate) | " + " | ".join(f"{v:.3f}" for v in second) + " | |")
    lines += [
        "",
        "Each epsilon's win rate against the other three (the diagonal left out), with 95% Wilson intervals:",
        "",
        "| epsilon | moving first | moving second | overall |",
        "| --- | ---: | ---: | ---: |",
    ]
    others = ~np.eye(len(EPSILONS), dtype=bool)
    trials = (len(EPSILONS) - 1) * games
    for i, e in enumerate(EPSILONS):
        first = int(wins[i, others[i]].sum())
        second = trials - int(wins[others[:, i], i].sum())
        row = f"| {e:g} | {_interval(first, trials)} | {_interval(second, trials)} "
        lines.append(row + f"| {_interval(first + second, 2 * trials)} |")
    first_total = int(wins.sum())
    lines += ["", f"First player overall: {_interval(first_total, int(wins.size * games))}."]
    total = sum(duel_wins)
    u0, p_value = z_test(total, 2 * duel_games)
    verdict = "significant" if p_value < 0.05 else "not significant"
    lines += [
        "",
        "## Experiment 2: max-entropy against epsilon-greedy(0.1)",
        "",
        f"{duel_games} games with each moving first. Max-entropy: depth 2, top 5 attacks, 8 samples for S and T.",
        "",
        "| | max-entropy's win rate | the article (50 games) |",
        "| --- | ---: | ---: |",
        f"| max-entropy moving first | {_interval(duel_wins[0], duel_games)} | 0.54 |",
        f"| max-entropy moving second | {_interval(duel_wins[1], duel_games)} | 0.54 |",
        f"| overall | {_interval(total, 2 * duel_games)} | 0.54 |",
        "",
        f"One-sided z-test against 0.5: u0 = {u0:.2f}, p = {p_value:.3g}: {verdict} at 5% "
        "(the article: u0 = 0.8 over 100 games, not significant).",
        "",
        "## Experiment 3: SO-ISMCTS (200 iterations per decision, random rollouts)",
        "",
        f"{ismcts_games} games with each moving first; SO-ISMCTS's win rate with 95% Wilson intervals.",
        "",
    ]
    lines += _duel_table("SO-ISMCTS", ismcts, ismcts_games)
    if search:
        lines += [
            "",
            "## Experiment 4: SO-ISMCTS with epsilon-greedy play-outs (100 iterations per decision)",
            "",
            "`ismcts_greedy`: the root searches the likeliest attack and stopping; below it and in the "
            "rollouts every seat plays epsilon-greedy(0.1) from its own view of the determinisation. "
            f"{search_games} games with each moving first; its win rate with 95% Wilson intervals and a "
            "one-sided binomial test against 0.5.",
            "",
        ]
        lines += _duel_table("ismcts_greedy", search, search_games, test=True)
    text = "\n".join(lines) + "\n"
    path.write_text(text)
    return text


def _duel_table(agent: str, wins: dict[str, tuple[int, int]], games: int, test: bool = False) -> list[str]:
    """Rows of ``agent``'s win rate against each opponent: (wins moving first, moving second), ``games`` each."""
    lines = [
        f"| opponent | {agent} moving first | moving second | overall |" + (" p (one-sided, > 0.5) |" if test else ""),
        "| --- | ---: | ---: | ---: |" + (" ---: |" if test else ""),
    ]
    for name, (as_first, as_second) in wins.items():
        total = as_first + as_second
        row = f"| {name} | {_interval(as_first, games)} | {_interval(as_second, games)} "
        row += f"| {_interval(total, 2 * games)} |"
        if test:
            row += f" {format_p(binomtest(total, 2 * games, alternative='greater').pvalue)} |"
        lines.append(row)
    return lines


def main(argv: list[str] | None = None) -> np.ndarray:
    parser = argparse.ArgumentParser(
        prog="python -m train.experiments.algo_experiments",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=arguments.count(1), default=100, help="games per ordered pairing (default 100)")
    parser.add_argument(
        "--duel-games", type=arguments.count(1), default=50, help="Experiment 2 games per seating (default 50)"
    )
    parser.add_argument(
        "--ismcts-games", type=arguments.count(1), default=50, help="Experiment 3 games per seating (default 50)"
    )
    parser.add_argument(
        "--search-games", type=arguments.count(1), default=50, help="Experiment 4 games per seating (default 50)"
    )
    parser.add_argument("--seed", type=arguments.seed, default=0, help="seed of the deals and agents (default 0)")
    parser.add_argument("--output", type=arguments.output_folder, default=Path("results"), help="folder for algo.md")
    args = parser.parse_args(argv)
    wins = round_robin(args.games, args.seed)
    duel_wins = duel(args.duel_games, args.seed)
    ismcts = {
        opponent.name: duel(args.ismcts_games, args.seed, SOISMCTS(iterations=200), opponent)
        for opponent in (AlgoEpsilonGreedy(0.1), AlgoMaxEntropy())
    }
    search = {
        opponent.name: duel(args.search_games, args.seed, seat_agent("algo_v0", "ismcts_greedy"), opponent)
        for opponent in (AlgoEpsilonGreedy(0.1), AlgoMaxEntropy())
    }
    args.output.mkdir(parents=True, exist_ok=True)
    command = (
        "python -m train.experiments.algo_experiments " + " ".join(sys.argv[1:] if argv is None else argv)
    ).strip()
    path = args.output / "algo.md"
    ismcts_games, search_games = args.ismcts_games, args.search_games
    report = write_report(
        wins, args.games, duel_wins, args.duel_games, ismcts, ismcts_games, path, command, search, search_games
    )
    print(report)
    return wins


if __name__ == "__main__":
    main()
