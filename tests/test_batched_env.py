"""The batched VectorEnv against N single envs: the same seeds and actions give the same everything."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from hypothesis import given, settings
from hypothesis import strategies as st

import deduction_envs  # noqa: F401  (registers the envs)
from deduction_envs.envs.batched_env import BatchedDeductionEnv
from deduction_envs.envs.registration import BATCHED_GAMES

SMALL = {
    "Mastermind": {"pegs": 3, "colors": 4},
    "SimpleMastermind": {"pegs": 3, "colors": 3},
    "BullsAndCows": {"digits": 3, "symbols": 5},
    "Wordle": {},
    "TreasureHunt": {},
    "LowMiddleHigh": {},
}


def assert_same_info(batched: dict, single: dict) -> None:
    assert sorted(batched) == sorted(single)
    for key, value in single.items():
        if key in ("final_obs", "final_info"):
            continue
        np.testing.assert_array_equal(np.asarray(batched[key]), np.asarray(value), err_msg=key)


def assert_same_obs(batched: dict, single: dict) -> None:
    assert sorted(batched) == sorted(single)
    for key in single:
        assert batched[key].dtype == single[key].dtype, key
        np.testing.assert_array_equal(batched[key], single[key], err_msg=key)


def play_both(game: str, sizes: dict, n: int, steps: int, seed: int, mode=AutoresetMode.NEXT_STEP, **options):
    """Step a batched env and a SyncVectorEnv of single envs with the same seeds and actions; compare all."""
    env_id = f"{game}-v0"
    batched = gym.make_vec(env_id, num_envs=n, autoreset_mode=mode, **sizes, **options)
    assert isinstance(batched.unwrapped, BatchedDeductionEnv)
    single = gym.make_vec(env_id, num_envs=n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode},
                          **sizes, **options)  # fmt: skip
    assert batched.single_observation_space == single.single_observation_space
    assert batched.observation_space == single.observation_space
    assert batched.action_space == single.action_space
    obs_b, info_b = batched.reset(seed=seed)
    obs_s, info_s = single.reset(seed=seed)
    assert_same_obs(obs_b, obs_s)
    assert_same_info(info_b, info_s)
    rng = np.random.default_rng(seed)
    ends = 0
    for _ in range(steps):
        masks = info_s["action_mask"].astype(bool)
        # Mostly legal actions, some masked ones (wasted steps) where a mask bites.
        actions = np.array(
            [rng.choice(np.flatnonzero(m)) if rng.random() < 0.9 else rng.integers(m.size) for m in masks]
        )
        out_b, out_s = batched.step(actions), single.step(actions)
        assert_same_obs(out_b[0], out_s[0])
        for b, s in zip(out_b[1:4], out_s[1:4], strict=True):
            np.testing.assert_array_equal(b, s)
        assert_same_info(out_b[4], out_s[4])
        if mode == AutoresetMode.SAME_STEP and "final_obs" in out_s[4]:
            ended = out_s[4]["_final_obs"]
            np.testing.assert_array_equal(out_b[4]["_final_obs"], ended)
            for i in np.flatnonzero(ended):
                assert_same_obs(out_b[4]["final_obs"][i], out_s[4]["final_obs"][i])
            assert_same_info(out_b[4]["final_info"], out_s[4]["final_info"])
        ends += int((out_s[2] | out_s[3]).sum())
        info_s = out_s[4]
    return ends


@pytest.mark.parametrize("game", BATCHED_GAMES)
def test_batched_env_equals_single_envs(game):
    ends = play_both(game, SMALL[game], n=5, steps=40, seed=3)
    assert ends > 0  # games ended and were reset along the way


@pytest.mark.parametrize("game", ["Mastermind", "Wordle"])
@pytest.mark.parametrize("mask", ["consistent", "unasked"])
def test_consistent_and_unasked_masks_and_wasted_steps_match(game, mask):
    ends = play_both(game, SMALL[game], n=4, steps=30, seed=5, action_mask=mask, max_steps=6)
    assert ends > 0


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 5), max_steps=st.integers(1, 12))
def test_the_unasked_mask_matches_for_any_seed_and_frees_every_query_once_all_were_asked(seed, n, max_steps):
    play_both("Mastermind", {"pegs": 1, "colors": 3}, n, 15, seed, max_steps=max_steps, action_mask="unasked")


def test_same_step_autoreset_matches():
    play_both("Mastermind", SMALL["Mastermind"], n=4, steps=30, seed=1, mode=AutoresetMode.SAME_STEP)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 6), max_steps=st.integers(1, 8))
def test_batched_env_equals_single_envs_for_any_seed(seed, n, max_steps):
    play_both("Mastermind", SMALL["Mastermind"], n, 12, seed, max_steps=max_steps, action_mask="consistent")


def test_the_games_it_cannot_batch_are_refused_and_make_vec_stays_sync_for_them():
    for game in ("FakeCoin", "BlackBox"):
        with pytest.raises(ValueError, match="cannot play this game"):
            BatchedDeductionEnv(2, game)
        envs = gym.make_vec(f"{game}-v0", num_envs=2)
        assert isinstance(envs, gym.vector.SyncVectorEnv)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": 2, "max_steps": 0}, "max_steps"),
        ({"num_envs": 2, "action_mask": "some"}, "action_mask"),
        ({"num_envs": 2, "illegal_action": "ignore"}, "illegal_action"),
        ({"num_envs": 2, "information_set": "tabular"}, "information_set"),
        ({"num_envs": 2, "autoreset_mode": "whenever"}, "autoreset_mode"),
        ({"num_envs": 2, "autoreset_mode": AutoresetMode.DISABLED}, "autoreset_mode"),
        ({"num_envs": 2, "render_mode": "ansi"}, "render"),
        ({"num_envs": 10**6}, "MiB"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BatchedDeductionEnv(rules="Mastermind", **kwargs)


def test_bad_actions_seeds_and_order_give_clear_errors():
    env = BatchedDeductionEnv(3, "Mastermind", pegs=2, colors=3)
    with pytest.raises(RuntimeError, match="reset"):
        env.step([0, 0, 0])
    env.reset(seed=0)
    for actions in ([0, 0], [0, 0, 9], [0, -1, 0], [0.5, 0, 0], "abc", [[0, 0, 0]]):
        with pytest.raises(ValueError, match="actions must be"):
            env.step(actions)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="reset option"):
        env.reset(options={"secret": 3})
    env.step(np.array([0, 1, 2]))  # any integer array of the right shape
    strict = BatchedDeductionEnv(2, "Mastermind", pegs=2, colors=3, action_mask="consistent", illegal_action="raise")
    strict.reset(seed=0)
    before = strict._candidates.copy()
    first = strict.step([0, 0])[0]["history"]  # code 0 is consistent at the start
    ruled_out = int(np.flatnonzero(strict.action_masks()[0] == 0)[0])
    with pytest.raises(ValueError, match="masked"):
        strict.step([ruled_out, int(np.flatnonzero(strict.action_masks()[1])[0])])
    assert not np.array_equal(before, strict._candidates)  # the first step changed it, the refused one did not
    np.testing.assert_array_equal(strict._codes + 1, first)


def test_reset_mask_resets_only_the_chosen_games():
    env = BatchedDeductionEnv(3, "Mastermind", pegs=2, colors=3)
    with pytest.raises(ValueError, match="first reset"):
        env.reset(options={"reset_mask": np.array([True, False, False])})
    env.reset(seed=0)
    env.step([0, 0, 0])
    obs, info = env.reset(options={"reset_mask": np.array([False, True, False])})
    assert info["_candidates"].tolist() == [False, True, False]
    assert (obs["history"][1] == 0).all() and (obs["history"][0] > 0).any()


def test_no_secret_is_exposed():
    env = BatchedDeductionEnv(2, "Mastermind", pegs=2, colors=3)
    _, info = env.reset(seed=0)
    public = [name for name in dir(env) if not name.startswith("_")]
    assert not any("secret" in name for name in public)
    assert "secret" not in " ".join(info)


def test_the_sb3_adapter_plays_the_games_of_dummy_vec_env():
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    from train.vec_env import batched_vec_env

    sizes = {"pegs": 3, "colors": 3}
    ours = batched_vec_env("Mastermind-v0", 4, seed=7, **sizes)
    theirs = make_vec_env("deduction_envs:Mastermind-v0", n_envs=4, seed=7, env_kwargs=sizes, vec_env_cls=DummyVecEnv)
    first, expected = ours.reset(), theirs.reset()
    assert_same_obs(first, expected)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(60):
        actions = rng.integers(27, size=4)
        obs, rewards, dones, infos = ours.step(actions)
        obs2, rewards2, dones2, infos2 = theirs.step(actions)
        assert_same_obs(obs, obs2)
        np.testing.assert_array_equal(rewards, rewards2)
        np.testing.assert_array_equal(dones, dones2)
        for mine, other in zip(infos, infos2, strict=True):
            if "terminal_observation" in other:
                assert_same_obs(mine["terminal_observation"], other["terminal_observation"])
                assert mine["TimeLimit.truncated"] == other["TimeLimit.truncated"]
        ends += int(dones.sum())
    assert ends > 4
    assert np.stack(ours.env_method("action_masks")).shape == (4, 27)
    assert ours.get_attr("action_masks") and ours.env_is_wrapped(object) == [False] * 4
    with pytest.raises(AttributeError):
        ours.env_method("render")
    with pytest.raises(ValueError, match="SAME_STEP"):
        from train.vec_env import SB3BatchedVecEnv

        SB3BatchedVecEnv(BatchedDeductionEnv(2, "Mastermind", pegs=2, colors=2))


@pytest.mark.parametrize("mask", ["all", "consistent", "unasked"])
def test_the_adapters_entropy_reward_is_the_wrappers_and_the_monitor_logs_the_games_own(tmp_path, mask):
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    from deduction_envs.wrappers import EntropyRewardWrapper
    from train.curves import read_monitors
    from train.vec_env import batched_vec_env

    sizes = {"pegs": 3, "colors": 3, "action_mask": mask, "max_steps": 5}
    ours = batched_vec_env("Mastermind-v0", 4, 3, str(tmp_path), False, 0.5, 0.9, **sizes)
    theirs = make_vec_env("deduction_envs:Mastermind-v0", n_envs=4, seed=3, env_kwargs=sizes, vec_env_cls=DummyVecEnv,
                          wrapper_class=EntropyRewardWrapper, wrapper_kwargs={"scale": 0.5, "gamma": 0.9})  # fmt: skip
    ours.reset(), theirs.reset()
    rng = np.random.default_rng(1)
    for _ in range(40):
        actions = rng.integers(27, size=4)  # masked ones too, under the consistent mask: wasted steps
        _, rewards, dones, _ = ours.step(actions)
        _, expected, expected_dones, _ = theirs.step(actions)
        np.testing.assert_array_equal(dones, expected_dones)
        np.testing.assert_array_equal(rewards, expected)  # the same float64 sum, cast to float32 alike
    logged = read_monitors(tmp_path, "r")
    assert logged.size > 4 and (logged == np.round(logged)).all()  # -1 a query: the shaping is not logged
    with pytest.raises(ValueError, match="scale must be a number >= 0"):
        batched_vec_env("Mastermind-v0", 2, 0, None, False, -1.0, **{"pegs": 2, "colors": 2})


def test_the_registry_batches_exactly_the_games_the_batched_env_plays():
    from deduction_envs.envs.batched_env import batch_refusal
    from deduction_envs.games import GAMES, make_rules

    assert set(BATCHED_GAMES) == {name for name in GAMES if batch_refusal(make_rules(name)) is None}
    for name in GAMES:
        spec = gym.spec(f"{name}-v0")
        assert (spec.vector_entry_point is not None) == (name in BATCHED_GAMES)
