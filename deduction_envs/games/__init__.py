"""Pure rules of the single-player games, one module per game family.

No Gymnasium or PettingZoo import lives here. :data:`GAMES` maps each game's
registered name to its rules class; :func:`make_rules` builds one by name.
"""

from __future__ import annotations

import dataclasses
import weakref

from deduction_envs.core.rules import DeductionRules
from deduction_envs.games.black_box import BlackBox
from deduction_envs.games.codes import BullsAndCows, CodeGame, Mastermind, SimpleMastermind, score_codes
from deduction_envs.games.fake_coin import FakeCoin
from deduction_envs.games.low_middle_high import LowMiddleHigh
from deduction_envs.games.treasure_hunt import TreasureHunt
from deduction_envs.games.wordle import Wordle

__all__ = [
    "GAMES",
    "BlackBox",
    "BullsAndCows",
    "CodeGame",
    "FakeCoin",
    "LowMiddleHigh",
    "Mastermind",
    "SimpleMastermind",
    "TreasureHunt",
    "Wordle",
    "make_rules",
    "score_codes",
]

GAMES: dict[str, type[DeductionRules]] = {
    cls.name: cls
    for cls in (
        Mastermind,
        SimpleMastermind,
        BullsAndCows,
        Wordle,
        FakeCoin,
        TreasureHunt,
        LowMiddleHigh,
        BlackBox,
    )
}


#: The one rules object of each configuration in this process, so that every env, sub-env, evaluation chunk
#: and agent built by name shares its caches (the feedback memo above all: Wordle's takes seconds to fill).
_SHARED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def make_rules(game: str, **sizes: int) -> DeductionRules:
    """The rules of ``game`` (a name in :data:`GAMES`) at the given sizes.

    Rules are immutable, so equal configurations get the same object while
    any holder keeps it alive: one feedback memo per configuration.
    """
    try:
        cls = GAMES[game]
    except KeyError:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}") from None
    accepted = [field.name for field in dataclasses.fields(cls)]
    unknown = sorted(set(sizes) - set(accepted))
    if unknown:
        raise TypeError(f"{game} has no size parameter {', '.join(map(repr, unknown))}; it accepts {accepted}")
    rules = cls(**sizes)
    return _SHARED.setdefault(rules, rules)
