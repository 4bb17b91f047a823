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

Each part's games are folded into its cell's :class:`Tally` as the part arrives (counts and integer sums, which
games the contender won, a histogram of its decision times) and let go, so a tournament of a million games holds
tallies in memory, not games, and its resumable store is one file.
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
    Fold,
    Run,
    match_summaries,
    named_agent,
    run_experiment,
    truncated_sentence,
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


#: The edges of the decision-time histogram: bins a ratio of 1.01 apart from a microsecond to 1,000 seconds, so a
#: percentile read from it is within 1% of the exact one.
TIME_EDGES = np.geomspace(1e-6, 1e3, int(np.ceil(np.log(1e9) / np.log(1.01))) + 1)


@dataclass
class Tally:
    """One cell's games, folded: for each game whether the contender won it (1, 0; -1 not played yet: game ``g``
    is the deal every cell at the player count plays as game ``g``, for the paired sign test), the wrong
    accusations of each side, the winner's own turns by side (sum and count), the games stopped at the action
    cap, and the contender's decision times (a histogram over :data:`TIME_EDGES`, their count and their sum in
    nanoseconds). Every figure is a count or an integer sum: the same whatever order the parts arrive in."""

    won: np.ndarray
    wrong: list[int]  #: contender, opponents
    turns: dict[str, list[int]]  #: by winning side: [sum of the winner's turns, games]
    times: np.ndarray  #: the decision-time histogram
    truncated: int = 0
    time_ns: int = 0

    @classmethod
    def empty(cls, games: int) -> Tally:
        return cls(np.full(games, -1, dtype=np.int8), [0, 0], {"contender": [0, 0], "opponent": [0, 0]},
                   np.zeros(TIME_EDGES.size + 1, dtype=np.int64))  # fmt: skip

    def add(self, start: int, games: list[dict]) -> None:
        """Games ``start, start + 1, ...`` of the cell, summarised by :func:`summarise`."""
        for g, game in enumerate(games, start):
            self.won[g] = bool(game["contender_won"])
            self.wrong[0] += game["contender_wrong"]
            self.wrong[1] += game["opponent_wrong"]
            if game["winner_side"] is not None:
                self.turns[game["winner_side"]][0] += game["winner_turns"]
                self.turns[game["winner_side"]][1] += 1
            self.truncated += bool(game["truncated"])
        times = np.fromiter((t for game in games for t in game["contender_times"]), dtype=float)
        self.times += np.bincount(np.searchsorted(TIME_EDGES, times), minlength=self.times.size)
        self.time_ns += int(np.round(times * 1e9).astype(np.int64).sum())

    @property
    def games(self) -> int:
        return int((self.won >= 0).sum())

    @property
    def wins(self) -> int:
        return int((self.won == 1).sum())

    def mean_ms(self) -> float:
        """The contender's mean time per decision, milliseconds."""
        return self.time_ns / 1e6 / max(1, int(self.times.sum()))

    def percentile_ms(self, q: float) -> float:
        """The contender's ``q``-th percentile time per decision, milliseconds: the upper edge of the bin where
        it falls (within 1%)."""
        rank = np.searchsorted(np.cumsum(self.times), q / 100 * self.times.sum())
        return 1e3 * float(TIME_EDGES[min(rank, TIME_EDGES.size - 1)])


def start_tallies(settings: Settings) -> dict[tuple[int, str, str], Tally]:
    """Every cell's empty tally."""
    return {
        (players, contender, opponent): Tally.empty(settings.ismcts_games if contender == ISMCTS else settings.games)
        for players in settings.players
        for contender, opponent in cells(players, settings.contenders, settings.opponents)
    }


def add_part(tallies: dict[tuple[int, str, str], Tally], job: tuple[int, str, str, int, int],
             games: list[dict]) -> dict[tuple[int, str, str], Tally]:  # fmt: skip
    """The tallies with one part's games in (:func:`play_part`'s ``job`` and result)."""
    players, contender, opponent, start, _ = job
    tallies[players, contender, opponent].add(start, games)
    return tallies


def play_part(job: tuple[int, str, str, int, int], settings: Settings) -> list[dict]:
    """Games ``[start, start + games)`` of one cell: ``job = (players, contender, opponent, start, games)``."""
    players, contender, opponent, start, games = job
    rules = ClueRules(players)
    agents = [Logged(make_agent(contender, settings.ismcts_seconds))]
    agents += [Logged(make_agent(opponent, settings.ismcts_seconds)) for _ in range(players - 1)]
    return match_summaries(rules, agents, games, settings.seed, start, summarise)


def report(tallies: dict[tuple[int, str, str], Tally], settings: Settings, run: Run) -> str:
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
        "contender's time per decision, mean and 95th percentile (every decision, showing a card included; the "
        "percentile to within 1%).",
        "",
        "![Win rates by player count](clue.png)",
        "",
        truncated_sentence(sum(t.truncated for t in tallies.values()), sum(t.games for t in tallies.values())),
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
            tally = tallies.get((players, contender, opponent))
            if tally is None or not tally.games:
                continue
            n, wins = tally.games, tally.wins
            low, high = interval(wins, n)
            p = binomtest(wins, n, 1 / players, alternative="greater").pvalue
            lines.append(
                f"| {contender} | {opponent} | {n} | {wins / n:.3f} [{low:.3f}, {high:.3f}] | {format_p(p)} "
                f"| {tally.wrong[0] / n:.3f} / {tally.wrong[1] / n:.3f} "
                f"| {_mean(*tally.turns['contender'])} / {_mean(*tally.turns['opponent'])} "
                f"| {tally.mean_ms():.0f} / {tally.percentile_ms(95):.0f} |"
            )
        lines += ["", *compare(tallies, players), ""]
    return "\n".join(lines) + "\n"


def _mean(total: int, count: int) -> str:
    return f"{total / count:.1f}" if count else "-"


def compare(tallies: dict[tuple[int, str, str], Tally], players: int) -> list[str]:
    """Each entropy variant against the default on the same deals (vs the deduction sheet): a sign test."""
    base = tallies.get((players, ENTROPY_VARIANTS[0], "deduction-sheet"))
    if base is None or not base.games:
        return []
    lines = [
        f"Against `{ENTROPY_VARIANTS[0]}` on the same deals (sign test on the games exactly one of the two won, "
        "two-sided):",
        "",
    ]
    for variant in ENTROPY_VARIANTS[1:]:
        other = tallies.get((players, variant, "deduction-sheet"))
        if other is None or not other.games:
            continue
        both = (other.won >= 0) & (base.won >= 0)  # game g of both: the same deal
        only_variant, only_base, p = sign_test(other.won[both] == 1, base.won[both] == 1)
        lines.append(
            f"- `{variant}`: won {only_variant} games the default lost, lost {only_base} it won "
            f"(p = {format_p(p)}{', significant at 5%' if p < 0.05 else ', not significant'})."
        )
    return lines


def plot(tallies: dict[tuple[int, str, str], Tally], players: list[int], path: Path) -> None:
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
                tally = tallies.get((p, contender, opponent))
                if tally is None or not tally.games:
                    continue
                wins, n = tally.wins, tally.games
                low, high = interval(wins, n)
                xs.append(p + 0.08 * (k - len(contenders) / 2))
                ys.append(wins / n)
                errors.append((wins / n - low, high - wins / n))
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


def write(settings: Settings, tallies: dict[tuple[int, str, str], Tally], run: Run) -> str:
    """``clue.md`` and ``clue.png``."""
    text = report(tallies, settings, run)
    (run.output / "clue.md").write_text(text)
    plot(tallies, list(settings.players), run.output / "clue.png")
    return text


EXPERIMENT = Experiment("clue_experiments", __doc__, options, settings, jobs, play_part, write, job_name="jobs",
                        fold=Fold(start_tallies, add_part))  # fmt: skip


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
