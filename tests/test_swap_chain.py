"""The swap chain: the sampler of tables too large for the relaxed counts, checked against exact counts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs.reasoning import ClueKnowledge, clue_knowledge
from deduction_envs.reasoning.clue_sampling import RelaxedCounts, relaxed_feasible


def no_relaxed_counts(*args, **kwargs):
    raise MemoryError("pretend the table is too large")


@pytest.mark.parametrize("deck", ["classic", "generalized"])
def test_chain_marginals_agree_with_exact_counts(deck, monkeypatch):
    if deck == "classic":
        knowledge = ClueKnowledge.classic(4)
        knowledge.add_hand(0, [0, 6, 12, 13, 14])
        knowledge.add_holds_one_of(1, [1, 7, 15])
        knowledge.add_holds_none(2, [1, 2, 16])
        knowledge.add_holds_one_of(3, [2, 8, 16])
        knowledge.add_accusation([3, 9, 17], correct=False)
    else:
        knowledge = ClueKnowledge.generalized(14, 2, 3)
        knowledge.add_hand(0, [0, 1, 2, 3])
        knowledge.add_holds_one_of(1, [4, 5, 6])
        knowledge.add_holds_none(2, [4, 7])
        knowledge.add_holds_one_of(2, [5, 8, 9])
    exact = knowledge.solve("exact")
    assert exact.method == "exact"
    monkeypatch.setattr(clue_knowledge, "RelaxedCounts", no_relaxed_counts)
    chain = knowledge.solve("sample", samples=20_000, rng=3)
    assert chain.method == "mcmc" and np.isnan(chain.count)
    assert np.abs(chain.probabilities - exact.probabilities).max() < 0.03
    deals = knowledge.sample(500, np.random.default_rng(1), method="sample")
    held, lacked = knowledge.facts()
    places = np.arange(knowledge.players + 1)
    for deal in deals:  # every deal keeps the facts
        at = deal[:, None] == places[None, :]
        assert at[held].all() and not at[lacked].any()
    assert knowledge.entropy("sample", samples=5000, rng=0) == pytest.approx(exact.entropy, abs=0.1)
    assert RelaxedCounts is not no_relaxed_counts  # the real class is untouched elsewhere


def test_chain_is_seeded(monkeypatch):
    monkeypatch.setattr(clue_knowledge, "RelaxedCounts", no_relaxed_counts)
    knowledge = ClueKnowledge.generalized(12, 2, 3)
    knowledge.add_holds_one_of(1, [0, 1, 2])
    a = knowledge.sample(50, np.random.default_rng(7), method="sample")
    b = knowledge.sample(50, np.random.default_rng(7), method="sample")
    np.testing.assert_array_equal(a, b)


def test_the_reports_table_is_sampled_by_the_chain():
    """Eight players of five cards and five hidden: too large for the relaxed counts once asks make cards differ."""
    knowledge = ClueKnowledge.generalized(45, 5, 8, work_limit=2e5)
    knowledge.add_hand(0, [0, 1, 2, 3, 4])
    rng = np.random.default_rng(0)
    for player in range(1, 8):
        for _ in range(3):
            knowledge.add_holds_one_of(player, sorted(rng.choice(np.arange(5, 45), size=6, replace=False)))
    solution = knowledge.solve(samples=1000, rng=0)
    assert solution.method in ("mcmc", "sample", "exact")
    np.testing.assert_allclose(solution.probabilities.sum(axis=1), 1.0)
    assert (solution.probabilities[:5, 0] == 1).all()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["classic", "generalized"]))
def test_relaxed_feasibility_by_matching_agrees_with_the_relaxed_count(seed, deck):
    rng = np.random.default_rng(seed)
    knowledge = ClueKnowledge.classic(3) if deck == "classic" else ClueKnowledge.generalized(10, 2, 3)
    cards = len(knowledge.card_names)
    facts = knowledge._facts
    forbidden = tuple(int(rng.integers(0, 2**cards)) & int(rng.integers(0, 2**cards)) for _ in facts.forbidden)
    facts = type(facts)(facts.required, forbidden, facts.at_least, facts.not_all)
    problem, _ = clue_knowledge._free_problem(knowledge._model, facts)
    assert relaxed_feasible(problem) == (RelaxedCounts(problem).total > 0)
