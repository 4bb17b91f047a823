"""The generic Gymnasium env on the code-breaking games."""

from __future__ import annotations

import functools
import math
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from conftest import assert_same
from gymnasium.utils.env_checker import check_env as gym_check_env
from hypothesis import given
from hypothesis import strategies as st
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import deduction_envs
from deduction_envs import DeductionEnv
from deduction_envs.games import Mastermind

SIZES = {
    "Mastermind-v0": [{}, {"pegs": 3, "colors": 3}, {"pegs": 5, "colors": 8}],
    "SimpleMastermind-v0": [{}, {"pegs": 3, "colors": 3}, {"pegs": 5, "colors": 4}],
    "BullsAndCows-v0": [{}, {"digits": 3, "symbols": 6}, {"digits": 5, "symbols": 9}],
    "Wordle-v0": [{}, {"answers": ["crane", "slate"], "guesses": ["crane", "slate", "adieu"]}, {"max_steps": 10}],
    "BlackBox-v0": [{"size": 4, "atoms": 2}, {"size": 2, "atoms": 1}, {"size": 6, "atoms": 3}],
    "FakeCoin-v0": [{}, {"coins": 3, "weighings": "concrete"}, {"coins": 64}],
    "TreasureHunt-v0": [{}, {"width": 1, "height": 2}, {"width": 8, "height": 5}],
    "LowMiddleHigh-v0": [{}, {"n": 2}, {"n": 300}],
}
CASES = [(env_id, sizes) for env_id, all_sizes in SIZES.items() for sizes in all_sizes]


def case_id(case):
    env_id, sizes = case
    return env_id + "".join(f"-{k}{v}" for k, v in sizes.items())


def test_every_registered_env_has_sizes_under_test():
    assert set(SIZES) == set(deduction_envs.ENV_IDS)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gymnasium_and_sb3_checkers_pass_without_warnings(case):
    env_id, sizes = case
    rules = gym.make(env_id, **sizes).unwrapped.rules
    # Default arguments: the checkers play random actions, masked ones included, which must step.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check_env(gym.make(env_id, **sizes).unwrapped)
        sb3_check_env(gym.make(env_id, **sizes).unwrapped)
        gym_check_env(gym.make(env_id, render_mode="rgb_array", **sizes).unwrapped)
        if rules.queries_name_secrets:
            gym_check_env(gym.make(env_id, render_mode="ansi", action_mask="consistent", **sizes).unwrapped)
            sb3_check_env(gym.make(env_id, action_mask="consistent", **sizes).unwrapped)
        gym_check_env(gym.make(env_id, action_mask="unasked", **sizes).unwrapped)
        sb3_check_env(gym.make(env_id, action_mask="unasked", **sizes).unwrapped)


def test_module_prefixed_ids_and_size_keywords_work():
    env = gym.make("deduction_envs:Mastermind-v0", pegs=5, colors=8)
    assert env.unwrapped.rules == Mastermind(pegs=5, colors=8)
    assert env.action_space == gym.spaces.Discrete(8**5)
    assert env.unwrapped.max_steps == 12
    assert gym.make("SimpleMastermind-v0").unwrapped.max_steps == 10
    assert gym.make("BullsAndCows-v0", max_steps=7).unwrapped.max_steps == 7


def legal(env, k):
    """The ``k``-th legal action (cyclically), so any integer plays in any env."""
    actions = np.flatnonzero(env.unwrapped.action_masks())
    return int(actions[k % actions.size])


def play(env, actions, seed):
    """The full trajectory of the legal ``actions`` from ``reset(seed=seed)``, stopping at the end."""
    obs, info = env.reset(seed=seed)
    trajectory = [(obs, info)]
    for k in actions:
        obs, reward, terminated, truncated, info = env.step(legal(env, k))
        trajectory.append((obs, reward, terminated, truncated, info))
        if terminated or truncated:
            break
    return trajectory


@pytest.mark.parametrize("env_id", deduction_envs.ENV_IDS)
def test_whole_episodes_are_determined_by_the_seed_and_the_actions(env_id):
    actions = list(np.random.default_rng(0).integers(gym.make(env_id).action_space.n, size=12))
    first = play(gym.make(env_id), actions, seed=42)
    second = play(gym.make(env_id), actions, seed=42)
    assert_same(first, second)
    env = gym.make(env_id)
    secrets = set()
    for seed in range(20):
        env.reset(seed=seed)
        secrets.add(env.unwrapped._secret)  # private: the test may look, agents may not
    assert len(secrets) > 1


@pytest.mark.parametrize("env_id", deduction_envs.ENV_IDS)
def test_pickled_envs_continue_identically(env_id):
    env = gym.make(env_id)
    env.reset(seed=5)
    env.step(legal(env, 3))
    clone = pickle.loads(pickle.dumps(env))
    for k in (10, 20, 30):
        action = legal(env, k)
        result = env.step(action)
        assert_same(result, clone.step(action))
        if result[2] or result[3]:
            break


def test_rewards_termination_and_truncation():
    env = gym.make("Mastermind-v0", max_steps=3)
    rules = env.unwrapped.rules
    secret = rules.parse_code("CFAB")
    env.reset(options={"secret": secret})
    _, reward, terminated, truncated, info = env.step(rules.parse_code("AABB"))
    assert (reward, terminated, truncated) == (-1.0, False, False)
    assert rules.format_feedback(info["feedback"]) == "black 1, white 1"
    _, reward, terminated, truncated, info = env.step(secret)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["candidates"] == 1 and info["entropy"] == 0.0

    env.reset(options={"secret": secret})
    outcomes = [env.step(rules.parse_code("AAAA"))[2:4] for _ in range(3)]
    assert outcomes == [(False, False), (False, False), (False, True)]


def test_a_last_step_that_finds_the_secret_terminates_rather_than_truncates():
    env = gym.make("Mastermind-v0", max_steps=1)
    env.reset(options={"secret": 77})
    _, _, terminated, truncated, _ = env.step(77)
    assert terminated and not truncated


def test_observation_describes_the_information_set_and_history():
    env = gym.make("Mastermind-v0", pegs=3, colors=4)
    rules = env.unwrapped.rules
    obs, info = env.reset(options={"secret": rules.parse_code("ABC")})
    np.testing.assert_allclose(obs["information_set"][:-1], 0.25)
    assert obs["information_set"][-1] == 1.0
    assert not obs["history"].any()
    guess = rules.parse_code("ADD")
    obs, _, _, _, info = env.step(guess)
    knowledge = env.unwrapped.information_set
    np.testing.assert_allclose(obs["information_set"][:-1], knowledge.component_marginals(), rtol=1e-6)
    assert obs["information_set"][-1] == pytest.approx(math.log2(info["candidates"]) / math.log2(64))
    # Slot 1: the guess's colours, then (black, white), each plus one; the rest is padding.
    np.testing.assert_array_equal(obs["history"][:5], [1, 4, 4, 2, 1])
    assert not obs["history"][5:].any()
    assert info["entropy"] == pytest.approx(math.log2(info["candidates"]))
    assert info["candidates"] == knowledge.size


def test_masks_all_by_default_and_consistent_on_request():
    env = gym.make("Mastermind-v0")
    _, info = env.reset(seed=0)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].all()
    assert env.unwrapped.action_masks().dtype == bool

    env = gym.make("Mastermind-v0", action_mask="consistent")
    _, info = env.reset(seed=0)
    _, _, _, _, info = env.step(0)
    candidates = env.unwrapped.information_set.candidates
    np.testing.assert_array_equal(np.flatnonzero(info["action_mask"]), candidates)
    np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))
    info["action_mask"][:] = 0  # a caller's copy: the env's mask is untouched
    assert env.unwrapped.action_masks().sum() == len(candidates)


def test_the_unasked_mask_removes_each_answered_query_until_every_legal_one_was_asked():
    env = gym.make("Mastermind-v0", pegs=1, colors=4, action_mask="unasked", max_steps=10)
    _, info = env.reset(seed=0, options={"secret": 3})
    assert info["action_mask"].all()
    for query in (0, 1, 2):
        _, _, terminated, _, info = env.step(query)
        assert not terminated and info["action_mask"].tolist() == [int(q > query) for q in range(4)]
    # Fake Coin's legal queries depend on what is known: the mask is the rules' mask less the queries asked.
    coin = gym.make("FakeCoin-v0", action_mask="unasked")
    plain = gym.make("FakeCoin-v0")
    coin.reset(seed=2), plain.reset(seed=2)
    rng = np.random.default_rng(2)
    asked = np.zeros(coin.action_space.n, dtype=bool)
    for _ in range(3):
        mask = coin.unwrapped.action_masks()
        np.testing.assert_array_equal(mask, plain.unwrapped.action_masks() & ~asked)
        query = int(rng.choice(np.flatnonzero(mask)))
        asked[query] = True
        if coin.step(query)[2] or plain.step(query)[2]:
            break
    strict = gym.make("Mastermind-v0", pegs=2, colors=3, action_mask="unasked", illegal_action="raise")
    strict.reset(seed=1, options={"secret": 8})
    strict.step(0)
    with pytest.raises(ValueError, match=r"action 0 \(.*\) is masked: it was asked already"):
        strict.step(0)
    # Every legal query asked and the game not over (it cannot happen in a game whose queries name every secret,
    # so the check is on the function): all of them are legal again, never none.
    from deduction_envs.envs.deduction_env import unasked

    np.testing.assert_array_equal(unasked(np.array([True, False, True]), np.array([True, True, True])),
                                  [True, False, True])  # fmt: skip
    np.testing.assert_array_equal(unasked(np.array([[True, True], [True, False]]), np.array([[True, False],
                                  [True, False]])), [[False, True], [True, False]])  # fmt: skip


def snapshot(env):
    inner = env.unwrapped
    return inner.history, inner.information_set.support.copy(), inner._secret


@pytest.mark.parametrize("action", [-1, 1296, 3.0, "AABB", None, np.array([1, 2])])
def test_bad_actions_raise_and_leave_the_env_unchanged(action):
    env = gym.make("Mastermind-v0")
    env.reset(seed=1)
    env.step(7)
    before = snapshot(env)
    with pytest.raises(ValueError, match=r"action must be an integer in \[0, 1296\)"):
        env.unwrapped.step(action)
    assert_same(snapshot(env), before)
    env.step(8)  # still playable
    assert len(env.unwrapped.history) == 2


def test_masked_actions_are_wasted_steps_or_in_strict_mode_raise_and_change_nothing():
    env = gym.make("Mastermind-v0", action_mask="consistent")
    env.reset(seed=3)
    env.step(0)
    masked = int(np.flatnonzero(~env.unwrapped.action_masks())[0])
    before = snapshot(env)
    _, reward, terminated, truncated, info = env.step(masked)
    assert reward == -1.0 and not terminated and not truncated and info["illegal_action"] is True
    assert len(env.unwrapped.history) == 1 and "feedback" not in info  # answered with nothing
    strict = gym.make("Mastermind-v0", action_mask="consistent", illegal_action="raise")
    strict.reset(seed=3)
    strict.step(0)
    before = snapshot(strict)
    with pytest.raises(ValueError, match=rf"action {masked} \(.*\) is masked"):
        strict.step(masked)
    assert_same(snapshot(strict), before)


@pytest.mark.parametrize("action", [True, False, np.bool_(True), 1.0, "1", None, -1, 1296])
def test_actions_outside_the_space_and_booleans_are_clear_errors(action):
    env = gym.make("Mastermind-v0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action must be an integer in \[0, 1296\)"):
        env.step(action)


def test_numpy_integers_and_zero_dim_arrays_are_valid_actions():
    env = gym.make("Mastermind-v0")
    env.reset(seed=1)
    env.step(np.int64(3))
    env.step(np.array(4))
    assert [action for action, _ in env.unwrapped.history] == [3, 4]


def test_stepping_outside_an_episode_is_a_clear_error():
    env = DeductionEnv("Mastermind")
    with pytest.raises(RuntimeError, match=r"reset\(\) must be called before step\(\)"):
        env.step(0)
    env.reset(options={"secret": 5})
    env.step(5)
    with pytest.raises(RuntimeError, match=r"the episode has ended .* call reset\(\)"):
        env.step(5)
    env.reset()
    env.step(0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"max_steps": 0}, ValueError, r"max_steps must be an integer in \[1, 10000\], got 0"),
        ({"max_steps": 10**9}, ValueError, r"max_steps must be an integer in \[1, 10000\], got 1000000000"),
        ({"pegs": 10**9}, ValueError, r"pegs must be an integer in \[1, 22\], got 1000000000"),
        ({"pegs": 10, "colors": 8}, ValueError, r"has 1,073,741,824 codes; at most 4,194,304"),
        ({"illegal_action": "crash"}, ValueError, r"illegal_action must be 'waste' or 'raise'"),
        (
            {"action_mask": "legal"},
            ValueError,
            r"action_mask must be one of 'all', .*, got 'legal'",
        ),
        ({"render_mode": "video"}, ValueError, r"render_mode must be None or one of \['ansi', 'human', 'rgb_array'\]"),
        ({"information_set": "sampled"}, ValueError, r"information_set must be 'enumerated' or 'tabular'.*'sampled'"),
        ({"pegs": 0}, ValueError, r"pegs must be an integer in \[1, 22\], got 0"),
        ({"pegs": True}, ValueError, r"pegs must be an integer in \[1, 22\], got True"),
        ({"digits": 3}, TypeError, r"Mastermind has no size parameter 'digits'"),
    ],
)
def test_bad_env_arguments_are_clear_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        DeductionEnv("Mastermind", **kwargs)


@pytest.mark.parametrize(
    ("env_id", "sizes"),
    [
        ("Mastermind-v0", {"pegs": np.int64(3), "colors": np.int32(4)}),
        ("BullsAndCows-v0", {"digits": np.int64(3), "symbols": np.int64(6)}),
        ("TreasureHunt-v0", {"width": np.int16(3), "height": np.uint8(2)}),
        ("LowMiddleHigh-v0", {"n": np.int64(20)}),
        ("FakeCoin-v0", {"coins": np.int64(5)}),
        ("BlackBox-v0", {"size": np.int64(3), "atoms": np.int64(1)}),
    ],
)
def test_numpy_integer_sizes_are_stored_as_ints_and_play(env_id, sizes):
    env = gym.make(env_id, **sizes)
    rules = env.unwrapped.rules
    assert all(type(getattr(rules, name)) is int for name in sizes)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))


def test_human_rendering_prints_the_board_without_pygame(capsys):
    env = gym.make("Mastermind-v0", render_mode="human")  # Gymnasium adds no pygame window for a human mode
    env.reset(seed=0)
    env.step(0)
    assert env.render() is None
    out = capsys.readouterr().out
    assert out.count("Mastermind(pegs=4, colors=6)") == 3 and "AAAA" in out


def test_bad_reset_options_are_clear_errors():
    env = DeductionEnv("Mastermind")
    with pytest.raises(ValueError, match=r"options\['secret'\] must be an integer in \[0, 1295\], got 1296"):
        env.reset(options={"secret": 1296})
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) 'code'; the only options are 'secret'"):
        env.reset(options={"code": 3})
    with pytest.raises(ValueError, match="options must be a dict or None, got 5"):
        env.reset(options=5)
    with pytest.raises(ValueError, match="seed must be an integer >= 0, got -1"):
        env.reset(seed=-1)


def test_a_refused_reset_leaves_the_generator_as_it_was():
    """A reset refused for its options must not have reseeded: the next reset draws as if it never happened."""
    env, twin = DeductionEnv("Mastermind"), DeductionEnv("Mastermind")
    env.reset(seed=1)
    twin.reset(seed=1)
    with pytest.raises(ValueError, match="secret"):
        env.reset(seed=999, options={"secret": -1})
    assert env.reset()[0]["history"].tolist() == twin.reset()[0]["history"].tolist()
    assert env.unwrapped._secret == twin.unwrapped._secret
    with pytest.raises(TypeError, match="size parameters"):
        DeductionEnv(Mastermind(), pegs=3)


def test_the_secret_is_in_no_public_attribute_or_info():
    env = gym.make("Mastermind-v0", render_mode="ansi")
    _, info = env.reset(seed=0)
    _, _, _, _, step_info = env.step(0)
    assert set(info) == {"candidates", "entropy", "action_mask"}
    assert set(step_info) == {"candidates", "entropy", "action_mask", "feedback"}
    public_state = {name for name in vars(env.unwrapped) if not name.startswith("_")}
    assert public_state == {"action_space", "observation_space", "render_mode", "spec"}


def test_tabular_information_set_option_gives_the_same_episode():
    actions = [0, 100, 200, 300]
    enumerated = play(gym.make("Mastermind-v0"), actions, seed=9)
    tabular = play(gym.make("Mastermind-v0", information_set="tabular"), actions, seed=9)
    for a, b in zip(enumerated[1:], tabular[1:], strict=True):
        np.testing.assert_allclose(a[0]["information_set"], b[0]["information_set"], rtol=1e-6)
        assert a[4]["candidates"] == b[4]["candidates"]


def test_ansi_render_shows_the_board():
    env = gym.make("Mastermind-v0", render_mode="ansi")
    rules = env.unwrapped.rules
    env.reset(options={"secret": rules.parse_code("CFAB")})
    env.step(rules.parse_code("AABB"))
    text = env.render()
    assert "step 1/12" in text
    assert "AABB  ->  black 1, white 1" in text
    assert f"candidates: {env.unwrapped.information_set.size}" in text


def test_rgb_render_is_a_picture_that_changes_with_the_board():
    env = gym.make("BullsAndCows-v0", render_mode="rgb_array")
    env.reset(seed=0)
    empty = env.render()
    assert empty.dtype == np.uint8 and empty.ndim == 3 and empty.shape[2] == 3
    env.step(0)
    after = env.render()
    assert after.shape == empty.shape and (after != empty).any()


def test_render_without_a_mode_warns_and_returns_none():
    env = DeductionEnv("Mastermind")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render mode"):
        assert env.render() is None


@functools.cache
def default_rules(env_id):
    """One rules object per game, so examples share its memoised feedback."""
    return gym.make(env_id).unwrapped.rules


@pytest.mark.parametrize("env_id", deduction_envs.ENV_IDS)
@given(
    secret_fraction=st.floats(0, 1, exclude_max=True),
    actions=st.lists(st.integers(0, 10**6), min_size=1, max_size=12),
    consistent=st.booleans(),
)
def test_the_env_information_set_always_holds_the_secret(env_id, secret_fraction, actions, consistent):
    rules = default_rules(env_id)
    consistent = consistent and rules.queries_name_secrets
    env = DeductionEnv(rules, action_mask="consistent" if consistent else "all")
    secret = int(secret_fraction * rules.num_secrets)
    _, info = env.reset(options={"secret": secret})
    previous = info["entropy"]
    for k in actions:
        _, _, terminated, truncated, info = env.step(legal(env, k))
        assert secret in env.information_set
        assert info["entropy"] <= previous
        previous = info["entropy"]
        if terminated or truncated:
            break


def test_an_env_of_a_million_codes_plays():
    env = gym.make("Mastermind-v0", pegs=5, colors=16)  # 1,048,576 codes, no feedback-row cache
    _, info = env.reset(seed=0)
    assert info["candidates"] == 1 << 20 and info["entropy"] == 20.0
    _, _, _, _, info = env.step(12345)
    rules, knowledge = env.unwrapped.rules, env.unwrapped.information_set
    expected = np.flatnonzero(rules.feedback(12345, np.arange(rules.num_secrets)) == info["feedback"])
    np.testing.assert_array_equal(knowledge.candidates, expected)
    assert env.unwrapped._secret in knowledge


def test_reveal_gives_up_the_episode_and_names_the_secret():
    env = DeductionEnv("Mastermind")
    with pytest.raises(RuntimeError, match=r"reset\(\) must be called before reveal\(\)"):
        env.reveal()
    env.reset(options={"secret": 42})
    env.step(0)
    assert env.reveal() == 42 and env.rules.format_secret(42) == env.rules.format_action(42)
    with pytest.raises(RuntimeError, match="the episode has ended"):
        env.step(1)


def test_envs_of_one_configuration_share_one_rules_object_and_its_memo():
    from deduction_envs.games import make_rules

    first, second = gym.make("Mastermind-v0", pegs=3, colors=4), gym.make("Mastermind-v0", pegs=3, colors=4)
    rules = first.unwrapped.rules
    assert second.unwrapped.rules is rules is make_rules("Mastermind", colors=4, pegs=3)
    assert gym.make("Mastermind-v0", pegs=3, colors=5).unwrapped.rules is not rules
    first.reset(seed=0)
    first.step(7)
    table, ready = rules._feedback_rows
    assert ready[7]  # the row one env filled is the other's too
    assert second.unwrapped.rules._feedback_rows[0] is table
