"""Batched Clue on the board (issue 61) against ClueBoardRules: the same deal, weapons and dice for the same seed,
the same player to act and legal actions at every step (rolls, passages, moves among the tokens, the rooms a
suggestion may name), the same events, tokens, weapons, ends and rewards, on random seeded games."""

from __future__ import annotations

import numpy as np
import pytest

from deduction_envs.core.multiplayer import Table
from deduction_envs.games.clue_batched import EVENT_KINDS, BatchedClueRules
from deduction_envs.games.clue_board import ClueBoardRules
from deduction_envs.games.clue_board_batched import BOARD_EVENT_KINDS, BatchedClueBoardRules

KINDS = (*EVENT_KINDS, *BOARD_EVENT_KINDS)


def pick(rules: ClueBoardRules, legal: np.ndarray, rng: np.random.Generator) -> int:
    """A random legal action that lets games last and travel: moves to rooms first, suggestions, rarely an
    accusation, a passage now and then."""
    accusations = legal[(legal >= rules.num_triples) & (legal < rules.end_action)]
    if accusations.size and rng.random() < 0.02:
        return int(rng.choice(accusations))
    rooms = legal[legal >= rules.move_action + rules.board.squares]
    if rooms.size and rng.random() < 0.8:
        return int(rng.choice(rooms))
    for kind in (legal[legal < rules.num_triples], legal[legal == rules.passage_action]):
        if kind.size and rng.random() < 0.7:
            return int(rng.choice(kind))
    others = legal[(legal < rules.num_triples) | (legal >= rules.end_action)]
    return int(rng.choice(others if others.size else legal))


@pytest.mark.parametrize("players, accusations", [(2, "anywhere"), (3, "anywhere"), (6, "anywhere"), (3, "room")])
def test_every_game_is_the_same_game_as_the_boards_rules(players, accusations):
    rules, n = ClueBoardRules(players, accusations=accusations), 16
    batched = BatchedClueBoardRules(rules, n)
    batched.reset(seeds=range(n))
    tables = [Table(rules, np.random.default_rng(seed), [lambda event: None] * players) for seed in range(n)]
    assert [list(t.state.places) for t in tables] == batched.places.tolist()  # the AEC env's deal for the seed
    assert [list(t.state.weapons) for t in tables] == batched.weapons.tolist()
    rng, compared, seen, summoned = np.random.default_rng(players), 0, set(), 0
    for _ in range(400):
        if all(t.over for t in tables):
            break
        masks = batched.legal_masks().copy()
        movers = batched.mover
        reachable = batched.reachable()
        actions = np.zeros(n, dtype=np.int64)
        for g, table in enumerate(tables):
            if table.over:
                assert batched.over[g] and not masks[g].any()
                continue
            state = table.state
            assert movers[g] == table.mover and (masks[g] == table.legal_mask()).all(), g
            summoned += state.phase == 0 and state.roll == 0 and bool(masks[g, : rules.num_triples].any())
            rolled = state.phase == 0 and state.roll > 0 and not state.moved
            assert (reachable[g] == (rules.reachable(state) if rolled else False)).all()
            actions[g] = pick(rules, np.flatnonzero(table.legal_mask()), rng)
        rewards, ended = batched.step(actions)
        for g, table in enumerate(tables):
            if table.over:
                continue
            event = table.step(int(actions[g]))
            compared += 1
            seen.add(event.kind)
            assert KINDS[batched.event["kind"][g]] == event.kind and batched.event["player"][g] == event.player
            if event.kind == "roll":
                assert tuple(batched.event["dice"][g]) == event.dice
            if event.kind in ("move", "passage"):
                assert batched.event["node"][g] == event.node
            if event.kind == "suggest":
                assert batched.event["refuter"][g] == event.refuter
            state = table.state
            assert batched.positions[g].tolist() == list(state.positions)
            assert batched.weapons[g].tolist() == list(state.weapons)
            assert (batched.roll[g], batched.moved[g], batched.entered[g]) == (state.roll, state.moved, state.entered)
            assert batched.summoned[g].tolist() == list(state.summoned)
            assert ended[g] == table.over
            if table.over:
                assert rewards[g].tolist() == rules.rewards(table.state)
            else:
                assert not rewards[g].any()
    assert compared > 20 * n  # the games lasted
    assert {"roll", "move", "passage", "suggest", "show", "end", "accuse"} <= seen
    assert summoned > 0  # turns that began in a room another's suggestion moved the mover to


def test_bad_input_is_a_clear_error():
    rules = ClueBoardRules(3)
    with pytest.raises(ValueError, match=r"rules must be ClueRules, got ClueBoardRules \(on the board: Batched"):
        BatchedClueRules(rules, 2)
    batched = BatchedClueBoardRules(rules, 2)
    batched.reset(seeds=[0, 1])
    with pytest.raises(ValueError, match="not legal now"):
        batched.step(np.array([rules.move_action, rules.roll_action]))  # a move before the roll
    with pytest.raises(ValueError, match="weapons must be 1 rows of 6 distinct rooms"):
        batched.deal(np.array([0]), batched.places[:1], weapons=np.array([[0, 0, 1, 2, 3, 4]]))
    with pytest.raises(ValueError, match="one dice seed a game"):
        batched.deal(np.array([0]), batched.places[:1], dice_seeds=[1, 2])


@pytest.mark.parametrize("players", [3, 6])
def test_each_seats_observation_on_the_board_is_the_aec_envs(players):
    from deduction_envs.envs import clue_v0
    from deduction_envs.envs.clue_batched import BatchedClueSeats

    rules, n = ClueBoardRules(players), 8
    seats = BatchedClueSeats(BatchedClueBoardRules(rules, n), max_cycles=120)  # some games are truncated
    seats.reset(seeds=range(n))
    envs = [clue_v0.raw_env(players=players, board=True, probabilities=False, max_cycles=120) for _ in range(n)]
    for seed, env in enumerate(envs):
        env.reset(seed=seed)
    rng, compared = np.random.default_rng(players), 0
    while not all(env.terminations[env.agent_selection] or env.truncations[env.agent_selection] for env in envs):
        observed = seats.observe()
        everyone = np.ones(n, dtype=bool)  # every seat's observation, the games over included
        for seat in range(players):
            theirs = seats.observe(np.full(n, seat), everyone)
            for g, env in enumerate(envs):
                np.testing.assert_array_equal(theirs[g], env.observe(f"player_{seat}")["observation"])
        actions = np.zeros(n, dtype=np.int64)
        live = ~seats.games.over
        for g, env in enumerate(envs):
            if not live[g]:
                continue
            expected = env.observe(env.agent_selection)
            np.testing.assert_array_equal(observed[g], expected["observation"], err_msg=f"game {g}")
            actions[g] = pick(rules, np.flatnonzero(expected["action_mask"]), rng)
            compared += 1
        _, terminated, truncated = seats.step(actions)
        for g, env in enumerate(envs):
            if live[g]:
                env.step(int(actions[g]))
                agent = env.agent_selection
                assert (env.terminations[agent], env.truncations[agent]) == (terminated[g], truncated[g])
    assert compared > 30 * n


@pytest.mark.parametrize("players, accusations", [(3, "anywhere"), (5, "anywhere"), (4, "room")])
def test_the_compiled_agents_move_and_decide_as_their_python_agents_on_the_board(players, accusations):
    from test_clue_batched_agents import decide_alike

    rules, n = ClueBoardRules(players, accusations=accusations), 10
    kinds = [["random" if (g + seat) % 4 == 0 else "deduction_sheet" for seat in range(players)] for g in range(n)]
    made = [rules.decode(action).kind for _, action in decide_alike(rules, n, 300, kinds, players)]
    assert {"roll", "move", "suggest", "show", "accuse", "end"} <= set(made) and made.count("move") > 50


def test_a_seats_observation_on_the_board_does_not_see_the_others_cards():
    """Two deals that differ only in a card swapped between seats 1 and 2, the same weapons and dice: seats 0 and
    3, who see neither hand, get the same observations, board pieces included, through rolls, moves, passages
    and ends of turn, then wrong accusations (whose verdict depends on the case file alone, the same in both)."""
    from deduction_envs.envs.clue_batched import BatchedClueSeats

    rules = ClueBoardRules(4)
    seats = BatchedClueSeats(BatchedClueBoardRules(rules, 2))
    places = np.array(rules.new_game(np.random.default_rng(7)).places)
    twin = places.copy()
    one, two = int(np.flatnonzero(places == 1)[0]), int(np.flatnonzero(places == 2)[0])
    twin[one], twin[two] = 2, 1
    seats.deal(np.array([0, 1]), np.stack([places, twin]), weapons=np.tile(np.arange(6), (2, 1)), dice_seeds=[3, 3])
    case = sorted(np.flatnonzero(places == 4).tolist())
    wrong = next(t for t in range(rules.num_triples) if sorted(rules.triple(t)) != case)
    rng, compared, turns = np.random.default_rng(0), 0, 0
    while not seats.games.over.all():
        observed, movers, masks = seats.observe(), seats.games.mover, seats.games.legal_masks()
        assert movers[0] == movers[1] and (masks[0] == masks[1]).all()
        if movers[0] in (0, 3):
            np.testing.assert_array_equal(observed[0], observed[1])
            compared += 1
        legal = np.flatnonzero(masks[0])
        board = legal[(legal >= rules.roll_action) | (legal == rules.end_action)]
        accuse = rules.num_triples + wrong
        if turns < 40 or not masks[0, accuse]:  # walk the board without suggesting (an answer tells the swap)
            action = int(rng.choice(board))
            turns += action == rules.end_action
        else:
            action = accuse
        seats.step(np.full(2, action))
        assert not seats.illegal.any()
    assert compared > 20 and turns >= 40
