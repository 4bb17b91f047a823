"""Playing in the terminal, driven through standard input."""

from __future__ import annotations

import io
import re

import gymnasium as gym
import pytest

from train.tools import play


def run(monkeypatch, capsys, argv, lines):
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    play.main(argv)
    return capsys.readouterr().out


def secret_of(env_id, seed, **sizes):
    """The secret the env will draw for ``seed`` (the test may look; the player may not)."""
    env = gym.make(env_id, **sizes)
    env.reset(seed=seed)
    return env.unwrapped._secret


def test_a_mistyped_query_is_explained_and_asked_again_then_the_game_is_won(monkeypatch, capsys):
    value = secret_of("LowMiddleHigh-v0", 4, n=9) + 1  # secret i is the number i + 1
    out = run(monkeypatch, capsys, ["LowMiddleHigh-v0", "--size", "n=9", "--seed", "4"], ["7 to 3", f"{value}-{value}"])
    assert "find the secret among 9 (3.17 bits)" in out
    assert "Not a query:" in out and "Commands:" in out
    assert "That query gained 3.17 bits." in out
    assert out.rstrip().endswith("Solved in 1 query.")


def test_hint_names_the_ises_query_its_expected_gain_and_the_last_gain(monkeypatch, capsys):
    out = run(monkeypatch, capsys, ["Mastermind-v0", "--seed", "0"], ["hint", "AAAA", "hint"])  # then end of input
    hints = [line.removeprefix("> ") for line in out.splitlines() if "ISES would ask" in line]
    # ISES opens Mastermind 4x6 with ABCD; the first hint has no last query to report on.
    assert hints[0] == "ISES would ask 'ABCD', expecting to gain 3.06 of the 10.34 bits left."
    assert len(hints) == 2 and out.count("Your last query gained") == 1
    assert "That query gained 1.37 bits." in out and "Your last query gained 1.37 bits." in out
    secret = gym.make("Mastermind-v0").unwrapped.rules.format_action(secret_of("Mastermind-v0", 0))
    assert out.rstrip().endswith(f"Bye. The secret was {secret!r}.")  # shown once you give up


def test_help_explains_the_rules_a_repeated_query_is_refused_and_a_known_secret_is_named(monkeypatch, capsys):
    out = run(monkeypatch, capsys, ["LowMiddleHigh-v0", "--seed", "2"], ["help", "quit"])
    assert "low if the secret is below a" in out and "``" not in out and "**" not in out  # the rules, plain
    # Mastermind 2 x 2 with seed 3 hides BB: AA leaves it alone, but the game goes on until it is guessed.
    out = run(monkeypatch, capsys, ["Mastermind-v0", "--size", "pegs=2", "--size", "colors=2", "--seed", "3"],
              ["AA", "AA", "AB", "hint", "quit"])  # fmt: skip
    assert "You asked 'AA' already: black 0, white 0." in out and out.count("  AA  ->") == 2  # one board, once
    assert "Only one secret is left: 'BB'." in out and "expecting to gain 0.00" not in out


def test_illegal_queries_cost_nothing_and_running_out_of_queries_ends_the_game(monkeypatch, capsys):
    lines = ["1H v 1H", "4U v 4U", "quit"]
    out = run(monkeypatch, capsys, ["FakeCoin-v0", "--size", "max_steps=1", "--seed", "1"], lines)
    assert "'1H v 1H' is not a legal query now" in out
    assert "step 1/1" in out and "Out of queries (1)" in out
    assert "Bye." not in out  # the game ended before 'quit' was read


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["Chess-v0"], "invalid choice"), (["Mastermind-v0", "--size", "pegs=0"], "pegs must be an integer in [1, 22]")],
)
def test_bad_arguments_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        play.main(argv)
    assert message in capsys.readouterr().err


def test_algo_against_an_agent_explains_bad_moves_and_plays_to_the_end(monkeypatch, capsys):
    lines = ["hint", "9 9 9", "9 9", "stop", "0 12", "0 5"] + ["0 0"] * 200  # then keep attacking card 0 with 0
    out = run(monkeypatch, capsys, ["algo", "--seed", "1", "--opponent", "epsilon_greedy"], lines)
    assert "Most probable: player 1's card 3 is 11 (p = 0.69)." in out
    assert "Not a move: type an attack as POSITION NUMBER" in out
    assert "Not legal now: player 1 has no card 9 (their cards are 0 to 3)." in out
    assert "Not legal now: attack a face-down card." in out  # no stop before a hit
    assert "Not a move: number must be an integer in [0, 11], got 12" in out
    assert "You named 5 for player 1's card 0: miss; W9 goes face up." in out
    assert out.rstrip().endswith(("You win!", "Player 1 wins.", "Bye."))
    assert "[" not in out.split("player 1:")[1].splitlines()[0]  # the opponent's numbers never show face down


def test_algo_options_are_checked(monkeypatch, capsys):
    with pytest.raises(SystemExit):
        play.main(["algo", "--opponent", "oracle"])
    assert "invalid choice" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        play.main(["algo", "--players", "5"])
    assert "players must be an integer in [2, 4], got 5" in capsys.readouterr().err


def test_clue_in_the_terminal_suggest_show_hint_and_bad_input(monkeypatch, capsys):
    lines = ["hint", "suggest scar, pipe", "suggest scar, pipe, dining", "show knife", "accuse room", "end", "plum"]
    lines += ["sheet", "quit"]
    out = run(monkeypatch, capsys, ["clue", "--players", "3", "--seed", "1", "--opponent", "random"], lines)
    assert "Your hand: Miss Scarlet, Colonel Mustard, Mrs. White, Professor Plum, Billiard Room, Lounge" in out
    assert "Entropy left: 6.39 bits. Most likely case files:" in out
    assert "one per category, got 2: Miss Scarlet, Lead Pipe" in out  # cards by name, not by id
    assert "You suggest Miss Scarlet, Lead Pipe, Dining Room. P1 refutes." in out
    assert "P1 shows Lead Pipe to you." in out  # seen by you, and only by you
    assert "Not legal now: accuse or end your turn." in out  # showing is not a move of the mover
    assert "Not a move: 'room' could be Dining Room, Billiard Room." in out
    assert "P1 suggests Mrs. White, Lead Pipe, Billiard Room. P2 passes. You refute." in out
    assert "You must show P1 one of: Mrs. White, Billiard Room" in out
    assert "Not legal now: show one of the cards listed." in out  # Plum is not among them
    assert out.rstrip().endswith("Bye.")
    assert " X " in out and "%" in out  # the sheet: certain cards and exact probabilities


def test_clue_opponents_are_checked_per_game(monkeypatch, capsys):
    with pytest.raises(SystemExit):
        run(monkeypatch, capsys, ["clue", "--opponent", "max_entropy"], [])
    assert "clue's opponents are random, deduction_sheet" in capsys.readouterr().err


@pytest.mark.parametrize("opponent", ["entropy", "ismcts"])
def test_clue_against_the_entropy_agent_and_ismcts_with_the_entropy_hint(monkeypatch, capsys, opponent):
    lines = ["hint", "suggest scar, pipe, dining", "end"] + ["show knife"] * 3 + ["hint", "quit"]
    out = run(monkeypatch, capsys, ["clue", "--players", "3", "--seed", "1", "--opponent", opponent], lines)
    best = re.findall(r"Best suggestion: ([^,]+, [^,]+, [^,]+), expected to gain ([0-9.]+) bits \((.*)\)\.", out)
    assert best, out
    assert all(float(gain) > 0 for _, gain, _ in best)
    assert best[0][2] == "from 2000 sampled deals"  # at the start, far more than 500 deals are consistent
    assert "P1 suggests" in out and out.rstrip().endswith("Bye.")


def test_help_texts_are_plain_text_for_players():
    """The rules and the Clue help as a player reads them: no reStructuredText marks, and literals kept whole
    (Fake Coin's help printed "3k" for ``3**k``; the Clue help showed ``suggest`` and :class:)."""
    from deduction_envs.games import make_rules
    from deduction_envs.text import plain_text, rules_text
    from train.tools import play_clue

    fake_coin = rules_text(make_rules("FakeCoin"))
    assert "3**k" in fake_coin and "``" not in fake_coin
    clue = plain_text(play_clue.__doc__.split("\n\n", 3)[3])
    assert "* suggest SUSPECT, WEAPON, ROOM (or s scarlet, rope, hall)" in clue
    assert not any(mark in clue for mark in ("``", ":class:", "`")) and "(ClueEntropyAgent)" in clue
    assert plain_text("**bold**, *em*, `x`, ``a*b*c``, :func:`~m.f`") == "bold, em, x, a*b*c, f"


def test_clue_on_the_board_roll_move_suggest_and_the_hint(monkeypatch, capsys):
    lines = ["go hall", "hint", "roll", "roll", "go 0,0", "go hall", "board"]
    lines += ["suggest plum, rope, study", "suggest plum, rope, hall", "end", "quit"]
    out = run(monkeypatch, capsys, ["clue", "--board", "--players", "3", "--seed", "1", "--opponent", "velma"], lines)
    assert "Your turn: 'roll', or accuse." in out and "   012345678901234567890123" in out
    assert "Not legal now: roll or accuse." in out  # no moving before the roll
    assert re.search(r"Velma would roll the dice\.", out)
    assert re.search(r"You roll \d and \d\.", out) and "rooms within reach: Hall" in out
    assert "Not a move: row 0, column 0 is no corridor square." in out
    assert "You move to Hall." in out and "You may suggest (in the Hall), accuse or end your turn." in out
    assert "Not legal now: suggest in the room you entered, accuse or end your turn." in out  # not the Study
    assert "You suggest Professor Plum, Rope, Hall." in out and out.rstrip().endswith("Bye.")
    assert "Not legal now: move to a square marked * or a room within reach" in out  # a second roll


def test_the_board_is_for_clue_only(monkeypatch, capsys):
    with pytest.raises(SystemExit):
        run(monkeypatch, capsys, ["algo", "--board"], [])
    assert "--board is for clue; algo has no board" in capsys.readouterr().err
