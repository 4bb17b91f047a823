"""The decks of Clue (Cluedo) and Generalized Clue.

Clue hides one suspect, one weapon and one room in the case file and deals the
other 18 cards one at a time around the table, so with 4 or 5 players the
first players hold one card more. Generalized Clue (a course game at Columbia)
hides ``k`` of ``n`` cards of a single kind and deals the rest the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from deduction_envs.core.rules import check_int

__all__ = ["CLASSIC_CATEGORIES", "CLASSIC_CATEGORY_NAMES", "deal", "deal_sizes", "refutation"]

CLASSIC_CATEGORY_NAMES = ("suspect", "weapon", "room")
CLASSIC_CATEGORIES: tuple[tuple[str, ...], ...] = (
    ("Miss Scarlet", "Colonel Mustard", "Mrs. White", "Mr. Green", "Mrs. Peacock", "Professor Plum"),
    ("Candlestick", "Knife", "Lead Pipe", "Revolver", "Rope", "Wrench"),
    ("Kitchen", "Ballroom", "Conservatory", "Dining Room", "Billiard Room", "Library", "Lounge", "Hall", "Study"),
)


def deal_sizes(cards: int, players: int) -> tuple[int, ...]:
    """Hand sizes when ``cards`` are dealt one at a time starting with player 0.

    >>> deal_sizes(18, 4)
    (5, 5, 4, 4)
    """
    cards = check_int("cards", cards, low=0)
    players = check_int("players", players, low=1)
    return tuple(cards // players + (p < cards % players) for p in range(players))


def deal(
    category_sizes: Sequence[int], case_file_sizes: Sequence[int], players: int, rng: np.random.Generator
) -> np.ndarray:
    """Shuffle and deal: each card's place, ``players`` for the case file.

    The case file takes a uniform choice of ``case_file_sizes[j]`` cards of
    each category ``j``; the rest are shuffled and dealt one at a time from
    player 0, so hands have the sizes :func:`deal_sizes` gives.
    """
    starts = np.cumsum([0, *category_sizes])
    places = np.full(int(starts[-1]), -1, dtype=np.int64)
    for start, size, hidden in zip(starts[:-1], category_sizes, case_file_sizes, strict=True):
        places[start + rng.choice(size, size=hidden, replace=False)] = players
    rest = rng.permutation(np.flatnonzero(places < 0))
    places[rest] = np.arange(rest.size) % players
    return places


def refutation(places: np.ndarray, asker: int, cards: Sequence[int], players: int) -> tuple[int | None, list[int]]:
    """Who refutes ``asker``'s suggestion of ``cards``, and the cards they could show.

    The players after ``asker`` are asked clockwise; the first holding any of
    the cards refutes. ``(None, [])`` when nobody can.
    """
    for step in range(1, players):
        player = (asker + step) % players
        matching = [int(c) for c in cards if places[c] == player]
        if matching:
            return player, matching
    return None, []
