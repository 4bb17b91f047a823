"""The table assistant's session: entries by name, refusals that change nothing, undo, the log, advice."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from train.tools.assistant import ClueSession
from train.tools.assistant.session import ContradictionError

PLAYERS = ["Ann", "Bill", "Cy", "Dee"]
HAND = ["scar", "must", "knife", "kitchen", "ballroom"]  # Ann's five cards, by prefix


def session(tmp_path=None) -> ClueSession:
    return ClueSession(PLAYERS, "ann", HAND, path=None if tmp_path is None else tmp_path / "game.json")


def test_entries_by_name_and_what_they_prove():
    s = session()
    assert s.log() == ["Ann's hand: Miss Scarlet, Colonel Mustard, Knife, Kitchen, Ballroom"]
    s.suggestion("ann", ["white", "rope", "hall"], passed=["bill"], refuter="cy", shown="rope")
    s.suggestion("bi", ["green", "knife", "lounge"], passed=["cy", "dee"], refuter="ann")  # I hold the Knife
    s.showed("knife", to="bill")
    sheet = s.sheet()
    rope, hall, green, lounge = (s.card(c) for c in ("rope", "hall", "green", "lounge"))
    assert sheet[rope, 2] == 1 and sheet[rope, 1] == 0  # Cy showed me the Rope; Bill passed on it
    assert sheet[hall, 1] == 0 and sheet[green, 2] == 0 and sheet[lounge, 3] == 0
    assert (sheet[[s.card(c) for c in HAND], 0] == 1).all()
    assert s.log()[1] == "Ann suggested Mrs. White, Rope, Hall; Bill passed; Cy refuted with Rope"
    total = s.solution().probabilities.sum(axis=1)
    np.testing.assert_allclose(total, 1.0)


def test_a_contradictory_entry_is_refused_by_name_and_changes_nothing():
    s = session()
    s.suggestion("ann", ["white", "rope", "hall"], passed=["bill"], refuter="cy", shown="rope")
    before = s.solution().probabilities.copy()
    with pytest.raises(ContradictionError, match=r"Dee suggested .*Rope.*refused, it contradicts"):
        s.suggestion("dee", ["plum", "rope", "study"], passed=["ann", "bill", "cy"])  # Cy holds the Rope
    # Your own seat is checked too: you cannot pass on a card you hold, nor refute holding none of the three.
    with pytest.raises(ContradictionError, match=r"Dee suggested .*Ann, Bill, Cy passed.*refused.*since Ann would"):
        s.suggestion("dee", ["scarlet", "pipe", "study"], passed=["ann", "bill", "cy"])
    with pytest.raises(ContradictionError, match=r"Cy suggested .*Ann refuted.*refused"):
        s.suggestion("cy", ["plum", "pipe", "study"], passed=["dee"], refuter="ann")
    with pytest.raises(ValueError, match="asked in order"):
        s.suggestion("bill", ["plum", "wrench", "study"], passed=["dee"], refuter="cy")
    with pytest.raises(ValueError, match="one suspect, one weapon and one room"):
        s.suggestion("bill", ["plum", "wrench", "rope"], refuter="cy")
    with pytest.raises(ValueError, match="only when you suggested"):
        s.suggestion("bill", ["plum", "wrench", "study"], refuter="cy", shown="study")
    with pytest.raises(ValueError, match="could be"):
        s.suggestion("bill", ["m", "wrench", "study"], refuter="cy")  # Mustard, Mr. Green, Mrs. White, ...
    with pytest.raises(ValueError, match="no player is called"):
        s.player("zed")
    assert len(s.entries) == 2 and np.array_equal(s.solution().probabilities, before)


def test_undo_and_the_log_survive_a_restart(tmp_path):
    s = session(tmp_path)
    empty = s.solution().probabilities.copy()
    s.suggestion("ann", ["white", "rope", "hall"], passed=["bill"], refuter="cy", shown="rope")
    s.accusation("dee", ["plum", "wrench", "study"], correct=False)
    saved = json.loads((tmp_path / "game.json").read_text())
    assert saved["players"] == PLAYERS and len(saved["entries"]) == 3
    resumed = ClueSession.load(tmp_path / "game.json")
    np.testing.assert_array_equal(resumed.solution().probabilities, s.solution().probabilities)
    assert resumed.log() == s.log()
    resumed.undo()
    resumed.undo()
    np.testing.assert_array_equal(resumed.solution().probabilities, empty)
    assert len(json.loads((tmp_path / "game.json").read_text())["entries"]) == 1  # the undo was saved
    with pytest.raises(ValueError, match="nothing to undo"):
        resumed.undo()


def test_any_entry_can_be_undone():
    s = session()
    s.enter("s ann: white, rope, hall pass bill refute cy show rope")
    s.enter("s bill: plum, knife, study pass cy, dee refutes ann")
    s.enter("a dee: green, candle, lounge wrong")
    only_second = session()
    only_second.enter("s ann: white, rope, hall pass bill refute cy show rope")
    only_second.enter("a dee: green, candle, lounge wrong")
    assert s.enter("undo 3").startswith("undone: Bill suggested")
    np.testing.assert_array_equal(s.solution().probabilities, only_second.solution().probabilities)
    assert s.log() == only_second.log()
    for bad in ("undo 1", "undo 9", "undo x"):
        with pytest.raises(ValueError):
            s.enter(bad)


def test_advice_names_the_best_suggestion_and_when_to_accuse():
    s = session()
    advice = s.advice()
    assert advice.expected_gain > 0 and not advice.certain and 0 < advice.probability < 0.1
    in_hall = s.advice(room="hall")
    assert in_hall.suggestion[2] == "Hall"
    with pytest.raises(ValueError, match="not a room"):
        s.advice(room="rope")
    # Bill suggests three cards: everyone passes, so they are in the case file or his hand; not certain yet.
    s.suggestion("bill", ["peacock", "candle", "study"], passed=["cy", "dee", "ann"])
    assert not s.advice().certain
    # Ann suggests them (none is hers): everyone passes, so they are the case file.
    s.suggestion("ann", ["peacock", "candle", "study"], passed=["bill", "cy", "dee"])
    certain = s.advice()
    assert certain.certain and certain.probability == 1.0
    assert certain.accusation == ("Mrs. Peacock", "Candlestick", "Study")
    assert "accuse now" in str(certain)


def test_advice_names_your_own_cards_only_when_that_is_the_better_ask():
    """A suggestion naming cards you hold asks about the others alone: advised only when strictly better."""
    s = session()
    s.suggestion("bill", ["plum", "rope", "study"], passed=["cy"], refuter="dee")
    s.suggestion("ann", ["white", "pipe", "hall"], passed=["bill", "cy"], refuter="dee", shown="pipe")
    mine = np.flatnonzero(s.sheet()[:, s.me] == 1)
    scores = s.scores()
    held = np.isin(scores.suggestions, mine).sum(axis=1)
    for room in [None, "kitchen", "hall", "lounge"]:
        advice = s.advice(room)
        allowed = np.ones(len(held), bool) if room is None else scores.suggestions[:, 2] == s.card(room)
        index = [tuple(s.card_names[c] for c in t) for t in scores.suggestions].index(advice.suggestion)
        assert allowed[index] and advice.yours == tuple(c for c in advice.suggestion if s.card(c) in mine)
        value = scores.expected_entropy[index]
        assert value <= scores.expected_entropy[allowed].min() + 1e-9  # the best ask
        fewer = allowed & (held < held[index])
        assert not fewer.any() or scores.expected_entropy[fewer].min() > value + 1e-9  # strictly better
    # Once the case file is proved every suggestion leaves nothing to learn: a tie, so none of Ann's cards.
    s.suggestion("ann", ["peacock", "candle", "study"], passed=["bill", "cy", "dee"])
    assert s.advice().certain and s.advice().yours == () and "You hold" not in str(s.advice())
    # In the Kitchen (Ann's card), whatever is suggested names it, and the advice says so.
    kitchen = s.advice("kitchen")
    assert "Kitchen" in kitchen.yours and "You hold" in str(kitchen) and "alone" in str(kitchen)


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="3 to 6 players"):
        ClueSession(["a", "b"], 0, HAND)
    with pytest.raises(ValueError, match="distinct"):
        ClueSession(["a", "A", "b"], 0, HAND)
    with pytest.raises(ValueError, match="holds 5 cards"):
        ClueSession(PLAYERS, 0, HAND[:4])


def test_typed_commands():
    s = session()
    assert s.enter("s Ann: white, rope, hall pass Bill refute Cy show rope") == (
        "Ann suggested Mrs. White, Rope, Hall; Bill passed; Cy refuted with Rope"
    )
    assert s.enter("s bill: plum, knife, study pass cy, dee refutes ann") == (
        "Bill suggested Professor Plum, Knife, Study; Cy, Dee passed; Ann refuted"
    )
    assert s.enter("showed knife to bill") == "you showed Knife to Bill"
    assert s.enter("a dee: green, candle, lounge wrong") == "Dee accused Mr. Green, Candlestick, Lounge: wrong"
    assert s.enter("advice hall").startswith("suggest ") and "Hall" in s.enter("advice hall")
    assert s.enter("undo") == "undone: Dee accused Mr. Green, Candlestick, Lounge: wrong"
    for bad, message in [
        ("", "type a command"),
        ("fly away", "no command"),
        ("s bill plum", "type 's ASKER"),
        ("a dee: green, candle, lounge maybe", "right' or 'wrong"),
        ("showed knife", "showed CARD"),
    ]:
        with pytest.raises(ValueError, match=message):
            s.enter(bad)
    assert len(s.entries) == 4


def test_a_generalized_clue_deck(tmp_path):
    """12 cards, 2 hidden, 3 players: asks and guesses by number, advice on whom to ask about what."""
    s = ClueSession(["Ann", "Bo", "Cy"], "ann", [0, 1, 2, 3], path=tmp_path / "gc.json", deck=(12, 2))
    assert s.enter("ask ann bo: 4, 5 yes show 5") == "Ann asked Bo about 4, 5: yes, showing 5"
    assert s.enter("ask bo cy: 6, 7 no") == "Bo asked Cy about 6, 7: no"
    assert s.sheet()[5, 1] == 1 and s.sheet()[6, 2] == 0 and s.sheet()[7, 2] == 0
    advice = s.advice()
    assert advice.target in ("Bo", "Cy") and advice.expected_gain > 0 and "ask " in str(advice)
    assert s.enter("guess cy: 8, 9 hand 4, 10, 11") == "Cy guessed 8, 9 and left; hand 4, 10, 11"
    assert s.sheet()[10, 2] == 1
    with pytest.raises(ValueError, match="move of Clue"):
        s.suggestion("bo", ["0", "1", "2"], refuter="cy")
    with pytest.raises(ValueError, match="asks someone else"):
        s.ask("bo", "bo", [4], answered=False)
    with pytest.raises(ContradictionError):
        s.ask("bo", "cy", [10], answered=False)  # Cy's hand is public: it holds 10
    with pytest.raises(ContradictionError):  # your own seat is checked: Ann holds 0, so cannot answer no
        s.ask("bo", "ann", [0, 5], answered=False)
    with pytest.raises(ContradictionError):  # nor yes holding none of them
        s.ask("bo", "ann", [6, 7], answered=True)
    resumed = ClueSession.load(tmp_path / "gc.json")
    assert resumed.deck == (12, 2) and resumed.log() == s.log()
    with pytest.raises(ValueError, match="move of Generalized Clue"):
        session().ask("bill", "cy", ["rope"], answered=False)


def test_refusals_name_players_cards_and_categories():
    """Messages in the table's words: no seat numbers, no category numbers, no lists of ids."""
    s = session()
    for line, words in [
        ("a dee: plum, rope wrong", "names 1 card(s) of the rooms"),
        ("a dee: plum, rope, rope, hall wrong", "names Rope twice (Professor Plum, Rope, Rope, Hall)"),
        ("hand bill: plum, plum, rope, hall, study", "the cards name Professor Plum twice"),
        ("s cy: plum, pipe, study pass dee refute ann", "since Ann would hold none of Professor Plum"),
    ]:
        with pytest.raises(ValueError) as error:
            s.enter(line)
        message = str(error.value)
        assert words in message and not re.search(r"player \d|category \d|\[", message), message
