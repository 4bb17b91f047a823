"""Registration of every deduction env with Gymnasium."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from deduction_envs.core.rules import DeductionRules
from deduction_envs.games import GAMES, make_rules

__all__ = ["BATCHED_GAMES", "ENV_IDS", "env_rules", "register_envs"]

#: The games ``gym.make_vec`` plays in one batched env by default
#: (:class:`~deduction_envs.envs.batched_env.BatchedDeductionEnv`); the others as N single envs.
BATCHED_GAMES = ("Mastermind", "SimpleMastermind", "BullsAndCows", "Wordle", "TreasureHunt", "LowMiddleHigh")
_VECTOR_ENTRY_POINT = "deduction_envs.envs.batched_env:make_batched"

#: The Gymnasium id of every single-player game, ``<Name>-v0``.
ENV_IDS: tuple[str, ...] = tuple(f"{name}-v0" for name in GAMES)
_GAME_OF = dict(zip(ENV_IDS, GAMES, strict=True))


def register_envs() -> None:
    """Register ``<Name>-v0`` for every game in :data:`deduction_envs.games.GAMES`, and the AEC envs.

    Safe to call more than once. Size parameters and env options are keyword
    arguments of ``gym.make``; truncation is the env's own (``max_steps``), so
    no ``TimeLimit`` wrapper is added. The games of :data:`BATCHED_GAMES` have
    a vector entry point, so ``gym.make_vec`` builds one batched env for them
    unless ``vectorization_mode`` says otherwise (as for Gymnasium's own envs
    with one, ``wrappers=`` then needs ``vectorization_mode="sync"``).
    """
    for env_id, name in _GAME_OF.items():
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point="deduction_envs.envs.deduction_env:DeductionEnv",
                vector_entry_point=_VECTOR_ENTRY_POINT if name in BATCHED_GAMES else None,
                kwargs={"rules": name},
            )
    _register_pettingzoo()


#: The multiplayer envs' ids in PettingZoo's registry (``pettingzoo.make("aec", id)``), where it has one.
AEC_ENV_IDS = ("deduction_envs/algo-v0", "deduction_envs/clue-v0", "deduction_envs/generalized_clue-v0")


def _register_pettingzoo() -> None:
    """Register the AEC envs with PettingZoo, whose registry exists from version 1.27 on."""
    import pettingzoo

    if not hasattr(pettingzoo, "register"):
        return
    for env_id in AEC_ENV_IDS:
        if env_id not in pettingzoo.aec_registry:
            module = env_id.split("/")[1].split("-")[0]
            pettingzoo.register("aec", env_id, entry_point=f"deduction_envs.envs.{module}:env")


def env_rules(env_id: str, **sizes: Any) -> DeductionRules:
    """The rules that env ``env_id`` plays at ``sizes``, without building the env.

    Raises ValueError for an id that is not a deduction env, and the game's
    own errors for bad sizes.
    """
    if env_id not in _GAME_OF:
        raise ValueError(f"unknown env id {env_id!r}; deduction envs: {', '.join(ENV_IDS)}")
    return make_rules(_GAME_OF[env_id], **sizes)
