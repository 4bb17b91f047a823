"""Recorded Clue states: games played with seeded suggestions, replayed into :class:`ClueKnowledge` state by state.

A sensible player names, per category, a card it has not yet seen; a random one any card. The events are those
player 0 observes. Used by the knowledge engine's benchmarks (``benchmarks/clue_knowledge.py``) and the WalkSAT
comparison (:mod:`train.experiments.clue_walksat`).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np

from deduction_envs.games.clue import deal, deal_sizes, refutation
from deduction_envs.reasoning import ClueKnowledge

__all__ = ["EXACT_WORK_LIMIT", "Event", "Table", "apply", "record_game", "replay"]

Event = tuple[str, int, list[int]]

#: The work limit of the sections that need exact answers everywhere (about a second at worst).
EXACT_WORK_LIMIT = 1.5e7


@dataclass(frozen=True)
class Table:
    """A deck and a table: classic Clue asks clockwise, Generalized Clue asks one chosen player."""

    category_sizes: tuple[int, ...]
    case_file_sizes: tuple[int, ...]
    players: int
    clockwise: bool = True
    query_size: int = 3

    @classmethod
    def classic(cls, players: int) -> Table:
        return cls((6, 6, 9), (1, 1, 1), players)

    @classmethod
    def generalized(cls, cards: int, hidden: int, players: int, query_size: int = 3) -> Table:
        return cls((cards,), (hidden,), players, clockwise=False, query_size=query_size)

    def knowledge(self, **kwargs) -> ClueKnowledge:
        dealt = sum(self.category_sizes) - sum(self.case_file_sizes)
        return ClueKnowledge(list(self.category_sizes), deal_sizes(dealt, self.players), self.case_file_sizes, **kwargs)


def record_game(table: Table, policy: str, seed: int, turns: int) -> tuple[np.ndarray, list[list[Event]]]:
    """Play ``turns`` suggestions; return the deal and, per state, the events player 0 saw since the last."""
    rng = np.random.default_rng(seed)
    players = table.players
    places = deal(table.category_sizes, table.case_file_sizes, players, rng)
    seen = [set(np.flatnonzero(places == p).tolist()) for p in range(players)]
    starts = np.cumsum([0, *table.category_sizes])
    states: list[list[Event]] = [[("hand", 0, sorted(seen[0]))]]
    for turn in range(turns):
        asker = turn % players
        if table.clockwise:
            groups = [range(a, b) for a, b in itertools.pairwise(starts)]
            size = 1
        else:
            groups = [range(int(starts[-1]))]
            size = table.query_size
        cards: list[int] = []
        for group in groups:
            pool = [c for c in group if c not in seen[asker]] if policy == "sensible" else list(group)
            pool = pool if len(pool) >= size else list(group)
            cards += rng.choice(pool, size=size, replace=False).tolist()
        cards.sort()
        if table.clockwise:
            asked = [(asker + k) % players for k in range(1, players)]
            refuter, matching = refutation(places, asker, cards, players)
        else:
            asked = [int((asker + rng.integers(1, players)) % players)]
            matching = [c for c in cards if places[c] == asked[0]]
            refuter = asked[0] if matching else None
        events: list[Event] = []
        for player in asked:
            if player == refuter:
                break
            if player != 0:
                events.append(("none", player, cards))
        if refuter is not None:
            shown = int(rng.choice(matching))
            seen[asker].add(shown)
            if asker == 0:
                events.append(("holds", refuter, [shown]))
            elif refuter != 0:
                events.append(("one_of", refuter, cards))
        states.append(events)
    return places, states


def apply(knowledge: ClueKnowledge, event: Event) -> None:
    kind, player, cards = event
    {
        "hand": knowledge.add_hand,
        "holds": knowledge.add_holds,
        "none": knowledge.add_holds_none,
        "one_of": knowledge.add_holds_one_of,
    }[kind](player, cards)


def replay(table: Table, places: np.ndarray, states: list[list[Event]], **kwargs):
    """Yield the knowledge after each state, with the seconds its events took to add; check it stays sound."""
    knowledge = table.knowledge(**kwargs)
    for events in states:
        start = time.perf_counter()
        for event in events:
            apply(knowledge, event)
        added = time.perf_counter() - start
        yield knowledge, added
