"""Training one seat of many batched multiplayer games at once (issue 61): the batched twin as an SB3 ``VecEnv``.

    python -m train --env clue_v0 --vec-env batched --opponents deduction_sheet --timesteps 1000000

:class:`BatchedSeatsVecEnv` is the SB3 adapter of the library's batched multiplayer vector env,
:class:`deduction_envs.envs.batched_tables.BatchedTables` (issue 82): game ``i`` of a batched twin is env ``i``, in
which the learner plays one seat (drawn each game) and every other seat is an opponent drawn per game from a pool
of the reference agents' compiled twins (``agents/*_batched.py``, by their roster names). This adapter adds what is
SB3's: snapshots of the learner (saved models; a league adds them with ``env_method("add_opponent", path)``, as it
does to the single-seat envs, each deciding for its games in one forward pass), SB3's seeding, per-env methods,
and :func:`train.multiplayer.make_seat_envs` monitors it and adds the entropy shaping. Self-play, where the
learner holds several seats of a game and learns from each, is :mod:`train.self_play`'s subclass (the pool's
``self``).

The trained policy is evaluated on the AEC env against the Python reference agents
(:func:`train.multiplayer.evaluate_seat_policy`), as every multiplayer run is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from agents.sb3_policy import masked_probabilities, sample_actions
from deduction_envs.envs.batched_tables import BatchedTables

__all__ = ["BatchedSeatsVecEnv"]


class _Snapshot:
    """A saved model's policy as a player of the pool: it samples its masked distribution, one uniform a game."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def choose(self, observations: np.ndarray, masks: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        return sample_actions(masked_probabilities(self.policy, observations, masks), uniforms)


class BatchedSeatsVecEnv(BatchedTables, VecEnv):
    """The learner's seat of ``n_envs`` batched games of ``env`` as an SB3 ``VecEnv``: the library's
    :class:`~deduction_envs.envs.batched_tables.BatchedTables`, with saved models' paths in the pool (snapshots,
    loaded as ``algo`` saved them) and SB3's seeding and per-env methods; see the module docstring.

    Args: those of :class:`~deduction_envs.envs.batched_tables.BatchedTables`, and ``algo``: the algorithm the
    snapshots were saved with (only ``maskable_ppo``: they mask actions).
    """

    def __init__(self, *args: Any, algo: str = "maskable_ppo", **kwargs: Any) -> None:
        if algo != "maskable_ppo":
            raise ValueError(f"the batched seats train with maskable_ppo (their snapshots mask actions), got {algo}")
        self.algo = algo
        super().__init__(*args, **kwargs)
        self.render_mode = None  # before SB3's set-up, which warns where it is missing
        VecEnv.__init__(self, self.num_envs, self.observation_space, self.action_space)

    def add_opponent(self, entry: str | Path, player: Any = None) -> None:
        """A pool entry as :meth:`BatchedTables.add_opponent` takes them, or a saved model's path (a snapshot).

        Raises:
            ValueError: a name without a compiled twin, or a path that is not a saved model of this game.
        """
        if player is None and (Path(entry).suffix == ".zip" or Path(entry).exists()):
            from agents.sb3_policy import load_model

            model = load_model(entry, self.algo)
            if model.observation_space.shape != self.observation_space.shape:
                raise ValueError(f"{entry} observes {model.observation_space.shape}, this game "
                                 f"{self.observation_space.shape}")  # fmt: skip
            player = _Snapshot(model.policy)
        super().add_opponent(entry, player)

    # ------------------------------------------------------------------ SB3's VecEnv
    def reset(self) -> np.ndarray:
        observations = super().reset(self._seeds[0])  # seed(s) called: the streams start again
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observations

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        return VecEnv.step(self, actions)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        return super().step(self._actions)

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"the batched games share their attributes; {attr_name!r} cannot be set per game")

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        if method_name == "add_opponent":  # one pool for every game: added once
            self.add_opponent(*method_args, **method_kwargs)
            return [None] * len(rows)
        raise AttributeError(f"the batched seats have no per-game method {method_name!r} "
                             "(action_masks, add_opponent)")  # fmt: skip

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))
