"""The Clue agents on the board: the deduction-sheet and entropy agents head for their room, Velma scores every
destination as pyvelma's README says (both scores), and every agent plays whole board games at 2 to 6 players."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.clue_agents import ClueDeductionSheet, ClueEntropyAgent
from agents.clue_moves import board_stage, toward
from agents.clue_velma import ClueVelma
from agents.multiplayer import RandomSeatAgent, play_game
from deduction_envs.core.multiplayer import Table
from deduction_envs.games.clue_board import TWO_DICE, ClueBoardRules


def seated(rules, agents, seed=0):
    """A table whose events reach the agents (each reset into its seat), as play_game seats them."""
    for seat, agent in enumerate(agents):
        agent.reset(rules, seat, seed=seed + seat)
    return Table(rules, np.random.default_rng(seed), [a.observe for a in agents])


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_agent_plays_whole_board_games(players):
    rules = ClueBoardRules(players)
    kinds = [lambda: ClueVelma("sum"), lambda: ClueVelma("rate"), ClueDeductionSheet, ClueEntropyAgent, RandomSeatAgent]
    for seed in range(2):
        agents = [kinds[(i + seed) % len(kinds)]() for i in range(players)]
        record = play_game(rules, agents, seed=seed)  # an illegal action would raise
        assert record.actions  # and it ended


def test_toward_takes_the_target_if_reachable_else_the_nearest_corridor_square():
    rules = ClueBoardRules(2)
    agents = [ClueDeductionSheet(), ClueDeductionSheet()]
    table = seated(rules, agents)
    knowledge = agents[0].knowledge
    assert board_stage(rules, knowledge) == "start"
    rng = np.random.default_rng(0)
    assert toward(rules, knowledge, table.legal_mask(), 7, rng) == rules.roll_action
    table.step(rules.roll_action)
    assert board_stage(rules, knowledge) == "move"
    mask, board = table.legal_mask(), rules.board
    here = table.state.positions[0]
    reach = np.flatnonzero(mask[rules.move_action :])
    squares = reach[reach < board.squares]
    for target in range(9):
        action = toward(rules, knowledge, mask, target, rng)
        node, goal = action - rules.move_action, board.room_node(target)
        assert mask[action]
        if mask[rules.move_action + goal]:
            assert node == goal
        else:  # the corridor square nearest the target: no stop in another room
            assert node < board.squares and board.distances[node, goal] == board.distances[squares, goal].min()
    assert here == board.starts[0]


def test_the_passage_is_taken_when_it_leads_to_the_target():
    rules = ClueBoardRules(2)
    agents = [ClueDeductionSheet(), ClueDeductionSheet()]
    table = seated(rules, agents)
    for state in (table.state, agents[0].knowledge.public):
        state.positions[0] = rules.board.room_node(0)  # Scarlet in the Kitchen
    mask = rules.legal_mask(table.state)
    rng = np.random.default_rng(0)
    assert toward(rules, agents[0].knowledge, mask, 8, rng) == rules.passage_action  # the Study
    assert toward(rules, agents[0].knowledge, mask, 5, rng) == rules.roll_action


def test_velma_scores_are_pyvelmas_sum_and_the_rate():
    rules = ClueBoardRules(3)
    velma = ClueVelma("sum", samples=300)
    agents = [velma, ClueDeductionSheet(), ClueDeductionSheet()]
    table = seated(rules, agents, seed=4)
    table.step(rules.roll_action)
    board = rules.board
    after, now, murder = velma.room_values()
    assert murder.sum() == pytest.approx(1) and after.shape == (9,) and (after <= now + 1e-9).all()
    here = table.state.positions[0]
    reach = np.flatnonzero(table.legal_mask()[rules.move_action :])
    remote = board.room_rolls @ murder
    sums = velma.node_scores(reach, here)
    for node, value in zip(reach, sums, strict=True):
        room = board.room_of(int(node))
        entropy = after[room] if room >= 0 else now
        assert -value == pytest.approx(entropy * math.log(2) + remote[node])  # nats + expected rolls
    velma.score = "rate"
    rates = velma.node_scores(reach, here)
    for node, value in zip(reach, rates, strict=True):
        room = board.room_of(int(node))
        best = 0.0
        for r in range(9):
            turns = 1 + (0 if room == r else board.room_rolls[node, r]) + remote[board.room_node(r)]
            best = max(best, (now - after[r]) / turns)
        assert value == pytest.approx(best)
    # The move it makes is a best-scored one.
    velma.score = "sum"
    action = velma.act(table.legal_mask())
    assert sums[list(reach).index(action - rules.move_action)] == pytest.approx(sums.max())


def test_velma_takes_the_passage_or_rolls_by_the_expected_score():
    rules = ClueBoardRules(2)
    for score in ("sum", "rate"):
        velma = ClueVelma(score, samples=300)
        table = seated(rules, [velma, ClueDeductionSheet()], seed=1)
        for state in (table.state, velma.knowledge.public):
            state.positions[0] = rules.board.room_node(6)  # the Lounge: its passage leads to the Conservatory
        here = table.state.positions[0]
        others = [table.state.positions[1], *table.state.positions[2:]]
        roll_value = sum(
            TWO_DICE[s] * velma.node_scores(np.flatnonzero(rules.board.reachable(here, s, others)), here).max()
            for s in range(2, 13)
        )
        passage_value = velma.node_scores(np.array([rules.board.room_node(2)]), here)[0]
        action = velma.act(table.legal_mask())
        assert action == (rules.passage_action if passage_value > roll_value else rules.roll_action)


def test_the_entropy_agent_heads_for_the_room_of_its_best_suggestion():
    rules = ClueBoardRules(3)
    agent = ClueEntropyAgent(samples=300)
    table = seated(rules, [agent, ClueDeductionSheet(), ClueDeductionSheet()], seed=2)
    after, _ = agent.room_entropies()
    table.step(rules.roll_action)
    action = agent.act(table.legal_mask())
    node = action - rules.move_action
    reach = np.flatnonzero(table.legal_mask()[rules.move_action :])
    best_rooms = [rules.board.room_node(r) for r in np.flatnonzero(after <= after.min() + 1e-9)]
    nearest = min(rules.board.distances[reach][:, best_rooms].min(axis=0))
    assert min(rules.board.distances[node, best_rooms]) == nearest


def test_so_ismcts_plays_on_the_board():
    from agents import SOISMCTS, ClueSearchPolicy

    for players in (2, 3):
        search = SOISMCTS(iterations=30, policy=ClueSearchPolicy())
        record = play_game(ClueBoardRules(players), [search, *(ClueDeductionSheet() for _ in range(players - 1))])
        assert record.actions


def test_velma_rejects_a_bad_score_and_plays_as_the_entropy_agent_off_the_board():
    with pytest.raises(ValueError, match="score must be one of sum, rate"):
        ClueVelma("product")
    from deduction_envs.games.clue import ClueRules

    record = play_game(ClueRules(3), [ClueVelma(), ClueEntropyAgent(), ClueDeductionSheet()], seed=0)
    assert record.actions


def test_the_readme_picture_of_the_board_is_drawn_from_a_seeded_game():
    from deduction_envs.games.clue_board import TOKEN_COLORS
    from scripts.clue_board_picture import picture

    image = picture(actions=20)
    assert image.shape == (25 * 20, 24 * 20, 3) and (picture(actions=20) == image).all()  # seeded
    colours = {tuple(c) for c in image.reshape(-1, 3)}
    assert all(tuple(c) in colours for c in TOKEN_COLORS[:4])  # the four players' tokens are on it


def test_board_games_of_deduction_sheets_end_the_game_that_looped_included():
    """A 4-player game (Velma out after a wrong accusation, three deduction sheets) once looped for ever: a sheet
    agent heading for a room entered another on the way and suggested there, the room card shown every time.
    Sheet agents now head only for rooms that can tell them something, and never stop in another room."""
    rules = ClueBoardRules(4)
    record = play_game(rules, [ClueVelma(), ClueDeductionSheet(), ClueDeductionSheet(), ClueDeductionSheet()],
                       seed=(0, 80), max_actions=2000)  # fmt: skip
    assert record.actions and len(record.actions) < 2000
    for players in (2, 3, 5, 6):
        for seed in range(6):
            sheets = [ClueDeductionSheet() for _ in range(players)]
            assert len(play_game(ClueBoardRules(players), sheets, seed=seed, max_actions=3000).actions) < 3000


def test_velmas_remoteness_weight_scales_the_remoteness_and_zero_leaves_the_suggestion_alone():
    rules = ClueBoardRules(3)
    plain, ablated = ClueVelma("sum", samples=300), ClueVelma("sum", samples=300, remoteness=0.0)
    assert (plain.name, ablated.name) == ("velma(sum)", "velma(sum, remoteness 0)")
    assert ClueVelma(refuter="adversarial").name == "velma(sum, adversarial)"
    table = seated(rules, [ablated, ClueDeductionSheet(), ClueDeductionSheet()], seed=4)
    table.step(rules.roll_action)
    after, now, _ = ablated.room_values()
    here = table.state.positions[0]
    reach = np.flatnonzero(table.legal_mask()[rules.move_action :])
    for node, value in zip(reach, ablated.node_scores(reach, here), strict=True):
        room = rules.board.room_of(int(node))
        assert -value == pytest.approx((after[room] if room >= 0 else now) * math.log(2))  # the entropy alone
    for bad in (-1, float("nan"), float("inf"), True, "far"):
        with pytest.raises(ValueError, match="remoteness must be a weight >= 0"):
            ClueVelma(remoteness=bad)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_under_the_classic_rule_every_agent_accuses_only_in_the_room_it_entered_and_games_end(players):
    """``accusations="room"``: agents that know (or believe they know) the case file head for its room, so games
    end with accusations, each naming the room the accuser stands in."""
    rules = ClueBoardRules(players, accusations="room")
    kinds = [lambda: ClueVelma("sum"), ClueDeductionSheet, lambda: ClueVelma("sum", remoteness=0.0), ClueEntropyAgent]
    accusations = 0
    for seed in range(2):
        agents = [kinds[(i + seed) % len(kinds)]() for i in range(players)]
        table = seated(rules, agents, seed=seed)
        for _ in range(3000):
            if table.over:
                break
            mover = table.mover
            action = agents[mover].act(table.legal_mask())
            move = rules.decode(action)
            if move.kind == "accuse":
                accusations += 1
                assert rules.board.room_of(table.state.positions[mover]) == move.cards[-1] - 12
            table.step(action)
        assert table.over and table.state.winner is not None
    assert accusations >= 2
