"""Registration of every deduction env with Gymnasium."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from deduction_envs import registry
from deduction_envs.core.rules import DeductionRules
from deduction_envs.games import make_rules

__all__ = ["BATCHED_GAMES", "ENV_IDS", "env_rules", "register_envs"]

_VECTOR_ENTRY_POINT = "deduction_envs.envs.batched_env:make_batched"

#: The Gymnasium id of every single-player game built in, ``<Name>-v0`` (the registry holds any added since).
ENV_IDS: tuple[str, ...] = tuple(game.env_id for game in registry.games(multiplayer=False))
#: The games ``gym.make_vec`` plays in one batched env by default
#: (:class:`~deduction_envs.envs.batched_env.BatchedDeductionEnv`); the others as N single envs.
BATCHED_GAMES: tuple[str, ...] = tuple(game.name for game in registry.games(multiplayer=False) if game.batched)


def register_envs() -> None:
    """Register every game of :mod:`deduction_envs.registry`: single-player ones with Gymnasium, multiplayer
    ones with PettingZoo (where it has a registry).

    Safe to call more than once. Size parameters and env options are keyword
    arguments of ``gym.make``; truncation is the env's own (``max_steps``), so
    no ``TimeLimit`` wrapper is added. Batched games have a vector entry point,
    so ``gym.make_vec`` builds one batched env for them unless
    ``vectorization_mode`` says otherwise (as for Gymnasium's own envs with
    one, ``wrappers=`` then needs ``vectorization_mode="sync"``).
    """
    for game in registry.games(multiplayer=False):
        if game.env_id not in gym.registry:
            gym.register(
                id=game.env_id,
                entry_point="deduction_envs.envs.deduction_env:DeductionEnv",
                vector_entry_point=_VECTOR_ENTRY_POINT if game.batched else None,
                kwargs={"rules": game.name},
            )
    _register_pettingzoo()


def _register_pettingzoo() -> None:
    """Register the AEC envs with PettingZoo, whose registry exists from version 1.27 on."""
    import pettingzoo

    if not hasattr(pettingzoo, "register"):
        return
    for game in registry.games(multiplayer=True):
        if game.aec_id is not None and game.aec_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", game.aec_id, entry_point=f"{game.env}:env")


def env_rules(env_id: str, **sizes: Any) -> DeductionRules:
    """The rules that single-player env ``env_id`` plays at ``sizes``, without building the env.

    Raises ValueError for an id that is not a single-player deduction env, and
    the game's own errors for bad sizes.
    """
    game = registry.game(env_id) if env_id in {g.env_id for g in registry.games()} else None
    if game is None or game.multiplayer:
        ids = ", ".join(g.env_id for g in registry.games(multiplayer=False))
        raise ValueError(f"unknown env id {env_id!r}; deduction envs: {ids}")
    return make_rules(game.name, **sizes)
