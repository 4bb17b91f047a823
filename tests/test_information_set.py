"""Both information-set representations: exact updates, entropy and soundness."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs.core import (
    EnumeratedInformationSet,
    TabularInformationSet,
    entropy_bits,
    information_set,
    make_information_set,
)
from deduction_envs.games import BullsAndCows, Mastermind, SimpleMastermind

GAMES = [
    Mastermind(pegs=3, colors=3),
    Mastermind(pegs=4, colors=4),
    SimpleMastermind(pegs=3, colors=4),
    BullsAndCows(digits=3, symbols=5),
]


def brute_force_candidates(rules, history):
    """Every secret that gives each recorded feedback, one secret at a time."""
    return [
        secret
        for secret in range(rules.num_secrets)
        if all(int(rules.feedback(action, secret)) == feedback for action, feedback in history)
    ]


@pytest.mark.parametrize("rules", GAMES, ids=repr)
def test_updates_keep_exactly_the_consistent_secrets(rules):
    rng = np.random.default_rng(1)
    secret = int(rng.integers(rules.num_secrets))
    knowledge = EnumeratedInformationSet(rules)
    history = []
    for _ in range(3):
        action = int(rng.integers(rules.num_actions))
        feedback = int(rules.feedback(action, secret))
        history.append((action, feedback))
        knowledge = knowledge.update(action, feedback)
        assert list(knowledge.candidates) == brute_force_candidates(rules, history)
        assert knowledge.entropy() == pytest.approx(math.log2(knowledge.size))


def test_an_impossible_answer_raises_and_changes_nothing():
    rules = Mastermind()
    knowledge = EnumeratedInformationSet(rules).update(rules.parse_code("AAAA"), 0)  # no A anywhere
    before = knowledge.candidates.copy()
    impossible = 4 * 5  # "black 4" to AAAA, which is ruled out
    with pytest.raises(ValueError, match=r"feedback 20 \(black 4, white 0\) to action 0 \(AAAA\) contradicts"):
        knowledge.update(rules.parse_code("AAAA"), impossible)
    np.testing.assert_array_equal(knowledge.candidates, before)
    tabular = TabularInformationSet(rules)
    with pytest.raises(ValueError, match="contradicts every one of the 1296"):
        tabular.update(0, 3 * 5 + 1)  # 3 black + 1 white is impossible with 4 pegs
    assert tabular.size == 1296


def test_information_sets_are_immutable():
    rules = Mastermind(pegs=3, colors=3)
    knowledge = EnumeratedInformationSet(rules)
    updated = knowledge.update(0, int(rules.feedback(0, 5)))
    assert knowledge.size == 27 and updated.size < 27
    with pytest.raises(ValueError):
        updated.candidates[0] = 3
    with pytest.raises(ValueError):
        updated.component_marginals()[0] = 0.5
    with pytest.raises(ValueError):
        TabularInformationSet(rules).table[0] = 0.5


def test_tabular_with_a_uniform_prior_agrees_with_enumerated():
    rules = Mastermind(pegs=3, colors=4)
    rng = np.random.default_rng(3)
    secret = int(rng.integers(rules.num_secrets))
    enumerated, tabular = EnumeratedInformationSet(rules), TabularInformationSet(rules)
    for _ in range(3):
        action = int(rng.integers(rules.num_actions))
        feedback = int(rules.feedback(action, secret))
        enumerated, tabular = enumerated.update(action, feedback), tabular.update(action, feedback)
        np.testing.assert_array_equal(tabular.support, enumerated.candidates)
        assert tabular.entropy() == pytest.approx(enumerated.entropy())
        np.testing.assert_allclose(tabular.component_marginals(), enumerated.component_marginals())


def test_tabular_prior_is_renormalised_over_the_survivors():
    rules = Mastermind(pegs=2, colors=2)  # AA AB BA BB
    prior = np.array([4.0, 2.0, 1.0, 1.0])
    knowledge = TabularInformationSet(rules, prior)
    assert knowledge.entropy() == pytest.approx(entropy_bits(prior))
    # Guess AB: black 1 white 0 leaves AA and BB.
    updated = knowledge.update(rules.parse_code("AB"), 1 * 3 + 0)
    np.testing.assert_array_equal(updated.support, [0, 3])
    np.testing.assert_allclose(updated.probabilities(), [0.8, 0.2])
    assert updated.entropy() == pytest.approx(entropy_bits([0.8, 0.2]))


@pytest.mark.parametrize("one_hot_budget", [information_set.ONE_HOT_TABLE_BYTES, 0], ids=["table", "bincount"])
@pytest.mark.parametrize("rules", GAMES, ids=repr)
def test_component_marginals_are_the_mean_one_hot_code(rules, one_hot_budget, monkeypatch):
    monkeypatch.setattr(information_set, "ONE_HOT_TABLE_BYTES", one_hot_budget)
    monkeypatch.setattr(information_set, "COMPONENT_TABLE_BYTES", one_hot_budget)  # "bincount": neither table
    monkeypatch.setattr(information_set, "_per_rules", {"one_hot": {}, "components": {}})
    knowledge = EnumeratedInformationSet(rules).update(1, int(rules.feedback(1, rules.num_secrets - 1)))
    codes = rules.codes[knowledge.candidates]
    expected = np.concatenate(
        [np.bincount(codes[:, j], minlength=rules.num_symbols) / knowledge.size for j in range(rules.code_length)]
    )
    np.testing.assert_allclose(knowledge.component_marginals(), expected)


def test_bad_construction_is_a_clear_error():
    rules = Mastermind(pegs=2, colors=3)
    with pytest.raises(ValueError, match="candidates must not be empty"):
        EnumeratedInformationSet(rules, [])
    with pytest.raises(ValueError, match=r"secret indices in \[0, 9\)"):
        EnumeratedInformationSet(rules, [3, 9])
    with pytest.raises(ValueError, match="table must have 9 entries"):
        TabularInformationSet(rules, np.ones(4))
    with pytest.raises(ValueError, match="non-negative"):
        TabularInformationSet(rules, -np.ones(9))
    with pytest.raises(ValueError, match="'enumerated' or 'tabular'"):
        make_information_set(rules, "sampled")


def test_sampling_draws_only_candidates():
    rules = Mastermind()
    knowledge = EnumeratedInformationSet(rules).update(0, int(rules.feedback(0, 700)))
    rng = np.random.default_rng(0)
    for kind in (knowledge, TabularInformationSet(rules).update(0, int(rules.feedback(0, 700)))):
        samples = kind.sample(200, rng)
        assert np.isin(samples, knowledge.candidates).all()


@st.composite
def games_and_plays(draw):
    rules = draw(st.sampled_from(GAMES))
    secret = draw(st.integers(0, rules.num_secrets - 1))
    actions = draw(st.lists(st.integers(0, rules.num_actions - 1), min_size=1, max_size=6))
    kind = draw(st.sampled_from(["enumerated", "tabular"]))
    return rules, secret, actions, kind


@given(games_and_plays())
def test_soundness_and_monotonicity_on_random_plays(play):
    """The secret never leaves the set; the set only shrinks; entropy never rises."""
    rules, secret, actions, kind = play
    knowledge = make_information_set(rules, kind)
    for action in actions:
        updated = knowledge.update(action, int(rules.feedback(action, secret)))
        assert secret in updated
        assert set(updated.support) <= set(knowledge.support)
        assert updated.entropy() <= knowledge.entropy() + 1e-12
        knowledge = updated


def played_set(rules, seed: int, queries: int):
    """The information set after ``queries`` random queries against a random secret (seeded), the secret, and
    the generator, for tests that want a set reached by play."""
    rng = np.random.default_rng(seed)
    knowledge = make_information_set(rules)
    secret = int(rng.integers(rules.num_secrets))
    for _ in range(queries):
        action = int(rng.integers(rules.num_actions))
        knowledge = knowledge.update(action, int(rules.feedback(action, np.array([secret]))[0]))
    return knowledge, secret, rng


@settings(max_examples=25, deadline=None)
@given(
    game=st.sampled_from([("Mastermind", {"pegs": 3, "colors": 4}), ("BullsAndCows", {"digits": 3, "symbols": 5})]),
    seed=st.integers(0, 2**32 - 1),
    queries=st.integers(0, 3),
)
def test_the_compiled_expected_entropy_equals_the_generic_one(game, seed, queries):
    from deduction_envs.games import make_rules

    rules = make_rules(game[0], **game[1])
    knowledge, _, _ = played_set(rules, seed, queries)
    actions = np.arange(rules.num_actions)
    probability, entropy = knowledge.feedback_outcomes(actions)
    np.testing.assert_allclose(knowledge.expected_entropy(actions), (probability * entropy).sum(axis=1), atol=1e-12)
    # The compiled loop's largest answer class is the generic path's likeliest answer.
    _, likeliest = knowledge.answer_statistics(actions)
    np.testing.assert_allclose(likeliest, probability.max(axis=1), atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(
    game=st.sampled_from([("Mastermind", {"pegs": 3, "colors": 4}), ("BullsAndCows", {"digits": 3, "symbols": 5})]),
    seed=st.integers(0, 2**32 - 1),
    queries=st.integers(0, 3),
    block=st.integers(1, 5000),
)
def test_games_without_a_feedback_memo_count_answer_classes_block_by_block(game, seed, queries, block):
    from deduction_envs.core import information_set
    from deduction_envs.core.information_set import EnumeratedInformationSet
    from deduction_envs.games import make_rules

    rules = make_rules(game[0], **game[1])
    unmemoised = type(rules)(**game[1])
    vars(unmemoised)["_feedback_rows"] = None  # as for a game whose table is over the memo's budget
    knowledge, _, rng = played_set(rules, seed, queries)
    actions = rng.permutation(rules.num_actions)[: int(rng.integers(1, rules.num_actions))]
    expected = knowledge.answer_statistics(actions)
    default = information_set.BLOCK_CELLS
    try:
        information_set.BLOCK_CELLS = block  # blocks of every size, down to one query at a time
        got = EnumeratedInformationSet(unmemoised, knowledge.support).answer_statistics(actions)
    finally:
        information_set.BLOCK_CELLS = default
    assert unmemoised.feedback_table(actions) is None
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])


@settings(max_examples=25, deadline=None)
@given(
    game=st.sampled_from(
        [
            ("Mastermind", {"pegs": 3, "colors": 4}),
            ("BullsAndCows", {"digits": 3, "symbols": 5}),
            ("Wordle", {}),
            ("BlackBox", {"size": 4, "atoms": 2}),
            ("LowMiddleHigh", {}),
        ]
    ),
    seed=st.integers(0, 2**32 - 1),
    queries=st.integers(1, 4),
)
def test_marginals_counted_during_an_update_equal_those_of_a_fresh_set(game, seed, queries):
    from deduction_envs.core.information_set import EnumeratedInformationSet
    from deduction_envs.games import make_rules

    rules = make_rules(game[0], **game[1])
    for played in range(1, queries + 1):
        knowledge, secret, _ = played_set(rules, seed, played)
        fresh = EnumeratedInformationSet(rules, knowledge.support)
        np.testing.assert_array_equal(knowledge.component_marginals(), fresh.component_marginals())
        assert secret in knowledge
