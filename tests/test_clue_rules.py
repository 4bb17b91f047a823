"""Clue's pure rules: the action index, a hand-worked game, what each seat sees, and random games."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs import registry
from deduction_envs.core.multiplayer import Table
from deduction_envs.games.clue import ClueEvent, ClueMove, CluePhase, ClueRules, ClueState

NAMES = ClueRules().card_names


def card(name: str) -> int:
    return NAMES.index(name)


def cards(*names: str) -> tuple[int, ...]:
    return tuple(card(n) for n in names)


def fixed_game(hands: list[list[str]], first: int = 0) -> tuple[ClueRules, ClueState]:
    """A game with the given hands; the cards nobody holds are the case file."""
    rules = ClueRules(players=len(hands))
    places = np.full(rules.cards, rules.players)
    for player, hand in enumerate(hands):
        places[list(cards(*hand))] = player
    return rules, rules.state_of_deal(places, first)


THREE = [
    ["Miss Scarlet", "Knife", "Kitchen", "Ballroom", "Hall", "Study"],
    ["Colonel Mustard", "Mr. Green", "Candlestick", "Lead Pipe", "Conservatory", "Dining Room"],
    ["Mrs. Peacock", "Professor Plum", "Revolver", "Wrench", "Billiard Room", "Lounge"],
]  # the case file: Mrs. White, Rope, Library


def act(rules: ClueRules, state: ClueState, move: ClueMove) -> ClueEvent:
    return rules.apply(state, rules.action_index(move))


def test_every_action_decodes_to_the_move_that_encodes_it():
    rules = ClueRules()
    moves = [rules.decode(a) for a in range(rules.num_actions)]
    assert rules.num_actions == 670 and [rules.action_index(m) for m in moves] == list(range(670))
    assert moves[0] == ClueMove("suggest", cards("Miss Scarlet", "Candlestick", "Kitchen"))
    assert moves[53] == ClueMove("suggest", cards("Miss Scarlet", "Wrench", "Study"))
    assert moves[324 + 54] == ClueMove("accuse", cards("Colonel Mustard", "Candlestick", "Kitchen"))
    assert moves[648] == ClueMove("end") and moves[669] == ClueMove("show", card=card("Study"))
    assert rules.hand_sizes == (5, 5, 4, 4)
    with pytest.raises(ValueError, match="cards\\[1\\] must be a weapon, got 'Kitchen'"):
        rules.action_index(ClueMove("suggest", cards("Miss Scarlet", "Kitchen", "Hall")))
    with pytest.raises(ValueError, match="action must be an integer in \\[0, 669\\]"):
        rules.decode(670)
    for bad in (1, 7, True, 4.0):
        with pytest.raises(ValueError, match="players must be an integer in \\[2, 6\\]"):
            ClueRules(bad)


def test_a_hand_worked_game():
    rules, state = fixed_game(THREE)
    mask = rules.legal_mask(state)
    assert mask[:648].all() and not mask[648:].any()  # suggest or accuse at once; no board, so any room

    # Player 1 holds none of White, Rope, Lounge and passes; player 2 holds the Lounge and must show it.
    event = act(rules, state, ClueMove("suggest", cards("Mrs. White", "Rope", "Lounge")))
    assert event == ClueEvent("suggest", 0, cards("Mrs. White", "Rope", "Lounge"), passed=(1,), refuter=2)
    assert rules.mover(state) == 2 and state.phase == CluePhase.SHOW
    assert np.flatnonzero(rules.legal_mask(state)).tolist() == [649 + card("Lounge")]  # asked, with one card
    event = act(rules, state, ClueMove("show", card=card("Lounge")))
    assert event == ClueEvent("show", 2, cards("Mrs. White", "Rope", "Lounge"), refuter=2, card=card("Lounge"), asker=0)
    assert [rules.observe_event(event, p).card for p in range(3)] == [card("Lounge"), -1, card("Lounge")]
    mask = rules.legal_mask(state)
    assert rules.mover(state) == 0 and mask[324:649].all() and not mask[:324].any() and not mask[649:].any()
    assert act(rules, state, ClueMove("end")) == ClueEvent("end", 0, next_mover=1)

    # Player 2 passes on Scarlet, Rope, Library; player 0 shows Miss Scarlet.
    event = act(rules, state, ClueMove("suggest", cards("Miss Scarlet", "Rope", "Library")))
    assert (event.passed, event.refuter) == ((2,), 0)
    act(rules, state, ClueMove("show", card=card("Miss Scarlet")))
    # A wrong accusation puts player 1 out; the turn goes to player 2.
    event = act(rules, state, ClueMove("accuse", cards("Mrs. White", "Knife", "Library")))
    assert event == ClueEvent("accuse", 1, cards("Mrs. White", "Knife", "Library"), correct=False, next_mover=2)
    assert state.out == [False, True, False] and rules.mover(state) == 2

    # Player 0, to player 2's left, holds the Knife and the Study: its choice.
    event = act(rules, state, ClueMove("suggest", cards("Mr. Green", "Knife", "Study")))
    assert (event.passed, event.refuter) == ((), 0)
    legal = np.flatnonzero(rules.legal_mask(state)) - 649
    assert legal.tolist() == sorted(cards("Knife", "Study"))
    act(rules, state, ClueMove("show", card=card("Study")))
    event = act(rules, state, ClueMove("accuse", cards("Mrs. White", "Rope", "Library")))
    assert event.correct and rules.is_over(state) and rules.winner(state) == 2
    assert rules.rewards(state) == [-0.5, -0.5, 1.0] and not rules.legal_mask(state).any()


def test_out_players_still_refute_and_nobody_wins_when_everyone_is_out():
    rules, state = fixed_game(THREE)
    act(rules, state, ClueMove("accuse", cards("Miss Scarlet", "Knife", "Kitchen")))  # player 0 is out
    event = act(rules, state, ClueMove("suggest", cards("Miss Scarlet", "Rope", "Library")))
    assert event.passed == (2,) and event.refuter == 0 and rules.mover(state) == 0  # out, and still refuting
    act(rules, state, ClueMove("show", card=card("Miss Scarlet")))
    assert act(rules, state, ClueMove("end")).next_mover == 2  # player 0 is skipped
    act(rules, state, ClueMove("accuse", cards("Miss Scarlet", "Rope", "Library")))
    assert rules.mover(state) == 1
    event = act(rules, state, ClueMove("accuse", cards("Mr. Green", "Rope", "Library")))
    assert rules.is_over(state) and rules.winner(state) is None and event.next_mover == -1
    assert rules.rewards(state) == [-0.5, -0.5, -0.5]


def test_a_refuter_with_one_card_and_one_with_a_choice_look_the_same_to_the_others():
    """A seat that is not the mover or the refuter hears the same events either way, so timing leaks nothing."""
    heard = []
    for refuter_hand in (THREE[2], ["Mrs. Peacock", "Mr. Green", "Revolver", "Wrench", "Billiard Room", "Lounge"]):
        hands = [THREE[0], [c if c != "Mr. Green" else "Professor Plum" for c in THREE[1]], refuter_hand]
        rules, state = fixed_game(hands)
        events = [act(rules, state, ClueMove("suggest", cards("Mr. Green", "Rope", "Lounge")))]
        events.append(rules.apply(state, int(np.flatnonzero(rules.legal_mask(state))[0])))
        heard.append([rules.observe_event(e, 1) for e in events])
        assert rules.legal_mask(state)[648]  # back to the mover
    assert heard[0] == heard[1]
    assert heard[0][1].card == -1


def test_an_illegal_action_is_a_clear_error_and_changes_nothing():
    rules, state = fixed_game(THREE)
    before = state.copy()
    for action in (648, 649, 669):
        with pytest.raises(ValueError, match="is not legal in phase START"):
            rules.apply(state, action)
    assert state == before


@settings(max_examples=40, deadline=None)
@given(players=st.integers(3, 6), seed=st.integers(0, 2**32 - 1), accuse=st.floats(0.0, 0.2))
def test_random_games_keep_the_rules_and_each_seat_hears_only_its_own_secrets(players, seed, accuse):
    rules = ClueRules(players)
    heard: list[list[ClueEvent]] = [[] for _ in range(players)]
    rng = np.random.default_rng(seed)
    table = Table(rules, rng, [heard[p].append for p in range(players)], first=seed % players)
    state = table.state
    assert sorted(c for hand in state.hands for c in hand) == [c for c in range(21) if state.places[c] < players]
    assert [len(h) for h in state.hands] == list(rules.hand_sizes)
    assert [state.places[a:b].count(players) for a, b in ((0, 6), (6, 12), (12, 21))] == [1, 1, 1]
    while not table.over and len(table.actions) < 400:
        mask = table.legal_mask()
        mover = table.mover
        assert not state.out[mover] or state.phase == CluePhase.SHOW  # out players only refute
        legal = np.flatnonzero(mask)
        accusing = legal[(legal >= 324) & (legal < 648)]
        others = legal[(legal < 324) | (legal >= 648)]
        pool = accusing if (rng.random() < accuse and accusing.size) or not others.size else others
        event = table.step(int(rng.choice(pool)))
        if event.kind == "suggest":  # the first player to the left holding a card refutes; those before pass
            order = [(event.player + i) % players for i in range(1, players)]
            holders = [q for q in order if any(state.places[c] == q for c in event.cards)]
            assert event.refuter == (holders[0] if holders else -1)
            assert event.passed == tuple(order[: order.index(holders[0])] if holders else order)
        if event.kind == "show":
            assert state.places[event.card] == event.player and event.card in event.cards
    for player in range(players):
        deal, *events = heard[player]
        assert [bool(h) for h in deal.hands] == [q == player for q in range(players)]
        for event in events:
            secret = event.kind == "show" and player not in (event.refuter, event.asker)
            assert (event.card == -1) == secret or event.kind != "show"
            assert event == rules.observe_event(event, player)


@settings(max_examples=15, deadline=None)
@given(players=st.integers(3, 6), seed=st.integers(0, 2**32 - 1))
def test_every_seats_knowledge_stays_sound_and_its_determinisations_agree_with_it(players, seed):
    """At every step of a random game, for every seat: the true deal keeps a positive probability, every
    certainty is true, and a determinised state keeps the seat's hand and everything public."""
    rules = ClueRules(players)
    knowledge = [registry.new_knowledge(rules, p) for p in range(players)]
    rng = np.random.default_rng(seed)
    table = Table(rules, rng, [k.update for k in knowledge], first=seed % players)
    truth = np.array(table.state.places)
    while not table.over and len(table.actions) < 40:
        for seat, known in enumerate(knowledge):
            solution = known.solution()
            assert (solution.probabilities[np.arange(rules.cards), truth] > 0).all()
            held, lacked = known.engine.facts()
            assert held[np.arange(rules.cards), truth].sum() == held.sum()  # every "held" is true
            assert not lacked[np.arange(rules.cards), truth].any()  # no "not held" is false
            assert known.entropy() >= 0
            public = (known.mover, known.phase, known.suggestion, known.refuter, known.out.tolist(), known.winner)
            true = table.state  # the seat's public record, moved by the rules' advance, is the table's
            assert public == (true.mover, true.phase, true.suggestion, true.refuter, true.out, true.winner)
            if seat == table.mover:
                state = known.determinise(rng)
                assert state.hands[seat] == table.state.hands[seat]
                assert (state.phase, state.mover, state.suggestion, state.out) == (
                    table.state.phase,
                    table.state.mover,
                    table.state.suggestion,
                    table.state.out,
                )
                assert not lacked[np.arange(rules.cards), list(state.places)].any()
                assert rules.legal_mask(state).any()
        legal = np.flatnonzero(table.legal_mask())
        others = legal[(legal < 324) | (legal >= 648)]
        table.step(int(rng.choice(others if others.size and rng.random() > 0.05 else legal)))


def test_apply_checks_legality_exactly_as_the_mask_says():
    """apply() tests one action without building the mask; it must agree with legal_mask on every action."""
    for players in (3, 6):
        rules, rng = ClueRules(players), np.random.default_rng(players)
        for game in range(10):
            state = rules.new_game(rng, first=game % players)
            while not rules.is_over(state):
                mask = rules.legal_mask(state)
                assert [rules._is_legal(state, rules.decode(a)) for a in range(rules.num_actions)] == mask.tolist()
                legal = np.flatnonzero(mask)
                others = legal[(legal < 324) | (legal >= 648)]
                rules.apply(state, int(rng.choice(others if others.size and rng.random() > 0.1 else legal)))


def test_what_an_event_proves_for_each_seat_is_stated_once_by_the_rules():
    """A suggestion by seat 0 that seat 1 passed on and seat 2 refuted, then seat 2 showing card 5 to seat 0."""
    rules = ClueRules(4)
    suggest = ClueEvent("suggest", 0, cards=(1, 7, 14), passed=(1,), refuter=2)
    assert rules.event_facts(suggest, 0) == [("none", 1, (1, 7, 14))]  # the asker will see the card
    assert rules.event_facts(suggest, 1) == [("one_of", 2, (1, 7, 14))]  # its own pass tells it nothing new
    assert rules.event_facts(suggest, 3) == [("none", 1, (1, 7, 14)), ("one_of", 2, (1, 7, 14))]
    assert rules.event_facts(suggest, -1) == rules.event_facts(suggest, 3)  # a spectator: the public part
    show = ClueEvent("show", 2, cards=(1, 7, 14), refuter=2, card=7, asker=0)
    assert rules.event_facts(show, 0) == [("holds", 2, (7,))]
    assert rules.event_facts(rules.observe_event(show, 3), 3) == []
    accuse = ClueEvent("accuse", 3, cards=(0, 6, 12), correct=False)
    assert rules.event_facts(accuse, 1) == [("wrong", 4, (0, 6, 12))]  # the case file is place 4
