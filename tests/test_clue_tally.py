"""The Clue tournament's tables folded as its parts arrive (train.experiments.clue_experiments.Tally): the same
figures as the games themselves give, in any order the parts come in."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from train.experiments.clue_experiments import TIME_EDGES, Settings, Tally, add_part, play_part, start_tallies
from train.stats import sign_test


def test_a_tally_holds_what_the_games_it_folded_say():
    chosen = Settings(4, 1, 0.25, (3,), 0, 2, ("entropy", "entropy(p>=0.79)"), ("deduction-sheet",))
    jobs = [(3, contender, "deduction-sheet", start, 2) for contender in chosen.contenders for start in (2, 0)]
    parts = {job: play_part(job, chosen) for job in jobs}
    tallies = start_tallies(chosen)
    for job in jobs:  # the later part first: a tally keeps game g at its place
        add_part(tallies, job, parts[job])
    for contender in chosen.contenders:
        games = parts[3, contender, "deduction-sheet", 0, 2] + parts[3, contender, "deduction-sheet", 2, 2]
        tally = tallies[3, contender, "deduction-sheet"]
        assert tally.won.tolist() == [int(g["contender_won"]) for g in games]
        assert (tally.games, tally.wins) == (4, sum(g["contender_won"] for g in games))
        assert tally.wrong == [sum(g["contender_wrong"] for g in games), sum(g["opponent_wrong"] for g in games)]
        for side in ("contender", "opponent"):
            turns = [g["winner_turns"] for g in games if g["winner_side"] == side]
            assert tally.turns[side] == [sum(turns), len(turns)]
        times = np.array([t for g in games for t in g["contender_times"]])
        assert tally.times.sum() == times.size and abs(tally.mean_ms() - 1e3 * times.mean()) < 1e-6
        exact = 1e3 * np.percentile(times, 95, method="inverted_cdf")  # the decision at the 95% rank
        assert exact <= tally.percentile_ms(95) <= 1.0101 * exact  # the upper edge of its bin: within 1%
    pairs = [tallies[3, c, "deduction-sheet"].won == 1 for c in chosen.contenders]
    games = [[g["contender_won"] for s in (0, 2) for g in parts[3, c, "deduction-sheet", s, 2]]
             for c in chosen.contenders]  # fmt: skip
    assert sign_test(*pairs) == sign_test(*games)  # the paired test reads game g of both cells


game = st.fixed_dictionaries({
    "contender_won": st.booleans(),
    "contender_wrong": st.integers(0, 3),
    "opponent_wrong": st.integers(0, 5),
    "winner_side": st.sampled_from([None, "contender", "opponent"]),
    "winner_turns": st.integers(1, 40),
    "truncated": st.booleans(),
    "contender_times": st.lists(st.floats(1e-6, 100.0), max_size=5),
})  # fmt: skip


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(game, min_size=1, max_size=4), min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_a_tally_is_the_same_whatever_order_its_parts_arrive_in(parts, random):
    starts = np.cumsum([0, *map(len, parts)])[:-1].tolist()
    order = list(range(len(parts)))
    tallies = []
    for _ in range(2):
        tally = Tally.empty(sum(map(len, parts)))
        for k in order:
            tally.add(starts[k], parts[k])
        tallies.append(tally)
        random.shuffle(order)
    first, second = tallies
    assert first.won.tolist() == second.won.tolist() and first.wrong == second.wrong and first.turns == second.turns
    assert first.truncated == second.truncated and first.time_ns == second.time_ns
    assert (first.times == second.times).all() and first.times.size == TIME_EDGES.size + 1
