"""Fuzzing the Clue knowledge engine against brute force: long runs of clauses, refusals, budgets run out.

The brute-force reference (every deal of a small deck, :mod:`test_clue_knowledge`) says whether an event
agrees with the events before it. The engine must take exactly those, refuse the others with
``ContradictionError`` and then be unchanged; with its search budget exhausted it may refuse with
``UndecidedError`` instead (never take a contradiction), and its samplers' deals must all be consistent.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from fuzzing import fuzz_settings
from hypothesis import event, given
from hypothesis import strategies as st
from test_clue_knowledge import all_deals, apply, holds

from deduction_envs.games.clue import deal_sizes
from deduction_envs.reasoning import ClueKnowledge, ContradictionError, clue_knowledge
from deduction_envs.reasoning.clue_knowledge import UndecidedError
from deduction_envs.reasoning.clue_sampling import relaxed_feasible

#: Small decks with room for many clauses: (category sizes, hidden per category, players).
DECKS = [((9,), 2, 2), ((10,), 2, 2), ((8,), 2, 3), ((3, 3, 3), 1, 2), ((2, 3, 3), 1, 3)]
ENGINE_ERRORS = (ContradictionError, UndecidedError)


@st.composite
def clause_runs(draw):
    """A deck, its deals, and up to 14 events, mostly *at least one of* clauses of 2-3 cards (true or not)."""
    sizes, hidden, players = draw(st.sampled_from(DECKS))
    cards = sum(sizes)
    knowledge = ClueKnowledge(list(sizes), deal_sizes(cards - hidden * len(sizes), players), hidden)
    deals = all_deals(knowledge)
    events = []
    for _ in range(draw(st.integers(2, 14))):
        kind = draw(st.sampled_from(["one_of"] * 6 + ["none", "holds"]))
        player = draw(st.integers(0, players - 1))
        subset = sorted(draw(st.permutations(range(cards)))[: draw(st.integers(1 if kind != "one_of" else 2, 3))])
        events.append((kind, player, subset))
    return knowledge, deals, events


def snapshot(knowledge: ClueKnowledge):
    return knowledge.events, knowledge._facts, knowledge.changes


@fuzz_settings(150)
@given(run=clause_runs(), limit=st.sampled_from([1, 3, clue_knowledge.CHECK_LIMIT]))
def test_events_are_taken_exactly_when_some_deal_agrees_and_a_refusal_changes_nothing(run, limit):
    """With a tiny ``check_limit`` the engine may refuse as undecided, but never takes a contradiction."""
    knowledge, deals, events = run
    knowledge.check_limit = limit
    alive = np.ones(len(deals), dtype=bool)
    for happening in events:
        after = alive & holds(deals, happening)
        before = snapshot(knowledge)
        try:
            apply(knowledge, happening)
        except ENGINE_ERRORS as error:
            assert snapshot(knowledge) == before
            if isinstance(error, ContradictionError):
                assert not after.any(), f"refused a consistent event: {happening}"
            event(f"{type(error).__name__} (the reference: {'consistent' if after.any() else 'contradiction'})")
            continue
        assert after.any(), f"took a contradiction: {happening}"
        event("taken")
        alive = after
    count = knowledge.solve("exact").count
    assert count == alive.sum()  # what was taken is what the reference holds


@fuzz_settings(150)
@given(run=clause_runs())
def test_the_relaxed_matching_never_refutes_facts_that_some_deal_satisfies(run):
    """The pruning of every search node is a necessary condition: it may let a contradiction pass, never refuse
    a consistent state. Clauses go in unchecked (trusted), then each state is compared with brute force."""
    knowledge, deals, events = run
    model = knowledge._model
    for kind, player, cards in events:
        mask = sum(1 << c for c in cards)
        facts = knowledge._facts
        if kind == "one_of":
            facts = type(facts)(facts.required, facts.forbidden, facts.at_least | {(player, mask)}, facts.not_all)
        elif kind == "none":
            facts = facts.lacking(player, mask)
        else:
            facts = facts.holding(player, mask)
        try:
            facts = clue_knowledge.propagate(model, facts)
        except clue_knowledge.Contradiction:
            continue
        problem, _ = clue_knowledge._free_problem(model, facts)
        consistent = all_agree(deals, facts)
        if consistent:
            assert relaxed_feasible(problem)
        event("consistent" if consistent else "contradiction")
        knowledge._facts = facts  # the next event builds on this one, consistent or not


def all_agree(deals: np.ndarray, facts) -> bool:
    """Whether some deal satisfies every fact and clause (brute force)."""
    ok = np.ones(len(deals), dtype=bool)
    for place, (required, forbidden) in enumerate(zip(facts.required, facts.forbidden, strict=True)):
        for card in range(deals.shape[1]):
            if required >> card & 1:
                ok &= deals[:, card] == place
            if forbidden >> card & 1:
                ok &= deals[:, card] != place
    for place, mask in facts.at_least:
        ok &= holds(deals, ("one_of", place, [c for c in range(deals.shape[1]) if mask >> c & 1]))
    for place, mask in facts.not_all:
        ok &= holds(deals, ("wrong", place, [c for c in range(deals.shape[1]) if mask >> c & 1]))
    return bool(ok.any())


def test_an_event_past_the_search_budget_is_decided_by_a_deal_found_or_refused_as_undecided():
    """With the search out of branches at once, a local search for a consistent deal decides: found, the event
    is taken; not found (there is none), it is refused with UndecidedError and nothing changes."""
    knowledge = ClueKnowledge.generalized(9, 2, 2)  # player 0 holds 4 cards, player 1 holds 3
    with mock.patch.object(clue_knowledge, "_consistent", side_effect=clue_knowledge._OutOfBranches):
        for pair in ([0, 1], [2, 3], [4, 5], [6, 7]):
            knowledge.add_holds_one_of(0, pair)  # a deal agrees: the local search finds one
        before = snapshot(knowledge)
        with pytest.raises(UndecidedError, match="refused, since the engine could not tell within its budget"):
            knowledge.add_holds(0, 8)  # a fifth card for player 0: no deal, so the local search finds none
        assert snapshot(knowledge) == before
    with pytest.raises(ContradictionError):  # the search proves it
        knowledge.add_holds(0, 8)


def test_rejection_that_accepts_too_few_gives_way_to_the_swap_chain_whose_deals_are_consistent():
    """17 pairs of which player 0 holds one each: the relaxed sampler tracks a few and rejects almost every deal
    (it raised 'acceptance too low'); the chain answers, and every deal it gives satisfies every event."""
    knowledge = ClueKnowledge.generalized(36, 2, 2)
    for i in range(17):
        knowledge.add_holds_one_of(0, [2 * i, 2 * i + 1])
    solution = knowledge.solve(samples=500, rng=0)
    assert solution.method == "mcmc" and np.isnan(solution.count)
    np.testing.assert_allclose(solution.probabilities.sum(axis=1), 1.0)
    deals = knowledge.sample(300, rng=1)
    assert deals.shape == (300, 36)
    for i in range(17):
        assert ((deals[:, 2 * i] == 0) | (deals[:, 2 * i + 1] == 0)).all()
    assert ((deals == 0).sum(axis=1) == 17).all() and ((deals == 2).sum(axis=1) == 2).all()
    assert (deals[:, 34:] != 0).all()
    # Exactly half of each pair's deals give player 0 the first card; the chain's estimate is near it.
    assert abs(solution.probabilities[0, 0] - 0.5) < 0.15
