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

__all__ = ["ENV_IDS", "DeductionEnv", "algo_v0", "clue_v0", "env_rules", "generalized_clue_v0", "register_envs"]


def __getattr__(name: str) -> ModuleType:
    if name in {game.env_id for game in registry.games(multiplayer=True)}:  # algo_v0 and its kind
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
