"""Clue tournaments: the entropy agent, SO-ISMCTS, the deduction sheet and random, at 3 to 6 players.

    python -m train.experiments.clue_experiments            # results/clue.md and results/clue.png
    python -m train.experiments.clue_experiments --quick    # a look in a minute, written to runs/quick/
    python -m train.experiments.clue_experiments --resume   # after an interruption: only the unfinished jobs

Each cell seats one *contender* with ``players - 1`` copies of one *opponent*
and plays ``--games`` games (``--ismcts-games`` for SO-ISMCTS), the seats
rotated (:func:`agents.play_match`; the contender moves first in one game of
every ``players``). Game ``g`` at a player count is dealt from seed
``(--seed, g)`` in every cell, so cells at one player count play the same
deals (paired comparisons).

Contenders: the entropy agent (uniform refuters, accusing only when certain),
its accusation rules (the most probable case file at probability 0.79, as
Velma; at entropy 1 bit), its adversarial-refuter model, its former card to
show (``entropy(own shows)``: the card the asker most expects it to hold, where
the default is Velma's: a card already shown to the asker, else the one shown
most), SO-ISMCTS (:class:`agents.ClueSearchPolicy`,
``--ismcts-seconds`` per decision), and the trained policies kept in
``models/`` (``model:NAME``, at the player count each was trained for, playing
its likeliest legal action: :func:`train.kept_models.seat_policy`);
``--contenders`` seats some of them only, ``--opponents`` meets some opponents
only.
Opponents: the deduction-sheet agent and random play.

Reported per cell: the contender's win rate with a 95% Wilson interval and the
one-sided binomial test of it against its fair share ``1/players`` (beating
the average opponent); the wrong accusations per game of each side; the mean
own turns of a winner; decision times (mean and 95th percentile). The
accusation rules and the refuter model are compared with the default entropy
agent on the same deals by an exact two-sided sign test on the games exactly
one of the two won. ``results/clue.png`` draws the win rates by player count.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import binomtest

from agents import (
    SOISMCTS,
    ClueDeductionSheet,
    ClueEntropyAgent,
    ClueSearchPolicy,
    GameRecord,
    Logged,
    RandomSeatAgent,
    SeatAgent,
)
from deduction_envs.games.clue import ClueRules
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
from train.kept_models import SEAT_PREFIX, kept_seat_agent, seat_names
from train.stats import chunks, format_p, interval, sign_test

#: The entropy agent's accusation rules and refuter model; the first is the default the others are compared with.
ENTROPY_VARIANTS = ("entropy", "entropy(p>=0.79)", "entropy(H<=1)", "entropy(adversarial)", "entropy(own shows)")
OPPONENTS = ("deduction-sheet", "random")
ISMCTS = "SO-ISMCTS"


def kept_contenders() -> tuple[str, ...]:
    """The Clue models kept in ``models/``, as contenders (``model:NAME``)."""
    return seat_names("clue_v0")


@dataclass(frozen=True)
class Settings:
    games: int  #: games per entropy cell
    ismcts_games: int  #: games per SO-ISMCTS cell
    ismcts_seconds: float
    players: tuple[int, ...]
    seed: int
    chunk: int  #: games per job
    contenders: tuple[str, ...] = (*ENTROPY_VARIANTS, ISMCTS)  #: the contenders seated
    opponents: tuple[str, ...] = OPPONENTS  #: the opponents they meet (default both)


def make_agent(name: str, ismcts_seconds: float = 0.25) -> SeatAgent:
    """A fresh agent of the tournament by its name (``model:NAME``: the kept model ``NAME``)."""
    if name.startswith(SEAT_PREFIX):
        return kept_seat_agent(name)
    makers: dict[str, Callable[[], SeatAgent]] = {
        "entropy": ClueEntropyAgent,
        "entropy(p>=0.79)": lambda: ClueEntropyAgent(threshold=0.79),
        "entropy(H<=1)": lambda: ClueEntropyAgent(entropy_threshold=1.0),
        "entropy(adversarial)": lambda: ClueEntropyAgent(refuter="adversarial"),
        "entropy(own shows)": lambda: ClueEntropyAgent(show_rule="own"),
        ISMCTS: lambda: SOISMCTS(iterations=None, time_limit=ismcts_seconds, policy=ClueSearchPolicy()),
        "deduction-sheet": ClueDeductionSheet,
        "random": RandomSeatAgent,
    }
    return named_agent(makers, name)


def cells(
    players: int, contenders: tuple[str, ...] = (*ENTROPY_VARIANTS, ISMCTS), opponents: tuple[str, ...] = OPPONENTS
) -> list[tuple[str, str]]:
    """The (contender, opponent) cells at one player count, of ``contenders`` against ``opponents`` (a kept
    model's only at the player count it was trained for)."""
    every = [(v, "deduction-sheet") for v in ENTROPY_VARIANTS] + [
        ("entropy", "random"),
        (ISMCTS, "deduction-sheet"),
        (ISMCTS, "random"),
    ]
    every += [(c, o) for c in seat_names("clue_v0", ClueRules(players)) for o in OPPONENTS]
    return [(c, o) for c, o in every if c in contenders and o in opponents]


def summarise(rules: ClueRules, record: GameRecord, agents: list[Logged], lineup: tuple[int, ...]) -> dict:
    """One game as numbers: who won, each side's accusations, the winner's turns, the decision times."""
    sides = {"contender": [0], "opponent": list(range(1, len(agents)))}
    winner = None if record.winner is None else lineup[record.winner]  # the winner's index among the agents
    out: dict[str, Any] = {"contender_won": winner == 0, "winner_turns": None, "truncated": record.truncated}
    for side, members in sides.items():
        accusations, times = 0, []
        for index in members:
            kinds = [rules.decode(action).kind for _, action, _ in agents[index].log]
            accusations += kinds.count("accuse")
            times.extend(seconds for _, _, seconds in agents[index].log)
            if index == winner:  # a turn starts with a suggestion, or an accusation not after one's own suggestion
                moves = [k for k in kinds if k != "show"]
                out["winner_turns"] = sum(
                    k == "suggest" or (k == "accuse" and (i == 0 or moves[i - 1] != "suggest"))
                    for i, k in enumerate(moves)
                )
        out[f"{side}_accusations"] = accusations
        out[f"{side}_wrong"] = accusations - (winner in members)
        out[f"{side}_times"] = times
    out["winner_side"] = None if winner is None else ("contender" if winner == 0 else "opponent")
    return out


def play_part(job: tuple[int, str, str, int, int], settings: Settings) -> list[dict]:
    """Games ``[start, start + games)`` of one cell: ``job = (players, contender, opponent, start, games)``."""
    players, contender, opponent, start, games = job
    rules = ClueRules(players)
    agents = [Logged(make_agent(contender, settings.ismcts_seconds))]
    agents += [Logged(make_agent(opponent, settings.ismcts_seconds)) for _ in range(players - 1)]
    return match_summaries(rules, agents, games, settings.seed, start, summarise)


def report(results: dict[tuple[int, str, str], list[dict]], settings: Settings, run: Run) -> str:
    """The markdown of ``results/clue.md``."""
    lines = [
        "# Clue tournaments",
        "",
        f"Written by `{run.command}` in {run.minutes:.0f} minutes {run.where}. "
        "See `train/experiments/clue_experiments.py` for the design: one contender against `players - 1` copies of one "
        "opponent, seats rotated, the same deals in every cell at a player count.",
        "",
        "Win rate: the contender's, with its 95% Wilson interval; *p*: one-sided binomial test of it against "
        "the fair share 1/players. Wrong: wrong accusations per game by the contender and by all the opponents "
        "together. Turns: the winner's own turns, mean, when the contender / an opponent won. Decisions: the "
        "contender's time per decision, mean and 95th percentile (every decision, showing a card included).",
        "",
        "![Win rates by player count](clue.png)",
        "",
        truncated_line(results),
        "",
    ]
    for players in settings.players:
        lines += [
            f"## {players} players (fair share {1 / players:.3f})",
            "",
            "| contender | opponents | games | win rate [95% CI] | p | wrong (contender / opponents) "
            "| turns (contender / opponent wins) | decisions ms (mean / p95) |",
            "|---|---|---:|---|---:|---|---|---|",
        ]
        for contender, opponent in cells(players, settings.contenders, settings.opponents):
            games = results.get((players, contender, opponent))
            if not games:
                continue
            n = len(games)
            wins = sum(g["contender_won"] for g in games)
            low, high = interval(wins, n)
            p = binomtest(wins, n, 1 / players, alternative="greater").pvalue
            turns = {
                side: [g["winner_turns"] for g in games if g["winner_side"] == side]
                for side in ("contender", "opponent")
            }
            times = 1e3 * np.array([t for g in games for t in g["contender_times"]])
            lines.append(
                f"| {contender} | {opponent} | {n} | {wins / n:.3f} [{low:.3f}, {high:.3f}] | {format_p(p)} "
                f"| {np.mean([g['contender_wrong'] for g in games]):.3f} / "
                f"{np.mean([g['opponent_wrong'] for g in games]):.3f} "
                f"| {_mean(turns['contender'])} / {_mean(turns['opponent'])} "
                f"| {times.mean():.0f} / {np.percentile(times, 95):.0f} |"
            )
        lines += ["", *compare(results, players), ""]
    return "\n".join(lines) + "\n"


def _mean(values: list[float]) -> str:
    return f"{np.mean(values):.1f}" if values else "-"


def compare(results: dict[tuple[int, str, str], list[dict]], players: int) -> list[str]:
    """Each entropy variant against the default on the same deals (vs the deduction sheet): a sign test."""
    base = results.get((players, ENTROPY_VARIANTS[0], "deduction-sheet"))
    if not base:
        return []
    lines = [
        f"Against `{ENTROPY_VARIANTS[0]}` on the same deals (sign test on the games exactly one of the two won, "
        "two-sided):",
        "",
    ]
    for variant in ENTROPY_VARIANTS[1:]:
        other = results.get((players, variant, "deduction-sheet"))
        if not other:
            continue
        won = [[g["contender_won"] for g in games] for games in (other, base)]  # game g of both: the same deal
        only_variant, only_base, p = sign_test(*won)
        lines.append(
            f"- `{variant}`: won {only_variant} games the default lost, lost {only_base} it won "
            f"(p = {format_p(p)}{', significant at 5%' if p < 0.05 else ', not significant'})."
        )
    return lines


def plot(results: dict[tuple[int, str, str], list[dict]], players: list[int], path: Path) -> None:
    """Win rates with 95% intervals by player count, one panel per opponent."""
    import matplotlib

    matplotlib.use("Agg")
    from train.plotting import panel_grid, save

    figure, axes = panel_grid(len(OPPONENTS), width=5.0, height=3.8)
    contenders = [*ENTROPY_VARIANTS, ISMCTS, *kept_contenders()]  # all of them: each keeps its colour in any run
    for ax, opponent in zip(np.ravel(axes), OPPONENTS, strict=True):
        for k, contender in enumerate(contenders):
            xs, ys, errors = [], [], []
            for p in players:
                games = results.get((p, contender, opponent))
                if not games:
                    continue
                wins = sum(g["contender_won"] for g in games)
                low, high = interval(wins, len(games))
                xs.append(p + 0.08 * (k - len(contenders) / 2))
                ys.append(wins / len(games))
                errors.append((wins / len(games) - low, high - wins / len(games)))
            if xs:
                color = f"C{k}"  # one colour per contender in both panels
                ax.errorbar(xs, ys, yerr=np.array(errors).T, marker="o", capsize=3, label=contender, color=color)
        ax.plot(players, [1 / p for p in players], "k--", linewidth=1, label="fair share 1/players")
        ax.set_title(f"against {opponent} agents")
        ax.set_xlabel("players")
        ax.set_ylabel("contender's win rate")
        ax.set_xticks(players)
        ax.set_ylim(0, 1)
    np.ravel(axes)[0].legend(fontsize=7)
    save(figure, path)


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=arguments.count(1), default=500, help="games per entropy cell (default 500)")
    parser.add_argument(
        "--ismcts-games", type=arguments.count(1), default=100, help="games per SO-ISMCTS cell (default 100)"
    )
    parser.add_argument(
        "--ismcts-seconds", type=arguments.seconds, default=0.25, help="SO-ISMCTS search time per decision"
    )
    parser.add_argument("--players", type=arguments.count(3, 6), nargs="+", default=[3, 4, 5, 6], choices=[3, 4, 5, 6])
    parser.add_argument("--chunk", type=arguments.count(1), default=25, help="games per job (default 25)")
    contenders = [*ENTROPY_VARIANTS, ISMCTS, *kept_contenders()]
    parser.add_argument(
        "--contenders",
        nargs="+",
        default=contenders,
        choices=contenders,
        metavar="AGENT",
        help=f"the contenders seated (default all: {', '.join(contenders)})",
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=list(OPPONENTS),
        choices=list(OPPONENTS),
        metavar="AGENT",
        help=f"the opponents (default both: {', '.join(OPPONENTS)})",
    )


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    chosen = Settings(
        args.games,
        args.ismcts_games,
        args.ismcts_seconds,
        tuple(args.players),
        args.seed,
        args.chunk,
        tuple(args.contenders),
        tuple(args.opponents),
    )
    if args.quick:  # 12 games a cell, 3 players
        return replace(chosen, games=12, ismcts_games=3, ismcts_seconds=min(args.ismcts_seconds, 0.05), players=(3,))
    return chosen


def jobs(settings: Settings) -> list[tuple[int, str, str, int, int]]:
    """Every cell in parts of ``chunk`` games, the slow SO-ISMCTS cells first (the workers finish together)."""
    out = []
    for players in settings.players:
        for contender, opponent in cells(players, settings.contenders, settings.opponents):
            total = settings.ismcts_games if contender == ISMCTS else settings.games
            out += [(players, contender, opponent, s, n) for s, n in chunks(total, settings.chunk)]
    return sorted(out, key=lambda job: job[1] != ISMCTS)


def write(settings: Settings, parts: dict[tuple, list[dict]], run: Run) -> str:
    """``clue.md`` and ``clue.png``."""
    results = gather(parts)
    text = report(results, settings, run)
    (run.output / "clue.md").write_text(text)
    plot(results, list(settings.players), run.output / "clue.png")
    return text


EXPERIMENT = Experiment("clue_experiments", __doc__, options, settings, jobs, play_part, write, job_name="jobs")


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
