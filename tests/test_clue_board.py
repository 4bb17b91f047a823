"""Clue on the board: the grid, movement by dice against a reference over the grid's cells, passages, the tokens a
suggestion moves, where suggestions are allowed, and the env at 2 to 6 players."""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import seat_observations
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs.core.multiplayer import Table
from deduction_envs.envs import clue_v0
from deduction_envs.games.clue import ClueMove, CluePhase, ClueRules
from deduction_envs.games.clue_board import (
    BOARD_MAP,
    PASSAGES,
    ROOM_LETTERS,
    TWO_DICE,
    ClueBoardRules,
    board_text,
    classic_board,
)

BOARD = classic_board()
ROOMS = ClueRules().categories[2]


def grid_reach(start_cell, roll: int, occupied_cells: set) -> set:
    """The reference: breadth-first over the map's cells as drawn. A state is a corridor cell or a room's letter;
    a corridor cell steps to the corridor cells beside it and into the room of a door cell beside it; a room steps
    out to the corridor cells beside its door cells. Rooms end a move; occupied cells are neither crossed nor
    landed on; the start is no destination."""
    rows = BOARD_MAP

    def corridor(y, x):
        return 0 <= y < len(rows) and 0 <= x < len(rows[0]) and (rows[y][x] == "." or rows[y][x].isdigit())

    def beside(y, x):
        return [(y + dy, x + dx) for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1))]

    def steps(state):
        if isinstance(state, str):  # a room: out through its doors
            doors = [(y, x) for y, row in enumerate(rows) for x, c in enumerate(row) if c == state.lower()]
            return {cell for y, x in doors for cell in beside(y, x) if corridor(*cell)}
        found = {cell for cell in beside(*state) if corridor(*cell)}
        found |= {rows[y][x].upper() for y, x in beside(*state) if corridor(*state) and
                  0 <= y < len(rows) and 0 <= x < len(rows[0]) and rows[y][x].islower()}  # fmt: skip
        return found

    seen, frontier = {start_cell}, [start_cell]
    for _ in range(roll):
        nxt = []
        for state in frontier:
            for s in steps(state):
                if s in seen or s in occupied_cells:
                    continue
                seen.add(s)
                if not isinstance(s, str):
                    nxt.append(s)
        frontier = nxt
    return seen - {start_cell}


def node_of(state) -> int:
    if isinstance(state, str):
        return BOARD.room_node(ROOM_LETTERS.index(state))
    return BOARD.square_cells.index(state)


def state_of(node: int):
    return ROOM_LETTERS[BOARD.room_of(node)] if BOARD.is_room(node) else BOARD.square_cells[node]


def test_the_board_has_the_classic_rooms_starts_and_passages():
    assert BOARD.rooms == 9 and BOARD.nodes == BOARD.squares + 9
    assert [ROOMS[a] for a in (0, 2)] == ["Kitchen", "Conservatory"] and PASSAGES == {0: 8, 8: 0, 2: 6, 6: 2}
    assert ROOMS[8] == "Study" and ROOMS[6] == "Lounge"  # the corners diagonally opposite
    assert (BOARD.distances >= 0).all()  # every node reaches every other
    # Scarlet's start at the bottom, Mustard's on the left, White's and Green's at the top, Peacock's and Plum's
    # on the right.
    cells = [BOARD.square_cells[s] for s in BOARD.starts]
    assert cells[0][0] == 24 and cells[1][1] == 0 and cells[2][0] == cells[3][0] == 0 and cells[4][1] == 23
    assert cells[5][1] == 23


def test_reachable_destinations_match_the_reference_for_every_node_and_roll():
    for node in range(BOARD.nodes):
        for roll in range(2, 13):
            got = {state_of(n) for n in np.flatnonzero(BOARD.reachable(node, roll))}
            assert got == grid_reach(state_of(node), roll, set()), (state_of(node), roll)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, BOARD.nodes - 1), st.integers(2, 12), st.lists(st.integers(0, BOARD.squares - 1), max_size=5))
def test_reachable_destinations_match_the_reference_among_other_tokens(node, roll, others):
    others = [o for o in others if o != node]
    got = {state_of(n) for n in np.flatnonzero(BOARD.reachable(node, roll, others))}
    assert got == grid_reach(state_of(node), roll, {state_of(o) for o in others})
    mask = np.zeros(BOARD.nodes, dtype=bool)
    mask[others] = True
    assert (BOARD.reachable(node, roll, mask) == BOARD.reachable(node, roll, others)).all()


def test_expected_rolls_follow_the_two_dice_by_hand():
    assert TWO_DICE.sum() == pytest.approx(1) and TWO_DICE[7] == pytest.approx(6 / 36)
    assert BOARD.expected_rolls(0) == 0 and BOARD.expected_rolls(1) == BOARD.expected_rolls(2) == 1
    assert BOARD.expected_rolls(3) == pytest.approx(1 + 1 / 36)  # only a roll of 2 leaves one step to go
    assert BOARD.expected_rolls(4) == pytest.approx(1 + 3 / 36)  # a 2 or a 3 leaves at most 2: one roll more
    # Longer distances against simulated rolls (200,000 walks of 12 and of 25 steps).
    rng = np.random.default_rng(0)
    for distance in (12, 25):
        left, rolls = np.full(200_000, distance), np.zeros(200_000)
        while (left > 0).any():
            going = left > 0
            rolls[going] += 1
            left[going] -= rng.integers(1, 7, going.sum()) + rng.integers(1, 7, going.sum())
        assert BOARD.expected_rolls(distance) == pytest.approx(rolls.mean(), abs=0.01)
    # Kitchen to Study by the passage is one move; by the corridors many rolls.
    kitchen, study = BOARD.room_node(0), 8
    assert BOARD.room_rolls[kitchen, study] == 1 and BOARD.room_rolls[kitchen, 0] == 0


def play_until(rules, state, wanted, rng, limit=400):
    """Random non-accusing play until ``wanted(state)``."""
    for _ in range(limit):
        if wanted(state):
            return
        mask = rules.legal_mask(state).copy()
        mask[rules.num_triples : 2 * rules.num_triples] = False
        rules.apply(state, int(rng.choice(np.flatnonzero(mask if mask.any() else rules.legal_mask(state)))))
    raise AssertionError("never reached")


def test_a_turn_rolls_moves_then_suggests_only_in_the_room_entered():
    rules = ClueBoardRules(3)
    state = rules.new_game(np.random.default_rng(0))
    mask = rules.legal_mask(state)
    assert mask[rules.roll_action] and not mask[rules.passage_action] and not mask[rules.end_action]
    assert not mask[: rules.num_triples].any() and mask[rules.num_triples : 2 * rules.num_triples].all()
    with pytest.raises(ValueError, match="not legal"):
        rules.apply(state, rules.action_index(ClueMove("suggest", (0, 6, 12))))  # no suggestion without a room
    event = rules.apply(state, rules.roll_action)
    assert event.kind == "roll" and len(event.dice) == 2 and state.roll == sum(event.dice)
    mask = rules.legal_mask(state)
    assert (mask[rules.move_action :] == rules.reachable(state)).all() and not mask[: rules.move_action].any()
    with pytest.raises(ValueError, match="not legal"):
        rules.apply(state, rules.end_action)  # after the roll, one moves
    # Play on until a player enters a room: then it suggests only there.
    rng = np.random.default_rng(1)
    play_until(rules, state, lambda s: s.phase == CluePhase.START and s.moved and s.entered >= 0, rng)
    allowed = rules.allowed_rooms(state)
    assert allowed.sum() == 1 and allowed[state.entered]
    mask = rules.legal_mask(state)
    rooms_named = {rules.triple(t)[2] - 12 for t in np.flatnonzero(mask[: rules.num_triples])}
    assert rooms_named == {state.entered} and mask[rules.end_action]
    elsewhere = (state.entered + 1) % 9
    with pytest.raises(ValueError, match="not legal"):
        rules.apply(state, rules.action_index(ClueMove("suggest", (0, 6, 12 + elsewhere))))


def test_a_suggestion_moves_the_suspect_and_weapon_and_lets_the_summoned_suggest_without_moving():
    rules = ClueBoardRules(3)
    state = rules.new_game(np.random.default_rng(2))
    rng = np.random.default_rng(3)
    play_until(rules, state, lambda s: s.phase == CluePhase.START and s.moved and s.entered >= 0, rng)
    mover, room = state.mover, state.entered
    summoned = (mover + 1) % 3
    rules.apply(state, rules.action_index(ClueMove("suggest", (summoned, 6 + 4, 12 + room))))
    assert state.positions[summoned] == BOARD.room_node(room) and state.weapons[4] == room
    assert state.summoned[summoned]
    play_until(rules, state, lambda s: s.mover == summoned and s.phase == CluePhase.START, rng)
    assert not state.moved and state.roll == 0  # the start of the summoned player's turn
    assert rules.allowed_rooms(state)[room] and rules.allowed_rooms(state).sum() == 1
    assert rules.legal_mask(state)[rules.action_index(ClueMove("suggest", (0, 6, 12 + room)))]
    rules.apply(state, rules.roll_action)  # or it moves on, as anyone
    rules.apply(state, int(np.flatnonzero(rules.legal_mask(state))[0]))
    play_until(rules, state, lambda s: s.mover != summoned, rng)
    assert not state.summoned[summoned]  # spent with its turn


def test_staying_in_the_room_the_turn_began_in_allows_no_suggestion():
    rules = ClueBoardRules(3)
    state = rules.new_game(np.random.default_rng(4))
    rng = np.random.default_rng(5)
    play_until(rules, state, lambda s: s.phase == CluePhase.START and s.moved and s.entered >= 0, rng)
    me, room = state.mover, state.entered
    rules.apply(state, rules.end_action)
    play_until(rules, state, lambda s: s.mover == me and s.phase == CluePhase.START and not s.moved, rng)
    assert state.positions[me] == BOARD.room_node(room) and not state.summoned[me]
    assert not rules.allowed_rooms(state).any() and not rules.legal_mask(state)[: rules.num_triples].any()
    rules.apply(state, rules.roll_action)
    assert not rules.reachable(state)[BOARD.room_node(room)]  # nor by leaving and coming back


def test_a_token_that_cannot_leave_its_room_stays_and_may_not_suggest_there():
    rules = ClueBoardRules(2)
    state = rules.new_game(np.random.default_rng(8))
    kitchen = BOARD.room_node(0)
    (door,) = [n for n in BOARD.neighbours[kitchen] if n < BOARD.squares]  # the Kitchen has one door
    state.positions[0], state.positions[1] = kitchen, door
    rules.apply(state, rules.roll_action)
    assert np.flatnonzero(rules.legal_mask(state)).tolist() == [rules.move_action + kitchen]
    rules.apply(state, rules.move_action + kitchen)
    assert state.moved and state.entered == -1 and not rules.allowed_rooms(state).any()
    assert not rules.legal_mask(state)[: rules.num_triples].any() and rules.legal_mask(state)[rules.end_action]


def test_a_secret_passage_takes_the_corner_room_to_the_opposite_one():
    rules = ClueBoardRules(2)
    state = rules.new_game(np.random.default_rng(6))
    state.positions[0] = BOARD.room_node(0)  # Scarlet in the Kitchen
    mask = rules.legal_mask(state)
    assert mask[rules.passage_action] and mask[rules.roll_action]
    event = rules.apply(state, rules.passage_action)
    assert event.kind == "passage" and event.node == BOARD.room_node(8) and state.positions[0] == event.node
    assert rules.allowed_rooms(state)[8] and state.moved  # the Study entered: a suggestion there
    state.positions[1] = BOARD.room_node(1)  # Mustard in the Ballroom: no passage
    rules.apply(state, rules.end_action)
    assert not rules.legal_mask(state)[rules.passage_action]
    with pytest.raises(ValueError, match="not legal"):
        rules.apply(state, rules.passage_action)


def test_a_token_that_cannot_move_stays_and_may_still_accuse():
    rules = ClueBoardRules(2)
    state = rules.new_game(np.random.default_rng(7))
    start = state.positions[0]
    (beside,) = BOARD.neighbours[start]  # a start square has one way out
    state.positions[1] = beside  # Mustard's token blocks it
    rules.apply(state, rules.roll_action)
    mask = rules.legal_mask(state)
    assert np.flatnonzero(mask).tolist() == [rules.move_action + start]
    rules.apply(state, rules.move_action + start)
    mask = rules.legal_mask(state)
    assert mask[rules.end_action] and mask[rules.num_triples : 2 * rules.num_triples].all()


def test_the_same_seed_rolls_the_same_dice_and_the_board_deal_is_the_boardless_deal():
    def rolls(seed):
        rules = ClueBoardRules(4)
        state = rules.new_game(np.random.default_rng(seed))
        found = []
        for _ in range(20):
            found.append(rules.apply(state, rules.roll_action).dice)
            rules.apply(state, int(np.flatnonzero(rules.legal_mask(state))[0]))
            rules.apply(state, rules.end_action)
        return found, state.places

    assert rolls(3) == rolls(3) and rolls(3)[0] != rolls(4)[0]
    assert rolls(3)[1] == ClueRules(4).new_game(np.random.default_rng(3)).places
    counts = np.bincount([sum(d) for d in rolls(5)[0] + rolls(6)[0] + rolls(7)[0]], minlength=13)
    assert counts[:2].sum() == 0 and counts.sum() == 60


def test_board_events_are_public_and_a_seat_tracks_the_board_from_them():
    rules = ClueBoardRules(3)
    knowledge = []
    table = Table(rules, np.random.default_rng(8), [lambda e, i=i: knowledge.append((i, e)) for i in range(3)])
    from deduction_envs import registry

    seats = [registry.new_knowledge(rules, p) for p in range(3)]
    for i, event in knowledge:
        seats[i].update(event)
    knowledge.clear()
    rng = np.random.default_rng(9)
    for _ in range(150):
        mask = table.legal_mask().copy()
        mask[rules.num_triples : 2 * rules.num_triples] = False
        table.step(int(rng.choice(np.flatnonzero(mask if mask.any() else table.legal_mask()))))
        for i, event in knowledge:
            if event.kind in ("roll", "move", "passage"):
                assert event == table.last_event  # nothing hidden
            seats[i].update(event)
        knowledge.clear()
        for seat in seats:
            public = seat.public
            assert public.positions == table.state.positions and public.weapons == table.state.weapons
            assert (public.roll, public.moved, public.entered) == (table.state.roll, table.state.moved,
                                                                   table.state.entered)  # fmt: skip
            assert public.summoned == table.state.summoned
        if table.over:
            break


def test_two_players_are_dealt_nine_cards_each_with_and_without_the_board():
    for rules in (ClueRules(2), ClueBoardRules(2)):
        state = rules.new_game(np.random.default_rng(0))
        assert [len(h) for h in state.hands] == [9, 9]
    with pytest.raises(ValueError, match="players"):
        ClueRules(1)
    with pytest.raises(ValueError, match="board must be True or False"):
        clue_v0.raw_env(board="yes")


def test_the_board_observation_holds_the_tokens_roll_and_reachable_nodes():
    env = clue_v0.raw_env(players=3, board=True)
    env.reset(seed=3)
    rules = env.rules
    agent = env.agent_selection
    env.step(rules.roll_action)
    assert env.agent_selection == agent
    pieces = env.split(env.observe(agent)["observation"])
    state = env.table.state
    assert pieces["roll"][0] == pytest.approx(state.roll / 12) and pieces["stage"].tolist() == [0, 1, 0]
    assert (pieces["reachable"].astype(bool) == rules.reachable(state)).all()
    assert (env.observe(agent)["action_mask"][rules.move_action :].astype(bool) == rules.reachable(state)).all()
    seat = int(agent.split("_")[1])
    assert pieces["tokens"][0, state.positions[seat]] == 1  # the observer's own token first
    assert pieces["tokens"].sum() == 6 and pieces["weapons"].sum() == 6
    assert (pieces["weapons"].argmax(1) == state.weapons).all()
    lines = board_text(rules, state).splitlines()
    assert lines[0] == BOARD_MAP[0] and lines[24][16] == "0"  # tokens 2, 3 and 0 on their start squares
    assert lines[1] == BOARD_MAP[1] and "Rolled" not in lines[-1] and lines[-1] == f"rolled {state.roll}, to move"


class FixedBoardDeal(ClueBoardRules):
    """Clue on the board dealt as ``deal`` every time, with the same weapons and dice."""

    def __init__(self, players: int, deal: tuple[int, ...]) -> None:
        super().__init__(players)
        object.__setattr__(self, "deal", deal)

    def new_game(self, rng, first=0):
        state = self.state_of_deal(self.deal, first)
        state.dice_seed = 7
        return state


def swap_unnamed(rules: ClueRules, places: list[int], observer: int, named: set[int]) -> list[int] | None:
    """``places`` with two unnamed cards of two places other than ``observer`` swapped (of one category if one
    place is the case file, which holds one card of each); None if there are none."""
    category = np.searchsorted(rules.category_starts, np.arange(rules.cards), side="right")
    others = [p for p in range(rules.players + 1) if p != observer]
    for i, a in enumerate(others):
        for b in others[i + 1 :]:
            for c in (c for c in range(rules.cards) if places[c] == a and c not in named):
                for d in (d for d in range(rules.cards) if places[d] == b and d not in named):
                    if rules.players in (a, b) and category[c] != category[d]:
                        continue
                    swapped = list(places)
                    swapped[c], swapped[d] = b, a
                    return swapped
    return None


@pytest.mark.parametrize("players", [2, 3, 5])
def test_on_the_board_a_seat_sees_nothing_of_another_seats_cards(players):
    """Swapping two cards between two other players (cards nobody named) changes none of a seat's observations;
    with two players, a card of the case file and one of the other player's."""

    env = clue_v0.raw_env(players=players, board=True)
    compared = 0
    for seed in range(6):
        observer = seed % players
        rules = FixedBoardDeal(players, ClueRules(players).new_game(np.random.default_rng(seed)).places)
        rng = np.random.default_rng(seed)
        first = Table(rules, rng, [lambda e: None] * players)
        while not first.over and len(first.actions) < 40:
            mask = first.legal_mask().copy()
            mask[rules.num_triples : 2 * rules.num_triples] = False
            first.step(int(rng.choice(np.flatnonzero(mask if mask.any() else first.legal_mask()))))
        named = {c for a in first.actions for c in rules.decode(a).cards}
        places = list(first.state.places)
        swapped = swap_unnamed(rules, places, observer, named)
        if swapped is None:
            continue
        observations = [seat_observations(env, FixedBoardDeal(players, tuple(deal)), first.actions, observer)
                        for deal in (places, swapped)]  # fmt: skip
        np.testing.assert_array_equal(observations[0], observations[1])
        compared += 1
    assert compared >= 3


@pytest.mark.parametrize("action", [671, 672, 648, 0, 700])
def test_every_masked_board_action_ends_the_game_or_raises_and_out_of_space_is_refused(action):
    env = clue_v0.env(players=3, board=True)
    env.reset(seed=0)
    agent = env.agent_selection
    with pytest.warns(UserWarning, match="masked action"):
        env.step(action)  # a passage off the corner rooms, a move before the roll, an end before it, a suggestion
    assert all(env.terminations.values()) and env.rewards[agent] == -1.0
    strict = clue_v0.env(players=3, board=True, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match=f"action {action} is masked"):
        strict.step(action)
    strict.step(670)  # the roll: then only the moves
    mask = strict.observe(strict.agent_selection)["action_mask"]
    assert mask.sum() >= 1 and not mask[:672].any()
    with pytest.raises(ValueError, match="is masked"):
        strict.step(670)  # no second roll
    for bad in (862, -1, 1.5, None):
        with pytest.raises(ValueError, match=r"action must be an integer in \[0, 861\]"):
            strict.step(bad)


def test_a_bad_board_map_is_a_clear_error():
    from deduction_envs.games.clue_board import ClueBoard

    with pytest.raises(ValueError, match="rows of the same length"):
        ClueBoard(["..", "..."])
    with pytest.raises(ValueError, match="no room 'K' with a door"):
        ClueBoard([row.replace("k", "K") for row in BOARD_MAP])
    walled = [row[:4] + "#" + row[5:] if i == 7 else row for i, row in enumerate(BOARD_MAP)]  # below the door
    with pytest.raises(ValueError, match="door of room 'K' at row 6, column 4 opens onto no corridor"):
        ClueBoard(walled)
    with pytest.raises(ValueError, match="one start square for each of the six suspects"):
        ClueBoard([row.replace("5", ".") for row in BOARD_MAP])
    with pytest.raises(ValueError, match="roll must be an integer in \\[0, 12\\]"):
        BOARD.reachable(0, 13)


def test_the_boards_questions_check_their_arguments():
    """``reachable(-1, 5)`` answered for the last node (numpy's negative index), ``reachable(190, 5)`` and
    ``expected_rolls(10**6)`` ended in an IndexError; a negative distance read the longest's value."""
    board = classic_board()
    longest = int(board.distances.max())
    cases = [
        (lambda: board.reachable(-1, 5), r"start must be an integer in \[0, 189\], got -1"),
        (lambda: board.reachable(board.nodes, 5), r"start must be an integer in \[0, 189\], got 190"),
        (lambda: board.reachable(0, 13), r"roll must be an integer in \[0, 12\], got 13"),
        (lambda: board.reachable(0, 5, [-3]), r"occupied holds node ids in \[0, 189\]"),
        (lambda: board.reachable(0, 5, [1.5]), r"occupied holds node ids"),
        (lambda: board.reachable(0, 5, np.zeros(3, dtype=bool)), r"one bool per node, 190, got shape \(3,\)"),
        (lambda: board.expected_rolls(10**6), rf"distance must be integers in \[0, {longest}\]"),
        (lambda: board.expected_rolls(-1), rf"distance must be integers in \[0, {longest}\]"),
        (lambda: board.expected_rolls(np.array([1, 2.5])), "distance must be integers"),
        (lambda: board.describe(9999), r"node must be an integer in \[0, 189\], got 9999"),
        (lambda: board.room_of(-2), "node must be an integer"),
        (lambda: board.is_room(board.nodes), "node must be an integer"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()
    assert board.expected_rolls(longest) > board.expected_rolls(0) == 0
    assert board.reachable(board.nodes - 1, 12).any() and board.room_of(board.nodes - 1) == 8


def room_rule_reference(rules: ClueBoardRules, state) -> set:
    """The classic accusation rule read off the position: the accusations legal now are those naming the room the
    mover's token stands in, if it entered that room this turn (by the dice or the passage, token moved) or was
    brought there by another's suggestion and has not rolled; none otherwise, and none outside START and AFTER."""
    if state.phase not in (CluePhase.START, CluePhase.AFTER) or (state.roll and not state.moved):
        return set()
    where = BOARD.room_of(state.positions[state.mover])
    entered = state.moved and state.entered >= 0
    summoned = not state.moved and state.roll == 0 and state.summoned[state.mover]
    if where < 0 or not (entered or summoned):
        return set()
    assert not entered or where == state.entered
    return {
        rules.num_triples + rules.triple_index((s, 6 + w, 12 + where)) for s in range(6) for w in range(6)
    }


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**31))
def test_the_classic_rule_allows_accusations_only_in_the_room_of_the_turn_naming_it(players, seed):
    """Random games under ``accusations="room"``: at every decision the accusations the mask allows are the
    reference's, every other action is as under the default rule, and an accusation elsewhere is refused."""
    rules, anywhere = ClueBoardRules(players, accusations="room"), ClueBoardRules(players)
    state = rules.new_game(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    accusing = slice(rules.num_triples, 2 * rules.num_triples)
    allowed_somewhere = 0
    for _ in range(300):
        if state.phase == CluePhase.OVER:
            break
        mask = rules.legal_mask(state)
        expected = room_rule_reference(rules, state)
        assert set(np.flatnonzero(mask[accusing]) + rules.num_triples) == expected
        other = anywhere.legal_mask(state)
        other[accusing] = mask[accusing]
        assert (mask == other).all()  # the rule changes the accusations alone
        allowed_somewhere += bool(expected)
        if state.phase != CluePhase.SHOW and not expected:
            wrong = rules.num_triples + rules.triple_index((0, 6, 12 + int(rng.integers(9))))
            with pytest.raises(ValueError, match="not legal"):
                rules.apply(state.copy(), wrong)
        legal = np.flatnonzero(mask)
        rooms = legal[legal >= rules.move_action + BOARD.squares]  # travel between rooms, accuse rarely
        calm = legal[(legal < accusing.start) | (legal >= accusing.stop)]
        pool = rooms if rooms.size and rng.random() < 0.8 else calm
        if expected and rng.random() < 0.05:
            pool = np.array(sorted(expected))
        rules.apply(state, int(rng.choice(pool if pool.size else legal)))
    assert allowed_somewhere > 0  # rooms entered, summons, and after suggestions: the rule was exercised


def test_the_accusation_rule_is_checked_and_belongs_to_the_board():
    with pytest.raises(ValueError, match="accusations must be one of anywhere, room"):
        ClueBoardRules(3, accusations="hall")
    with pytest.raises(ValueError, match="a rule of the board: set board=True"):
        clue_v0.raw_env(accusations="room")
    env = clue_v0.raw_env(players=3, board=True, accusations="room")
    assert env.rules == ClueBoardRules(3, accusations="room") and env.rules != ClueBoardRules(3)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask[env.rules.roll_action] and not mask[env.rules.num_triples : 2 * env.rules.num_triples].any()


