"""Fake Coin: weighings against a physical reference, exactness of the canonical encoding, Dyson's bound."""

from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from deduction_envs import DeductionEnv
from deduction_envs.core.information_set import TabularInformationSet
from deduction_envs.games import FakeCoin
from deduction_envs.games.fake_coin import count_weighings


def reference_answer(left, right, secret):
    """Weigh the pans: genuine coins weigh 10, the counterfeit 11 if heavy, 9 if light."""
    coin, light = divmod(secret, 2)
    weight = [10] * (max([*left, *right, coin]) + 1)
    weight[coin] = 9 if light else 11
    tilt = sum(weight[c] for c in left) - sum(weight[c] for c in right)
    return 0 if tilt > 0 else 1 if tilt == 0 else 2  # left heavier, balance, right heavier


def concrete_weighings(coins):
    """Every ordered pair of disjoint, equal, non-empty pans, by brute force over coin assignments."""
    for assignment in itertools.product(range(3), repeat=coins):
        left = [c for c, pan in enumerate(assignment) if pan == 1]
        right = [c for c, pan in enumerate(assignment) if pan == 2]
        if left and len(left) == len(right):
            yield left, right


@pytest.mark.parametrize("coins", [3, 4, 5, 6])
def test_concrete_weighings_are_every_weighing_and_answer_like_a_balance(coins):
    rules = FakeCoin(coins=coins, weighings="concrete")
    expected = sorted(concrete_weighings(coins))
    assert rules.num_actions == count_weighings(coins) == len(expected)
    actual = [(np.flatnonzero(p == 1).tolist(), np.flatnonzero(p == 2).tolist()) for p in rules.pans]
    assert sorted(actual) == expected
    secrets = np.arange(rules.num_secrets)
    table = rules.feedback_matrix(np.arange(rules.num_actions), secrets)
    for action, (left, right) in enumerate(actual):
        assert table[action].tolist() == [reference_answer(left, right, s) for s in secrets]
        assert rules.parse_action(rules.format_action(action)) == action


def test_twelve_coins_have_about_74000_concrete_weighings_and_1909_canonical_ones():
    assert count_weighings(12) == 73_788
    assert FakeCoin().num_actions == 1_909
    assert FakeCoin(coins=39).num_actions == 124_228


def reachable_states(rules, depth, rng):
    """Information sets reached by random legal weighings with answers a real secret would give."""
    states = []
    for _ in range(depth):
        knowledge, secret = TabularInformationSet(rules), int(rng.integers(rules.num_secrets))
        states.append(knowledge)
        while knowledge.size > 1:
            action = int(rng.choice(np.flatnonzero(rules.legal_actions(knowledge))))
            knowledge = knowledge.update(action, int(rules.feedback_at(knowledge, action, secret)))
            states.append(knowledge)
    return states


def class_signature(rules, knowledge):
    return tuple(np.bincount(rules.coin_classes(knowledge), minlength=4).tolist())


@pytest.mark.parametrize("coins", [4, 6])
def test_canonical_weighings_are_exactly_the_concrete_ones_up_to_interchangeable_coins(coins):
    canonical = FakeCoin(coins=coins)
    concrete = FakeCoin(coins=coins, weighings="concrete")
    for knowledge in reachable_states(canonical, 6, np.random.default_rng(coins)):
        support = knowledge.support
        legal = np.flatnonzero(canonical.legal_actions(knowledge))
        classes = canonical.coin_classes(knowledge)
        # Every legal canonical weighing is a real weighing whose answers the balance confirms.
        for action in legal:
            left, right = canonical.concrete_weighing(action, knowledge)
            assert left and len(left) == len(right) and not set(left) & set(right)
            answers = canonical.feedback_at(knowledge, action, support)
            left, right = [c - 1 for c in left], [c - 1 for c in right]
            assert answers.tolist() == [reference_answer(left, right, s) for s in support]
        outcomes = {}
        for action in legal:
            outcomes.setdefault(outcome_signature(canonical, knowledge, action), action)
        # Every concrete weighing has a canonical one that splits the knowledge the same way.
        for action in range(concrete.num_actions):
            pans = concrete.pans[action]
            on_balance = [tuple(np.bincount(classes[pans == side], minlength=4)[:3]) for side in (1, 2)]
            if not any(on_balance[0]) and not any(on_balance[1]):
                continue  # genuine coins only: tells nothing, and is no canonical weighing
            assert outcome_signature(concrete, knowledge, action) in outcomes


def outcome_signature(rules, knowledge, action):
    """For each answer, how many secrets give it and how many coins are then in each class."""
    answers = rules.feedback_at(knowledge, action, knowledge.support)
    signature = []
    for f in np.unique(answers):
        possible = np.zeros((rules.coins, 2), dtype=bool)
        possible.flat[knowledge.support[answers == f]] = True
        heavy, light = possible[:, 0], possible[:, 1]
        classes = (heavy & light).sum(), (heavy & ~light).sum(), (light & ~heavy).sum(), (~heavy & ~light).sum()
        signature.append((int(f), int((answers == f).sum()), tuple(map(int, classes))))
    return tuple(signature)


def solvable(rules, knowledge, weighings, memo):
    """Whether every secret can be found in ``weighings`` more weighings: exhaustive minimax."""
    if knowledge.size == 1:
        return True
    if weighings == 0 or knowledge.size > 3**weighings:
        return False
    key = (class_signature(rules, knowledge), weighings)
    if key not in memo:
        legal = np.flatnonzero(rules.legal_actions(knowledge))
        answers = rules.feedback_matrix_at(knowledge, legal, knowledge.support)
        sizes = np.stack([(answers == f).sum(axis=1) for f in range(3)], axis=1)
        promising = legal[sizes.max(axis=1) <= 3 ** (weighings - 1)]
        memo[key] = any(
            all(
                solvable(rules, knowledge.update(int(a), int(f)), weighings - 1, memo)
                for f in np.unique(rules.feedback_at(knowledge, int(a), knowledge.support))
            )
            for a in promising
        )
    return memo[key]


@pytest.mark.parametrize(
    ("coins", "weighings", "possible"),
    [(12, 3, True), (13, 3, False), (12, 2, False), (3, 2, True), (4, 2, False), (39, 4, True), (40, 4, False)],
)
def test_dysons_bound_holds_in_the_canonical_action_space(coins, weighings, possible):
    """(3^k - 3) / 2 coins can be solved in k weighings and no more, and the action space loses nothing."""
    rules = FakeCoin(coins=coins)
    assert solvable(rules, TabularInformationSet(rules), weighings, {}) is possible


def test_the_table_follows_a_weighing_as_in_the_papers_figure_2():
    env = gym.make("FakeCoin-v0", coins=4)
    rules = env.unwrapped.rules
    obs, _ = env.reset(options={"secret": 2 * 0 + 0})  # coin 1 is heavy
    np.testing.assert_allclose(obs["information_set"][:-1], 1 / 8)
    obs, _, terminated, _, info = env.step(rules.parse_action("1U v 1U"))
    assert rules.format_feedback(info["feedback"]) == "left heavier" and not terminated
    # Coin 1 may be heavy, coin 2 light; coins 3 and 4 are genuine.
    np.testing.assert_allclose(env.unwrapped.information_set.table, [[0.5, 0], [0, 0.5], [0, 0], [0, 0]])
    np.testing.assert_allclose(obs["information_set"][:-1], [0.5, 0, 0, 0.5, 0, 0, 0, 0])
    assert rules.coin_classes(env.unwrapped.information_set).tolist() == [1, 2, 3, 3]
    _, _, terminated, _, info = env.step(rules.parse_action("1H v 1G"))
    assert rules.format_feedback(info["feedback"]) == "left heavier" and terminated and info["entropy"] == 0


def test_masks_follow_the_knowledge_and_illegal_weighings_raise_or_waste_a_step():
    env = gym.make("FakeCoin-v0", coins=6, illegal_action="raise")
    rules = env.unwrapped.rules
    _, info = env.reset(options={"secret": 5})
    assert [rules.format_action(a) for a in np.flatnonzero(info["action_mask"])] == ["1U v 1U", "2U v 2U", "3U v 3U"]
    needs_genuine = rules.parse_action("2U v 1U+1G")
    with pytest.raises(ValueError, match=r"action \d+ \(2U v 1U\+1G\) is masked: the rules do not allow it"):
        env.step(needs_genuine)
    assert env.unwrapped.history == ()
    _, _, _, _, info = env.step(rules.parse_action("1U v 1U"))
    assert info["action_mask"][needs_genuine]  # coins 1 and 2 are now known genuine

    env = gym.make("FakeCoin-v0", coins=6, max_steps=2)  # by default a masked weighing wastes a step
    _, info = env.reset(options={"secret": 5})
    _, reward, terminated, truncated, info = env.step(needs_genuine)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, False, False, True)
    assert info["entropy"] == pytest.approx(np.log2(12))  # nothing learned
    assert "feedback" not in info and env.unwrapped.history == ()
    _, _, terminated, truncated, _ = env.step(needs_genuine)
    assert truncated and not terminated


def test_text_render_names_the_coins_each_canonical_weighing_used():
    env = gym.make("FakeCoin-v0", render_mode="ansi")
    rules = env.unwrapped.rules
    env.reset(options={"secret": 2 * 10 + 1})  # coin 11 is light
    env.step(rules.parse_action("4U v 4U"))
    env.step(rules.parse_action("3U v 3G"))
    text = env.render()
    assert "1 2 3 4 v 5 6 7 8  ->  balance" in text
    assert "9 10 11 v 1 2 3  ->  right heavier" in text
    assert "class:  G  G  G  G  G  G  G  G  L  L  L  G" in text


@pytest.mark.parametrize(
    ("sizes", "error", "message"),
    [
        ({"coins": 2}, ValueError, r"coins must be an integer in \[3, 64\], got 2"),
        ({"coins": 65}, ValueError, r"coins must be an integer in \[3, 64\], got 65"),
        ({"weighings": "all"}, ValueError, r"weighings must be 'canonical' or 'concrete', got 'all'"),
        ({"coins": 14, "weighings": "concrete"}, ValueError, r"has 616,226 actions; it is offered up to 262,144"),
        ({"action_mask": "consistent"}, ValueError, r"needs queries that name secrets, which FakeCoin lacks"),
    ],
)
def test_bad_sizes_are_clear_errors(sizes, error, message):
    with pytest.raises(error, match=message):
        DeductionEnv("FakeCoin", **sizes)


def test_bad_weighings_are_clear_errors():
    rules = FakeCoin()
    assert rules.parse_action("2h + 1l v 1H + 2G") == rules.parse_action("2H+1L v 1H+2G")
    for text, message in [
        ("4U", "two pans separated by ' v '"),
        ("4X v 4U", "counts per class"),
        ("2U v 1U", r"the lighter-counted pan gets 1G"),
        ("1U v 1H", "U coins only or H and L coins only"),
        ("7U v 7U", "at most as many as there are coins"),
    ]:
        with pytest.raises(ValueError, match=message):
            rules.parse_action(text)
    with pytest.raises(TypeError, match=r"feedback_at\(information_set, action, secrets\)"):
        rules.feedback(0, np.arange(4))
    concrete = FakeCoin(coins=5, weighings="concrete")
    assert concrete.format_action(concrete.parse_action("1, 2 v 4 5")) == "1 2 v 4 5"
    for text in ("1 2 v 3", "1 v 1", "0 v 1", "1 2 v 2 3"):
        with pytest.raises(ValueError, match=r"same number of coins|distinct coin numbers"):
            concrete.parse_action(text)


@given(secret=st.integers(0, 23), choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=10))
def test_the_secret_stays_in_the_table_whatever_is_weighed(secret, choices):
    rules = FakeCoin()
    knowledge = TabularInformationSet(rules)
    for choice in choices:
        legal = np.flatnonzero(rules.legal_actions(knowledge))
        action = int(legal[choice % legal.size])
        before = knowledge.entropy()
        knowledge = knowledge.update(action, int(rules.feedback_at(knowledge, action, secret)))
        assert secret in knowledge and knowledge.entropy() <= before + 1e-12
        assert np.isclose(knowledge.table.sum(), 1.0)
        if knowledge.size == 1:
            break
