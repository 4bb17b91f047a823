"""The compiled sweep over card types (``deduction_envs.reasoning.clue_sweep``) against brute-force enumeration of
small decks, and against the knowledge engine without a budget on the states of seeded Clue games where the
engine's observation budget samples; and its deals, listed and drawn."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_clue_knowledge import apply, games

from deduction_envs.core.entropy import entropy_bits
from deduction_envs.reasoning import ContradictionError
from deduction_envs.reasoning.clue_sweep import CONTRADICTION, EXACT, OVER_BUDGET, count_seat, deal_seat, solve_seat


def sweep(knowledge, budget: float = 1e7, cases: int = 0):
    """``count_seat`` on a knowledge's propagated masks: (status, deals, entropy, probabilities); with ``cases``,
    ``solve_seat``'s and its case-file distribution too."""
    store = knowledge.trusted_facts()
    required, forbidden = store.masks()
    model = knowledge._model
    probabilities = np.full((model.cards, model.places), np.nan)
    table = model.sweep_table
    masks = (required.copy(), forbidden.copy(), store.clauses.copy())
    if cases:
        distribution = np.full(cases, np.nan)
        status, deals, entropy = solve_seat(*masks, *table, budget, probabilities, distribution)
        return status, deals, entropy, probabilities, distribution
    status, deals, entropy = count_seat(*masks, *table, budget, probabilities)
    return status, deals, entropy, probabilities


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games())
def test_the_sweep_counts_every_small_deck_as_enumeration_does(game):
    """Total, each card's probability at each place and the case file's entropy, from every deal of the deck
    that agrees with the events (hands, passes, refutations unseen, wrong and right accusations)."""
    knowledge, deals, events = game
    consistent = np.ones(len(deals), dtype=bool)
    for event in events:
        try:
            apply(knowledge, event)
        except ContradictionError:
            continue
        kind, place, cards = event
        at = deals[:, cards] == place
        consistent &= {"hand": at.all(axis=1), "holds": at.all(axis=1), "none": ~at.any(axis=1),
                       "one_of": at.any(axis=1), "right": at.all(axis=1), "wrong": ~at.all(axis=1)}[kind]  # fmt: skip
        if kind == "hand":  # the hand is all the player holds
            consistent &= (deals == place).sum(axis=1) == len(cards)
    kept = deals[consistent]
    status, total, entropy, probabilities = sweep(knowledge)
    assert status == EXACT and total == len(kept)
    expected = np.stack([(kept == p).mean(axis=0) for p in range(knowledge.case_file + 1)], axis=1)
    np.testing.assert_allclose(probabilities, expected, rtol=0, atol=1e-12)
    _, counts = np.unique(kept == knowledge.case_file, axis=0, return_counts=True)
    assert entropy == pytest.approx(entropy_bits(counts), abs=1e-12)
    if all(size == 1 for size in knowledge.case_file_sizes):  # one card a category: each combination's share
        combos = np.array(list(itertools.product(*knowledge.categories)))
        cases = sweep(knowledge, cases=len(combos))[4]
        share = [(kept[:, combo] == knowledge.case_file).all(axis=1).mean() for combo in combos]
        np.testing.assert_allclose(cases, share, rtol=0, atol=1e-12)


def test_a_tiny_budget_says_so_and_facts_with_no_deal_say_so():
    from deduction_envs.reasoning import ClueKnowledge

    knowledge = ClueKnowledge.classic(players=4)
    knowledge.add_hand(0, [0, 6, 12, 13, 14])
    assert sweep(knowledge, budget=10)[0] == OVER_BUDGET
    assert sweep(knowledge)[0] == EXACT
    store = knowledge.trusted_facts()
    store.add("one_of", 1, 1 << 0)  # player 1 holds a card of player 0's hand: no deal
    required, forbidden = store.required.copy(), store.forbidden.copy()  # unpropagated: the sweep finds it
    model = knowledge._model
    out = np.zeros((model.cards, model.places))
    table = model.sweep_table
    status = count_seat(required, forbidden, store.clauses.copy(), *table, 1e7, out)[0]
    assert status == CONTRADICTION


@pytest.mark.parametrize("players", [4, 6])
def test_the_sweep_counts_exactly_where_the_observation_budget_samples(players):
    """Seeded twin games of deduction sheets: the seats' states on which the AEC env's observation engine samples
    (past its budget of hands), counted by the engine without a budget, equal the sweep's to 1e-9."""
    from deduction_envs import registry
    from deduction_envs.envs.batched_tables import twin
    from deduction_envs.envs.clue import ClueObserver
    from deduction_envs.envs.clue_batched import settled
    from deduction_envs.reasoning.clue_facts import facts_of

    make_games, seats_class, agent = twin("clue_v0")
    rules = registry.game("clue_v0").make_rules(players=players)
    games_n = 6
    seats = seats_class(make_games(rules, games_n, 0))
    seats.reset(seeds=range(games_n))
    sheet, rng = agent("deduction_sheet"), np.random.default_rng(0)
    engine = ClueObserver(rules).new_knowledge(0).engine
    model = engine._model
    table = model.sweep_table
    checked = 0
    while not seats.games.over.all() and checked < 3:
        live = ~seats.games.over
        for g in np.flatnonzero(live):
            s = int(seats.games.turn[g])
            assert settled(g, s, seats.required, seats.forbidden, seats.clauses, seats.dirty, seats._full,
                           seats._groups)  # fmt: skip
            facts = facts_of(seats.required[g, s], seats.forbidden[g, s], seats.clauses[g, s])
            observed = engine.with_facts(facts)
            if observed.solve("auto", samples=200).method == "exact":
                continue
            out = np.zeros((model.cards, model.places))
            status, deals, bits = count_seat(seats.required[g, s].copy(), seats.forbidden[g, s].copy(),
                                             seats.clauses[g, s].copy(), *table, 3e6, out)  # fmt: skip
            assert status == EXACT
            exact = observed.with_work_limit(1e12).solve("exact")
            assert deals == exact.count
            np.testing.assert_allclose(out, exact.probabilities, rtol=0, atol=1e-9)
            assert bits == pytest.approx(exact.entropy, abs=1e-9)
            checked += 1
        uniforms = rng.random((games_n, sheet.draws(rules)))
        seats.step(sheet.act(seats, live, uniforms), live)
    assert checked > 0


def deal(knowledge, n: int = 0, seed: int = 0, enumerate_limit: int = 0, budget: float = 1e7):
    """``deal_seat`` on a knowledge's propagated masks: (status, count, deals written)."""
    store = knowledge.trusted_facts()
    required, forbidden = store.masks()
    model = knowledge._model
    table = model.sweep_table
    out = np.full((n, model.cards), -1, dtype=np.int64)
    status, count, dealt = deal_seat(required.copy(), forbidden.copy(), store.clauses.copy(), *table, budget, seed,
                                     enumerate_limit, out)  # fmt: skip
    return status, count, out[:dealt]


def consistent_deals(knowledge, deals, events):
    """The rows of ``deals`` (every deal of the deck) that agree with the events the knowledge took."""
    keep = np.ones(len(deals), dtype=bool)
    for event in events:
        kind, place, cards = event
        at = deals[:, cards] == place
        keep &= {"hand": at.all(axis=1), "holds": at.all(axis=1), "none": ~at.any(axis=1), "one_of": at.any(axis=1),
                 "right": at.all(axis=1), "wrong": ~at.all(axis=1)}[kind]  # fmt: skip
        if kind == "hand":
            keep &= (deals == place).sum(axis=1) == len(cards)
    return deals[keep]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games(), seed=st.integers(0, 2**63 - 1))
def test_dealing_lists_every_consistent_deal_once_and_draws_only_consistent_ones(game, seed):
    """Enumerated, the deals are exactly the deck's deals that agree with the events, each once; drawn, each is
    one of them, and the same seed draws the same deals."""
    knowledge, deals, events = game
    taken = []
    for event in events:
        try:
            apply(knowledge, event)
            taken.append(event)
        except ContradictionError:
            continue
    expected = consistent_deals(knowledge, deals, taken)
    status, count, listed = deal(knowledge, n=len(expected) + 1, enumerate_limit=len(expected))
    assert status == EXACT and count == len(expected) == len(listed)
    assert sorted(map(tuple, listed.tolist())) == sorted(map(tuple, expected.tolist()))
    _, _, drawn = deal(knowledge, n=50, seed=seed)
    assert len(drawn) == 50 and {tuple(d) for d in drawn.tolist()} <= {tuple(d) for d in expected.tolist()}
    np.testing.assert_array_equal(deal(knowledge, n=50, seed=seed)[2], drawn)


def test_drawn_deals_are_uniform_over_the_consistent_deals():
    """A seat with 90 consistent deals (a 3-player deck of 12 cards after a few events), 45,000 draws: every deal
    drawn, the counts as a uniform draw gives them (chi-square), and other seeds draw other deals."""
    from scipy import stats

    from deduction_envs.reasoning import ClueKnowledge

    knowledge = ClueKnowledge([3, 3, 6], [3, 3, 3], 1)
    knowledge.add_hand(0, [0, 3, 6])
    knowledge.add_holds_one_of(1, [1, 4, 7])
    knowledge.add_holds_none(2, [2, 8])
    status, count, listed = deal(knowledge, n=10_000, enumerate_limit=10_000)
    assert status == EXACT and 50 <= count <= 2_000
    index = {tuple(d): i for i, d in enumerate(listed.tolist())}
    _, _, drawn = deal(knowledge, n=500 * int(count), seed=7)
    frequency = np.bincount([index[tuple(d)] for d in drawn.tolist()], minlength=int(count))
    assert frequency.min() > 0
    assert stats.chisquare(frequency).pvalue > 1e-3
    assert not np.array_equal(deal(knowledge, n=20, seed=8)[2], drawn[:20])
