"""The entropy reward wrapper: potential-based shaping with minus the entropy in bits."""

from __future__ import annotations

import itertools
import math
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import deduction_envs  # noqa: F401  (registers the envs)
from deduction_envs.wrappers import EntropyRewardWrapper, entropy_shaping


def play(env, seed, rng):
    """One episode of random legal actions: (rewards, infos of reset and each step, terminated)."""
    _, info = env.reset(seed=seed)
    infos, rewards = [info], []
    terminated = truncated = False
    while not (terminated or truncated):
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(float(reward))
        infos.append(info)
    return rewards, infos, terminated


@settings(max_examples=25, deadline=None)
@given(
    env_id=st.sampled_from(["Mastermind-v0", "TreasureHunt-v0", "FakeCoin-v0", "BlackBox-v0"]),
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([1.0, 0.25, 3.0]),
    max_steps=st.sampled_from([2, 30]),
)
def test_with_gamma_one_the_shaping_adds_the_entropy_lost_over_the_episode(env_id, seed, scale, max_steps):
    sizes = {"BlackBox-v0": {"size": 4, "atoms": 3}, "Mastermind-v0": {"pegs": 3, "colors": 4}}.get(env_id, {})
    plain = gym.make(env_id, max_steps=max_steps, **sizes)
    shaped = EntropyRewardWrapper(gym.make(env_id, max_steps=max_steps, **sizes), scale=scale)
    rewards, infos, terminated = play(plain, seed, np.random.default_rng(seed + 1))
    shaped_rewards, shaped_infos, _ = play(shaped, seed, np.random.default_rng(seed + 1))
    assert [i["entropy"] for i in infos] == [i["entropy"] for i in shaped_infos]  # the same episode
    final = 0.0 if terminated else infos[-1]["entropy"]  # a terminal state's potential is zero
    assert math.isclose(sum(shaped_rewards), sum(rewards) + scale * (infos[0]["entropy"] - final), abs_tol=1e-9)
    # Each non-terminal step adds exactly the bits it gained.
    pairs = list(itertools.pairwise(infos))
    for step, (before, after) in enumerate(pairs[:-1] if terminated else pairs):
        assert math.isclose(shaped_rewards[step] - rewards[step], scale * (before["entropy"] - after["entropy"]))


def test_a_terminal_step_adds_all_the_entropy_left_even_when_the_secret_stays_unknown():
    # Black Box 4x4 with 3 atoms: {A1, C1, C4} and {C1, A4, C4} answer every ray alike, so the game ends with
    # one bit left. The terminal potential is zero, so the last step is credited with that bit too.
    env = EntropyRewardWrapper(gym.make("BlackBox-v0", size=4, atoms=3, max_steps=40), gamma=0.9)
    rules = env.unwrapped.rules
    _, info = env.reset(options={"secret": rules.index_of([0, 2, 14])})  # atoms at A1, C1 and C4
    terminated = False
    for action in range(rules.num_actions):
        before = info["entropy"]
        _, reward, terminated, _, info = env.step(action)
        if terminated:
            break
    assert terminated and info["secret_known"] is False and info["entropy"] == pytest.approx(1.0)
    assert reward == pytest.approx(-1.0 + before)  # gamma * 0 - (-H(s))
    assert info["entropy_reward"] == pytest.approx(before)


def test_the_shaping_term_follows_the_formula():
    assert entropy_shaping(5.0, 2.0) == 3.0
    assert entropy_shaping(5.0, 2.0, scale=2.0, gamma=0.5) == 2.0 * (0.5 * -2.0 + 5.0)
    assert entropy_shaping(5.0, 2.0, terminal=True) == 5.0


def test_the_wrapped_env_passes_gymnasiums_checker():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The checker warns that any wrapped env is wrapped; every other warning still fails the test.
        warnings.filterwarnings("ignore", message=".*is different from the unwrapped version")
        env = EntropyRewardWrapper(gym.make("Mastermind-v0", pegs=3, colors=3).unwrapped)
        gym_check_env(env, skip_render_check=True)


def test_it_wraps_vector_envs_and_keeps_gym_make_kwargs():
    envs = gym.make_vec(
        "Mastermind-v0", num_envs=3, vectorization_mode="sync", wrappers=[EntropyRewardWrapper], pegs=3, colors=4
    )
    _, infos = envs.reset(seed=0)
    assert envs.single_action_space.n == 64
    _, rewards, _, _, step_infos = envs.step(np.array([0, 1, 2]))
    gained = infos["entropy"] - step_infos["entropy"]
    np.testing.assert_allclose(rewards, -1.0 + gained)
    assert (gained > 0).all()
    envs.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scale": -1}, "scale must be a number >= 0"),
        ({"gamma": 1.5}, "gamma must be a number in"),
        ({"gamma": "1"}, "gamma must be a number in"),
    ],
)
def test_bad_parameters_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        EntropyRewardWrapper(gym.make("Mastermind-v0"), **kwargs)


def test_stepping_before_reset_and_envs_without_entropy_are_clear_errors():
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        EntropyRewardWrapper(gym.make("Mastermind-v0")).step(0)
    with pytest.raises(ValueError, match=r"info\['entropy'\]"):
        EntropyRewardWrapper(gym.make("FrozenLake-v1")).reset(seed=0)


def test_the_spec_records_the_wrapper_so_gym_make_can_recreate_it():
    env = EntropyRewardWrapper(gym.make("Mastermind-v0", pegs=3, colors=4), scale=0.5)
    again = gym.make(env.spec)
    assert isinstance(again, EntropyRewardWrapper) and again.scale == 0.5
    assert again.unwrapped.rules == env.unwrapped.rules
