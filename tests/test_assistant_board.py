"""The assistant's advice on the board (issue 64): roll or passage and where to move, ranked as Velma ranks them;
under the classic accusation rule, toward the accused room; positions and squares as a person types them; the
typed command, the log, the command line and the web page."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.clue_velma import ClueVelma, destination_scores, room_values
from agents.multiplayer import RandomSeatAgent
from deduction_envs.core.multiplayer import Table
from deduction_envs.games.clue_board import ClueBoardRules, classic_board
from train.tools.assistant import ClueSession
from train.tools.assistant.board import board_advice, board_map, board_page, parse_position

BOARD = classic_board()
PLAYERS = ["Ann", "Bill", "Cy"]
HAND = ["scar", "must", "knife", "rope", "kitch", "ball"]  # seat 0's hand of the deal below


def velma_at_the_table(seed: int) -> tuple[ClueBoardRules, Table, ClueVelma, ClueSession]:
    """A three-player board game with Velma in seat 0, and a session of the same seat's cards whose values
    (the suggestions' entropies, the murder room's probabilities) Velma is given, so that both rank alike."""
    rules = ClueBoardRules(3)
    velma = ClueVelma("sum", samples=300)
    agents = [velma, RandomSeatAgent(), RandomSeatAgent()]
    for seat, agent in enumerate(agents):
        agent.reset(rules, seat, seed=seat)
    table = Table(rules, np.random.default_rng(seed), [a.observe for a in agents])
    hand = table.state.hands[0]
    session = ClueSession(PLAYERS, "Ann", [int(c) for c in hand])
    murder = session.solution().probabilities[12 + np.arange(9), 3]
    values = room_values(session.scores(), murder)
    velma.room_values = lambda: values  # type: ignore[method-assign]
    return rules, table, velma, session


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_first_option_is_velmas_move_for_the_same_values(seed):
    rules, table, velma, session = velma_at_the_table(seed)
    start = table.state.positions[0]
    before = session.board_advice(start)  # at the start square: the roll is the only option
    assert [o.action for o in before.options] == ["roll the dice"]
    table.step(rules.roll_action)
    roll = table.state.roll
    advice = session.board_advice(start, roll=roll, others=[p for p in table.state.positions[1:]])
    reach = np.flatnonzero(table.legal_mask()[rules.move_action :])
    assert len(advice.options) == reach.size  # every reachable node, ranked
    scores = [o.score for o in advice.options]
    assert scores == sorted(scores, reverse=True)
    expected = destination_scores(BOARD, reach, start, *velma.room_values())
    assert scores[0] == pytest.approx(expected.max())
    chosen = velma.act(table.legal_mask()) - rules.move_action
    best = [BOARD.describe(int(n)) if n < BOARD.squares else rules.node_name(int(n))
            for n in reach[expected >= expected.max() - 1e-12]]  # fmt: skip
    assert any(advice.options[0].action.endswith(name) for name in best)
    assert expected[list(reach).index(chosen)] == pytest.approx(scores[0])


def test_passage_or_roll_is_velmas_choice_and_a_room_option_names_its_suggestion():
    rules, table, velma, session = velma_at_the_table(3)
    state = table.state
    state.positions[0] = BOARD.room_node(0)  # Scarlet in the Kitchen, at the start of her turn
    velma.knowledge.public.positions[0] = BOARD.room_node(0)
    advice = session.board_advice("kitchen", others=state.positions[1:])
    actions = [o.action for o in advice.options]
    assert sorted(actions) == ["roll the dice", "take the secret passage to the Study"]
    choice = velma.act(table.legal_mask())
    assert (choice == rules.passage_action) == (actions[0] == "take the secret passage to the Study")
    passage = next(o for o in advice.options if "passage" in o.action)
    assert passage.suggestion[2] == "Study" and passage.entropy_after <= session.solution().entropy + 1e-9
    summoned = session.board_advice("hall", summoned=True)
    assert any(o.action == "stay and suggest in the Hall" and o.suggestion[2] == "Hall" for o in summoned.options)


def test_under_the_classic_rule_a_ready_accuser_heads_for_the_accused_room():
    session = ClueSession(PLAYERS, "Ann", HAND, accusations="room")
    session.suggestion("ann", ["plum", "lead", "hall"], passed=["bill", "cy"])  # nobody holds them: the case file
    advice = session.board_advice("17,0", roll=12)
    assert "Velma would accuse Professor Plum, Lead Pipe, Hall" in advice.accusation
    goal = BOARD.room_node(7)
    reach = np.flatnonzero(BOARD.reachable(parse_position("17,0"), 12))
    if reach[reach == goal].size:
        assert advice.options[0].action == "move to Hall"
    else:
        first = parse_position(advice.options[0].action.removeprefix("move to square "))
        assert BOARD.distances[first, goal] == BOARD.distances[reach[reach < BOARD.squares], goal].min()
    near = session.board_advice("17,12", roll=2)  # the Hall's door is a step away
    assert near.options[0].action == "move to Hall"
    assert session.board_advice("lounge").options[0].action == "roll the dice"  # the passage leads elsewhere
    assert session.board_advice("hall", summoned=True).options[0].action == "stay and accuse in the Hall"
    anywhere = ClueSession(PLAYERS, "Ann", HAND)
    anywhere.suggestion("ann", ["plum", "lead", "hall"], passed=["bill", "cy"])
    assert anywhere.board_advice("17,0", roll=12).accusation.startswith("Velma would accuse now")


def test_positions_squares_and_rolls_as_typed_and_bad_input_is_a_clear_error():
    assert parse_position("kitch") == BOARD.room_node(0) and parse_position(" 17 , 0 ") == BOARD.square_cells.index(
        (17, 0))  # fmt: skip
    session = ClueSession(PLAYERS, "Ann", HAND)
    bad = {
        "99,3": "off the board", "1,0": "a room's cell", "0,0": "a wall's or the cellar's", "10,12": "cellar",
        "rope": "no card is called 'rope': a position is a room", "": "name a card",
    }  # fmt: skip
    for text, message in bad.items():
        with pytest.raises(ValueError, match=message):
            session.board_advice(text)
    for roll in (1, 13, 2.5, True, "7"):
        with pytest.raises(ValueError, match="a roll of two dice is 2 to 12"):
            session.board_advice("hall", roll=roll)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="summoned is for a position in a room"):
        session.board_advice("17,0", summoned=True)
    with pytest.raises(ValueError, match="cannot stand on your square"):
        session.board_advice("17,0", others=["17,0"])
    with pytest.raises(ValueError, match="score must be one of sum, rate"):
        session.board_advice("hall", score="best")
    with pytest.raises(ValueError, match="accusations must be one of anywhere, room"):
        ClueSession(PLAYERS, "Ann", HAND, accusations="lounge")
    with pytest.raises(ValueError, match="accusations must be one of"):
        board_advice(session, "hall", accusations="never")
    generalized = ClueSession(["A", "B", "C"], "A", [0, 1, 2, 3], deck=(12, 2))
    with pytest.raises(ValueError, match="Generalized Clue has no board"):
        generalized.board_advice("hall")
    blocked = session.board_advice("17,0", roll=6, others=["17,1"])  # Peacock's start, its one way out blocked
    assert [o.action for o in blocked.options] == ["stay at square 17,0 (the roll reaches nothing)"]


def test_the_typed_command_the_map_and_the_log_keep_the_rule(tmp_path):
    session = ClueSession(PLAYERS, "Ann", HAND, path=tmp_path / "game.json", accusations="room")
    text = session.enter("board 17,0 roll 5 others 16,1; 18,1")
    assert text.startswith("On the board at square 17,0, rolled 5 (Velma's sum, accusations room):\n1. move to ")
    assert session.enter("board kitchen").splitlines()[1:] and "roll the dice" in session.enter("board kitchen")
    with pytest.raises(ValueError, match="a roll is a number"):
        session.enter("board hall roll seven")
    with pytest.raises(ValueError, match="type 'board AT"):
        session.enter("board ")
    assert json.loads((tmp_path / "game.json").read_text())["accusations"] == "room"
    assert ClueSession.load(tmp_path / "game.json").accusations == "room"
    old = json.loads((tmp_path / "game.json").read_text())
    del old["accusations"]  # a log written before the board's advice
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert ClueSession.load(tmp_path / "old.json").accusations == "anywhere"
    here = parse_position("17,0")
    drawn = board_map(here, BOARD.reachable(here, 2), [parse_position("16,1")]).splitlines()
    assert drawn[2 + 17][3:6] == "@**" and drawn[2 + 16][4] == "o" and drawn[2 + 18][4] == "*"
    view = board_page(session, "17,0", "2", "16,1")
    assert view["map"] == "\n".join(drawn) and view["options"] and view["head"].startswith("On the board")


def test_the_command_line_takes_the_rule_for_a_new_game_and_a_resumed_one(tmp_path, monkeypatch):
    from train.tools.assistant import __main__ as cli
    from train.tools.assistant import app

    seen = []
    monkeypatch.setattr(app.AssistantApp, "run", lambda self: seen.append(self.session.accusations))
    log = tmp_path / "game.json"
    cli.main(["--players", *PLAYERS, "--me", "Ann", "--hand", *HAND, "--log", str(log), "--accusations", "room"])
    cli.main(["--resume", str(log)])
    cli.main(["--resume", str(log), "--accusations", "anywhere"])
    assert seen == ["room", "room", "anywhere"] and json.loads(log.read_text())["accusations"] == "anywhere"
    with pytest.raises(SystemExit):
        cli.main(["--resume", str(log), "--accusations", "library"])


def test_the_web_page_advises_the_move_and_says_what_is_wrong(tmp_path):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from train.tools.assistant.web import create_app

    session = ClueSession(PLAYERS, "Ann", HAND, path=tmp_path / "game.json")
    client = TestClient(create_app(session))
    page = client.get("/", params={"board": 1, "at": "kitchen", "roll": "6", "rule": "room"}).text
    assert '<p id="board-text">On the board at Kitchen, rolled 6 (Velma&#39;s sum, accusations room):</p>' in page
    assert page.count("<li>move to ") == 6 and '<pre id="board-map">' in page
    assert '<option value="room" selected>' in page and "<option selected>6</option>" in page  # the form kept
    page = client.get("/", params={"board": 1, "at": "0,0"}).text
    assert '<p id="board-text" class="refused">Not taken: square 0,0 is a wall' in page
    page = client.get("/", params={"board": 1, "at": "hall", "roll": "x"}).text
    assert "Not taken: a roll is a number, 2 to 12, got &#39;x&#39;" in page
