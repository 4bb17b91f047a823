"""How long the Clue table assistant takes to answer after each entry, in 6-player games.

    python -m benchmarks.assistant [--games 20] [--players 6]

``--games`` games of deduction-sheet agents (seeds 0, 1, ...) are played on
the pure rules; seat 0's events become the entries a person would type
(suggestions with passes and the refuter, the card shown to them, cards they
showed, accusations). Each entry is timed from ``ClueSession.add`` to the
answers the app shows (the solution, the sheet, the five likeliest case
files); advice (the best suggestion and whether to accuse) is timed apart, as
it is asked for. Reported: p50, p95 and the worst over every entry of every
game, and the reference of the same run: one exact solve of the empty
knowledge.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from agents import ClueDeductionSheet, play_game
from deduction_envs.games.clue import ClueRules
from train import arguments
from train.tools.assistant import ClueSession


def entries(rules: ClueRules, events: list, names: list[str], me: int) -> list[dict]:
    """Seat ``me``'s projected events as the assistant's entries."""
    out: list[dict] = []
    cards = rules.card_names
    for event in events:
        if event.kind == "suggest":
            out.append({"kind": "suggestion", "player": names[event.player], "cards": [cards[c] for c in event.cards],
                        "passed": [names[p] for p in event.passed],
                        "refuter": names[event.refuter] if event.refuter >= 0 else None, "shown": None})  # fmt: skip
        elif event.kind == "show" and event.asker == me and event.card >= 0:
            out[-1]["shown"] = cards[event.card]
        elif event.kind == "show" and event.player == me:
            out.append({"kind": "showed", "player": names[event.asker], "cards": [cards[event.card]]})
        elif event.kind == "accuse":
            out.append({"kind": "accusation", "player": names[event.player],
                        "cards": [cards[c] for c in event.cards], "correct": bool(event.correct)})  # fmt: skip
    return out


def measure(games: int, players: int) -> tuple[np.ndarray, np.ndarray]:
    """Seconds per entry (to the answers shown) and per advice, over ``games`` games."""
    rules = ClueRules(players)
    names = [f"P{p}" for p in range(players)]
    answers, advice = [], []
    for game in range(games):
        agents = [ClueDeductionSheet() for _ in range(players)]
        play_game(rules, agents, seed=game)
        knowledge = agents[0].knowledge
        session = ClueSession(names, 0, [rules.card_names[c] for c in knowledge.hand])
        pending = entries(rules, knowledge.events, names, 0)
        for entry in pending:
            start = time.perf_counter()
            session.add(entry)
            session.solution()
            session.sheet()
            session.case_files(5)
            answers.append(time.perf_counter() - start)
            start = time.perf_counter()
            session.advice()
            advice.append(time.perf_counter() - start)
    return np.array(answers), np.array(advice)


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20, help="games per measurement (default 20)")
    parser.add_argument("--players", type=int, default=6, choices=range(3, 7), help="players (default 6)")
    args = parser.parse_args(argv)
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    measure(1, 3)  # compile the kernels outside the timings
    start = time.perf_counter()
    ClueSession([f"P{p}" for p in range(args.players)], 0, list(range(18 // args.players))).solution()
    reference = time.perf_counter() - start
    answers, advice = measure(args.games, args.players)
    for name, t in (("answer after an entry", answers), ("advice", advice)):
        ms = 1e3 * t
        print(
            f"{name}: {t.size} entries, p50 {np.median(ms):.0f} ms, p95 {np.percentile(ms, 95):.0f} ms, "
            f"worst {ms.max():.0f} ms (x{t.max() / reference:.0f} the reference)"
        )
    print(f"reference, one exact solve of the empty knowledge: {1e3 * reference:.1f} ms")


if __name__ == "__main__":
    main()
