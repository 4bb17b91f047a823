"""Batched Generalized Clue's rules (issue 61) against GeneralizedClueRules: the same deal for the same seed, the
same player to act and legal actions at every step (the sub-steps included), the same events, ends and rewards, on
random seeded games."""

from __future__ import annotations

import numpy as np
import pytest

from deduction_envs.core.multiplayer import Table
from deduction_envs.games.generalized_clue import GeneralizedClueRules
from deduction_envs.games.generalized_clue_batched import EVENT_KINDS, BatchedGeneralizedClueRules


def bits(cards) -> int:
    return sum(1 << int(c) for c in cards)


@pytest.mark.parametrize("sizes", [(12, 2, 3), (14, 2, 3), (9, 1, 2), (20, 3, 5), (10, 2, 4)])
def test_every_game_is_the_same_game_as_generalized_clue_rules(sizes):
    rules, n = GeneralizedClueRules(*sizes), 24
    batched = BatchedGeneralizedClueRules(rules, n)
    batched.reset(seeds=range(n))
    tables = [Table(rules, np.random.default_rng(seed), [lambda event: None] * rules.players) for seed in range(n)]
    assert [list(t.state.places) for t in tables] == batched.places.tolist()  # the AEC env's deal for the seed
    rng, compared, seen = np.random.default_rng(sum(sizes)), 0, set()
    while not all(t.over for t in tables):
        masks = batched.legal_masks().copy()
        movers = batched.mover
        actions = np.zeros(n, dtype=np.int64)
        for g, table in enumerate(tables):
            if table.over:
                assert batched.over[g] and not masks[g].any()
                continue
            assert movers[g] == table.mover and (masks[g] == table.legal_mask()).all(), g
            legal = np.flatnonzero(masks[g])
            # Guesses are rarer than asks, and lists short, so that the games last and asks are answered.
            asks = legal[(legal >= rules.cards) & (legal < rules.guess_action)]
            submit = legal[legal == rules.submit_action]
            if asks.size and rng.random() < 0.9:
                actions[g] = rng.choice(asks)
            elif submit.size and rng.random() < 0.4:
                actions[g] = submit[0]
            else:
                actions[g] = rng.choice(legal)
        rewards, ended = batched.step(actions)
        for g, table in enumerate(tables):
            if table.over:
                continue
            event = table.step(int(actions[g]))
            compared += 1
            seen.add(event.kind if event.kind != "ask" else f"ask {event.answered}")
            got = {key: value[g] for key, value in batched.event.items()}
            assert EVENT_KINDS[got["kind"]] == event.kind and got["player"] == event.player, (g, event)
            assert got["target"] == event.target and got["card"] == event.card
            if event.kind in ("ask", "show", "guess"):
                assert got["cards"] == bits(event.cards)
            if event.kind == "ask":
                assert got["answered"] == event.answered
            if event.kind == "guess":
                assert got["correct"] == event.correct and got["hand"] == bits(event.hands[0])
            assert batched.turn[g] == table.state.mover and batched.turns[g].tolist() == table.state.turns
            assert ended[g] == table.over
            if table.over:
                assert rewards[g].tolist() == pytest.approx(rules.rewards(table.state))
            else:
                assert not rewards[g].any()
    assert compared > 20 * n and {"step", "ask True", "ask False", "show", "guess"} <= seen


def test_deals_and_bad_input():
    rules = GeneralizedClueRules(12, 2, 3)
    batched = BatchedGeneralizedClueRules(rules, 2000, seed=1)
    batched.reset()
    places = batched.places
    assert ((places == 3).sum(axis=1) == 2).all() and ((places == 0).sum(axis=1) == rules.hand_sizes[0]).all()
    case = (places == 3).mean(axis=0)  # each card in the case file with chance 2/12
    assert np.abs(case - 2 / 12).max() < 0.03
    with pytest.raises(ValueError, match="rules must be GeneralizedClueRules"):
        BatchedGeneralizedClueRules(object(), 2)
    with pytest.raises(ValueError, match="a deal gives each player its hand"):
        batched.deal(np.array([0]), np.zeros((1, 12), dtype=np.int64))
    with pytest.raises(ValueError, match="actions must be 2000 integers"):
        batched.step(np.zeros(3, dtype=np.int64))
    submit = np.full(2000, rules.submit_action)  # submitting is never legal at the start of a turn
    with pytest.raises(ValueError, match="game 0: action 16 is not legal now"):
        batched.step(submit)
    assert batched.illegal(submit).all() and (batched.phase == 0).all()  # nothing moved
