"""Self-play on the batched multiplayer games (issue 61): the learner plays every seat the pool gives ``self``, and
learns from every one of them.

    python -m train --env clue_v0 --vec-env batched --opponents self --timesteps 2000000

:class:`~train.batched_seats.BatchedSeatsVecEnv` trains one seat a game (SB3 keeps one trajectory an env). Here
each seat the learner holds is a trajectory of its own, a *chain* (one per game slot and seat, running on from game
to game): the library's :class:`~deduction_envs.envs.batched_tables.BatchedSelfPlay` stops every game at a decision
of one of the learner's seats (the pool's other entries, compiled reference agents and snapshots, play in between),
:class:`BatchedSelfPlayVecEnv` adapts it to SB3, and :class:`SelfPlayMaskablePPO` collects the rollout chain by
chain:

* a step decides for every game in one batched forward pass (each game's mover is a learner's seat);
* a decision becomes a transition of its chain once the chain decides again (its reward is what the seat got in
  between, the next decision's value its bootstrap) or its game ends (done; truncated at ``max_cycles``, the seat's
  last observation's value is added, as SB3 does for a time limit);
* GAE(lambda) runs along each chain; a rollout keeps the first ``n_steps * n_envs`` transitions completed (the
  decisions still open when it stops are not trained: about one a chain a rollout), and the run's timesteps
  count decisions (one a game a step).

With ``--opponents self`` alone every seat is the learner's: a 4-player game trains on four seats' decisions. A
pool such as ``self,deduction_sheet`` seats the learner once a game and draws each other seat from the pool; the
seats drawn as ``self`` are the learner's too. The league's snapshots join the pool as opponents. The monitor logs
every learner seat of every game (``batched.monitor.csv``: its return, decisions, rank and whether it won).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch
from numba import njit
from sb3_contrib import MaskablePPO
from stable_baselines3.common.monitor import ResultsWriter
from stable_baselines3.common.utils import obs_as_tensor

from deduction_envs.envs.batched_tables import BatchedSelfPlay
from train.batched_seats import BatchedSeatsVecEnv

__all__ = ["BatchedSelfPlayVecEnv", "SelfPlayMaskablePPO", "chain_advantages"]


class BatchedSelfPlayVecEnv(BatchedSeatsVecEnv, BatchedSelfPlay):
    """The library's :class:`~deduction_envs.envs.batched_tables.BatchedSelfPlay` (every seat drawn as ``self`` is
    the learner's) as an SB3 ``VecEnv``, for :class:`SelfPlayMaskablePPO`, which reads what a step leaves
    (:attr:`step_rewards`, :attr:`ended` and the rest); this adapter adds SB3's part
    (:class:`~train.batched_seats.BatchedSeatsVecEnv`'s) and a monitor row a learner's seat a game.

    Args: those of :class:`~train.batched_seats.BatchedSeatsVecEnv` (``opponents`` must hold ``"self"``), and
    ``monitor``: a ``ResultsWriter`` that gets one row a learner's seat a game.
    """

    def __init__(self, *args: Any, monitor: ResultsWriter | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.monitor = monitor
        self._t_start = time.time()

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        out = super().step_wait()
        self._log_ended()
        return out

    def _log_ended(self) -> None:
        """One monitor row a learner's seat of each game that ended."""
        if self.monitor is None:
            return
        elapsed = round(time.time() - self._t_start, 6)
        for k in range(self.ended.size):
            for seat in np.flatnonzero(self.ended_seated[k] < 0):
                rank = float(self.ended_ranks[k, seat])
                self.monitor.write_row({"r": round(float(self.ended_returns[k, seat]), 6),
                                        "l": int(self.ended_decisions[k, seat]), "t": elapsed,
                                        "rank": rank, "won": float(rank == 1.0)})  # fmt: skip


@njit(cache=True)
def chain_advantages(chains, rewards, values, next_values, dones, gamma, gae_lambda):  # pragma: no cover
    """GAE(lambda) along each chain: transitions sorted by chain, then by decision, each with its reward, value,
    the value of the chain's next decision (``next_values``) and whether its game ended with it (``dones``).
    A chain's last transition that did not end a game bootstraps from its next value and continues no further."""
    m = chains.size
    advantages = np.zeros(m)
    for i in range(m - 1, -1, -1):
        going = 0.0 if dones[i] else 1.0
        delta = rewards[i] + gamma * next_values[i] * going - values[i]
        later = advantages[i + 1] if i + 1 < m and chains[i + 1] == chains[i] else 0.0
        advantages[i] = delta + gamma * gae_lambda * going * later
    return advantages


class _Transitions:
    """A rollout's decisions, in the order made; each open until its chain decides again or its game ends."""

    def __init__(self, capacity: int, size: int, actions: int) -> None:
        self.observations = np.zeros((capacity, size), dtype=np.float32)
        self.masks = np.zeros((capacity, actions), dtype=np.bool_)
        self.actions = np.zeros(capacity, dtype=np.int64)
        self.values = np.zeros(capacity)
        self.log_probs = np.zeros(capacity)
        self.rewards = np.zeros(capacity)
        self.next_values = np.zeros(capacity)
        self.chains = np.zeros(capacity, dtype=np.int64)
        self.dones = np.zeros(capacity, dtype=np.bool_)
        self.complete = np.zeros(capacity, dtype=np.bool_)
        self.count = 0
        self.completed = 0

    def start(self) -> None:
        self.rewards[:] = 0.0
        self.next_values[:] = 0.0
        self.dones[:] = False
        self.complete[:] = False
        self.count = self.completed = 0

    def add(self, observations, masks, actions, values, log_probs, chains) -> np.ndarray:
        rows = np.arange(self.count, self.count + len(chains))
        self.observations[rows], self.masks[rows], self.actions[rows] = observations, masks, actions
        self.values[rows], self.log_probs[rows], self.chains[rows] = values, log_probs, chains
        self.count += len(chains)
        return rows

    def close(self, rows: np.ndarray, next_values: np.ndarray | float, done: bool) -> None:
        self.next_values[rows] = next_values
        self.dones[rows] = done
        self.complete[rows] = True
        self.completed += rows.size


class SelfPlayMaskablePPO(MaskablePPO):
    """sb3-contrib's MaskablePPO whose rollouts, on :class:`BatchedSelfPlayVecEnv`, follow every learner's seat
    as a trajectory of its own (see the module docstring); on any other env it is MaskablePPO. Saved models load as
    MaskablePPO (the policy is the same)."""

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_transitions"]  # a rollout's scratch, not the model

    def collect_rollouts(self, env: Any, callback: Any, rollout_buffer: Any, n_rollout_steps: int,
                         use_masking: bool = True) -> bool:  # fmt: skip
        venv = env.unwrapped if hasattr(env, "unwrapped") else env
        if not isinstance(venv, BatchedSelfPlayVecEnv):
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, use_masking)
        if not use_masking:
            raise ValueError("self-play on the batched games masks actions")
        self.policy.set_training_mode(False)
        rollout_buffer.reset()
        n, players = venv.num_envs, venv.rules.players
        wanted = n_rollout_steps * n
        store = getattr(self, "_transitions", None)
        capacity = wanted + n * (players + 1)  # open decisions are at most one a chain, and a step adds n
        if store is None or store.observations.shape[0] < capacity:
            store = self._transitions = _Transitions(capacity, venv.observation_space.shape[0], venv.action_space.n)
        store.start()
        open_rows = np.full(n * players, -1, dtype=np.int64)  # each chain's open decision (-1: none)
        callback.on_rollout_start()
        # A step is a learner's decision the rollout keeps: exactly ``wanted`` a rollout (the games go on past the
        # last kept decision), so a run's steps, its checkpoints' and its updates do not depend on the games.
        start = self.num_timesteps
        while store.completed < wanted:
            masks = venv.action_masks()
            with torch.no_grad():
                obs_tensor = obs_as_tensor(self._last_obs, self.device)
                actions, values, log_probs = self.policy(obs_tensor, action_masks=masks)
            actions, values, log_probs = actions.numpy(), values.numpy().ravel(), log_probs.numpy()
            chains = np.arange(n) * players + venv.seats.games.mover
            before = open_rows[chains]
            had = before >= 0
            store.close(before[had], values[had], done=False)
            open_rows[chains] = store.add(self._last_obs, masks, actions, values, log_probs, chains)
            new_obs, _, dones, infos = env.step(actions)
            infos = self._credit(venv, store, open_rows)
            self.num_timesteps = start + min(store.completed, wanted)
            callback.update_locals(locals())
            if not callback.on_step():
                return False
            self._last_obs = new_obs
        rows = np.flatnonzero(store.complete[: store.count])
        order = rows[np.lexsort((rows, store.chains[rows]))]  # by chain, then by decision
        advantages = np.zeros(store.count)
        advantages[order] = chain_advantages(store.chains[order], store.rewards[order], store.values[order],
                                             store.next_values[order], store.dones[order], self.gamma,
                                             self.gae_lambda)  # fmt: skip
        kept = rows[:wanted]  # the first completed, in the order decided
        shape = (n_rollout_steps, n)
        rollout_buffer.observations[:] = store.observations[kept].reshape(*shape, -1)
        rollout_buffer.actions[:] = store.actions[kept].reshape(*shape, 1)
        rollout_buffer.action_masks[:] = store.masks[kept].reshape(*shape, -1)
        rollout_buffer.values[:] = store.values[kept].reshape(shape)
        rollout_buffer.log_probs[:] = store.log_probs[kept].reshape(shape)
        rollout_buffer.rewards[:] = store.rewards[kept].reshape(shape)
        rollout_buffer.advantages[:] = advantages[kept].reshape(shape)
        rollout_buffer.returns[:] = rollout_buffer.advantages + rollout_buffer.values
        rollout_buffer.pos, rollout_buffer.full = rollout_buffer.buffer_size, True
        callback.on_rollout_end()
        return True

    def _credit(self, venv: BatchedSelfPlayVecEnv, store: _Transitions, open_rows: np.ndarray) -> list[dict]:
        """Give every open decision its seat's rewards of the step, close those of the games that ended, and
        return an info for each learner's seat of each (its ``episode``, as SB3's monitor gives it)."""
        players = venv.rules.players
        open_now = np.flatnonzero(open_rows >= 0)
        store.rewards[open_rows[open_now]] += venv.step_rewards.ravel()[open_now]
        infos: list[dict[str, Any]] = []
        for k, game in enumerate(venv.ended):
            chains = game * players + np.arange(players)
            rows = open_rows[chains]
            seats = np.flatnonzero(rows >= 0)
            if int(game) in venv.final_observations and seats.size:  # truncated: bootstrap, as SB3 does
                final = venv.final_observations[int(game)][seats]
                with torch.no_grad():
                    tail = self.policy.predict_values(obs_as_tensor(final, self.device)).numpy().ravel()
                store.rewards[rows[seats]] += self.gamma * tail
            store.close(rows[seats], 0.0, done=True)
            open_rows[chains] = -1
            for seat in np.flatnonzero(venv.ended_seated[k] < 0):
                episode = {"r": float(venv.ended_returns[k, seat]), "l": int(venv.ended_decisions[k, seat]),
                           "t": 0.0, "rank": float(venv.ended_ranks[k, seat])}  # fmt: skip
                self.ep_info_buffer.extend([episode])
                infos.append({"episode": episode, "seat": int(seat)})
        return infos
