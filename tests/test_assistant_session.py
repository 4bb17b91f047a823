"""The table assistant's session: entries by name, refusals that change nothing, undo, the log, advice."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from train.tools.assistant import ClueSession
from train.tools.assistant.session import ContradictionError, describe

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
    with pytest.raises(ValueError, match="2 to 6 players"):
        ClueSession(["a"], 0, HAND)
    with pytest.raises(ValueError, match="2 to 6 players"):
        ClueSession(list("abcdefg"), 0, HAND)
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
    with pytest.raises(ValueError, match="Cy guessed and left, so nobody asks them"):
        s.ask("bo", "cy", [10], answered=False)
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


def test_two_players_as_clue_v0_plays():
    """The assistant refused 2 players though ``clue_v0`` plays 2: each holds 9 cards."""
    hand = ["scar", "must", "knife", "kitchen", "ballroom", "hall", "study", "plum", "pipe"]
    s = ClueSession(["Ann", "Bo"], "ann", hand)
    s.enter("s ann: white, rope, lounge refute bo show rope")
    assert s.sheet()[s.card("rope"), 1] == 1 and s.sheet()[s.card("white"), 1] == -1


def test_moves_after_a_player_is_out_or_the_game_is_over_are_refused():
    """``a bill: ... wrong`` then a suggestion by Bill was taken; so was anything after a right accusation, and in
    Generalized Clue a move after a guess."""
    s = session()
    s.enter("a bill: plum, wrench, study wrong")
    for line, reason in [
        ("s bill: white, rope, hall pass cy, dee refute ann", "Bill is out (accused wrongly) and makes no more moves"),
        ("a bill: green, rope, hall wrong", "Bill is out (accused wrongly) and makes no more moves"),
        ("showed knife to bill", "Bill is out (accused wrongly) and makes no more suggestions"),
    ]:
        with pytest.raises(ValueError, match=re.escape(reason)):
            s.enter(line)
    s.enter("s cy: white, rope, hall pass dee, ann refute bill")  # who is out still refutes
    s.enter("a dee: green, rope, lounge right")
    with pytest.raises(ValueError, match=re.escape("the game is over (Dee's accusation was right); undo")):
        s.enter("s ann: white, rope, hall pass bill refute cy")
    with pytest.raises(ValueError, match="the game is over"):
        s.enter("hand cy: plum")
    assert len(s.entries) == 4
    s.undo()  # the right accusation taken back: the game goes on
    s.enter("s ann: white, rope, hall refute bill")
    for wrong in ("ann", "cy", "dee"):
        s.enter(f"a {wrong}: green, rope, lounge wrong")
    assert s.ended() == "every player accused wrongly"

    g = ClueSession(["Ann", "Bo", "Cy"], "ann", [0, 1, 2, 3], deck=(12, 2))
    g.enter("guess bo: 4, 5 hand 6, 7, 8")
    for line, reason in [("ask bo cy: 10 no", "Bo is out (guessed and left)"),
                         ("ask cy bo: 10 no", "Bo guessed and left, so nobody asks them"),
                         ("guess bo: 10, 11 hand 6, 7, 8", "Bo is out")]:  # fmt: skip
        with pytest.raises(ValueError, match=re.escape(reason)):
            g.enter(line)
    g.enter("ask cy ann: 10 no")
    assert len(g.entries) == 3
    assert g.out() == [False, True, False] and g.ended() is None
    g.enter("guess cy: 9, 10 hand 11, 4, 5")
    g.enter("guess ann: 6, 7 hand 0, 1, 2, 3")
    assert g.out() == [True, True, True] and g.ended() == "every player has guessed"
    with pytest.raises(ValueError, match=re.escape("the game is over (every player has guessed)")):
        g.enter("ask ann bo: 10 no")


def test_undo_by_id_names_one_entry_for_good_and_ids_survive_a_restart(tmp_path):
    s = session(tmp_path)
    for line in ("showed knife to bill", "showed kitchen to cy", "showed ballroom to dee"):
        s.enter(line)
    assert s.ids == [1, 2, 3, 4]
    assert describe(s.undo_entry(2)) == "you showed Knife to Bill"
    with pytest.raises(ValueError, match="no longer in the log"):
        s.undo_entry(2)
    with pytest.raises(ValueError, match="your own hand stays"):
        s.undo_entry(1)
    s.undo()  # the last, id 4
    s.enter("showed ballroom to dee")
    assert s.ids == [1, 3, 5]  # an id is never given twice
    resumed = ClueSession.load(tmp_path / "game.json")
    assert resumed.ids == [1, 3, 5] and resumed.log() == s.log()
    resumed.enter("showed knife to bill")
    assert resumed.ids[-1] == 6
    data = json.loads((tmp_path / "game.json").read_text())
    del data["ids"], data["next_id"]  # a log written before ids: numbered in order
    (tmp_path / "old.json").write_text(json.dumps(data))
    assert ClueSession.load(tmp_path / "old.json").ids == [1, 2, 3, 4]
    for bad in ([1, 1, 2, 3], [1, 2, 3], ["1", 2, 3, 4], [0, 1, 2, 3]):
        (tmp_path / "bad.json").write_text(json.dumps({**data, "ids": bad}))
        with pytest.raises(ValueError, match=r"bad\.json: 'ids' must be increasing entry ids"):
            ClueSession.load(tmp_path / "bad.json")
    (tmp_path / "bad.json").write_text(json.dumps({**data, "ids": [1, 2, 3, 9], "next_id": 9}))
    with pytest.raises(ValueError, match="'next_id' must be an integer above every id"):
        ClueSession.load(tmp_path / "bad.json")


def test_an_entry_is_on_the_disk_before_it_is_acknowledged(tmp_path, monkeypatch):
    """The log was written atomically but not flushed: an acknowledged entry must survive a power cut. The file
    is fsynced before the rename and its folder after it, before ``enter`` returns."""
    import os

    calls = []
    real_fsync, real_replace = os.fsync, type(tmp_path).replace

    def fsync(fd):
        calls.append(("fsync", os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))))
        real_fsync(fd)

    def replace(self, target):
        calls.append(("rename", self.name))
        return real_replace(self, target)

    s = session(tmp_path)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(type(tmp_path), "replace", replace)
    s.enter("showed knife to bill")
    assert calls == [("fsync", "game.json.tmp"), ("rename", "game.json.tmp"), ("fsync", tmp_path.name)]
    calls.clear()
    s.undo()
    assert calls == [("fsync", "game.json.tmp"), ("rename", "game.json.tmp"), ("fsync", tmp_path.name)]
