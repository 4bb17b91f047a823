"""The batched env as a stable-baselines3 ``VecEnv``, so that ``python -m train`` steps every copy at once.

    from train.vec_env import batched_vec_env
    venv = batched_vec_env("Mastermind-v0", n_envs=8, seed=0, pegs=4, colors=6)
    model = MaskablePPO("MultiInputPolicy", venv)

:class:`SB3BatchedVecEnv` wraps a
:class:`~deduction_envs.envs.batched_env.BatchedDeductionEnv` in same-step
autoreset (SB3's convention: a finished game's last observation is in
``infos[i]["terminal_observation"]`` and the returned one is the next game's),
with ``TimeLimit.truncated`` set on truncation, seeds from ``seed()`` (game
``i`` gets ``seed + i``, as ``DummyVecEnv`` gives its copies, so the games are
those of ``--vec-env dummy``), and ``env_method("action_masks")`` for
MaskablePPO. The per-game ``infos`` carry only those keys (the batched env's
own vector info is not split into dicts, which would cost more than the step).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.monitor import ResultsWriter
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from deduction_envs.envs.batched_env import BatchedDeductionEnv

__all__ = ["SB3BatchedVecEnv", "batched_vec_env"]


class SB3BatchedVecEnv(VecEnv):
    """A :class:`BatchedDeductionEnv` (made with ``autoreset_mode=SAME_STEP``) as an SB3 ``VecEnv``."""

    def __init__(self, batched: BatchedDeductionEnv) -> None:
        if batched.autoreset_mode != AutoresetMode.SAME_STEP:
            raise ValueError("SB3 resets finished games in the same step: make the env with autoreset_mode=SAME_STEP")
        self.batched = batched
        super().__init__(batched.num_envs, batched.single_observation_space, batched.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> dict[str, np.ndarray]:
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        observation, _ = self.batched.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observation

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, list[dict]]:
        observation, rewards, terminated, truncated, info = self.batched.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = info["final_obs"][i]
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return observation, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """Every game's legal actions, bool ``(num_envs, actions)``."""
        return np.asarray(self.batched.action_masks())

    def close(self) -> None:
        self.batched.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self.batched, attr_name)  # AttributeError for a name it lacks, as has_attr expects
        return [value] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"the batched env's games share their attributes; {attr_name!r} cannot be set per game")

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        rows = self._get_indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        raise AttributeError(f"the batched env has no per-game method {method_name!r} (only action_masks)")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    def _get_indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices) if isinstance(indices, Iterable) else [indices]


def batched_vec_env(
    env_id: str, n_envs: int, seed: int, monitor_dir: str | None = None, append: bool = False, **env_kwargs: Any
) -> VecEnv:
    """``n_envs`` games of ``env_id`` in one batched env, as an SB3 ``VecEnv`` seeded like ``make_vec_env``'s,
    with a ``VecMonitor`` logging episodes to ``monitor_dir/batched.monitor.csv`` (appended to with ``append``)."""
    game = env_id.split(":")[-1].removesuffix("-v0")
    batched = BatchedDeductionEnv(n_envs, game, autoreset_mode=AutoresetMode.SAME_STEP, **env_kwargs)
    venv: VecEnv = SB3BatchedVecEnv(batched)
    venv.seed(seed)
    if monitor_dir is not None:
        venv = VecMonitor(venv)
        # VecMonitor would start its log afresh; a resumed run (append) adds to it.
        venv.results_writer = ResultsWriter(
            f"{monitor_dir}/batched", header={"t_start": venv.t_start, "env_id": env_id}, override_existing=not append
        )
    return venv
