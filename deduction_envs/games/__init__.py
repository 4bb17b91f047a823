"""Pure rules of the single-player games, one module per game family.

No Gymnasium or PettingZoo import lives here. :data:`GAMES` maps each game's
registered name to its rules class; :func:`make_rules` builds one by name.
"""

from __future__ import annotations

from deduction_envs import registry
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

#: The single-player games declared in :mod:`deduction_envs.registry` when this package was imported, by name
#: (a view of the registry; :func:`make_rules` also finds games registered since).
GAMES: dict[str, type[DeductionRules]] = {game.name: game.rules_class() for game in registry.games(multiplayer=False)}


def make_rules(game: str, **sizes: int) -> DeductionRules:
    """The rules of single-player ``game`` (its name or Gymnasium id in :mod:`deduction_envs.registry`) at the
    given sizes: :meth:`Game.make_rules <deduction_envs.registry.Game.make_rules>`, one object per configuration.
    """
    entry = registry.game(game)
    if entry.multiplayer:
        raise ValueError(f"{game!r} is a multiplayer game; its rules are {entry.rules}")
    return entry.make_rules(**sizes)
