"""Generalized Clue: the rules by hand, random games against the rules' invariants, knowledge soundness, the env."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs import registry
from deduction_envs.core.multiplayer import Table
from deduction_envs.envs import generalized_clue_v0
from deduction_envs.games.generalized_clue import GeneralizedClueMove, GeneralizedCluePhase, GeneralizedClueRules

pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation (space for each agent probably|is not a NumPy array):UserWarning"
)

#: Cards 0..7, two hidden (6 and 7), three players: 0 holds 0, 3; 1 holds 1, 4; 2 holds 2, 5.
PLACES = (0, 1, 2, 0, 1, 2, 3, 3)


def play_moves(rules, state, moves):
    events = []
    for move in moves:
        for action in rules.steps(move):
            events.append(rules.apply(state, action))
    return events


def test_a_hand_worked_game():
    rules = GeneralizedClueRules(8, 2, 3, max_rounds=2)
    state = rules.state_of_deal(PLACES)
    assert rules.num_actions == 8 + 3 + 2 and state.hands == ((0, 3), (1, 4), (2, 5))
    mask = rules.legal_mask(state)
    assert mask[rules.ask_action(1)] and mask[rules.ask_action(2)] and not mask[rules.ask_action(0)]
    assert mask[rules.guess_action] and not mask[:8].any() and not mask[rules.submit_action]
    # Player 0 asks player 1 about 1, 4 and 6: yes; player 1 shows 4.
    events = play_moves(rules, state, [GeneralizedClueMove("ask", (6, 1, 4), target=1)])
    ask = events[-1]
    assert (ask.kind, ask.player, ask.target, ask.cards, ask.answered) == ("ask", 0, 1, (1, 4, 6), True)
    assert rules.mover(state) == 1 and state.phase == GeneralizedCluePhase.SHOW
    assert np.flatnonzero(rules.legal_mask(state)).tolist() == [1, 4]
    show = rules.apply(state, 4)
    assert (show.kind, show.player, show.target, show.card, show.next_mover) == ("show", 0, 1, 4, 1)
    assert rules.observe_event(show, 2).card == -1 and rules.observe_event(show, 0).card == 4
    # Player 1 asks player 2 about 6 and 7: no, everyone sees it.
    no = play_moves(rules, state, [GeneralizedClueMove("ask", (6, 7), target=2)])[-1]
    assert not no.answered and no.next_mover == 2
    # Player 2 guesses 6, 7 (right) and leaves; its hand is public, its verdict only its own.
    guess = play_moves(rules, state, [GeneralizedClueMove("guess", (7, 6))])[-1]
    assert (guess.cards, guess.correct, guess.hands) == ((6, 7), 1, ((2, 5),))
    assert rules.observe_event(guess, 0).correct == -1 and rules.observe_event(guess, 0).hands == ((2, 5),)
    assert state.out == [False, False, True] and rules.winner(state) == 2
    # Player 0 cannot ask player 2 any more; after two turns of its own it must guess.
    assert not rules.legal_mask(state)[rules.ask_action(2)]
    play_moves(rules, state, [GeneralizedClueMove("ask", (5,), target=1)])  # no
    play_moves(rules, state, [GeneralizedClueMove("guess", (0, 1))])  # player 1 guesses wrong
    assert state.mover == 0 and state.turns[0] == 2
    assert np.flatnonzero(rules.legal_mask(state)).tolist() == [rules.guess_action]
    play_moves(rules, state, [GeneralizedClueMove("guess", (6, 7))])
    assert rules.is_over(state) and state.right == [2, 0] and state.wrong == [1]
    assert rules.rewards(state) == [0.0, -1.0, 1.0]


def test_wrong_guessers_share_the_places_below_the_right_ones():
    rules = GeneralizedClueRules(8, 2, 4)
    state = rules.state_of_deal((0, 1, 2, 3, 0, 1, 4, 4))
    state.right, state.wrong = [3], [0, 1, 2]
    assert rules.ranks(state) == [3.0, 3.0, 3.0, 1.0]
    assert rules.rewards(state) == pytest.approx([-1 / 3, -1 / 3, -1 / 3, 1.0])


def test_building_a_move_step_by_step():
    rules = GeneralizedClueRules(8, 2, 3)
    state = rules.state_of_deal(PLACES)
    rules.apply(state, rules.guess_action)
    assert not rules.legal_mask(state)[rules.submit_action]
    step = rules.observe_event(rules.apply(state, 1), 1)
    assert (step.kind, step.card, step.target) == ("step", -1, -1)  # others see only that it is deciding
    mask = rules.legal_mask(state)
    assert not mask[1] and mask[[0, 2, 7]].all() and not mask[rules.submit_action]  # a card added stays
    with pytest.raises(ValueError, match="not legal"):
        rules.apply(state, rules.submit_action)  # one card chosen
    with pytest.raises(ValueError, match="not legal"):
        rules.apply(state, 1)  # no step takes a card out
    rules.apply(state, 2)
    mask = rules.legal_mask(state)
    assert np.flatnonzero(mask).tolist() == [rules.submit_action]  # the guess is full: only submitting
    # Asking: every card not yet added, and submit once the list is not empty; a move is at most cards + 2 steps.
    state = rules.state_of_deal(PLACES)
    rules.apply(state, rules.cards + 1)
    for added in range(8):
        mask = rules.legal_mask(state)
        assert mask[:8].sum() == 8 - added and mask[rules.submit_action] == (added > 0)
        rules.apply(state, int(np.flatnonzero(mask[:8])[0]))
    assert np.flatnonzero(rules.legal_mask(state)).tolist() == [rules.submit_action]
    with pytest.raises(ValueError, match="2 distinct cards"):
        rules.steps(GeneralizedClueMove("guess", (1,)))
    with pytest.raises(ValueError, match="at least one card"):
        rules.steps(GeneralizedClueMove("ask", (), target=1))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"cards": 1}, "cards"),
        ({"cards": 63}, "cards"),
        ({"hidden": 0}, "hidden"),
        ({"cards": 5, "hidden": 4}, "hidden"),
        ({"players": 1}, "players"),
        ({"cards": 6, "hidden": 2, "players": 5}, "players"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"players": 2.5}, "players"),
    ],
)
def test_bad_sizes_are_clear_errors(kwargs, name):
    with pytest.raises(ValueError, match=name):
        GeneralizedClueRules(**kwargs)
    with pytest.raises(ValueError, match=name):
        generalized_clue_v0.env(**kwargs)


def test_the_default_max_rounds_lets_a_sound_player_become_certain_and_a_smaller_one_warns():
    """A sound player places one card an ask (asking an opponent about every card it may still hold), so it
    needs at most the cards outside its hand and the case file: 35 in the report's 8 x 5 (45 cards, 5 hidden),
    where the old default of 20 forced 7 of 8 scoreboard agents to guess uncertain."""
    report = GeneralizedClueRules(45, 5, 8)
    assert report.hand_sizes == (5,) * 8 and report.asks_to_certainty == 35 and report.max_rounds == 35
    uneven = GeneralizedClueRules(40, 2, 3)  # hands of 13, 13 and 12: the smallest hand leaves the most to place
    assert uneven.asks_to_certainty == 40 - 2 - 12 == uneven.max_rounds
    assert GeneralizedClueRules().max_rounds == 20  # small decks keep 20 (7 asks would do at 12, 2, 3)
    assert generalized_clue_v0.raw_env(cards=45, hidden=5, players=8).rules.max_rounds == 35
    with pytest.warns(UserWarning, match=r"max_rounds=20 is below 35, the asks a player may need to be certain"):
        GeneralizedClueRules(45, 5, 8, max_rounds=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GeneralizedClueRules(45, 5, 8, max_rounds=45)  # at or above the bound: no warning


def random_game(rules, seed, listeners=None):
    rng = np.random.default_rng(seed)
    listeners = listeners or [lambda event: None] * rules.players
    table = Table(rules, rng, listeners)
    while not table.over:
        mask = table.legal_mask()
        legal = np.flatnonzero(mask)
        # Submit half the time when it may, so that lists stay short and games end.
        if mask[rules.submit_action] and rng.random() < 0.5:
            table.step(rules.submit_action)
        else:
            table.step(int(rng.choice(legal)))
    return table


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([(8, 2, 3), (12, 2, 3), (10, 1, 4), (9, 3, 2)]), st.integers(0, 2**32 - 1))
def test_random_games_keep_every_seats_knowledge_sound(sizes, seed):
    rules = GeneralizedClueRules(*sizes, max_rounds=4)
    knowledge = [registry.new_knowledge(rules, p) for p in range(rules.players)]
    table = random_game(rules, seed, [k.update for k in knowledge])
    state = table.state
    assert sorted(state.right + state.wrong) == list(range(rules.players))
    truth = np.array([[state.places[c] == p for p in range(rules.players + 1)] for c in range(rules.cards)])
    for k in knowledge:
        solution = k.solution()
        assert (solution.probabilities[truth] > 0).all()  # the truth stays possible
        sheet = k.sheet()
        assert truth[sheet == 1].all() and not truth[sheet == 0].any()  # every certainty is true
        assert k.out.all() and k.turns.tolist() == state.turns
        hidden = tuple(c for c in range(rules.cards) if state.places[c] == rules.players)
        assert k.determinise(np.random.default_rng(0)).out == [True] * rules.players
        assert any(tuple(row) == hidden for row in solution.case_files)


def test_observations_are_the_acting_players_information_state():
    env = generalized_clue_v0.raw_env(cards=10, hidden=2, players=3, max_rounds=5)
    rng = np.random.default_rng(0)
    env.reset(seed=1)
    state = env.table.state
    while not env.table.over:
        agent = env.agent_selection
        me = env.possible_agents.index(agent)
        observation = env.observe(agent)
        parts = env.split(observation["observation"])
        seats = [(me + i) % 3 for i in range(3)]
        truth = np.array([[state.places[c] == place for place in [*seats, 3]] for c in range(10)])
        assert np.flatnonzero(parts["hand"]).tolist() == list(state.hands[me])
        assert truth[parts["held"] == 1].all() and not truth[parts["not_held"] == 1].any()
        assert (parts["probabilities"][truth] > 0).all()
        assert parts["turn"][0] == (state.mover == me) or state.phase == GeneralizedCluePhase.SHOW
        env.step(rules_submit_or_random(env.rules, observation["action_mask"].astype(bool), rng))


def rules_submit_or_random(rules, mask, rng):
    if mask[rules.submit_action] and rng.random() < 0.5:
        return rules.submit_action
    return int(rng.choice(np.flatnonzero(mask)))


def test_registered_with_pettingzoo():
    import pettingzoo

    env = pettingzoo.make("aec", "deduction_envs/generalized_clue-v0", cards=8, hidden=2, players=2)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "generalized_clue_v0"


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([(8, 2, 3), (10, 1, 4), (9, 3, 2)]), st.integers(0, 2**32 - 1))
def test_each_seats_public_record_and_determinisations_follow_the_table(sizes, seed):
    """The rules' one public state machine (``advance``) keeps each seat's record equal to the table's public
    position as that seat sees it, at every step; the mover's determinisations are that position, with every
    earlier guess right or wrong as the drawn deal makes it."""
    rules = GeneralizedClueRules(*sizes, max_rounds=4)
    knowledge = [registry.new_knowledge(rules, p) for p in range(rules.players)]
    rng = np.random.default_rng(seed)
    table = Table(rules, rng, [k.update for k in knowledge], first=seed % rules.players)
    while not table.over:
        true = table.state
        for seat, known in enumerate(knowledge):
            building = true.phase in (GeneralizedCluePhase.ASKING, GeneralizedCluePhase.GUESSING) and true.mover != seat
            phase = GeneralizedCluePhase.START if building else true.phase  # the others' build steps are not shown
            target, chosen = (-1, 0) if building else (true.target, true.chosen)
            assert (known.mover, known.phase, known.target, known.chosen, known.asked_cards) == (
                true.mover, phase, target, chosen, true.asked)  # fmt: skip
            assert known.turns.tolist() == true.turns and known.out.tolist() == true.out
        mover = knowledge[rules.mover(true)]
        if (
            true.phase != GeneralizedCluePhase.SHOW
        ):  # (a determinisation is the mover's own; a card to show is not searched)
            state = mover.determinise(rng)
            assert (state.mover, state.phase, state.target, state.chosen, state.turns, state.out) == (
                true.mover, true.phase, true.target, true.chosen, true.turns, true.out)  # fmt: skip
            assert sorted(state.right + state.wrong) == sorted(true.right + true.wrong)
            assert rules.legal_mask(state).tolist() == rules.legal_mask(true).tolist()
        table.step(int(rng.choice(np.flatnonzero(table.legal_mask()))))


def test_the_default_action_cap_lets_every_legal_game_end():
    """The default max_cycles (5,000) could not finish the course report's 8 x 5 game (45 cards, 8 players), whose
    scoreboards take about 9,720 actions: it follows the game's size where a game may take more. The 14-card game
    keeps 5,000 (its observations count in it)."""
    from deduction_envs.envs.generalized_clue import max_actions
    from deduction_envs.envs.generalized_clue_batched import BatchedGeneralizedClueRules, BatchedGeneralizedClueSeats

    assert generalized_clue_v0.raw_env().max_cycles == 5000
    report = generalized_clue_v0.raw_env(cards=45, hidden=5, players=8)
    assert report.max_cycles == max_actions(report.rules) == 8 * (35 * 48 + 7) > 9720
    twin = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(report.rules, 2))
    assert twin.max_cycles == report.max_cycles
    # The bound holds: the longest game, every turn an ask of every card, takes exactly that many actions.
    small = generalized_clue_v0.raw_env(cards=6, hidden=2, players=2, max_rounds=3, illegal_action="raise")
    small.reset(seed=0)
    cards, players = small.rules.cards, small.rules.players
    for _ in small.agent_iter():
        observation, _, termination, truncation, _ = small.last()
        if termination or truncation:
            small.step(None)
            continue
        mask = observation["action_mask"]
        # Ask (the first player one may ask), else the next card not yet chosen, else submit.
        prefer = [cards + q for q in range(players)] + list(range(cards)) + [cards + players + 1, cards + players]
        small.step(next(a for a in prefer if mask[a]))
    assert len(small.table.actions) <= max_actions(small.rules) and not any(small.truncations.values())
