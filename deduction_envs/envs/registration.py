"""Registration of every deduction env with Gymnasium."""

from __future__ import annotations

import gymnasium as gym

from deduction_envs.games import GAMES

__all__ = ["ENV_IDS", "register_envs"]

#: The Gymnasium id of every single-player game, ``<Name>-v0``.
ENV_IDS: tuple[str, ...] = tuple(f"{name}-v0" for name in GAMES)


def register_envs() -> None:
    """Register ``<Name>-v0`` for every game in :data:`deduction_envs.games.GAMES`.

    Safe to call more than once. Size parameters and env options are keyword
    arguments of ``gym.make``; truncation is the env's own (``max_steps``), so
    no ``TimeLimit`` wrapper is added.
    """
    for name, env_id in zip(GAMES, ENV_IDS, strict=True):
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point="deduction_envs.envs.deduction_env:DeductionEnv",
                kwargs={"rules": name},
            )
