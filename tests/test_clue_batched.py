"""Batched Clue's rules (issue 61's first piece) against ClueRules: the same deal for the same seed, the same
player to act and legal actions at every step, the same events, ends and rewards, on random seeded games."""

from __future__ import annotations

import numpy as np
import pytest

from deduction_envs.core.multiplayer import Table
from deduction_envs.games.clue import ClueRules
from deduction_envs.games.clue_batched import EVENT_KINDS, BatchedClueRules
from deduction_envs.games.clue_board import ClueBoardRules


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_every_game_is_the_same_game_as_clue_rules(players):
    rules, n = ClueRules(players), 24
    batched = BatchedClueRules(rules, n)
    batched.reset(seeds=range(n))
    tables = [Table(rules, np.random.default_rng(seed), [lambda event: None] * players) for seed in range(n)]
    assert [list(t.state.places) for t in tables] == batched.places.tolist()  # the AEC env's deal for the seed
    rng, steps, compared = np.random.default_rng(players), 0, 0
    while not all(t.over for t in tables):
        masks = batched.legal_masks().copy()
        movers = batched.mover
        actions = np.zeros(n, dtype=np.int64)
        for g, table in enumerate(tables):
            if table.over:
                assert batched.over[g] and not masks[g].any()
                continue
            assert movers[g] == table.mover and (masks[g] == table.legal_mask()).all(), (g, steps)
            legal = np.flatnonzero(table.legal_mask())
            # Accusations are few, so that games last: one time in twenty where legal.
            accusations = legal[(legal >= rules.num_triples) & (legal < rules.end_action)]
            pick = accusations if accusations.size and rng.random() < 0.05 else legal[legal < rules.num_triples]
            actions[g] = rng.choice(pick if pick.size else legal)
        rewards, ended = batched.step(actions)
        for g, table in enumerate(tables):
            if table.over:
                continue
            event = table.step(int(actions[g]))
            compared += 1
            assert EVENT_KINDS[batched.event["kind"][g]] == event.kind and batched.event["player"][g] == event.player
            if event.kind == "suggest":
                assert batched.event["refuter"][g] == event.refuter
                assert [q for q in range(players) if batched.event["passed"][g] >> q & 1] == sorted(event.passed)
            if event.kind == "show":
                assert batched.event["card"][g] == event.card
            if event.kind == "accuse":
                assert batched.event["correct"][g] == event.correct
            assert ended[g] == table.over
            if table.over:
                assert rewards[g].tolist() == rules.rewards(table.state) and batched.winner[g] == (
                    -1 if table.state.winner is None else table.state.winner
                )
            else:
                assert not rewards[g].any()
        steps += 1
    assert compared > 5 * n  # the games lasted


def test_bad_input_is_a_clear_error_and_changes_nothing():
    rules = ClueRules(3)
    batched = BatchedClueRules(rules, 2)
    batched.reset(seeds=[0, 1])
    before = batched.places.copy(), batched.phase.copy()
    with pytest.raises(ValueError, match="game 1: action 660 is not legal now"):
        batched.step(np.array([0, 660]))  # a card to show at the start of a turn
    with pytest.raises(ValueError, match="game 0: action -1 is not legal now"):
        batched.step(np.array([-1, 0]))
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        batched.step(np.array([0.5, 1.0]))
    assert (batched.places == before[0]).all() and (batched.phase == before[1]).all()
    with pytest.raises(ValueError, match="rules must be ClueRules"):
        BatchedClueRules(ClueBoardRules(3), 2)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        BatchedClueRules(rules, 0)
    with pytest.raises(ValueError, match="give one seed a game"):
        batched.reset(seeds=[1])
    with pytest.raises(ValueError, match=r"games must be indices in \[0, 1\]"):
        batched.reset_games(np.array([2]))
    batched.reset_games(np.array([1]), seeds=[5])
    assert batched.places[1].tolist() == list(rules.new_game(np.random.default_rng(5)).places)


def test_deals_drawn_at_once_are_deals_of_the_box_uniformly():
    """Without seeds of their own (an autoreset), the games are dealt together from the batch's generator: each
    a valid deal (checked by ``deal``), the case file's card of each category uniform, every other card as likely
    in each hand as that hand's size says; the same batch seed gives the same deals."""
    rules, n = ClueRules(4), 12_000
    batched = BatchedClueRules(rules, n, seed=3)
    batched.reset()
    places = batched.places
    for start, size in zip(rules.category_starts, rules.category_sizes, strict=True):
        share = (places[:, start : start + size] == rules.players).mean(axis=0)
        assert np.allclose(share, 1 / size, atol=0.02), share
    hands = np.array(rules.hand_sizes) / sum(rules.hand_sizes)
    for card in range(rules.cards):
        dealt = places[places[:, card] < rules.players, card]
        assert np.allclose(np.bincount(dealt, minlength=rules.players) / dealt.size, hands, atol=0.02), card
    again = BatchedClueRules(rules, n, seed=3)
    again.reset()
    assert (again.places == places).all()


def test_a_step_refuses_exactly_what_the_masks_forbid():
    """The step checks each action without building the masks; on random positions it refuses an action if and
    only if the game's mask forbids it."""
    rules, n = ClueRules(4), 64
    batched = BatchedClueRules(rules, n, seed=0)
    batched.reset()
    rng = np.random.default_rng(1)
    for _ in range(40):
        masks = batched.legal_masks().copy()
        live = ~batched.over
        for g in rng.choice(n, size=8, replace=False):
            if not live[g]:
                continue
            actions = np.where(masks.any(axis=1), masks.argmax(axis=1), 0)
            actions[g] = rng.integers(-2, rules.num_actions + 2)
            inside = 0 <= actions[g] < rules.num_actions
            try:
                batched.step(actions, np.arange(n) == g)  # game g alone moves (or its action is refused)
                assert inside and masks[g, actions[g]]
                break
            except ValueError as error:
                assert not (inside and masks[g, actions[g]]) and str(error).startswith(f"game {g}:")
        else:
            keys = rng.random(masks.shape)
            keys[~masks] = -1
            batched.step(keys.argmax(axis=1))
        ended = np.flatnonzero(batched.over)
        if ended.size:
            batched.reset_games(ended)
