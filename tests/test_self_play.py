"""Self-play on the batched games (issue 61, :mod:`train.self_play`): each learner's seat is a trajectory of its own.

The collector's transitions are rebuilt from a log of the games, seat by seat, with a slow loop (rewards between a
seat's decisions, the next decision's value, ends and time limits); its GAE is SB3's own along one chain; every
learner's seat is monitored; the same seed collects the same rollout; a run trains, saves and resumes through
``python -m train``.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from stable_baselines3.common.buffers import RolloutBuffer
from stable_baselines3.common.callbacks import BaseCallback

from train.multiplayer import SeatEnvs, make_seat_envs
from train.self_play import BatchedSelfPlayVecEnv, SelfPlayMaskablePPO, chain_advantages

ALGO = {"players": 2, "probabilities": False, "max_cycles": 9}  # short: games end by the rules and by the limit
CLUE = {"players": 3, "probabilities": False}


def batched_envs(env, sizes, opponents, n, seed, folder, **options):
    """The run's batched vector env, as ``python -m train --vec-env batched`` builds it."""
    return make_seat_envs(SeatEnvs(env, sizes, opponents, n, seed, folder, **options), "batched")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**31 - 1), st.floats(0.5, 1.0), st.floats(0.0, 1.0))
def test_along_one_chain_the_advantages_are_sb3s_gae(steps, seed, gamma, gae_lambda):
    from gymnasium import spaces

    rng = np.random.default_rng(seed)
    rewards, values = rng.normal(size=steps).astype(np.float32), rng.normal(size=steps).astype(np.float32)
    starts = (rng.random(steps) < 0.3).astype(np.float32)
    last_value, last_done = rng.normal(), bool(rng.random() < 0.5)
    buffer = RolloutBuffer(steps, spaces.Box(-1, 1, (1,)), spaces.Discrete(2), "cpu", gae_lambda, gamma, 1)
    buffer.rewards[:, 0], buffer.values[:, 0], buffer.episode_starts[:, 0] = rewards, values, starts
    buffer.compute_returns_and_advantage(torch.tensor([last_value]), np.array([last_done]))
    dones = np.append(starts[1:] == 1, last_done)
    next_values = np.append(values[1:], last_value).astype(np.float64)
    got = chain_advantages(np.zeros(steps, dtype=np.int64), rewards.astype(np.float64), values.astype(np.float64),
                           next_values, dones, gamma, gae_lambda)  # fmt: skip
    np.testing.assert_allclose(got, buffer.advantages[:, 0], rtol=1e-5, atol=1e-5)
    # Chains interleaved in the arrays do not mix: each is its own GAE.
    two = chain_advantages(np.repeat([0, 1], steps), np.tile(rewards, 2).astype(np.float64),
                           np.tile(values, 2).astype(np.float64), np.tile(next_values, 2), np.tile(dones, 2), gamma,
                           gae_lambda)  # fmt: skip
    np.testing.assert_allclose(two, np.tile(got, 2))


class Rollouts(BaseCallback):
    """Keeps each rollout's buffer (before the update flattens it) and the collector's transitions."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[dict] = []

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        buffer, store = self.model.rollout_buffer, self.model._transitions
        names = ("observations", "actions", "values", "log_probs", "rewards", "advantages", "returns", "action_masks")
        rows = slice(0, store.count)
        self.kept.append({
            "buffer": {name: getattr(buffer, name).copy() for name in names},
            "store": {name: getattr(store, name)[rows].copy()
                      for name in ("values", "rewards", "next_values", "dones", "complete", "chains", "actions")},
        })  # fmt: skip


def logged(venv: BatchedSelfPlayVecEnv) -> list[dict]:
    """Each step of ``venv``: the movers, every seat's rewards, the games that ended (their seats' entries) and
    the learner's values of the last observations of the games truncated."""
    log: list[dict] = []
    step_wait = venv.step_wait

    def step() -> tuple:
        movers = venv.seats.games.mover.copy()
        out = step_wait()
        log.append({"movers": movers, "rewards": venv.step_rewards.copy(), "ended": venv.ended.copy(),
                    "seated": venv.ended_seated.copy(), "finals": dict(venv.final_observations)})  # fmt: skip
        return out

    venv.step_wait = step
    return log


def rebuilt(log: list[dict], values: np.ndarray, n: int, players: int, gamma: float, value_of) -> dict:
    """The transitions a slow reading of ``log`` makes: row ``k * n + g`` is step ``k``'s decision in game ``g``."""
    rows = len(log) * n
    rewards, next_values = np.zeros(rows), np.zeros(rows)
    dones, complete = np.zeros(rows, dtype=bool), np.zeros(rows, dtype=bool)
    open_row: dict[tuple[int, int], int] = {}
    for k, entry in enumerate(log):
        for g in range(n):
            seat = int(entry["movers"][g])
            row = k * n + g
            if (g, seat) in open_row:
                earlier = open_row.pop((g, seat))
                next_values[earlier], complete[earlier] = values[row], True
            open_row[(g, seat)] = row
        for (g, seat), row in open_row.items():
            rewards[row] += entry["rewards"][g, seat]
        for g in entry["ended"]:
            for seat in range(players):
                row = open_row.pop((int(g), seat), None)
                if row is None:
                    continue
                if int(g) in entry["finals"]:
                    rewards[row] += gamma * value_of(entry["finals"][int(g)][seat])
                dones[row], complete[row] = True, True
    return {"rewards": rewards, "next_values": next_values, "dones": dones, "complete": complete}


def slow_gae(chains, rewards, values, next_values, dones, complete, gamma, lam) -> np.ndarray:
    """GAE over each chain's completed decisions, in order; the last of a chain continues no further."""
    advantages = np.zeros(len(chains))
    for chain in set(chains.tolist()):
        rows = np.flatnonzero((chains == chain) & complete)
        later = 0.0
        for r in rows[::-1]:
            going = 0.0 if dones[r] else 1.0
            later = rewards[r] + gamma * next_values[r] * going - values[r] + gamma * lam * going * later
            advantages[r] = later
    return advantages


@pytest.mark.parametrize(("env", "sizes", "pool"), [("algo_v0", ALGO, ["self"]), ("clue_v0", CLUE, ["self", "random"])],
                         ids=["algo-every-seat", "clue-with-random"])  # fmt: skip
def test_each_seat_s_transitions_are_its_own(tmp_path, env, sizes, pool):
    n, steps = 6, 24
    venv = batched_envs(env, sizes, pool, n, 3, tmp_path / "monitor")
    log = logged(venv)
    model = SelfPlayMaskablePPO("MlpPolicy", venv, n_steps=steps, batch_size=48, n_epochs=1, seed=0, device="cpu",
                                gamma=0.9, gae_lambda=0.8)  # fmt: skip
    keeper = Rollouts()
    model.learn(2 * n * steps, callback=keeper)
    players = venv.rules.players
    first = keeper.kept[0]
    store = first["store"]
    made = len(store["values"]) // n  # the steps of the first rollout
    assert made * n == len(store["values"]) and made >= steps
    expected_chains = np.concatenate([np.arange(n) * players + entry["movers"] for entry in log[:made]])
    np.testing.assert_array_equal(store["chains"], expected_chains)
    # The values of the last observations are the policy's before the first update: a model of the same seed.
    truncated = [g for entry in log[:made] for g in entry["finals"]]
    assert truncated or env == "clue_v0"  # the short Algo games meet their time limit
    untrained = SelfPlayMaskablePPO("MlpPolicy", venv, n_steps=steps, batch_size=48, n_epochs=1, seed=0,
                                    device="cpu")  # fmt: skip

    def value(observation: np.ndarray) -> float:
        with torch.no_grad():
            return float(untrained.policy.predict_values(torch.as_tensor(observation[None]))[0, 0])

    want = rebuilt(log[:made], store["values"], n, players, 0.9, value)
    np.testing.assert_array_equal(store["complete"], want["complete"])
    np.testing.assert_array_equal(store["dones"], want["dones"])
    np.testing.assert_allclose(store["next_values"], want["next_values"])
    np.testing.assert_allclose(store["rewards"], want["rewards"], atol=1e-6)
    assert store["dones"].any() and (store["rewards"] != 0).any()
    kept = np.flatnonzero(store["complete"])[: n * steps]
    order = kept  # the buffer holds the first completed decisions, in the order made
    advantages = slow_gae(store["chains"], store["rewards"], store["values"], store["next_values"], store["dones"],
                          store["complete"], 0.9, 0.8)  # fmt: skip
    buffer = first["buffer"]
    np.testing.assert_allclose(buffer["advantages"].ravel(), advantages[order], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(buffer["returns"].ravel(), advantages[order] + store["values"][order], atol=1e-5)
    np.testing.assert_array_equal(buffer["actions"].ravel(), store["actions"][order])
    assert buffer["action_masks"].reshape(n * steps, -1)[np.arange(n * steps), store["actions"][order]].all()


def test_every_learner_seat_of_every_game_is_monitored(tmp_path):
    venv = batched_envs("clue_v0", CLUE, ["self", "random"], 8, 1, tmp_path / "monitor")
    log = logged(venv)
    model = SelfPlayMaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(8 * 16)
    lines = (tmp_path / "monitor" / "batched.monitor.csv").read_text().splitlines()
    assert lines[1] == "r,l,t,rank,won"
    rows = [line.split(",") for line in lines[2:]]
    learner_seats = sum(int((entry["seated"] < 0).sum()) for entry in log)
    assert learner_seats > 0 and len(rows) == learner_seats
    assert any(int(entry["seated"][k].min() >= 0) == 0 and (entry["seated"][k] >= 0).any()
               for entry in log for k in range(len(entry["ended"])))  # games with a random opponent were seated
    for r, length, _, rank, won in rows:
        assert float(won) == float(float(rank) == 1.0) and int(length) >= 0 and -1.0 <= float(r) <= 1.0


def test_the_same_seed_collects_the_same_rollout(tmp_path):
    runs = []
    for run in range(2):
        venv = batched_envs("algo_v0", ALGO, ["self", "epsilon_greedy"], 6, 2, tmp_path / str(run))
        model = SelfPlayMaskablePPO("MlpPolicy", venv, n_steps=10, batch_size=60, n_epochs=1, seed=4, device="cpu")
        keeper = Rollouts()
        model.learn(2 * 60, callback=keeper)
        runs.append(keeper.kept)
    for a, b in zip(*runs, strict=True):
        for name in a["buffer"]:
            np.testing.assert_array_equal(a["buffer"][name], b["buffer"][name])


def test_bad_input_is_refused(tmp_path):
    with pytest.raises(ValueError, match="self-play needs 'self' in the pool"):
        BatchedSelfPlayVecEnv("algo_v0", ALGO, ["random"], 4)
    with pytest.raises(ValueError, match="without the entropy-shaped reward"):
        BatchedSelfPlayVecEnv("algo_v0", ALGO, ["self"], 4, entropy_reward=1.0)
    with pytest.raises(ValueError, match="compiled opponents"):
        BatchedSelfPlayVecEnv("clue_v0", CLUE, ["self", "ismcts"], 4)
    with pytest.raises(RuntimeError, match="reset"):
        BatchedSelfPlayVecEnv("algo_v0", ALGO, ["self"], 4).step(np.zeros(4, dtype=np.int64))


def test_python_m_train_self_play_trains_saves_and_resumes(tmp_path):
    import json

    from train import RunConfig, run

    first = RunConfig(env="algo_v0", vec_env="batched", opponents=["self"], sizes={"players": 2}, n_envs=16,
                      timesteps=16 * 128, eval_games=6, eval_opponents=["random"], output=tmp_path / "a",
                      progress=False)  # fmt: skip
    done = run(first)
    assert done.timesteps >= 16 * 128 and done.results[0].games == 6
    settings_a = json.loads((tmp_path / "a" / "run.json").read_text())
    assert settings_a["opponents"] == ["self"]
    again = RunConfig(env="algo_v0", vec_env="batched", opponents=["self"], sizes={"players": 2}, n_envs=16,
                      timesteps=16 * 128, eval_games=6, eval_opponents=["random"], output=tmp_path / "b",
                      resume=tmp_path / "a" / "model.zip", progress=False)  # fmt: skip
    resumed = run(again)
    assert resumed.timesteps >= 2 * 16 * 128  # the count goes on from the saved model's
