"""Fuzzing the Clue table assistant: typed text and corrupted logs get a clear ValueError, never another exception.

A person at a table types anything; a log on disk may be cut short, edited by hand or damaged. Every typed
entry either works or raises ValueError (a contradiction is one) and leaves the session and its log as they
were; every log either loads or raises ValueError naming the file, and ``--resume`` turns that into a one-line
error and exit status 2.
"""

from __future__ import annotations

import copy
import json
from unittest import mock

import pytest
from fuzzing import fuzz_settings
from hypothesis import event, given
from hypothesis import strategies as st

from train.tools.assistant import ClueSession
from train.tools.assistant.__main__ import main

PLAYERS = ["Ann", "Bill", "Cy", "Dee"]
HAND = ["scar", "must", "knife", "kitchen", "ballroom"]
FUZZ = fuzz_settings(100)

WORDS = ["s", "suggest", "a", "accuse", "ask", "guess", "hand", "showed", "undo", "advice", "pass", "refute",
         "refutes", "show", "to", "right", "wrong", "yes", "no", "ann", "bill", "cy", "dee", "zed", "scar", "plum",
         "rope", "knife", "hall", "study", "m", "w", ":", ",", "[/b]", "[bold]", "0", "-1", "99", "undo 0",
         "undo 99", "\x00", "é", "  "]  # fmt: skip
NAMES = st.sampled_from(["ann", "bill", "cy", "dee", "zed", "b", ""])
CARDS = st.sampled_from(["scar", "plum", "white", "rope", "knife", "pipe", "hall", "study", "lounge", "m", "x"])
#: Commands shaped as the help says, with any names in them: many are taken, many refused.
SHAPED = st.one_of(
    st.builds("s {}: {}, {}, {} pass {} refute {}".format, NAMES, CARDS, CARDS, CARDS, NAMES, NAMES),
    st.builds("s {}: {}, {}, {} pass {}, {}, {}".format, NAMES, CARDS, CARDS, CARDS, NAMES, NAMES, NAMES),
    st.builds("a {}: {}, {}, {} {}".format, NAMES, CARDS, CARDS, CARDS, st.sampled_from(["right", "wrong", "x"])),
    st.builds("showed {} to {}".format, CARDS, NAMES),
    st.builds("hand {}: {}, {}, {}, {}, {}".format, NAMES, CARDS, CARDS, CARDS, CARDS, CARDS),
    st.sampled_from(["undo", "undo 2", "undo 1", "advice", "advice hall", "advice zed"]),
)
TYPED = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join),
    SHAPED,
)


def played(path=None) -> ClueSession:
    s = ClueSession(PLAYERS, "ann", HAND, path=path)
    s.enter("s Ann: white, rope, hall pass Bill refute Cy show rope")
    s.enter("s bill: plum, knife, study pass cy, dee refutes ann")
    s.enter("showed knife to bill")
    s.enter("a dee: green, candle, lounge wrong")
    return s


@FUZZ
@given(lines=st.lists(TYPED, min_size=1, max_size=6))
def test_typed_text_works_or_is_a_clear_value_error_that_changes_nothing(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("log") / "game.json"
    s = played(path)
    for line in lines:
        entries, saved = copy.deepcopy(s.entries), path.read_text()
        try:
            reply = s.enter(line)
        except ValueError:
            event("refused")
            assert s.entries == entries and path.read_text() == saved
            continue
        event("taken")
        assert isinstance(reply, str)
        assert json.loads(path.read_text())["entries"] == s.entries  # saved before it is acknowledged
    s.solution()  # whatever was taken still has an answer


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 10**9), st.floats(allow_nan=False), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6,
)


@st.composite
def mutated_logs(draw):
    """A good log with one to three mutations: a field dropped, replaced by any JSON, an entry dropped, added,
    or replaced; or the file's text cut short or a byte changed."""
    log = played().to_json()
    text = None
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["drop", "replace", "entry", "entry field", "cut", "byte"]))
        if how in ("cut", "byte"):
            text = json.dumps(log) if text is None else text
            at = draw(st.integers(0, max(len(text) - 1, 0)))
            text = text[:at] if how == "cut" else text[:at] + draw(st.characters()) + text[at + 1 :]
            continue
        if text is not None:
            break
        if how in ("drop", "replace"):
            key = draw(st.sampled_from(sorted(log)))
            if how == "drop":
                del log[key]
            else:
                log[key] = draw(JSON)
        elif isinstance(log.get("entries"), list) and log["entries"]:
            entries = log["entries"]
            i = draw(st.integers(0, len(entries) - 1))
            if how == "entry":
                choice = draw(st.sampled_from(["drop", "null", "any", "copy"]))
                if choice == "drop":
                    del entries[i]
                elif choice == "copy":
                    entries.insert(i, copy.deepcopy(entries[draw(st.integers(0, len(entries) - 1))]))
                else:
                    entries[i] = None if choice == "null" else draw(JSON)
            elif isinstance(entries[i], dict):
                key = draw(st.sampled_from([*sorted(entries[i]), "new"]))
                entries[i][key] = draw(JSON)
    return json.dumps(log) if text is None else text


@FUZZ
@given(text=mutated_logs())
def test_a_corrupted_log_loads_or_is_a_clear_value_error_naming_the_file(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("log") / "game.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        s = ClueSession.load(path)
    except ValueError as error:
        event("refused")
        assert str(path) in str(error)
    else:
        event("loaded")
        s.solution()


GOOD_START = '{"version": 1, "game": "clue", "players": ["a", "b", "c"], "me": "a", "entries": '


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"version": 1, "game": "clue", "entries": [null]}', "'players' must be a list of names"),
        (GOOD_START + "[null]}", "an entry must be a JSON object"),
        (GOOD_START + '[{"kind": "hand", "player": "a", "cards": 5}]}', "'cards' must be a list of names, got 5"),
        ("[1, 2]", "is not a Clue assistant log of version 1"),
        ("{", "is not a Clue assistant log:"),
        (b"\xff\xfe".decode("latin-1"), "is not a Clue assistant log"),
    ],
)
def test_the_logs_the_fuzzer_broke_are_refused_by_resume_in_one_line(tmp_path, capsys, text, message):
    path = tmp_path / "game.json"
    path.write_text(text, encoding="latin-1")
    with mock.patch("train.tools.assistant.app.AssistantApp.run") as run, pytest.raises(SystemExit) as exit_:
        main(["--resume", str(path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "Traceback" not in err, err
    assert err.strip().splitlines()[0].startswith("python -m train.tools.assistant: error:")
    run.assert_not_called()


def test_resume_of_a_good_log_runs_the_app(tmp_path):
    played(tmp_path / "game.json")
    with mock.patch("train.tools.assistant.app.AssistantApp.run") as run:
        main(["--resume", str(tmp_path / "game.json")])
    run.assert_called_once()


@FUZZ
@given(seed=st.integers(0, 2**32 - 1), steps=st.lists(st.tuples(st.integers(0, 2**16), st.booleans()), max_size=8))
def test_random_entry_sequences_true_ones_taken_others_consistent_or_refused(tmp_path_factory, seed, steps):
    """Entries of a real deal (suggestions with the passes, refuter and shown card the deal gives, wrong
    accusations), some falsified at random: a true entry is never refused while every entry before it was
    true; a refused one changes nothing; after every accepted one some deal still agrees with everything. Only
    players still in move, and nothing comes after the game ends (such entries are refused, as tested apart)."""
    import numpy as np

    from deduction_envs.games.clue import ClueRules

    rules, rng = ClueRules(4), np.random.default_rng(seed)
    places = rules.new_game(rng).places
    names = rules.card_names
    hand = [names[c] for c in range(rules.cards) if places[c] == 0]
    s = ClueSession(PLAYERS, "ann", hand, path=tmp_path_factory.mktemp("log") / "game.json")
    truthful = True
    for draw, falsify in steps:
        local = np.random.default_rng(draw)
        cards = [int(local.integers(start, stop)) for start, stop in zip(rules.category_starts,
                 [*rules.category_starts[1:], rules.cards], strict=True)]  # fmt: skip
        if s.ended() is not None:  # a right accusation (or everyone out) ends the game: nothing true comes after
            break
        in_play = [p for p, out in enumerate(s.out()) if not out]  # a player who accused wrongly makes no move
        asker = in_play[int(local.integers(len(in_play)))]
        if local.random() < 0.2:  # an accusation: wrong unless it names the case file
            correct = all(places[c] == 4 for c in cards) != falsify
            add, arguments = s.accusation, (PLAYERS[asker], [names[c] for c in cards], correct)
        else:
            order = [(asker + i) % 4 for i in range(1, 4)]
            refuter = next((p for p in order if any(places[c] == p for c in cards)), None)
            if falsify:  # another refuter (or none), as a mistyped entry would say
                refuter = [None, *order][int(local.integers(4))]
            passed = order if refuter is None else order[: order.index(refuter)]
            shown = None
            if asker == 0 and refuter is not None:
                held = [c for c in cards if places[c] == refuter] or cards
                shown = names[int(local.choice(held))]
            add, arguments = s.suggestion, (PLAYERS[asker], [names[c] for c in cards], [PLAYERS[p] for p in passed],
                                            None if refuter is None else PLAYERS[refuter], shown)  # fmt: skip
        before = copy.deepcopy(s.entries)
        try:
            add(*arguments)
        except ValueError:
            event("refused")
            assert not (truthful and not falsify), "a true entry was refused"
            assert s.entries == before
            continue
        event("taken")
        truthful = truthful and not falsify
        assert len(s.knowledge.sample(1, rng=0)) == 1  # some deal agrees with everything taken
