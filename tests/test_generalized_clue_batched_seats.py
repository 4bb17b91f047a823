"""Batched Generalized Clue's seats (issue 61): every seat's observation equals ``generalized_clue_v0``'s
at every step of random seeded games (with the probability pieces and without; with them, every seat's entropy
equals the AEC env's ``entropy(agent)``), the enumeration of deals agrees with a hand-worked game, and a seat's
observation does not change with cards it cannot see."""

from __future__ import annotations

import numpy as np
import pytest

from deduction_envs.envs import generalized_clue_v0
from deduction_envs.envs.generalized_clue_batched import BatchedGeneralizedClueSeats
from deduction_envs.games.generalized_clue import GeneralizedClueRules
from deduction_envs.games.generalized_clue_batched import BatchedGeneralizedClueRules


def choose(rng, rules, mask):
    """Mostly asks with short lists, a guess now and then: games that last, asks answered both ways."""
    legal = np.flatnonzero(mask)
    asks = legal[(legal >= rules.cards) & (legal < rules.guess_action)]
    if asks.size and rng.random() < 0.9:
        return rng.choice(asks)
    if mask[rules.submit_action] and rng.random() < 0.4:
        return rules.submit_action
    return rng.choice(legal)


@pytest.mark.parametrize(
    ("sizes", "probabilities"),
    [((12, 2, 3), False), ((14, 2, 3), False), ((9, 1, 2), False), ((16, 3, 5), False), ((12, 2, 3), True),
     ((14, 2, 3), True), ((9, 1, 2), True)],
)  # fmt: skip
def test_every_seats_observation_is_the_aec_envs(sizes, probabilities):
    rules, n = GeneralizedClueRules(*sizes), 10 if not probabilities else 5
    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(rules, n), probabilities=probabilities)
    seats.reset(seeds=range(n))
    envs = [generalized_clue_v0.raw_env(*sizes, probabilities=probabilities) for _ in range(n)]
    for seed, env in enumerate(envs):
        env.reset(seed=seed)
    rng, compared = np.random.default_rng(sum(sizes)), 0
    everyone = np.ones(n, dtype=bool)
    while not all(env.table.over for env in envs):
        for seat in range(rules.players):  # every seat's observation, the games over included
            theirs = seats.observe(np.full(n, seat), everyone)
            bits = seats.entropy(everyone, np.full(n, seat)) if probabilities else None
            for g, env in enumerate(envs):
                np.testing.assert_array_equal(theirs[g], env.observe(f"player_{seat}")["observation"],
                                              err_msg=f"game {g} seat {seat}")  # fmt: skip
                if probabilities:
                    assert bits[g] == pytest.approx(env.entropy(f"player_{seat}"), abs=1e-9)
                compared += 1
        masks = seats.games.legal_masks()
        actions = np.array([choose(rng, rules, masks[g]) if masks[g].any() else 0 for g in range(n)])
        seats.step(actions)
        for g, env in enumerate(envs):
            if not env.table.over:
                env.step(int(actions[g]))
    assert compared > 50 * n


def test_a_seats_observation_does_not_see_the_others_cards():
    """Two deals that differ only in a card swapped between seats 1 and 2: seat 0, who sees neither hand, gets
    the same observations while it and the others ask only about its own cards (answered "no" alike)."""
    rules = GeneralizedClueRules(12, 2, 3)
    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(rules, 2))
    places = np.array(rules.new_game(np.random.default_rng(3)).places)
    twin = places.copy()
    one, two = int(np.flatnonzero(places == 1)[0]), int(np.flatnonzero(places == 2)[0])
    twin[one], twin[two] = 2, 1
    seats.deal(np.array([0, 1]), np.stack([places, twin]))
    mine = np.flatnonzero(places == 0)
    compared = 0
    for _ in range(60):
        observed = seats.observe(np.zeros(2, dtype=np.int64))
        np.testing.assert_array_equal(observed[0], observed[1])
        compared += 1
        masks = seats.games.legal_masks()
        assert (masks[0] == masks[1]).all()
        if seats.games.phase[0] == 0:  # a turn starts: ask seat 1 (seat 1 asks seat 2)
            action = rules.cards + (2 if seats.games.turn[0] == 1 else 1)
        elif not seats.games.chosen[0]:  # about one of seat 0's cards: "no" in both deals
            action = int(mine[0])
        else:
            action = rules.submit_action
        assert masks[0, action]
        seats.step(np.full(2, action))
    assert compared == 60 and not seats.games.over.any()


def test_the_deals_are_counted_as_by_hand():
    """Five cards, one hidden, two players of two: seat 0 (cards 0 and 1) sees three deals, each of cards 2-4
    the case file once (log2 3 bits). Seat 0 asks seat 1 about cards 2 and 3: "yes", it shows 3; seat 1 then
    holds 3 and one of 2 and 4, the other hidden: two deals left, one bit."""
    rules = GeneralizedClueRules(5, 1, 2)
    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(rules, 1), probabilities=True)
    seats.deal(np.array([0]), np.array([[0, 0, 1, 1, 2]]))  # seat 1 holds 2 and 3; 4 is hidden
    one, seat0 = np.ones(1, dtype=bool), np.zeros(1, dtype=np.int64)
    probabilities, cases = seats.solve(one, seat0)
    np.testing.assert_allclose(probabilities[0, :, 2], [0, 0, 1 / 3, 1 / 3, 1 / 3])
    np.testing.assert_allclose(probabilities[0, :, 1], [0, 0, 2 / 3, 2 / 3, 2 / 3])
    np.testing.assert_array_equal(probabilities[0, :2, 0], [1, 1])
    np.testing.assert_array_equal(cases[0], [0, 0, 1, 1, 1])  # colex: {0}, {1}, {2}, {3}, {4}
    assert seats.entropy(one, seat0)[0] == pytest.approx(np.log2(3))
    for action in [rules.cards + 1, 2, 3, rules.submit_action, 3]:  # seat 0 asks seat 1 about 2, 3; 3 is shown
        seats.step(np.array([action]))
    probabilities, cases = seats.solve(one, seat0)
    np.testing.assert_allclose(probabilities[0, :, 2], [0, 0, 1 / 2, 0, 1 / 2])
    assert probabilities[0, 3, 1] == 1.0 and seats.entropy(one, seat0)[0] == pytest.approx(1.0)
    observed = seats.observe(seat0)[0]
    slots = seats.observer.pieces.slices
    assert observed[slots["entropy"]][0] == pytest.approx(1.0 / np.log2(5))  # over log2 C(5, 1)


def test_the_enumeration_refuses_games_too_large_and_bad_input():
    from deduction_envs.envs.generalized_clue_batched import DEAL_LIMIT

    big = BatchedGeneralizedClueRules(GeneralizedClueRules(16, 3, 5), 2)
    assert BatchedGeneralizedClueSeats(big).deal_bound > DEAL_LIMIT
    with pytest.raises(ValueError, match=r"probabilities=True enumerates the deals a seat may face: .* give "
                                         r"probabilities=False"):  # fmt: skip
        BatchedGeneralizedClueSeats(big, probabilities=True)
    seats = BatchedGeneralizedClueSeats(big)
    seats.reset(seeds=[0, 1])
    with pytest.raises(ValueError, match="no exact entropy at these sizes"):
        seats.entropy(np.ones(2, dtype=bool), np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="probabilities must be True or False"):
        BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(GeneralizedClueRules(12), 2), probabilities="yes")
