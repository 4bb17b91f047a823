"""The optional state-dependent query features of the single-player envs (issue 22), against brute force."""

from __future__ import annotations

import math
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import deduction_envs  # noqa: F401  (registers the envs)
from deduction_envs.envs.observation import QUERY_FEATURES, query_features

GAMES = [
    ("Mastermind-v0", {"pegs": 3, "colors": 3}),
    ("BullsAndCows-v0", {"digits": 2, "symbols": 4}),
    ("FakeCoin-v0", {"coins": 4}),
    ("BlackBox-v0", {"size": 3, "atoms": 1}),
    ("LowMiddleHigh-v0", {"n": 9}),
]


def brute_force(knowledge):
    """Every query's features, one query and one secret at a time, from the definitions."""
    rules = knowledge.rules
    support, weights = knowledge.support, knowledge.probabilities()
    entropy = -sum(w * math.log2(w) for w in weights if w > 0)
    legal = rules.action_mask(knowledge)
    names = set() if not rules.queries_name_secrets else set(rules.guess_actions(support).tolist())
    rows = np.zeros((rules.num_actions, 3))
    for action in np.flatnonzero(legal):
        classes: dict[int, list[float]] = {}
        for secret, weight in zip(support, weights, strict=True):
            answer = int(rules.feedback_at(knowledge, int(action), np.array([secret]))[0])
            classes.setdefault(answer, []).append(weight)
        after = 0.0
        for cell in classes.values():
            mass = sum(cell)
            after += mass * -sum(w / mass * math.log2(w / mass) for w in cell if w > 0)
        rows[action] = [
            action in names,
            (entropy - after) / entropy if entropy > 0 else 0.0,
            max(sum(cell) for cell in classes.values()),
        ]
    return rows


@pytest.mark.parametrize(("env_id", "sizes"), GAMES, ids=[g[0] for g in GAMES])
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 3))
def test_the_query_features_are_the_brute_force_ones_in_every_state_play_reaches(env_id, sizes, seed, steps):
    env = gym.make(env_id, query_features=True, **sizes).unwrapped
    observation, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        np.testing.assert_allclose(observation["query_features"], brute_force(env.information_set), atol=1e-5)
        observation, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated or truncated:
            break
    np.testing.assert_allclose(observation["query_features"], brute_force(env.information_set), atol=1e-5)


def test_a_hand_worked_mastermind_state():
    env = gym.make("Mastermind-v0", pegs=2, colors=2, query_features=True).unwrapped
    observation, _ = env.reset(options={"secret": env.rules.parse_action("AB")})
    # Four codes, none known: AB answers 2 black (AB), 2 white (BA), 1 black (AA, BB): classes 1, 1, 2.
    ab = env.rules.parse_action("AB")
    gain = 2.0 - (2 / 4) * 1.0  # H = 2 bits; after: half the time 1 bit, else 0
    np.testing.assert_allclose(observation["query_features"][ab], [1.0, gain / 2.0, 0.5], atol=1e-6)
    aa = env.rules.parse_action("AA")
    answers = Counter(int(env.rules.feedback(aa, np.array([s]))[0]) for s in range(4))
    assert sorted(answers.values()) == [1, 1, 2]  # AA: 2 black (AA), 1 black (AB, BA), 0 (BB)
    np.testing.assert_allclose(observation["query_features"][aa], [1.0, 0.75, 0.5], atol=1e-6)
    observation, *_ = env.step(aa)  # one black: AB or BA left
    np.testing.assert_allclose(observation["query_features"][ab], [1.0, 1.0, 0.5], atol=1e-6)
    np.testing.assert_allclose(observation["query_features"][aa], [0.0, 0.0, 1.0], atol=1e-6)


def test_memoised_first_steps_give_the_features_of_the_state_they_reach():
    env = gym.make("Mastermind-v0", pegs=3, colors=4, query_features=True).unwrapped
    rng = np.random.default_rng(1)
    for episode in range(30):  # repeated first queries come from the memo
        observation, _ = env.reset(seed=episode)
        for _ in range(2):
            observation, *_ = env.step(int(rng.integers(8)))
            expected = query_features(env.information_set)
            np.testing.assert_array_equal(observation["query_features"], expected)
    observation["query_features"][:] = 7  # a copy: the memo is untouched
    env.reset(seed=0)
    assert (env.step(int(rng.integers(8)))[0]["query_features"] <= 1).all()


def test_the_option_keeps_gymnasiums_contracts_and_is_refused_where_absent():
    words = {"answers": ["crane", "slate", "pious", "mound"], "guesses": ["crane", "slate", "pious", "mound", "adieu"]}
    env = gym.make("Wordle-v0", query_features=True, **words)
    check_env(env.unwrapped, skip_render_check=True)
    assert env.observation_space["query_features"].shape == (5, len(QUERY_FEATURES))
    assert "query_features" not in gym.make("Wordle-v0", **words).observation_space.spaces
    with pytest.raises(ValueError, match="query_features must be True or False"):
        gym.make("Mastermind-v0", query_features="yes")
    with pytest.raises(ValueError, match="batched env has no query_features"):
        gym.make_vec("Mastermind-v0", num_envs=2, vectorization_mode="vector_entry_point", query_features=True)
