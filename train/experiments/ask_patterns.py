"""What a Generalized Clue player's asks say about its hand: the course report's sorted ask histograms.

    python -m train.experiments.ask_patterns            # results/generalized_clue_ask_patterns.md
    python -m train.experiments.ask_patterns --quick    # a look in a minute, to runs/quick/

The course report (Ungewitter & Vespe, "Interrogation Pattern Analysis") counted how often a player named each
card in its asks over a game, sorted the cards by that count and drew the counts as bars: some players' own
cards sat together at one end, most or least asked, which its interrogation-pattern rule exploits. This plays
``--setting`` (default the report's 8 x 5: 45 cards, 5 hidden, 8 players) with one of each agent of
:data:`LINEUP` and scoreboards in the other seats, the seats rotated from game to game, ``--games`` games
(game ``g`` dealt from seed ``(--seed, g)``), and counts every player's asks card by card.

Reported:

* the report's figure for the first game: each agent's cards sorted by how often it asked them, as bars, its
  own cards marked;
* over the games, where an agent's own cards fall in its own order: their mean place from most asked (0) to
  least asked (1), ties sharing the mean of their places, with a 95% bootstrap interval over games, and the
  share of games in which its own cards are exactly its hand-size most asked or least asked cards (where the
  report's rule could find them). Asks that tell nothing of the hand put its own cards at 0.5 on average.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import rankdata

from agents import play_game
from deduction_envs.games.generalized_clue import GeneralizedClueRules
from train import arguments
from train.experiments.generalized_clue_experiments import REPORT, SETTINGS, make_agent
from train.experiments.runner import Experiment, Finished, Run, gather, run_experiment
from train.stats import bootstrap_rows, chunks

#: One of each agent; the other seats are scoreboards (the report's player).
LINEUP = ("exact", "interrogation-pattern", "scoreboard(no spoof)", "random")


@dataclass(frozen=True)
class Settings:
    setting: str  #: a key of :data:`train.experiments.generalized_clue_experiments.SETTINGS`
    games: int
    seed: int
    chunk: int  #: games per job


def lineup(players: int) -> list[str]:
    """The agents of a game before rotation: :data:`LINEUP` (as many as fit), then scoreboards."""
    return [*LINEUP[:players], *["scoreboard"] * max(0, players - len(LINEUP))]


def play_part(job: tuple[str, int, int], settings: Settings) -> list[dict]:
    """Games ``[start, start + n)``: every seat's agent, hand and count of asks naming each card."""
    setting, start, n = job
    rules = GeneralizedClueRules(*SETTINGS[setting])
    names = lineup(rules.players)
    out = []
    for g in range(start, start + n):
        shift = g % rules.players
        seated = names[shift:] + names[:shift]
        agents = [make_agent(name) for name in seated]
        counts = np.zeros((rules.players, rules.cards), dtype=np.int64)

        def count(event: Any, counts: np.ndarray = counts) -> None:
            if event.kind == "ask":
                counts[event.player, list(event.cards)] += 1

        listeners = [count] + [lambda event: None] * (rules.players - 1)  # asks are public: one seat's view
        play_game(rules, agents, seed=(settings.seed, g), listeners=listeners)
        out.append(
            {
                "names": seated,
                "hands": [sorted(int(c) for c in agent.knowledge.hand) for agent in agents],
                "counts": counts.tolist(),
            }
        )
    return out


def own_places(game: dict, seat: int) -> tuple[float, bool, bool] | None:
    """Where ``seat``'s own cards fall among the cards sorted by how often it asked them: their mean place (0 most
    asked, 1 least; ties share the mean of their places), and whether they are exactly its hand-size most asked
    or least asked cards (a set only where the next card's count differs). None if it never asked."""
    counts = np.array(game["counts"][seat])
    if not counts.any():
        return None
    hand = game["hands"][seat]
    places = (rankdata(-counts, method="average") - 1) / (counts.size - 1)
    order = np.sort(counts)[::-1]
    size = len(hand)
    own = np.sort(counts[hand])[::-1]
    most = bool((own == order[:size]).all() and order[size - 1] > order[size])
    least = bool((own[::-1] == order[::-1][:size]).all() and order[-size] < order[-size - 1])
    return float(places[hand].mean()), most, least


def histogram_lines(game: dict, seat: int) -> list[str]:
    """The report's figure: the cards by how often ``seat`` asked them, most first, a bar each, own cards marked."""
    counts = np.array(game["counts"][seat])
    hand = set(game["hands"][seat])
    order = np.argsort(-counts, kind="stable")
    return [f"{int(c):>3}: {'*' * int(counts[c])}{'  (own card)' if c in hand else ''}" for c in order]


def report(settings: Settings, games: list[dict], run: Run) -> str:
    cards, hidden, players = SETTINGS[settings.setting]
    lines = [
        "# What a Generalized Clue player's asks say about its hand",
        "",
        f"Written by `{run.command}` in {run.minutes:.0f} minutes {run.where}. "
        "The design is in the docstring of `train/experiments/ask_patterns.py`.",
        "",
        f"{settings.setting}: {cards} cards, {hidden} hidden, {players} players; {len(games)} games, one each of "
        f"{', '.join(LINEUP[:players])}, scoreboards in the other seats, seats rotated. The scoreboards spoof as "
        "the course report does.",
        "",
        "**Where its own cards fall in its own asks** (mean place from most asked, 0, to least asked, 1, with a 95% "
        "bootstrap interval over games; 0.5: the asks tell nothing of the hand. Own cards the most asked / the "
        "least asked: games in which its hand is exactly its hand-size most / least asked cards, which the "
        "report's rule needs)",
        "",
        "| agent | seat-games | mean place of own cards [95% CI] | own cards the most asked | the least asked |",
        "|---|---:|---|---:|---:|",
    ]
    names = sorted({name for game in games for name in game["names"]}, key=lambda n: (n == "scoreboard", n))
    for name in names:
        rows = [p for game in games for seat, n in enumerate(game["names"]) if n == name
                if (p := own_places(game, seat)) is not None]  # fmt: skip
        if not rows:
            continue
        low, high = bootstrap_rows(rows, lambda sample: float(np.mean([r[0] for r in sample])), settings.seed)
        mean = np.mean([r[0] for r in rows])
        most, least = sum(r[1] for r in rows), sum(r[2] for r in rows)
        lines.append(f"| {name} | {len(rows)} | {mean:.3f} [{low:.3f}, {high:.3f}] | {most} | {least} |")
    first = games[0]
    lines += ["", "**The report's figure, the first game**: each agent's cards by how often it asked them", ""]
    for seat, name in enumerate(first["names"]):
        if name == "scoreboard" and seat != first["names"].index("scoreboard"):
            continue  # one scoreboard is enough
        lines += [f"{name} (seat {seat + 1}):", "", "```", *histogram_lines(first, seat), "```", ""]
    return "\n".join(lines) + "\n"


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--setting", default=REPORT, choices=list(SETTINGS), help=f"the setting (default {REPORT})")
    parser.add_argument("--games", type=arguments.count(1), default=40, help="games (default 40)")
    parser.add_argument("--chunk", type=arguments.count(1), default=4, help="games per job (default 4)")


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    if args.quick:
        return Settings("3 x 4", 4, args.seed, 2)
    return Settings(args.setting, args.games, args.seed, args.chunk)


def jobs(settings: Settings) -> list[tuple[str, int, int]]:
    return [(settings.setting, start, n) for start, n in chunks(settings.games, settings.chunk)]


def write(settings: Settings, parts: dict[tuple, list[dict]], run: Run) -> str:
    (games,) = gather(parts).values()
    text = report(settings, games, run)
    (run.output / "generalized_clue_ask_patterns.md").write_text(text)
    return text


EXPERIMENT = Experiment("ask_patterns", __doc__, options, settings, jobs, play_part, write, job_name="games")


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
