"""Decision times of the Clue entropy agent, and the uniform deals it draws.

    python -m benchmarks.clue_agents [--games 10]

For 3 to 6 players, ``--games`` games of deduction-sheet agents are played and
seat 0's knowledge is kept at the start of each of its turns. At each such
state (the knowledge folded and solved first, as in a game):

* ``ClueEntropyAgent`` decisions (uniform and adversarial refuters): p50,
  p95 and the maximum;
* drawing 2,000 uniform consistent deals (``ClueKnowledge.sample``), which
  the decision starts with;
* the exact solution of the same state from scratch (``ClueKnowledge.solve``
  on a fresh copy), the reference the decision is given as a ratio of.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from agents import ClueDeductionSheet, ClueEntropyAgent, play_game
from deduction_envs.games.clue import CluePhase, ClueRules
from deduction_envs.reasoning.clue_player import CluePlayerKnowledge
from train import arguments


def states(players: int, games: int) -> list[list]:
    """Seat 0's events up to the start of each of its turns, over ``games`` games of deduction-sheet agents."""
    rules = ClueRules(players)
    out = []
    for game in range(games):
        agents = [ClueDeductionSheet() for _ in range(players)]
        play_game(rules, agents, seed=game)
        events = agents[0].knowledge.events
        out += [events[: i + 1] for i, e in enumerate(events) if e.next_mover == 0 or (i == 0 and e.player == 0)]
    return out


def knowledge_of(rules: ClueRules, events: list, solve: bool = True) -> CluePlayerKnowledge:
    knowledge = CluePlayerKnowledge(rules, 0)
    for event in events:
        knowledge.update(event)
    if solve:
        knowledge.solution()
    return knowledge


def measure(players: int, games: int) -> dict[str, np.ndarray]:
    rules = ClueRules(players)
    start_mask = np.zeros(rules.num_actions, dtype=bool)
    start_mask[: 2 * rules.num_triples] = True  # every suggestion and accusation
    times: dict[str, list[float]] = {"uniform": [], "adversarial": [], "draw": [], "solve": []}
    for events in states(players, games):
        knowledge = knowledge_of(rules, events)
        if knowledge.phase != CluePhase.START:
            continue
        for model in ("uniform", "adversarial"):
            agent = ClueEntropyAgent(refuter=model)
            agent.reset(rules, 0, seed=0)
            agent.knowledge = knowledge
            start = time.perf_counter()
            agent.act(start_mask)
            times[model].append(time.perf_counter() - start)
        start = time.perf_counter()
        knowledge.engine.sample(2000, np.random.default_rng(0))
        times["draw"].append(time.perf_counter() - start)
        fresh = knowledge_of(rules, events, solve=False).engine
        start = time.perf_counter()
        fresh.solve()
        times["solve"].append(time.perf_counter() - start)
    return {k: 1e3 * np.array(v) for k, v in times.items()}


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10, help="games of deduction-sheet agents per player count")
    args = parser.parse_args(argv)
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    measure(3, 1)  # compile and load the kernels outside the timings
    print("ms per decision at the start of seat 0's turns: p50 / p95 / max (the decision over the exact solve)")
    for players in (3, 4, 5, 6):
        t = measure(players, args.games)
        line = f"  {players} players, {t['uniform'].size} states:"
        for name in ("uniform", "adversarial", "draw", "solve"):
            line += f" {name} {np.median(t[name]):.0f} / {np.percentile(t[name], 95):.0f} / {t[name].max():.0f};"
        ratio = np.median(t["uniform"] / np.maximum(t["solve"], 1e-3))
        print(f"{line} uniform decision / solve, median x{ratio:.1f}")


if __name__ == "__main__":
    main()
