"""Algo's hand posterior against brute-force enumeration of every deal, on small decks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs.games.algo import AlgoRules, HandView, Phase, PlayerView, parse_card
from deduction_envs.reasoning import AlgoHandPosterior
from deduction_envs.reasoning.algo_hands import AlgoKnowledge


def brute_force(view: PlayerView, numbers: int) -> list[dict[int, tuple[int, ...]]]:
    """Every assignment of unseen cards to the opponents' face-down positions that agrees with the view."""
    seen = set(view.own) | {view.drawn} | {k for hand in view.hands for k in hand.known}
    unseen = [c for c in range(2 * numbers) if c not in seen]
    slots = [(q, i) for q, hand in enumerate(view.hands) if q != view.player for i, k in enumerate(hand.known) if k < 0]
    deals = []
    for cards in itertools.permutations(unseen, len(slots)):
        hands = {q: list(view.hands[q].known) for q in range(len(view.hands)) if q != view.player}
        for (q, i), c in zip(slots, cards, strict=True):
            hands[q][i] = c
        agrees = all(
            hand == sorted(hand)
            and all(c % 2 == colour for c, colour in zip(hand, view.hands[q].colours, strict=True))
            and all(c // 2 not in excluded for c, excluded in zip(hand, view.hands[q].excluded, strict=True))
            for q, hand in hands.items()
        )
        if agrees:
            deals.append({q: tuple(h) for q, h in hands.items()})
    return deals


def random_states(players: int, numbers: int, hand_size: int, seed: int, every: int = 3):
    rules = AlgoRules(players=players, hand_size=hand_size, numbers=numbers)
    rng = np.random.default_rng(seed)
    state = rules.new_game(rng)
    step = 0
    while state.phase != Phase.OVER:
        if step % every == 0:
            yield rules, state
        rules.apply(state, int(rng.choice(np.flatnonzero(rules.legal_mask(state)))))
        step += 1


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 3), seed=st.integers(0, 2**32 - 1))
def test_probabilities_and_counts_match_brute_force_and_the_true_deal_is_possible(players, seed):
    numbers = 5 if players == 2 else 6
    for rules, state in random_states(players, numbers, hand_size=2, seed=seed):
        for player in range(players):
            view = rules.view(state, player)
            posterior = AlgoHandPosterior(view, numbers)
            deals = brute_force(view, numbers)
            assert posterior.count == len(deals)
            truth = {q: tuple(state.hands[q]) for q in range(players) if q != player}
            assert truth in deals  # sound: the real deal is one of them
            for q in range(players):
                expected = np.zeros((len(state.hands[q]), 2 * numbers))
                for deal in deals if q != player else [{q: tuple(state.hands[q])}]:
                    expected[np.arange(len(deal[q])), list(deal[q])] += 1
                expected /= expected.sum(axis=1, keepdims=True)
                np.testing.assert_allclose(posterior.card_probabilities(q), expected, atol=1e-12)
                numbers_table = posterior.number_probabilities(q)
                np.testing.assert_allclose(numbers_table.sum(axis=1), 1.0)


def test_samples_are_consistent_and_uniform():
    rules = AlgoRules(numbers=8, hand_size=3)
    state = rules.new_game(np.random.default_rng(0))
    view = rules.view(state, 0)
    posterior = AlgoHandPosterior(view, 8)
    deals = brute_force(view, 8)
    rng = np.random.default_rng(0)
    draws = [tuple(posterior.sample(rng)[1]) for _ in range(4000)]
    counts = {deal[1]: 0 for deal in deals}
    for draw in draws:
        counts[draw] += 1  # a KeyError would be an inconsistent sample
    expected = len(draws) / len(deals)
    chi2 = sum((k - expected) ** 2 / expected for k in counts.values())
    assert len(deals) > 10 and chi2 < len(deals) + 5 * np.sqrt(2 * len(deals))  # ~5 sigma above its mean


def test_the_articles_example():
    # The opponent shows W1, ?, ?, W4 with colours W W B W; I hold W2 (and B0 B5 W7).
    # Between W1 and W4: a white 2..3 then a black 3..4 above it, and W2 is mine: only W3, B4 remain.
    card = parse_card
    opponent = HandView((1, 1, 0, 1), (card("W1"), -1, -1, card("W4")), (frozenset(),) * 4)
    mine = tuple(sorted(map(card, ["B0", "W2", "B5", "W7"])))
    me = HandView(tuple(c % 2 for c in mine), (-1,) * 4, (frozenset(),) * 4)
    view = PlayerView(0, (me, opponent), mine, -1, 12, 0, Phase.ATTACK)
    posterior = AlgoHandPosterior(view)
    assert posterior.count == 1
    assert posterior.number_probabilities(1)[1:3].argmax(axis=1).tolist() == [3, 4]
    without = view._replace(own=tuple(sorted(map(card, ["B0", "B5", "W7", "W9"]))))
    assert AlgoHandPosterior(without).count == 3  # W2 B3, W2 B4, W3 B4, as the article lists


def test_a_contradictory_view_is_a_clear_error():
    card = parse_card
    opponent = HandView((1, 1), (card("W3"), -1), (frozenset(), frozenset(range(4, 12))))
    view = PlayerView(0, (HandView((), (), ()), opponent), (), -1, 0, 0, Phase.ATTACK)
    with pytest.raises(ValueError, match="contradicts itself"):
        AlgoHandPosterior(view)


def test_a_determinisation_is_the_rules_state_of_the_movers_view_out_order_included():
    """Made by the rules from the mover's view (``AlgoRules.state_of_view``): the same view back, the same
    legal actions, and the players out in the order they went out (which ranks them), on 4-player games
    played until at least two are out."""
    rules = AlgoRules(players=4)
    checked = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        state = rules.new_game(rng)
        while not rules.is_over(state):
            mover = rules.mover(state)
            if len(state.out) >= 2:
                view = rules.view(state, mover)
                determinised = AlgoKnowledge.from_view(rules, view).determinise(rng)
                assert rules.view(determinised, mover) == view and determinised.out == state.out
                assert rules.legal_mask(determinised).tolist() == rules.legal_mask(state).tolist()
                checked += 1
            rules.apply(state, int(rng.choice(np.flatnonzero(rules.legal_mask(state)))))
    assert checked > 20
    view = rules.view(rules.new_game(np.random.default_rng(0)), 0)
    with pytest.raises(ValueError, match="need 4 hands and"):
        rules.state_of_view(view, [[0]], [])
