"""Clue on the board: Velma against deduction sheets, and the entropy agent against Velma, at 2 to 6 players.

    python -m train.experiments.clue_board_experiments            # results/clue_board.md and .png
    python -m train.experiments.clue_board_experiments --quick    # a look in a minute, written to runs/quick/
    python -m train.experiments.clue_board_experiments --resume   # after an interruption: the unfinished jobs

On the board of :mod:`deduction_envs.games.clue_board` (dice, movement, passages, suggestions only in the
room just entered). Each cell seats one *contender* with ``players - 1`` copies of one *opponent* and plays
``--games`` games, the seats rotated (:func:`agents.play_match`); game ``g`` at a player count is dealt (and its
dice seeded) from ``(--seed, g)`` in every cell, so cells at one player count play the same deals.

Cells: Velma with pyvelma's score (``velma(sum)``: expected entropy in nats plus expected turns to the murder
room) and with the rate pyvelma proposes (``velma(rate)``: expected entropy reduction per expected turn), each
against deduction-sheet agents; and the entropy agent with Velma's accusation threshold (0.79), which heads for
the room of its best suggestion however far it is (no remoteness), against ``velma(sum)`` agents: the two differ
only in how they move.

Reported per cell: the contender's win rate with a 95% Wilson interval and the one-sided binomial tests of it
against the fair share ``1/players`` (above it, and below it: the entropy agent's cell asks whether Velma's
movement beats it); wrong accusations per game of each side; the rounds a game lasts (rolls
and passages over the players); the contender's decision times. ``velma(rate)`` is compared with ``velma(sum)``
on the same deals by an exact two-sided sign test on the games exactly one of the two won. Pyvelma's README
finds Velma "distinctly average one-on-one": the 2-player row says whether it beats deduction sheets there, and
how its margin over the fair share compares with 3 players and more.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import binomtest

from agents import ClueDeductionSheet, ClueEntropyAgent, GameRecord, Logged, SeatAgent
from agents.clue_velma import VELMA_THRESHOLD, ClueVelma
from deduction_envs.games.clue_board import ClueBoardRules
from train import arguments
from train.experiments.runner import (
    Experiment,
    Finished,
    Run,
    gather,
    match_summaries,
    named_agent,
    run_experiment,
    truncated_line,
)
from train.stats import chunks, format_p, interval, sign_test

#: The cells: (contender, opponent).
CELLS = (
    ("velma(sum)", "deduction-sheet"),
    ("velma(rate)", "deduction-sheet"),
    ("entropy(p>=0.79)", "velma(sum)"),
)
PLAYERS = (2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Settings:
    games: int  #: games per cell
    players: tuple[int, ...]
    seed: int
    chunk: int  #: games per job


def make_agent(name: str) -> SeatAgent:
    """A fresh agent of the tournament by its name."""
    makers: dict[str, Callable[[], SeatAgent]] = {
        "velma(sum)": lambda: ClueVelma("sum"),
        "velma(rate)": lambda: ClueVelma("rate"),
        "entropy(p>=0.79)": lambda: ClueEntropyAgent(threshold=VELMA_THRESHOLD),
        "deduction-sheet": ClueDeductionSheet,
    }
    return named_agent(makers, name)


def summarise(rules: ClueBoardRules, record: GameRecord, agents: list[Logged], lineup: tuple[int, ...]) -> dict:
    """One game as numbers: whether the contender won, each side's wrong accusations, the rounds, the times."""
    winner = None if record.winner is None else lineup[record.winner]  # the winner's index among the agents
    kinds = [[rules.decode(action).kind for _, action, _ in agent.log] for agent in agents]
    moves = sum(k.count("roll") + k.count("passage") for k in kinds)
    wrong = [k.count("accuse") - (i == winner) for i, k in enumerate(kinds)]
    return {
        "contender_won": winner == 0,
        "nobody_won": winner is None,
        "truncated": record.truncated,
        "contender_wrong": wrong[0],
        "opponent_wrong": sum(wrong[1:]),
        "rounds": moves / len(agents),
        "contender_times": [seconds for _, _, seconds in agents[0].log],
    }


def play_part(job: tuple[int, str, str, int, int], settings: Settings) -> list[dict]:
    """Games ``[start, start + games)`` of one cell: ``job = (players, contender, opponent, start, games)``."""
    players, contender, opponent, start, games = job
    rules = ClueBoardRules(players)
    agents = [Logged(make_agent(contender)), *(Logged(make_agent(opponent)) for _ in range(players - 1))]
    return match_summaries(rules, agents, games, settings.seed, start, summarise)


def jobs(settings: Settings) -> list[tuple[int, str, str, int, int]]:
    """Every cell in parts of ``chunk`` games, the largest tables first (the workers finish together)."""
    out = [
        (players, contender, opponent, start, games)
        for players in settings.players
        for contender, opponent in CELLS
        for start, games in chunks(settings.games, settings.chunk)
    ]
    return sorted(out, key=lambda job: -job[0])


def report(results: dict[tuple[int, str, str], list[dict]], settings: Settings, run: Run) -> str:
    """The markdown of ``clue_board.md``."""
    lines = [
        "# Clue on the board: Velma, the entropy agent and deduction sheets",
        "",
        f"Written by `{run.command}` in {run.minutes:.0f} minutes {run.where}. "
        "See `train/experiments/clue_board_experiments.py` for the design: one contender against `players - 1` "
        "copies of one opponent on the board, seats rotated, the same deals and dice in every cell at a player "
        "count.",
        "",
        "Win rate: the contender's, with its 95% Wilson interval; *p above* / *p below*: one-sided binomial tests of "
        "it against the fair share 1/players (above it; below it). Wrong: wrong accusations per game by the "
        "contender and by all the opponents together. Rounds: rolls and passages per player, mean. Decisions: the "
        "contender's time per decision, mean and 95th percentile.",
        "",
        "![Win rates by player count](clue_board.png)",
        "",
        truncated_line(results),
        "",
        "| players | contender | opponents | games | win rate [95% CI] | p above | p below "
        "| wrong (contender / opponents) | rounds | decisions ms (mean / p95) |",
        "|---:|---|---|---:|---|---:|---:|---|---:|---|",
    ]
    for players in settings.players:
        for contender, opponent in CELLS:
            games = results.get((players, contender, opponent))
            if not games:
                continue
            n, wins = len(games), sum(g["contender_won"] for g in games)
            low, high = interval(wins, n)
            above = binomtest(wins, n, 1 / players, alternative="greater").pvalue
            below = binomtest(wins, n, 1 / players, alternative="less").pvalue
            times = 1e3 * np.array([t for g in games for t in g["contender_times"]])
            lines.append(
                f"| {players} | {contender} | {opponent} | {n} | {wins / n:.3f} [{low:.3f}, {high:.3f}] "
                f"| {format_p(above)} | {format_p(below)} | {np.mean([g['contender_wrong'] for g in games]):.3f} / "
                f"{np.mean([g['opponent_wrong'] for g in games]):.3f} | {np.mean([g['rounds'] for g in games]):.1f} "
                f"| {times.mean():.0f} / {np.percentile(times, 95):.0f} |"
            )
    lines += ["", "`velma(rate)` against `velma(sum)` on the same deals, both against deduction sheets (sign test on",
              "the games exactly one of the two won, two-sided):", ""]  # fmt: skip
    for players in settings.players:
        base = results.get((players, "velma(sum)", "deduction-sheet"))
        other = results.get((players, "velma(rate)", "deduction-sheet"))
        if not base or not other:
            continue
        won = [[g["contender_won"] for g in games] for games in (other, base)]  # game g of both: the same deal
        only_rate, only_sum, p = sign_test(*won)
        verdict = "significant at 5%" if p < 0.05 else "not significant"
        lines.append(
            f"- {players} players: the rate won {only_rate} games the sum lost, lost {only_sum} it won "
            f"(p = {format_p(p)}, {verdict})."
        )
    return "\n".join(lines) + "\n"


def plot(results: dict[tuple[int, str, str], list[dict]], players: list[int], path: Path) -> None:
    """Win rates with 95% intervals by player count, one line per cell, and the fair share."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from train.plotting import save

    figure, ax = plt.subplots(figsize=(6.5, 4.2))
    for k, (contender, opponent) in enumerate(CELLS):
        xs, ys, errors = [], [], []
        for p in players:
            games = results.get((p, contender, opponent))
            if not games:
                continue
            wins = sum(g["contender_won"] for g in games)
            low, high = interval(wins, len(games))
            xs.append(p + 0.08 * (k - 1))
            ys.append(wins / len(games))
            errors.append((wins / len(games) - low, high - wins / len(games)))
        if xs:
            label = f"{contender} vs {opponent}"
            ax.errorbar(xs, ys, yerr=np.array(errors).T, marker="o", capsize=3, label=label, color=f"C{k}")
    ax.plot(players, [1 / p for p in players], "k--", linewidth=1, label="fair share 1/players")
    ax.set_xlabel("players")
    ax.set_ylabel("contender's win rate")
    ax.set_xticks(players)
    ax.set_ylim(0, 1)
    ax.set_title("Clue on the board")
    ax.legend(fontsize=8)
    save(figure, path)


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=arguments.count(1), default=200, help="games per cell (default 200)")
    parser.add_argument("--players", type=arguments.count(2, 6), nargs="+", default=list(PLAYERS), choices=PLAYERS)
    parser.add_argument("--chunk", type=arguments.count(1), default=20, help="games per job (default 20)")


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    chosen = Settings(args.games, tuple(args.players), args.seed, args.chunk)
    if args.quick:  # 4 games a cell, 2 and 3 players
        return replace(chosen, games=4, players=tuple(p for p in chosen.players if p <= 3) or (2,), chunk=4)
    return chosen


def write(settings: Settings, parts: dict[tuple, list[dict]], run: Run) -> str:
    """``clue_board.md`` and ``clue_board.png``."""
    results = gather(parts)
    text = report(results, settings, run)
    (run.output / "clue_board.md").write_text(text)
    plot(results, list(settings.players), run.output / "clue_board.png")
    return text


EXPERIMENT: Experiment[Settings, Any, list[dict]] = Experiment(
    "clue_board_experiments", __doc__, options, settings, jobs, play_part, write, job_name="jobs"
)


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
