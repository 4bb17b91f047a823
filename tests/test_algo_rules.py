"""Algo's pure rules: card identity, the turn structure on a hand-worked game, and whole random games."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs import registry
from deduction_envs.core.multiplayer import Table
from deduction_envs.games.algo import (
    AlgoDeal,
    AlgoEvent,
    AlgoRules,
    AlgoState,
    Move,
    Phase,
    card_id,
    format_card,
    parse_card,
)


def card(text: str) -> int:
    return parse_card(text)


def test_every_card_has_its_own_id_and_ids_follow_the_hand_order():
    cards = [card_id(colour, number) for number in range(12) for colour in (0, 1)]
    assert sorted(cards) == cards == list(range(24))  # black before white at equal numbers, then the next number
    assert card("B1") != card("W0")  # the confusion of number + colour ids
    assert [format_card(c) for c in cards[:4]] == ["B0", "W0", "B1", "W1"]
    assert all(parse_card(format_card(c)) == c for c in cards)
    assert parse_card(" w11 ") == card("W11")
    for bad in ("R3", "B12", "B", "3B", ""):
        with pytest.raises(ValueError, match="a card is B or W"):
            parse_card(bad)


def test_sizes_default_and_bad_sizes_are_clear_errors():
    assert AlgoRules().hand_size == 4 and AlgoRules(players=3).hand_size == 3
    assert AlgoRules().max_hand == 20 and AlgoRules(players=4).max_hand == 15
    assert AlgoRules().num_actions == 1 * 20 * 12 + 1 + 20
    with pytest.raises(ValueError, match="players must be an integer in \\[2, 4\\], got 5"):
        AlgoRules(players=5)
    with pytest.raises(ValueError, match=r"hand_size \(with players=2, numbers=12\) must be .* \[1, 12\], got 13"):
        AlgoRules(hand_size=13)
    with pytest.raises(ValueError, match=r"hand_size \(with players=2, numbers=2\) must be .* \[1, 2\], got 4"):
        AlgoRules(numbers=2)  # the default hand of two players is what conflicts
    with pytest.raises(ValueError, match="numbers must be"):
        AlgoRules(numbers=13)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_action_decodes_to_the_move_that_encodes_it(players):
    rules = AlgoRules(players=players)
    moves = [rules.decode(a) for a in range(rules.num_actions)]
    assert [rules.action_index(m) for m in moves] == list(range(rules.num_actions))
    assert moves[rules.stop_action] == Move("stop")
    assert sum(m.kind == "reveal" for m in moves) == rules.max_hand
    with pytest.raises(ValueError, match="action must be"):
        rules.decode(rules.num_actions)


def fixed_game(hands: list[list[str]], deck: list[str]) -> tuple[AlgoRules, AlgoState]:
    """Two players with the given hands; the deck is drawn from its end."""
    rules = AlgoRules()
    state = AlgoState([sorted(map(card, h)) for h in hands], [set(), set()], [card(c) for c in deck])
    rules._start_turn(state)
    return rules, state


def attack(rules: AlgoRules, position: int, number: int) -> int:
    return rules.action_index(Move("attack", 0, position, number))


def test_a_hand_worked_game():
    # Player 0: B0 W2 B5 W9; player 1: W1 B3 W3 B7; the deck draws W6, then B4, then it is empty.
    rules, state = fixed_game([["B0", "W2", "B5", "W9"], ["W1", "B3", "W3", "B7"]], ["B4", "W6"])
    assert state.mover == 0 and state.drawn == card("W6") and state.phase == Phase.ATTACK
    assert not rules.legal_mask(state)[rules.stop_action]  # the first attack of a turn is compulsory

    event = rules.apply(state, attack(rules, 1, 3))  # B3 at position 1: a hit
    assert event.hit and event.card == card("B3") and state.phase == Phase.CONTINUE
    assert not rules.legal_mask(state)[attack(rules, 1, 3)]  # a face-up card cannot be attacked

    event = rules.apply(state, rules.stop_action)  # W6 goes face down, between B5 and W9
    assert event.placed == 3 and event.placed_colour == 1 and event.placed_card == -1
    assert state.hands[0] == sorted(map(card, ["B0", "W2", "B5", "W6", "W9"])) and card("W6") not in state.revealed[0]
    assert state.mover == 1 and state.drawn == card("B4")

    event = rules.apply(state, attack(rules, 0, 1))  # player 1 names 1 for B0: a miss
    assert not event.hit and event.placed_card == card("B4") and event.placed == 3  # W1 B3 W3 B4 B7
    assert card("B4") in state.revealed[1] and state.ruled_out == {card("B0"): {1}}
    assert state.mover == 0 and state.drawn is None  # the deck is empty now

    event = rules.apply(state, attack(rules, 0, 2))  # W1 is not 2: a miss with no drawn card
    assert state.phase == Phase.REVEAL and state.mover == 0
    legal = np.flatnonzero(rules.legal_mask(state))
    assert [rules.decode(a).position for a in legal] == [0, 1, 2, 3, 4]  # any own face-down card
    event = rules.apply(state, rules.action_index(Move("reveal", position=4)))
    assert event.card == card("W9") and state.mover == 1

    # Player 1 reveals all of player 0's remaining cards and wins.
    for position, number in [(0, 0), (1, 2), (2, 5), (3, 6)]:
        event = rules.apply(state, attack(rules, position, number))
        assert event.hit
    assert state.phase == Phase.OVER and state.winner == 1 and state.out == [0]
    assert not rules.legal_mask(state).any()
    with pytest.raises(ValueError, match="the game is over"):
        rules.apply(state, rules.stop_action)


def test_an_illegal_action_is_a_clear_error_and_changes_nothing():
    rules, state = fixed_game([["B0", "W2", "B5", "W9"], ["W1", "B3", "W3", "B7"]], ["B4", "W6"])
    before = state.copy()
    for action in (rules.stop_action, attack(rules, 4, 0), rules.action_index(Move("reveal", position=0))):
        with pytest.raises(ValueError, match="is not legal in phase ATTACK"):
            rules.apply(state, action)
    assert state == before


def play_random_game(rules: AlgoRules, seed: int) -> list[AlgoState]:
    rng = np.random.default_rng(seed)
    state = rules.new_game(rng, first=seed % rules.players)
    states = [state.copy()]
    while state.phase != Phase.OVER:
        rules.apply(state, int(rng.choice(np.flatnonzero(rules.legal_mask(state)))))
        states.append(state.copy())
        assert len(states) < 10_000
    return states


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 4), numbers=st.integers(6, 12), seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_card_and_end_with_one_winner(players, numbers, seed):
    rules = AlgoRules(players=players, numbers=numbers)
    states = play_random_game(rules, seed)
    for state in states:
        drawn = [] if state.drawn is None else [state.drawn]
        everything = [c for hand in state.hands for c in hand] + state.deck + drawn
        assert sorted(everything) == list(range(rules.deck_size))  # each card once, never confused
        assert all(hand == sorted(hand) for hand in state.hands)
        assert all(state.revealed[p] <= set(state.hands[p]) for p in range(players))
        assert all(c // 2 not in numbers_named for c, numbers_named in state.ruled_out.items())  # misses were misses
        assert (state.phase == Phase.OVER) == (not rules.legal_mask(state).any())
        assert state.phase == Phase.OVER or (state.mover not in state.out and state.hidden(state.mover))
        for player in range(players):  # a view shows face-up numbers, own cards and nothing else
            view = rules.view(state, player)
            assert view.own == tuple(state.hands[player])
            assert view.drawn == (state.drawn if state.mover == player and state.drawn is not None else -1)
            for q, hand in enumerate(view.hands):
                assert [k for k in hand.known if k >= 0] == [c for c in state.hands[q] if c in state.revealed[q]]
                assert hand.colours == tuple(c % 2 for c in state.hands[q])
    final = states[-1]
    assert sorted([*final.out, final.winner]) == list(range(players))
    assert final.hidden(final.winner) and all(not final.hidden(p) for p in final.out)


def public(event: AlgoDeal | AlgoEvent) -> AlgoDeal | AlgoEvent:
    """An event without its private parts."""
    return event._replace(hands=(), drawn=-1) if isinstance(event, AlgoDeal) else event._replace(drawn=-1)


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 4), numbers=st.integers(6, 12), seed=st.integers(0, 2**32 - 1))
def test_each_seat_keeps_its_view_from_its_projected_events_alone(players, numbers, seed):
    rules = AlgoRules(players=players, numbers=numbers)
    knowledge = [registry.new_knowledge(rules, p) for p in range(players)]
    heard: list[list] = [[] for _ in range(players)]

    def listener(player):
        def hear(event):
            heard[player].append(event)
            knowledge[player].update(event)

        return hear

    rng = np.random.default_rng(seed)
    table = Table(rules, rng, [listener(p) for p in range(players)], first=seed % players)
    while True:
        for player in range(players):
            assert knowledge[player].view == rules.view(table.state, player)
            event = heard[player][-1]
            assert public(event) == public(heard[0][-1])  # every seat hears the same public part
            if isinstance(event, AlgoDeal):  # and its own private part only
                assert [bool(hand) for hand in event.hands] == [q == player for q in range(players)]
            mover = event.mover if isinstance(event, AlgoDeal) else event.next_mover
            assert event.drawn < 0 or mover == player
        if table.over:
            break
        table.step(int(rng.choice(np.flatnonzero(table.legal_mask()))))
    assert len(table.actions) > 0 and all(len(h) == len(table.actions) + 1 for h in heard)
