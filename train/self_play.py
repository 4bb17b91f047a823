"""Self-play on the batched multiplayer games (issue 61): the learner plays every seat the pool gives ``self``, and
learns from every one of them.

    python -m train --env clue_v0 --vec-env batched --opponents self --timesteps 2000000

:class:`~train.batched_seats.BatchedSeatsVecEnv` trains one seat a game and plays ``self`` seats untrained (SB3
keeps one trajectory an env). Here each seat the learner holds is a trajectory of its own, a *chain* (one per game
slot and seat, running on from game to game): :class:`BatchedSelfPlayVecEnv` stops every game at a decision of one
of the learner's seats (the pool's other entries, compiled reference agents and snapshots, play in between), and
:class:`SelfPlayMaskablePPO` collects the rollout chain by chain:

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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numba import njit
from sb3_contrib import MaskablePPO
from stable_baselines3.common.monitor import ResultsWriter
from stable_baselines3.common.utils import obs_as_tensor

from deduction_envs.core.multiplayer import batched_ranks
from train.batched_seats import SELF, BatchedSeatsVecEnv

__all__ = ["BatchedSelfPlayVecEnv", "SelfPlayMaskablePPO", "chain_advantages", "make_self_play_envs"]


class BatchedSelfPlayVecEnv(BatchedSeatsVecEnv):
    """The batched seats where every seat drawn as ``self`` is the learner's (-1 in :attr:`seated`), for
    :class:`SelfPlayMaskablePPO`: a step plays each game's mover (a learner's seat), then the other entries of the
    pool until a learner's seat is to act again. Besides SB3's returns (the reward there is the mover's), a step
    leaves what the collector reads: :attr:`step_rewards` (every seat's), :attr:`ended` (the games that ended,
    dealt anew), :attr:`ended_seated`, :attr:`ended_returns` and :attr:`ended_ranks` (their seats' entries, whole
    returns and ranks), and :attr:`final_observations` (every seat's last observation of the games truncated).

    Args: those of :class:`~train.batched_seats.BatchedSeatsVecEnv` (``opponents`` must hold ``"self"``), and
    ``monitor``: a ``ResultsWriter`` that gets one row a learner's seat a game.
    """

    learns_self = True

    def __init__(self, *args: Any, monitor: ResultsWriter | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.entropy_reward is not None:
            raise ValueError("self-play trains without the entropy-shaped reward for now (one seat a game has it)")
        if SELF not in self.entries:
            raise ValueError("self-play needs 'self' in the pool")
        self.monitor = monitor
        n, players = self.num_envs, self.rules.players
        self.step_rewards = np.zeros((n, players))
        self._returns = np.zeros((n, players))
        self._decisions = np.zeros((n, players), dtype=np.int64)
        self.ended = np.zeros(0, dtype=np.int64)
        self.ended_seated = np.zeros((0, players), dtype=np.int64)
        self.ended_returns = np.zeros((0, players))
        self.ended_ranks = np.zeros((0, players))
        self.ended_decisions = np.zeros((0, players), dtype=np.int64)
        #: Every seat's last observation of each game truncated by the last step (a dict: game -> (players, size)).
        self.final_observations: dict[int, np.ndarray] = {}
        self._t_start = time.time()

    def _draw_seats(self, games: np.ndarray) -> None:
        super()._draw_seats(games)
        drawn = self.seated[games]
        own = np.isin(drawn, [i for i, entry in enumerate(self.entries) if entry == SELF])
        self.seated[games] = np.where(own, -1, drawn)
        self._returns[games] = 0.0
        self._decisions[games] = 0

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if not self._started:
            raise RuntimeError("reset() deals the games first")
        seats, n, rows = self.seats, self.num_envs, np.arange(self.num_envs)
        movers = seats.games.mover.copy()
        self._rewards[:] = 0.0
        self._terminated[:], self._truncated[:] = False, False
        self._decisions[rows, movers] += 1
        self._play(self._actions, ~seats.games.over)
        illegal = seats.illegal.copy()
        self._advance()
        self.step_rewards = self._rewards.copy()  # before the games dealt anew play their first moves
        self._returns += self.step_rewards
        dones = self._terminated | self._truncated
        self.ended = np.flatnonzero(dones)
        self.ended_seated = self.seated[self.ended].copy()
        self.ended_returns = self._returns[self.ended].copy()
        self.ended_decisions = self._decisions[self.ended].copy()
        self.ended_ranks = batched_ranks(self.ended_returns)
        self.final_observations = {}
        truncated = np.flatnonzero(self._truncated & ~self._terminated)
        if truncated.size:
            mask = np.zeros(n, dtype=np.bool_)
            mask[truncated] = True
            every = np.stack([seats.observe(np.full(n, p), mask) for p in range(self.rules.players)], axis=1)
            self.final_observations = {int(g): every[g] for g in truncated}
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        for g in np.flatnonzero(illegal):
            infos[g]["illegal_action"] = int(self._actions[g])
        self._log_ended()
        if self.ended.size:
            self._start(self.ended)
        rewards = self.step_rewards[rows, movers].astype(np.float32)
        return seats.observe(), rewards, dones, infos

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

    def reset(self) -> np.ndarray:
        super().reset()
        return self.seats.observe()


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


def make_self_play_envs(
    env: str,
    sizes: dict[str, Any],
    opponents: Sequence[str],
    n_envs: int,
    seed: int,
    monitor_dir: Path,
    snapshots: Sequence[str] = (),
    append: bool = False,
) -> BatchedSelfPlayVecEnv:
    """:class:`BatchedSelfPlayVecEnv` with the league's ``snapshots`` in its pool, logging every learner's seat of
    every game to ``monitor_dir/batched.monitor.csv`` (appended to with ``append``)."""
    monitor_dir = Path(monitor_dir)
    monitor_dir.mkdir(parents=True, exist_ok=True)
    writer = ResultsWriter(str(monitor_dir / "batched"), header={"t_start": time.time(), "env_id": env},
                           extra_keys=("rank", "won"), override_existing=not append)  # fmt: skip
    venv = BatchedSelfPlayVecEnv(env, sizes, [*opponents, *snapshots], n_envs, seed, monitor=writer)
    venv.seed(seed)
    return venv
