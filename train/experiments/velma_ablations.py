"""What Velma's room remoteness and its model of the refuter are worth, under both accusation rules (issue 64).

    python -m train.experiments.velma_ablations            # results/velma_ablations.md and .png
    python -m train.experiments.velma_ablations --quick    # a look in a minute, written to runs/quick/
    python -m train.experiments.velma_ablations --resume   # after an interruption: the unfinished jobs

Pyvelma's README (``../shared/references/pyvelma-readme.txt``) scores where to move by the suggestion a room
allows *plus* the room's remoteness, the expected rolls to the murder room, because "there's no point making a
perfect suggestion if it lands you so far away from the murder room you get beaten to the accusation"; and it
scores suggestions assuming a refuter "shows the least helpful (i.e. least entropy-reducing) card".

Each cell seats one *contender*, Velma changed in one thing, with ``players - 1`` copies of Velma as pyvelma
describes it (``velma(sum)``: remoteness weight 1, refuters modelled as choosing uniformly, this suite's
default), on the board, seats rotated, and plays ``--games`` games (:func:`agents.play_match`); game ``g`` at a
player count is dealt (and its dice seeded) from ``(--seed, g)`` in every cell. If the change is worth nothing
the contender wins its fair share, ``1/players``.

* **Remoteness, the clean ablation**: the contender is Velma with remoteness weight 0 and everything else equal
  (where to move is scored by the suggestion of the room reached alone), under each accusation rule of
  :class:`~deduction_envs.games.clue_board.ClueBoardRules`: ``anywhere`` (this suite's default: accuse at any
  decision of one's turn) and ``room`` (the classic rule and pyvelma's: only in the room entered this turn,
  naming it). What remoteness is worth is the fair share minus the contender's win rate.
* **The refuter model**: the contender models refuters as pyvelma does (``adversarial``: the card that tells
  the asker least), under the default rule.

Reported per cell: the contender's win rate with a 95% Wilson interval, the two-sided binomial test against the
fair share, the rounds a game lasts, wrong accusations, and the contender's decision times; per change, the
player counts pooled (a two-sided test of the sum of the wins against the sum of the fair shares, by the normal
approximation to the Poisson-binomial).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import binomtest, norm

from agents import Logged, SeatAgent
from agents.clue_velma import ClueVelma
from deduction_envs.games.clue_board import ClueBoardRules
from train import arguments
from train.experiments.clue_board_experiments import summarise
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
from train.stats import chunks, format_p, interval

BASELINE = "velma(sum)"
NO_REMOTENESS = "velma(sum, remoteness 0)"
ADVERSARIAL = "velma(sum, adversarial)"
#: The cells: (accusation rule, contender); the opponents are copies of :data:`BASELINE`.
CELLS = (("anywhere", NO_REMOTENESS), ("room", NO_REMOTENESS), ("anywhere", ADVERSARIAL))
PLAYERS = (2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Settings:
    games: int  #: games per cell
    players: tuple[int, ...]
    seed: int
    chunk: int  #: games per job


def make_agent(name: str) -> SeatAgent:
    """A fresh agent of the tournament by its name."""
    makers = {
        BASELINE: lambda: ClueVelma("sum"),
        NO_REMOTENESS: lambda: ClueVelma("sum", remoteness=0.0),
        ADVERSARIAL: lambda: ClueVelma("sum", refuter="adversarial"),
    }
    return named_agent(makers, name)


def play_part(job: tuple[int, str, str, int, int], settings: Settings) -> list[dict]:
    """Games ``[start, start + games)`` of one cell: ``job = (players, rule, contender, start, games)``."""
    players, rule, contender, start, games = job
    rules = ClueBoardRules(players, accusations=rule)
    agents = [Logged(make_agent(contender)), *(Logged(make_agent(BASELINE)) for _ in range(players - 1))]
    return match_summaries(rules, agents, games, settings.seed, start, summarise)


def jobs(settings: Settings) -> list[tuple[int, str, str, int, int]]:
    """Every cell in parts of ``chunk`` games, the largest tables first (the workers finish together)."""
    out = [
        (players, rule, contender, start, games)
        for players in settings.players
        for rule, contender in CELLS
        for start, games in chunks(settings.games, settings.chunk)
    ]
    return sorted(out, key=lambda job: -job[0])


def pooled(results: dict[tuple, list[dict]], rule: str, contender: str, players: tuple[int, ...]) -> tuple:
    """``(wins, games, expected wins, p)``: a cell's wins over the player counts against the sum of the fair
    shares, two-sided, by the normal approximation (the variance of a sum of binomials at the fair shares)."""
    wins = games = 0
    expected = variance = 0.0
    for p in players:
        table = results.get((p, rule, contender), [])
        won = sum(g["contender_won"] for g in table)
        wins, games = wins + won, games + len(table)
        expected += len(table) / p
        variance += len(table) * (1 / p) * (1 - 1 / p)
    z = (wins - expected) / max(variance, 1e-12) ** 0.5
    return wins, games, expected, float(2 * norm.sf(abs(z)))


def report(results: dict[tuple, list[dict]], settings: Settings, run: Run) -> str:
    """The markdown of ``velma_ablations.md``."""
    lines = [
        "# What Velma's room remoteness and refuter model are worth",
        "",
        f"Written by `{run.command}` in {run.minutes:.0f} minutes {run.where}. See "
        "`train/experiments/velma_ablations.py` for the design: one contender, Velma changed in one thing, against "
        f"`players - 1` copies of `{BASELINE}` (pyvelma's score, remoteness weight 1, refuters modelled as choosing "
        "uniformly), on the board, seats rotated, the same deals and dice in every cell at a player count. If the "
        "change is worth nothing the contender wins its fair share, 1/players.",
        "",
        "Accusation rule: `anywhere` (this suite's default: at any decision of one's turn) or `room` (the classic "
        "rule and pyvelma's: only in the room entered this turn, naming it). Win rate: the contender's, with its 95% "
        "Wilson interval; *p*: the two-sided binomial test against the fair share. Rounds: rolls and passages per "
        "player, mean. Wrong: wrong accusations per game by the contender and by all its opponents together.",
        "",
        "![Win rates by player count](velma_ablations.png)",
        "",
        truncated_line(results),
        "",
        "| players | rule | contender | games | win rate [95% CI] | fair share | p | rounds "
        "| wrong (contender / opponents) | decisions ms (mean / p95) |",
        "|---:|---|---|---:|---|---:|---:|---:|---|---|",
    ]
    for players in settings.players:
        for rule, contender in CELLS:
            games = results.get((players, rule, contender))
            if not games:
                continue
            n, wins = len(games), sum(g["contender_won"] for g in games)
            low, high = interval(wins, n)
            p = binomtest(wins, n, 1 / players).pvalue
            times = 1e3 * np.array([t for g in games for t in g["contender_times"]])
            wrong = [np.mean([g[side] for g in games]) for side in ("contender_wrong", "opponent_wrong")]
            lines.append(
                f"| {players} | {rule} | {contender} | {n} | {wins / n:.3f} [{low:.3f}, {high:.3f}] "
                f"| {1 / players:.3f} | {format_p(p)} | {np.mean([g['rounds'] for g in games]):.1f} "
                f"| {wrong[0]:.3f} / {wrong[1]:.3f} | {times.mean():.0f} / {np.percentile(times, 95):.0f} |"
            )
    lines += ["", "Over the player counts (the wins summed against the summed fair shares, two-sided):", ""]
    for rule, contender in CELLS:
        wins, games, expected, p = pooled(results, rule, contender, settings.players)
        if games:
            verdict = "significant at 5%" if p < 0.05 else "not significant"
            lines.append(
                f"- `{contender}` under `{rule}`: {wins} wins of {games} games against {expected:.1f} fair "
                f"({(wins - expected) / games:+.3f} a game, p = {format_p(p)}, {verdict})."
            )
    return "\n".join(lines) + "\n"


def plot(results: dict[tuple, list[dict]], players: list[int], path: Path) -> None:
    """The contender's win rate minus the fair share, with 95% intervals, by player count, one line per cell."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from train.plotting import save

    figure, ax = plt.subplots(figsize=(6.5, 4.2))
    for k, (rule, contender) in enumerate(CELLS):
        xs, ys, errors = [], [], []
        for p in players:
            games = results.get((p, rule, contender))
            if not games:
                continue
            wins = sum(g["contender_won"] for g in games)
            rate, (low, high) = wins / len(games), interval(wins, len(games))
            xs.append(p + 0.08 * (k - 1))
            ys.append(rate - 1 / p)
            errors.append((rate - low, high - rate))
        if xs:
            ax.errorbar(xs, ys, yerr=np.array(errors).T, marker="o", capsize=3, color=f"C{k}",
                        label=f"{contender}, accusations {rule}")  # fmt: skip
    ax.axhline(0, color="k", linestyle="--", linewidth=1, label=f"fair share (as good as {BASELINE})")
    ax.set_xlabel("players (the others: copies of velma(sum))")
    ax.set_ylabel("contender's win rate minus 1/players")
    ax.set_xticks(players)
    ax.set_title("Velma changed in one thing")
    ax.legend(fontsize=8)
    save(figure, path)


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=arguments.count(1), default=500, help="games per cell (default 500)")
    parser.add_argument("--players", type=arguments.count(2, 6), nargs="+", default=list(PLAYERS), choices=PLAYERS)
    parser.add_argument("--chunk", type=arguments.count(1), default=25, help="games per job (default 25)")


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    chosen = Settings(args.games, tuple(args.players), args.seed, args.chunk)
    if args.quick:  # 2 games a cell, 2 and 3 players
        return replace(chosen, games=2, players=tuple(p for p in chosen.players if p <= 3) or (2,), chunk=2)
    return chosen


def write(settings: Settings, parts: dict[tuple, list[dict]], run: Run) -> str:
    """``velma_ablations.md`` and ``velma_ablations.png``."""
    results = gather(parts)
    text = report(results, settings, run)
    (run.output / "velma_ablations.md").write_text(text)
    plot(results, list(settings.players), run.output / "velma_ablations.png")
    return text


EXPERIMENT: Experiment[Settings, Any, list[dict]] = Experiment(
    "velma_ablations", __doc__, options, settings, jobs, play_part, write, job_name="jobs"
)


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
