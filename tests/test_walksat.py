"""Neller & Luo's WalkSAT sampler and the variations of their slides, on Clue states counted exactly."""

from __future__ import annotations

import numpy as np
import pytest

from train.experiments.clue_states import EXACT_WORK_LIMIT, Table, record_game, replay
from train.experiments.walksat import VARIANTS, WalkSat


def endgame_state(deals_at_most=200):
    """Player 0's knowledge at the first state of a recorded 4-player game with at most ``deals_at_most`` deals,
    and the refutations it saw."""
    table = Table.classic(4)
    places, states = record_game(table, "sensible", seed=4000, turns=60)
    clauses = []
    for t, (knowledge, _) in enumerate(replay(table, places, states, work_limit=EXACT_WORK_LIMIT)):
        clauses += [(p, cards) for kind, p, cards in states[t] if kind == "one_of"]
        solution = knowledge.solve("exact")
        if 1 < solution.count <= deals_at_most:
            return knowledge, clauses, solution
    raise AssertionError("no such state")


def sampler(knowledge, clauses, **options):
    sheet = knowledge.deduction_sheet("sample").astype(np.int64)
    sizes = knowledge.hand_sizes, knowledge.categories, knowledge.case_file_sizes
    return WalkSat(sheet, *sizes, clauses, [], seed=1, **options)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_variation_samples_only_consistent_deals(name):
    """Every recorded sample satisfies the knowledge: a card the exact count gives probability 0 at a place is
    never there in a sample, and each card is in exactly one place in every sample (rows sum to 1)."""
    knowledge, clauses, solution = endgame_state()
    search = sampler(knowledge, clauses, **VARIANTS[name])
    search.run(0.05)
    assert search.samples > 0
    estimate = search.probabilities()
    assert np.allclose(estimate.sum(axis=1), 1)
    assert (estimate[solution.probabilities == 0] == 0).all()


def test_unique_samples_find_every_deal_and_algorithm_1_counts_returns():
    """On an endgame state, recording each assignment once ends with exactly the consistent deals (so the exact
    marginals); Algorithm 1 records returns to the same deal too, many more samples than there are deals."""
    knowledge, clauses, solution = endgame_state()
    unique = sampler(knowledge, clauses, **VARIANTS["(e) (d) + tabu tenure 2"])
    unique.run(0.3)
    assert unique.samples == solution.count
    assert np.allclose(unique.probabilities(), solution.probabilities)
    first = sampler(knowledge, clauses)
    first.run(0.1)
    assert first.samples > 10 * solution.count


def test_bad_options_are_refused():
    knowledge, clauses, _ = endgame_state()
    for options, message in (
        ({"after_sample": "jump"}, "after_sample"),
        ({"noise": 1.5}, "noise"),
        ({"tenure": -1}, "tenure"),
    ):
        with pytest.raises(ValueError, match=message):
            sampler(knowledge, clauses, **options)


def test_the_report_tests_every_variation_against_algorithm_1_and_remarks_on_the_randomised_ones():
    """Hand-made states: (a) has 4 times Algorithm 1's squared error (twice its RMSE) on a quarter of its samples
    on every state; (c) has the same error and samples; the others do not enter the remark."""
    from train.experiments import clue_walksat as cw

    rows = []
    for k in range(12):
        base = 1.0 + 0.1 * k
        squared = {name: base for name in cw.METHODS}
        squared["(a) random restart"] = 4 * base
        samples = {name: 1000 for name in cw.METHODS}
        samples["(a) random restart"] = 250
        rows.append({"squared": squared, "cells": 1, "samples": samples})
    assert cw.differs(rows, "(c) mixed random/heuristic flip", "Algorithm 1") == 1.0  # equal on every state
    assert cw.differs(rows, "(a) random restart", "Algorithm 1") < 0.001  # 12 of 12 states worse
    remark = cw.randomness_remark(rows)
    assert "(a) +100% RMSE, 25% of its samples, p = " in remark and "(significant at 5%)" in remark
    assert "(c) +0% RMSE, 100% of its samples, p = 1" in remark


def test_the_slides_clause_counts_and_the_cnf_they_count():
    """Neller & Luo's slides: 6 players each holding 3 of the 21 cards need 35,910 CNF clauses for "at most 3",
    1,260 for "at least 3", and 12 at-least clauses. The CNF counted is the right one: on a small hand, every
    truth assignment satisfies the clauses exactly when its count is right."""
    import itertools

    from train.experiments.walksat import hand_count_clauses

    assert hand_count_clauses(21, 6, 3) == (35_910, 1_260, 12)
    cards, hand = 6, 2
    at_most = list(itertools.combinations(range(cards), hand + 1))  # not all of these together
    at_least = list(itertools.combinations(range(cards), cards - hand + 1))  # one of these true
    per_player = hand_count_clauses(cards, 1, hand)
    assert (len(at_most), len(at_least)) == per_player[:2]
    for held in itertools.product((False, True), repeat=cards):
        assert (not any(all(held[c] for c in clause) for clause in at_most)) == (sum(held) <= hand)
        assert all(any(held[c] for c in clause) for clause in at_least) == (sum(held) >= hand)
