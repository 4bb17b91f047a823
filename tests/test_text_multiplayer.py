"""The multiplayer games in text (issue 66, item 1): Clue, Generalized Clue and Algo. A seat sees only what it has
seen, a game played through the text is the game played on the env, and bad replies are explained, never played
and bounded."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs.envs import algo_v0, clue_v0
from deduction_envs.text import ClueText, TextAECEnv
from deduction_envs.text.clue import move_text


def test_a_seat_sees_its_hand_and_only_the_cards_shown_to_it():
    env = TextAECEnv(clue_v0.env(players=4))
    env.reset(seed=7)
    raw, rng = env.unwrapped, np.random.default_rng(7)
    for _ in range(60):  # suggestions and shows, no accusation: seeded moves among the legal non-accusations
        if raw.table.over:
            break
        legal = np.flatnonzero(raw.table.legal_mask())
        keep = [a for a in legal if raw.rules.decode(int(a)).kind != "accuse"]
        env.step(move_text(raw.rules, int(rng.choice(keep or legal))))
    shown = 0
    for seat in range(4):
        text = env.observe(f"player_{seat}")
        hand = ", ".join(raw.rules.card_names[c] for c in raw.knowledge[seat].hand)
        assert text.startswith(f"You are P{seat}. Your hand: {hand}.")
        for line in text.splitlines():
            found = re.search(r"^\d+\. (You|P\d) shows? (.+) to (you|P\d)\.$", line)
            if found and found[2] != "a card":
                assert "you" in (found[1].lower(), found[3]), line  # a card named only to the two who saw it
                shown += 1
        others = {c for q in range(4) if q != seat for c in raw.knowledge[q].hand}
        private = [line for line in text.splitlines() if "show" in line and "a card" not in line]
        assert all(("you" in line.lower()) for line in private)
        assert others  # every other seat holds cards the text never lists as theirs
    assert shown > 0


def test_bad_replies_are_explained_not_played_and_end_the_game_when_too_many():
    env = TextAECEnv(clue_v0.env(players=3), max_invalid=4)
    env.reset(seed=1)
    raw = env.unwrapped
    events = [len(knowledge.events) for knowledge in raw.knowledge]
    mover = raw.agent_selection
    for reply, message in [
        ("", "the reply was empty"),
        ("Answer: end", "'end' is not legal now: suggest or accuse"),
        ("Answer: suggest Scarlet, Rope", "is not a move"),
        ("suggest Nobody, Rope, Hall\u2603", "is not a move"),
    ]:
        env.step(reply)
        assert message in raw.infos[mover]["invalid"] and raw.agent_selection == mover
        assert [len(knowledge.events) for knowledge in raw.knowledge] == events  # nothing was played
    assert all(raw.truncations.values()) and "4 replies were not a legal move" in env.observe(mover)
    assert env.observe(mover).isascii()
    for _ in env.agent_iter():
        env.step(None)
    assert not raw.agents


MOVES = ["suggest scar, rope, hall", "accuse plum, knife, study", "show rope", "end"]


GAMES = {"clue_v0": {"players": 3}, "generalized_clue_v0": {}, "algo_v0": {"players": 3}}
MOVES = [*MOVES, "ask P1 about 3, 5", "ask P2 about 99", "guess 1, 4", "show 5", "P1 0 7", "P2 9 3", "stop", "reveal 1"]


@settings(max_examples=100, deadline=None)
@given(reply=st.one_of(st.text(max_size=200), st.binary(max_size=100), st.sampled_from(MOVES)),
       game=st.sampled_from(sorted(GAMES)))  # fmt: skip
def test_any_reply_is_a_legal_move_or_explained(reply, game):
    from deduction_envs import registry

    env = TextAECEnv(registry.game(game).make_env(**GAMES[game]), score=True)
    env.reset(seed=2)
    raw = env.unwrapped
    legal, before = raw.table.legal_mask(), len(raw.table.actions)
    mover = raw.agent_selection
    env.step(reply)
    if "invalid" in raw.infos.get(mover, {}):
        assert len(raw.table.actions) == before and env.invalid_replies == 1
    else:
        assert len(raw.table.actions) > before and all(legal[a] for a in raw.table.actions[before:][:1])
    assert all(env.observe(agent).isascii() for agent in raw.possible_agents)


def test_the_prompt_names_the_seat_the_cards_and_the_moves_and_bad_input_is_refused():
    env = TextAECEnv(clue_v0.env(players=3))
    env.reset(seed=0)
    prompt = env.prompt("player_2")
    assert "you are P2" in prompt and "Miss Scarlet" in prompt and "'suggest SUSPECT, WEAPON, ROOM'" in prompt
    assert "Only the mover and the" in prompt  # the rules section of the game's module
    assert "'roll'" not in prompt and "There is no board" in prompt
    with pytest.raises(TypeError, match="ClueText plays Clue, got AlgoRules"):
        ClueText(algo_v0.raw_env().rules)
    with pytest.raises(ValueError, match="max_invalid"):
        TextAECEnv(clue_v0.env(players=3), max_invalid=0)
    fresh = TextAECEnv(clue_v0.env(players=3))
    with pytest.raises(RuntimeError, match=r"reset\(\) needs to be called before step"):
        fresh.step("end")
    with pytest.raises(RuntimeError, match=r"reset\(\) needs to be called before observe"):
        fresh.observe("player_0")
    with pytest.raises(ValueError, match="unknown agent 'player_7'"):
        env.observe("player_7")
    for accusation in ["accuse scar, rope, hall", "accuse plum, knife, study", "accuse green, wrench, lounge"]:
        env.step(accusation)
    for _ in env.agent_iter():
        env.step(None)
    env.step("end")  # after the end: what the env does for an action then (nothing), not a crash
    assert not env.unwrapped.agents and "The game is over" in env.observe("player_0")


def test_the_language_model_pages_clue_example_runs(capsys):
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "llm.md").read_text()
    (example,) = [code for code in re.findall(r"```python\n(.+?)\n```", page, flags=re.S) if "TextAECEnv(" in code]
    exec(compile(example, "docs/llm.md", "exec"), {})
    out = capsys.readouterr().out
    assert out.startswith("You are P0. Your hand:") and "1. You suggest Professor Plum, Rope, Study." in out


def test_generalized_clue_bad_replies_and_what_a_seat_sees():
    from deduction_envs.envs import generalized_clue_v0

    env = TextAECEnv(generalized_clue_v0.env(), max_invalid=9)
    env.reset(seed=4)
    raw = env.unwrapped
    mover = raw.agent_selection
    seat = int(mover.split("_")[1])
    for reply, message in [
        ("ask P9 about 1", "players are P0 to P2"),
        ("ask P1 about 99", "cards are numbered 0 to 13"),
        ("guess 1", "a guess names 2 distinct cards"),
        ("ask P1 about", "a list of cards is their numbers"),
        (f"ask P{seat} about 1, 2", "is not legal now: Your turn: ask one of"),
        ("show 3", "type 'ask P2 about 3, 5, 7' or 'guess' and 2 cards"),
    ]:
        env.step(reply)
        assert message in raw.infos[mover]["invalid"], (reply, raw.infos[mover]["invalid"])
        assert raw.agent_selection == mover and not raw.knowledge[0].events[1:]
    target = (seat + 1) % 3
    env.step(f"ask P{target} about 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13")  # someone holds one: yes
    assert raw.agent_selection == f"player_{target}"
    asked = env.observe(f"player_{target}")
    assert f"P{seat} asks you about 0, 1, 2" in asked and "show one of cards" in asked
    hand = raw.knowledge[target].hand
    env.step(f"show {hand[0]}")
    for q in range(3):
        text = env.observe(f"player_{q}")
        assert text.startswith(f"You are P{q}. Your hand: cards {', '.join(map(str, raw.knowledge[q].hand))}.")
        shown = f"P{target} shows card {hand[0]} to P{seat}."
        assert (shown in text) == (q in (seat, target)) and (f"P{target} shows a card to P{seat}." in text) == (
            q not in (seat, target))  # fmt: skip


def test_an_algo_seat_never_sees_another_seats_face_down_numbers_and_bad_replies_are_explained():
    from deduction_envs.envs import algo_v0

    env = TextAECEnv(algo_v0.env(players=2), max_invalid=9)
    env.reset(seed=5)
    raw = env.unwrapped
    for reply, message in [("P0 0 3", "an attack names another player: P1"), ("P1 9 3", "P1 has no card 9"),
                           ("stop", "'stop' is not legal now: attack a face-down card"), ("P1 0 12", "number must be"),
                           ("guess", "type 'P1 2 7' (an attack), 'stop' or 'reveal 2'")]:  # fmt: skip
        env.step(reply)
        assert message in raw.infos["player_0"]["invalid"], (reply, raw.infos["player_0"]["invalid"])
    other = env.observe("player_1")
    line = next(line for line in other.splitlines() if re.search(r"\bP0: ", line)).split("P0: ")[1]
    assert re.fullmatch(r"(\d+:[BW]\?(\(not [\d,]+\))? ?)+", line), line  # P0's cards: colours only, to P1
    assert "you drew" in env.observe("player_0") and "you drew" not in other


def test_clue_on_its_board_in_text_rolls_moves_on_the_squares_shown_and_suggests_where_the_token_is():
    """Hand-worked from seed 1 (3 players): P0 (Miss Scarlet, token 0 at row 24, column 16) rolls 3 and 5; the board
    it is shown marks what 8 reaches (the Hall and the Study among the rooms); a cell that is no corridor square and
    a square not marked are refused, the Study taken; P0 then suggests there (a suggestion naming another room is
    refused)."""
    env = TextAECEnv(clue_v0.env(players=3, board=True))
    env.reset(seed=1)
    prompt = env.prompt("player_0")
    assert "token of Miss Scarlet (token 0 on the board)" in prompt and "'go ROW,COLUMN'" in prompt
    first = env.observe("player_0")
    assert "24 OOOOOOO##HHHHHH#0SSSSSSS" in first and first.endswith("Your turn: 'roll', or accuse.")
    env.step("go study")
    assert "is not legal now: roll or accuse" in env.observe("player_0")
    env.step("roll")
    rolled = env.observe("player_0")
    assert "1. You roll 3 and 5." in rolled and "rooms within reach: Hall, Study" in rolled
    assert "17 1..............***.LLLLL" in rolled  # the squares 8 reaches, marked
    env.step("go 1,1")  # a cell of the Kitchen
    assert "'go 1,1' is not a move: row 1, column 1 is no corridor square" in env.observe("player_0")
    env.step("go 1,8")  # a corridor square out of reach
    assert "'go 1,8' is not legal now: move to a square marked *" in env.observe("player_0")
    env.step("go study")
    assert env.observe("player_0").endswith("You may suggest (in the Study), accuse or end your turn.")
    env.step("suggest plum, rope, hall")
    assert "is not legal now: suggest in the room you entered" in env.observe("player_0")
    env.step("suggest plum, rope, study")
    assert "You suggest Professor Plum, Rope, Study." in env.observe("player_0")


def test_a_refused_reply_takes_the_seats_reward_so_far_as_a_step_does():
    """A seat's reward is reported by ``last()`` once: a refused reply was a step that left the seat's reward so far
    in place, so a caller summing ``last()``'s rewards counted a question's bits twice."""
    env = TextAECEnv(clue_v0.env(players=3), score=True, reward="bits")
    env.reset(seed=0)
    env.step("suggest plum, rope, study")
    while env.agent_selection != "player_0":  # a refuter shows a card, or everyone passed
        env.step(_a_legal_reply(env))
    reward = env.last(observe=False)[1]
    assert reward > 0  # the question's expected bits, given once it was answered
    env.step("I am not sure.")
    assert "invalid" in env.infos["player_0"] and env.last(observe=False)[1] == 0.0
    assert env.rewards == dict.fromkeys(env.agents, 0.0)


def _a_legal_reply(env: TextAECEnv) -> str:
    from deduction_envs.text.clue import move_text

    raw = env.unwrapped
    return move_text(raw.rules, int(np.flatnonzero(raw.table.legal_mask())[0]))
