"""Batched Generalized Clue's seats (issue 61): every seat's observation equals ``generalized_clue_v0``'s
(``probabilities=False``) at every step of random seeded games, and a seat's observation does not change with
cards it cannot see."""

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


@pytest.mark.parametrize("sizes", [(12, 2, 3), (14, 2, 3), (9, 1, 2), (16, 3, 5)])
def test_every_seats_observation_is_the_aec_envs(sizes):
    rules, n = GeneralizedClueRules(*sizes), 10
    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(rules, n))
    seats.reset(seeds=range(n))
    envs = [generalized_clue_v0.raw_env(*sizes, probabilities=False) for _ in range(n)]
    for seed, env in enumerate(envs):
        env.reset(seed=seed)
    rng, compared = np.random.default_rng(sum(sizes)), 0
    everyone = np.ones(n, dtype=bool)
    while not all(env.table.over for env in envs):
        for seat in range(rules.players):  # every seat's observation, the games over included
            theirs = seats.observe(np.full(n, seat), everyone)
            for g, env in enumerate(envs):
                np.testing.assert_array_equal(theirs[g], env.observe(f"player_{seat}")["observation"],
                                              err_msg=f"game {g} seat {seat}")  # fmt: skip
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
