"""Generalized Clue tournaments: the exact agent, the course report's scoreboard player and its rule, random.

    python -m train.experiments.generalized_clue_experiments            # results/generalized_clue.md and .png
    python -m train.experiments.generalized_clue_experiments --quick    # a look in a minute, to runs/quick/

Settings ``(cards, hidden, players)``: 3 players of 4 cards (14, 2, 3), 5 of
5 (27, 2, 5) and the report's 8 of 5 (45, 5, 8); ``max_rounds`` is the rules'
default (the asks a sound player may need to be certain, at least 20), so that
nobody is forced to guess before the scoreboard's worst case.
``--games`` games a table (``--report-games`` in the report's setting, whose
games take seconds each).
Tables, seats rotated (:func:`agents.play_match`), game ``g`` of a setting
dealt from seed ``(--seed, g)`` in every table:

* head to head: the exact agent, the interrogation-pattern agent (the
  report's rule as it states it), ``interrogation-pattern(means)`` (the looser
  rule this project had first), and the scoreboard agent without spoofing, each
  against ``players - 1`` scoreboard agents (the report's, with spoofing);
* mixed (4 players or more): one of each agent, the rest scoreboard agents.

``--head-to-head`` chooses the agents of the head-to-head tables, among them
variants of the exact agent (:class:`agents.GeneralizedClueExact`): ``exact(listeners=W)``
weighing what its asks tell the listeners by W and guessing only when
certain, ``exact(listeners=W, race)`` also guessing early when waiting would
cost rank, ``exact(race)`` the same with W = 0; ``exact`` is the default,
W = 0.5 and the race; ``exact(pad)`` the default with its asks padded with the
cards it knows another player holds; ``exact(sure)`` the default asking only
lists sure to show it a card it does not know. ``--no-mixed`` leaves out the mixed tables.
A kept model of ``models/`` (``model:NAME``, playing its likeliest legal
action) sits against scoreboards in the setting it was trained for only (its
wrong guesses and certainty are not known to the table: "-"):

    python -m train.experiments.generalized_clue_experiments --settings "3 x 4" --no-mixed \
        --head-to-head model:gc14-imitation-exact

``--paired`` also plays a table of scoreboards alone on the same deals, with
the same seeds for every seat, and compares each head-to-head agent with the
scoreboard that sat in its seat there: game by game, the difference of their
rewards (and ranks). Among scoreboards alone who finishes where is set mostly
by the seat (at 8 x 5 each is certain after its 35th ask, so they finish in
seat order), which the unpaired table's reward carries as noise (its standard
deviation about 0.7); the paired difference leaves it out and keeps only what
putting the agent in that seat changed. Reported: its mean with a 95% t
interval, a one-sided paired t-test of the reward difference against 0, and
the games the agent did better, the same and worse.

Per agent: mean rank (1 = first right guess; wrong guessers share the places
below) with a 95% t interval, first places with a Wilson interval, mean reward
and a one-sided t-test of it against 0 (rewards sum to 0 at a table, so 0 is
an equal agent's expectation), wrong guesses, and the asks after which the
agent was first certain of the case file, against the report's worst case
``n - k - n/p`` (and its exact form ``n - k - hand``, which the scoreboard
without spoofing must never exceed: checked on every game). For the
interrogation-pattern rules, in how many games each fired and how many of its
inferences were right (every hand is public at the end).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
from scipy import stats

from agents import GeneralizedClueExact, GeneralizedClueRandom, GeneralizedClueScoreboard, play_match
from agents.generalized_clue_agents import GeneralizedClueAgent
from deduction_envs.games.generalized_clue import GeneralizedClueRules
from train import arguments
from train.experiments.runner import Experiment, Finished, Run, gather, named_agent, run_experiment
from train.kept_models import SEAT_PREFIX, kept_seat_agent, seat_names
from train.stats import chunks, format_p, interval

SETTINGS = {"3 x 4": (14, 2, 3), "5 x 5": (27, 2, 5), "8 x 5 (report)": (45, 5, 8)}
REPORT = "8 x 5 (report)"
AGENTS = (
    "exact",
    "interrogation-pattern",
    "interrogation-pattern(means)",
    "scoreboard(no spoof)",
    "scoreboard",
    "random",
)
#: The agents seated against scoreboards by default.
DEFAULT_HEAD_TO_HEAD = AGENTS[:4]
#: The exact agent's weights of what its asks tell the listeners, offered as agents ``exact(listeners=W)`` (not
#: racing) and ``exact(listeners=W, race)``; ``exact`` is :class:`agents.GeneralizedClueExact`'s default, listeners
#: 0.5 and race.
LISTENERS = (0, 0.5, 1, 2)
HEAD_TO_HEAD = [
    *AGENTS[:5],
    "exact(race)",
    "exact(pad)",
    "exact(sure)",
    *(f"exact(listeners={w:g}{race})" for w in LISTENERS for race in ("", ", race")),
]


def kept_models() -> tuple[str, ...]:
    """The Generalized Clue models kept in ``models/``, as the tables name them (``model:NAME``)."""
    return seat_names("generalized_clue_v0")


def seated_here(setting: str, head_to_head: Sequence[str]) -> list[str]:
    """The agents of ``head_to_head`` that sit in ``setting``: all but the kept models trained for another."""
    here = seat_names("generalized_clue_v0", GeneralizedClueRules(*SETTINGS[setting]))
    return [name for name in head_to_head if not name.startswith(SEAT_PREFIX) or name in here]


@dataclass(frozen=True)
class Settings:
    games: int  #: games per table
    report_games: int  #: games per table in the report's setting
    settings: tuple[str, ...]
    head_to_head: tuple[str, ...]
    mixed: bool
    paired: bool
    seed: int
    chunk: int  #: games per job
    #: every player's turns before it must guess, in every setting (None: the rules' default, ``max(20, the asks a
    #: sound player may need to be certain)``: 35 at 8 x 5, where a scoreboard that spoofs needs 36)
    max_rounds: int | None = None


def make_agent(name: str) -> GeneralizedClueAgent:
    """A fresh agent by its name (``model:NAME``: the kept model ``NAME``)."""
    if name.startswith(SEAT_PREFIX):
        return kept_seat_agent(name)
    makers = {
        "exact": GeneralizedClueExact,
        **{f"exact(listeners={w:g})": partial(GeneralizedClueExact, listeners=w, race=False) for w in LISTENERS},
        **{f"exact(listeners={w:g}, race)": partial(GeneralizedClueExact, listeners=w, race=True) for w in LISTENERS},
        "exact(race)": partial(GeneralizedClueExact, listeners=0, race=True),
        "exact(pad)": partial(GeneralizedClueExact, pad=True),
        "exact(sure)": partial(GeneralizedClueExact, sure=True),
        "interrogation-pattern": lambda: GeneralizedClueScoreboard(patterns="report"),
        "interrogation-pattern(means)": lambda: GeneralizedClueScoreboard(patterns="means"),
        "scoreboard(no spoof)": lambda: GeneralizedClueScoreboard(spoof=False),
        "scoreboard": GeneralizedClueScoreboard,
        "random": GeneralizedClueRandom,
    }
    return named_agent(makers, name)


#: The table of scoreboards alone that ``--paired`` compares the head-to-head tables with.
ALONE = "scoreboards alone"


def tables(
    players: int, head_to_head: Sequence[str] = DEFAULT_HEAD_TO_HEAD, mixed: bool = True, paired: bool = False
) -> dict[str, list[str]]:
    """The tables of a setting: their name and the agents seated (in the order rotated): each of
    ``head_to_head`` against scoreboards, (``mixed``, 4 players or more) one of each kind, and (``paired``)
    scoreboards alone."""
    out = {f"{a} vs scoreboards": [a] + ["scoreboard"] * (players - 1) for a in head_to_head}
    if mixed and players >= 4:
        out["mixed"] = ["exact", "interrogation-pattern", "scoreboard", "random"] + ["scoreboard"] * (players - 4)
    if paired:
        out[ALONE] = ["scoreboard"] * players
    return out


def play_part(job: tuple[str, str, int, int], settings: Settings) -> list[dict]:
    """Games ``[start, start + games)`` of one table: ``job = (setting, table, start, games)``."""
    setting, table, start, games = job
    cards, hidden, players = SETTINGS[setting]
    rules = GeneralizedClueRules(cards, hidden, players, settings.max_rounds)  # None: the rules' default
    agents = [make_agent(name) for name in tables(players, [*HEAD_TO_HEAD, *kept_models()], paired=True)[table]]
    out: list[dict] = []

    def after(record, lineup) -> None:
        game = []
        for seat, index in enumerate(lineup):
            agent = agents[index]
            kept = not isinstance(agent, GeneralizedClueAgent)  # a kept model's seat: no agent's knowledge to read
            knowledge = None if kept else agent.knowledge
            hands = {} if kept else {player: set(hand) for player, _, hand in knowledge.guesses}
            right = sum(card in hands.get(q, ()) for q, card in getattr(agent, "inferences", []))
            game.append(
                {
                    "agent": agent.name,
                    "index": index,
                    "seat": seat,
                    "reward": record.rewards[seat],
                    "rank": 1 + (1 - record.rewards[seat]) * (players - 1) / 2,
                    "first": record.winner == seat,
                    "wrong": None if kept else knowledge.correct is False,
                    "certain_after": None if kept else agent.certain_after,
                    "hand": rules.hand_sizes[seat] if kept else len(knowledge.hand),
                    "inferences": len(getattr(agent, "inferences", [])),
                    "inferences_right": right,
                }
            )
        out.append({"seats": game})

    play_match(rules, agents, games, seed=settings.seed, start=start, after_game=after)
    return out


def summary(rows: list[dict], players: int) -> str:
    """One agent's row of a table."""
    n = len(rows)
    rank = np.array([r["rank"] for r in rows])
    reward = np.array([r["reward"] for r in rows])
    half = stats.t.ppf(0.975, n - 1) * rank.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
    firsts = sum(r["first"] for r in rows)
    low, high = interval(firsts, n)
    p = stats.ttest_1samp(reward, 0.0, alternative="greater").pvalue if n > 1 and reward.std() > 0 else float("nan")
    certain = [r["certain_after"] for r in rows if r["certain_after"] is not None]
    certain_text = f"{np.mean(certain):.1f} / {max(certain)}" if certain else "-"
    wrong = [r["wrong"] for r in rows if r["wrong"] is not None]
    wrong_text = f"{np.mean(wrong):.3f}" if wrong else "-"
    return (
        f"| {rows[0]['agent']} | {n} | {rank.mean():.2f} ± {half:.2f} | {firsts / n:.3f} [{low:.3f}, {high:.3f}] "
        f"| {reward.mean():+.3f} | {format_p(p)} | {wrong_text} | {certain_text} |"
    )


def pattern_summary(name: str, rows: list[dict]) -> str:
    """How often an interrogation-pattern rule fired, and how often it was right, over ``rows`` (its seat-games)."""
    fired = sum(r["inferences"] > 0 for r in rows)
    inferred = sum(r["inferences"] for r in rows)
    right = sum(r["inferences_right"] for r in rows)
    share = f" ({right / inferred:.1%})" if inferred else ""
    return (
        f"{name}: its rule fired in {fired} of {len(rows)} seat-games; {inferred} cards inferred (each player and "
        f"card once a game), {right} right{share}."
    )


def paired_summary(games: list[dict], alone: list[dict], agent: str, players: int) -> str:
    """How ``agent`` did against the scoreboard in its seat at the table of scoreboards alone, deal by deal
    (game ``g`` of both tables is the same deal with the same seeds)."""
    seats, reward = (
        np.array(
            [
                (s["seat"], s["reward"] - other["seats"][s["seat"]]["reward"])
                for game, other in zip(games, alone, strict=True)
                for s in game["seats"]
                if s["agent"] == agent
            ],
            dtype=float,
        )
        .reshape(-1, 2)
        .T
    )
    n = reward.size
    rank = -reward * (players - 1) / 2  # rank = 1 + (1 - reward) (players - 1) / 2
    half = stats.t.ppf(0.975, n - 1) * rank.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
    p = stats.ttest_1samp(reward, 0.0, alternative="greater").pvalue if n > 1 and reward.std() > 0 else float("nan")
    better, worse = int((reward > 0).sum()), int((reward < 0).sum())
    by_seat = ", ".join(
        f"{seat + 1}: {reward[seats == seat].mean():+.3f} ({int((reward[seats == seat] > 0).sum())}/"
        f"{int((reward[seats == seat] < 0).sum())})"
        for seat in range(players)
        if (seats == seat).any()
    )
    return (
        f"| {agent} | {n} | {rank.mean():+.3f} ± {half:.3f} | {reward.mean():+.4f} | {format_p(p)} "
        f"| {better} / {n - better - worse} / {worse} | {by_seat} |"
    )


def report(results: dict[tuple[str, str], list[dict]], settings: Settings, run: Run) -> str:
    """The markdown of ``results/generalized_clue.md``."""
    lines = [
        "# Generalized Clue tournaments",
        "",
        f"Written by `{run.command}` in {run.minutes:.0f} minutes {run.where}. "
        "The design is in the docstring of `train/experiments/generalized_clue_experiments.py`.",
        "",
        "Rank: mean with a 95% t interval (1 = first). First: share of games it guessed right first, Wilson 95%. "
        "p: one-sided t-test of the mean reward against 0 (an equal agent's expectation). Wrong: share of games "
        "it guessed wrong. Certain: the asks after which it was first certain, mean / most (- if never).",
        "",
        "![Mean rank by agent and setting](generalized_clue.png)",
        "",
    ]
    for setting in settings.settings:
        cards, hidden, players = SETTINGS[setting]
        bound = cards - hidden - cards / players
        lines += [f"## {setting}: {cards} cards, {hidden} hidden, {players} players", ""]
        rounds = GeneralizedClueRules(cards, hidden, players, settings.max_rounds).max_rounds
        lines.append(f"The report's worst case n - k - n/p = {bound:.1f} asks. A player must guess after {rounds} "
                     f"turns of its own ({'--max-rounds' if settings.max_rounds else 'the rules default'}).")
        lines.append("")
        here = seated_here(setting, settings.head_to_head)
        for table, seated in tables(players, here, settings.mixed, settings.paired).items():
            games = results.get((setting, table))
            if not games:
                continue
            lines += [
                f"**{table}** ({len(games)} games)",
                "",
                "| agent | seat-games | rank | first [95% CI] | reward | p | wrong | certain after (mean / max) |",
                "|---|---:|---|---|---:|---:|---:|---|",
            ]
            for name in dict.fromkeys(seated):  # each agent once, its copies pooled
                rows = [s for g in games for s in g["seats"] if s["agent"] == name]
                lines.append(summary(rows, players))
            over = [
                s
                for g in games
                for s in g["seats"]
                if s["agent"] == "scoreboard(no spoof)"
                and (s["certain_after"] is None or s["certain_after"] > cards - hidden - s["hand"])
            ]
            if "scoreboard(no spoof)" in seated:
                lines.append("")
                lines.append(
                    f"Scoreboard without spoofing over its exact worst case n - k - hand: {len(over)} of "
                    f"{len(games)} games."
                )
            for name in dict.fromkeys(seated):
                if name.startswith("interrogation-pattern"):
                    lines += ["", pattern_summary(name, [s for g in games for s in g["seats"] if s["agent"] == name])]
            lines.append("")
        alone = results.get((setting, ALONE))
        if alone:
            lines += [
                f"**Paired with the {ALONE}** (the same deals and seeds; the agent against the scoreboard that sat "
                "in its seat there; rank difference negative = better; p: one-sided paired t-test of the reward "
                "difference; games better / same / worse; by seat (1 moves first): the mean reward difference "
                "(games better / worse))",
                "",
                "| agent | games | rank difference | reward difference | p | better / same / worse | by seat |",
                "|---|---:|---|---:|---:|---|---|",
            ]
            for agent in here:
                games = results.get((setting, f"{agent} vs scoreboards"))
                if games:
                    lines.append(paired_summary(games, alone, agent, players))
            lines.append("")
    return "\n".join(lines) + "\n"


def plot(
    results: dict[tuple[str, str], list[dict]],
    settings: list[str],
    path: Path,
    head_to_head: Sequence[str] = DEFAULT_HEAD_TO_HEAD,
) -> None:
    """Mean rank with 95% intervals by agent (head-to-head tables) and setting."""
    import matplotlib

    matplotlib.use("Agg")
    from train.plotting import panel_grid, save

    figure, axes = panel_grid(1, width=6.0, height=4.0)
    ax = np.ravel(axes)[0]
    for k, agent in enumerate(head_to_head):
        xs, ys, errors = [], [], []
        for i, setting in enumerate(settings):
            games = results.get((setting, f"{agent} vs scoreboards"))
            if not games:
                continue
            rank = np.array([s["rank"] for g in games for s in g["seats"] if s["agent"] == agent])
            xs.append(i + 0.1 * (k - (len(head_to_head) - 1) / 2))
            ys.append(rank.mean())
            errors.append(stats.t.ppf(0.975, rank.size - 1) * rank.std(ddof=1) / np.sqrt(rank.size))
        ax.errorbar(xs, ys, yerr=errors, marker="o", capsize=3, linestyle="none", label=f"{agent} vs scoreboards")
    for i, setting in enumerate(settings):
        players = SETTINGS[setting][2]
        ax.plot([i - 0.3, i + 0.3], [(players + 1) / 2] * 2, "k--", linewidth=1)
    ax.set_xticks(range(len(settings)), settings)
    ax.set_ylabel("mean rank (1 = first; dashes: an equal agent's)")
    ax.invert_yaxis()
    ax.legend(fontsize=7)
    save(figure, path)


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=arguments.count(1), default=200, help="games per table (default 200)")
    parser.add_argument(
        "--report-games",
        type=arguments.count(1),
        default=40,
        help="games per table in the report's 8 x 5 setting (default 40)",
    )
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--chunk", type=arguments.count(1), default=20, help="games per job (default 20)")
    parser.add_argument(
        "--head-to-head",
        nargs="+",
        default=list(DEFAULT_HEAD_TO_HEAD),
        choices=[*HEAD_TO_HEAD, *kept_models()],
        metavar="AGENT",
        help=f"agents seated against scoreboards (default the first four of: {', '.join(HEAD_TO_HEAD)})",
    )
    parser.add_argument("--no-mixed", dest="mixed", action="store_false", help="leave out the mixed tables")
    parser.add_argument(
        "--max-rounds",
        type=arguments.count(1),
        default=None,
        help="every player's turns before it must guess, in every setting (default: the rules' own, 35 at 8 x 5, "
        "where a scoreboard that spoofs needs 36 to be certain)",
    )
    parser.add_argument(
        "--paired",
        action="store_true",
        help="also play scoreboards alone on the same deals, and compare each head-to-head agent with the "
        "scoreboard in its seat there, game by game",
    )


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    games, chosen = (8, ["3 x 4"]) if args.quick else (args.games, args.settings)  # quick: 8 games, small setting
    return Settings(
        games,
        args.report_games,
        tuple(chosen),
        tuple(args.head_to_head),
        args.mixed,
        args.paired,
        args.seed,
        args.chunk,
        args.max_rounds,
    )


def jobs(settings: Settings) -> list[tuple[str, str, int, int]]:
    """Every table in parts of ``chunk`` games, the large settings first (the workers finish together)."""
    out = [
        (setting, table, start, n)
        for setting in settings.settings
        for table in tables(
            SETTINGS[setting][2], seated_here(setting, settings.head_to_head), settings.mixed, settings.paired
        )
        for start, n in chunks(settings.report_games if setting == REPORT else settings.games, settings.chunk)
    ]
    return sorted(out, key=lambda job: -SETTINGS[job[0]][0])


def write(settings: Settings, parts: dict[tuple, list[dict]], run: Run) -> str:
    """``generalized_clue.md`` and ``generalized_clue.png``."""
    results = gather(parts)
    text = report(results, settings, run)
    (run.output / "generalized_clue.md").write_text(text)
    plot(results, list(settings.settings), run.output / "generalized_clue.png", settings.head_to_head)
    return text


EXPERIMENT = Experiment("generalized_clue_experiments", __doc__, options, settings, jobs, play_part, write)


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
