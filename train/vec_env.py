"""The batched env as a stable-baselines3 ``VecEnv``, so that ``python -m train`` steps every copy at once.

    from sb3_contrib import MaskablePPO
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

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.monitor import ResultsWriter
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper, VecMonitor

from deduction_envs.envs.batched_env import BatchedDeductionEnv
from deduction_envs.wrappers.entropy_reward import EntropyRewardWrapper, entropy_shaping

__all__ = ["SB3BatchedVecEnv", "Shaped", "batched_vec_env", "monitored"]


class SB3BatchedVecEnv(VecEnv):
    """A :class:`BatchedDeductionEnv` (made with ``autoreset_mode=SAME_STEP``) as an SB3 ``VecEnv``."""

    def __init__(self, batched: BatchedDeductionEnv, entropy_reward: float | None = None, gamma: float = 1.0) -> None:
        if batched.autoreset_mode != AutoresetMode.SAME_STEP:
            raise ValueError("SB3 resets finished games in the same step: make the env with autoreset_mode=SAME_STEP")
        if entropy_reward is not None:
            EntropyRewardWrapper.check(entropy_reward, gamma)
        self.batched = batched
        self.entropy_reward, self.gamma = entropy_reward, gamma
        super().__init__(batched.num_envs, batched.single_observation_space, batched.single_action_space)
        self._actions: np.ndarray | None = None
        self._entropy = np.zeros(batched.num_envs)
        #: The entropy shaping of the last step (zeros without ``entropy_reward``), which :class:`Shaped` adds to
        #: the rewards outside the monitor, so that the monitor logs the game's own.
        self.shaping = np.zeros(batched.num_envs)

    def reset(self) -> dict[str, np.ndarray]:
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        observation, info = self.batched.reset(seed=seeds)
        self._entropy = info["entropy"].copy()
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observation

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, list[dict]]:
        observation, rewards, terminated, truncated, info = self.batched.step(self._actions)
        dones = terminated | truncated
        if self.entropy_reward is not None:  # EntropyRewardWrapper's shaping, for every game at once
            after = info["entropy"].copy()
            if dones.any():
                after[dones] = info["final_info"]["entropy"][dones]
            self.shaping = entropy_shaping(self._entropy, after, scale=self.entropy_reward, gamma=self.gamma,
                                           terminal=terminated)  # fmt: skip
            self._entropy = info["entropy"].copy()  # the new games' own where one ended
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
        return [value] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"the batched env's games share their attributes; {attr_name!r} cannot be set per game")

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        raise AttributeError(f"the batched env has no per-game method {method_name!r} (only action_masks)")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))


class Shaped(VecEnvWrapper):
    """Adds the adapter's entropy shaping (:attr:`SB3BatchedVecEnv.shaping`) to the rewards it passes on."""

    def __init__(self, venv: VecEnv, adapter: SB3BatchedVecEnv) -> None:
        super().__init__(venv)
        self.adapter = adapter

    def reset(self) -> Any:
        return self.venv.reset()

    def step_wait(self) -> Any:
        observation, rewards, dones, infos = self.venv.step_wait()
        return observation, (rewards + self.adapter.shaping).astype(np.float32), dones, infos


def batched_vec_env(
    env_id: str,
    n_envs: int,
    seed: int,
    monitor_dir: str | None = None,
    append: bool = False,
    entropy_reward: float | None = None,
    gamma: float = 1.0,
    **env_kwargs: Any,
) -> VecEnv:
    """``n_envs`` games of ``env_id`` in one batched env, as an SB3 ``VecEnv`` seeded like ``make_vec_env``'s,
    with a ``VecMonitor`` logging episodes to ``monitor_dir/batched.monitor.csv`` (appended to with ``append``)
    and, with ``entropy_reward``, :class:`EntropyRewardWrapper`'s shaping of that scale and ``gamma`` added to
    the rewards after the monitor has logged the game's own (as ``python -m train`` wraps single envs)."""
    game = env_id.split(":")[-1].removesuffix("-v0")
    batched = BatchedDeductionEnv(n_envs, game, autoreset_mode=AutoresetMode.SAME_STEP, **env_kwargs)
    adapter = SB3BatchedVecEnv(batched, entropy_reward, gamma)
    adapter.seed(seed)
    venv: VecEnv = adapter
    if monitor_dir is not None:
        venv = monitored(venv, monitor_dir, env_id, append)
    return venv if entropy_reward is None else Shaped(venv, adapter)


def monitored(
    venv: VecEnv, monitor_dir: str | Path, env_id: str, append: bool, keys: tuple[str, ...] = ()
) -> VecMonitor:
    """``venv`` in a ``VecMonitor`` logging each episode (and the info ``keys``) to
    ``monitor_dir/batched.monitor.csv``, added to with ``append`` (VecMonitor alone would start its log afresh,
    where a resumed run adds to it)."""
    watched = VecMonitor(venv, info_keywords=keys)
    Path(monitor_dir).mkdir(parents=True, exist_ok=True)
    header = {"t_start": watched.t_start, "env_id": env_id}
    watched.results_writer = ResultsWriter(
        f"{monitor_dir}/batched", header=header, extra_keys=keys, override_existing=not append
    )
    return watched
