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
