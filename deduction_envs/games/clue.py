"""The decks of Clue (Cluedo) and Generalized Clue.

Clue hides one suspect, one weapon and one room in the case file and deals the
other 18 cards one at a time around the table, so with 4 or 5 players the
first players hold one card more. Generalized Clue (a course game at Columbia)
hides ``k`` of ``n`` cards of a single kind and deals the rest the same way.
"""

from __future__ import annotations

from deduction_envs.core.rules import check_int

__all__ = ["CLASSIC_CATEGORIES", "CLASSIC_CATEGORY_NAMES", "deal_sizes"]

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
