"""Thin adapters from rules to Gymnasium envs and PettingZoo AEC envs (``algo_v0``, ``clue_v0``,
``generalized_clue_v0``).

The multiplayer envs are imported on first use (``from deduction_envs.envs import clue_v0``), so a user of
the single-player Gymnasium envs does not pay for numba and the knowledge engines.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from deduction_envs import registry
from deduction_envs.envs.deduction_env import DeductionEnv
from deduction_envs.envs.registration import ENV_IDS, env_rules, register_envs

#: The multiplayer env modules (``algo_v0``, ...) are the registry's: one is imported when first named.
MULTIPLAYER_ENVS = tuple(game.env_id for game in registry.games(multiplayer=True))
__all__ = ["ENV_IDS", "MULTIPLAYER_ENVS", "DeductionEnv", "env_rules", "register_envs", *MULTIPLAYER_ENVS]


def __getattr__(name: str) -> ModuleType:
    if name in {game.env_id for game in registry.games(multiplayer=True)}:  # algo_v0 and its kind, even if added later
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
