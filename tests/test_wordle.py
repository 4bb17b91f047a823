"""Wordle: the kernel against the official two-pass rule, word lists, errors."""

from __future__ import annotations

from collections import Counter

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from deduction_envs.games import Wordle


def reference_colours(guess: str, answer: str) -> str:
    """The official rule in two passes: greens first, then yellows from the answer's unused letters."""
    marks = ["-"] * 5
    unused = Counter(a for g, a in zip(guess, answer, strict=True) if g != a)
    for i, (g, a) in enumerate(zip(guess, answer, strict=True)):
        if g == a:
            marks[i] = "G"
        elif unused[g] > 0:
            marks[i] = "Y"
            unused[g] -= 1
    return "".join(marks)


def test_default_lists_are_the_documented_sizes_and_every_answer_is_a_guess():
    rules = Wordle()
    assert rules.num_secrets == 2500 and rules.num_actions == 10000
    assert set(rules.answers) <= set(rules.guesses)
    assert rules.answers[:3] == ("about", "their", "there")  # most frequent first


@pytest.mark.parametrize(
    ("answer", "guess", "colours"),
    [
        ("abbey", "babes", "YYGG-"),
        ("crane", "eerie", "--Y-G"),
        ("speed", "geese", "-YGY-"),  # the third e finds no unused e
        ("apple", "paper", "YYGY-"),
        ("loyal", "allay", "-YYGY"),  # the first a is grey: the answer's only a is green
        ("crane", "crane", "GGGGG"),
    ],
)
def test_repeated_letters_follow_the_official_rule(answer, guess, colours):
    assert reference_colours(guess, answer) == colours
    rules = Wordle(answers=[answer], guesses=sorted({answer, guess}))
    feedback = rules.feedback(rules.parse_action(guess), 0)
    assert rules.format_feedback(feedback) == colours
    assert rules.parse_feedback(colours) == feedback


words = st.text(alphabet="abcde", min_size=5, max_size=5)  # five letters: repeats are common


@given(answers=st.lists(words, min_size=1, max_size=20, unique=True), extra=st.lists(words, max_size=20))
def test_the_vectorised_kernel_matches_the_reference_on_random_words(answers, extra):
    guesses = list(dict.fromkeys([*answers, *extra]))
    rules = Wordle(answers=answers, guesses=guesses)
    table = rules.feedback_matrix(np.arange(len(guesses)), np.arange(len(answers)))
    for g, guess in enumerate(guesses):
        assert [rules.format_feedback(f) for f in table[g]] == [reference_colours(guess, a) for a in answers]


def test_the_kernel_matches_the_reference_on_the_default_lists():
    rules = Wordle()
    rng = np.random.default_rng(0)
    guesses, answers = rng.choice(10000, 40, replace=False), rng.choice(2500, 60, replace=False)
    table = rules.feedback_matrix(guesses, answers)
    for row, g in enumerate(guesses):
        expected = [reference_colours(rules.guesses[g], rules.answers[a]) for a in answers]
        assert [rules.format_feedback(f) for f in table[row]] == expected


def test_own_lists_from_sequences_and_files(tmp_path):
    path = tmp_path / "answers.txt"
    path.write_text("# my answers\nCrane\n\nslate\n")
    rules = Wordle(answers=path, guesses=["crane", "slate", "adieu"])
    assert rules.answers == ("crane", "slate") and rules.guesses == ("crane", "slate", "adieu")
    env = gym.make("Wordle-v0", answers=str(path), guesses=["crane", "slate", "adieu"])
    _, info = env.reset(options={"secret": 1})
    _, _, terminated, _, info = env.step(rules.parse_action("CRANE"))
    assert info["candidates"] == 1 and not terminated
    _, _, terminated, _, _ = env.step(rules.parse_action("slate"))
    assert terminated


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"answers": ["crane", "cran"]}, r"five-letter words of letters a-z only; 1 do not, e.g. \['cran'\]"),
        ({"answers": ["crane", "cr4ne"]}, r"five-letter words of letters a-z only"),
        ({"answers": ["crane", "Crane"]}, r"must not repeat a word; repeated: \['crane'\]"),
        ({"answers": []}, r"answers must not be empty"),
        ({"answers": ["zzzzz"]}, r"every answer must also be a guess; 1 are not, e.g. \['zzzzz'\]"),
        ({"guesses": "/no/such/list.txt"}, r"guesses must be a sequence of words or the path .* no file"),
        ({"answers": [1, 2]}, r"answers must be a sequence of words \(strings\)"),
    ],
)
def test_malformed_word_lists_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Wordle(**kwargs)


def test_bad_guesses_and_feedback_text_are_clear_errors():
    rules = Wordle()
    with pytest.raises(ValueError, match=r"'qqqqq' is not an allowed guess"):
        rules.parse_action("qqqqq")
    with pytest.raises(ValueError, match=r"five marks from '-', 'Y', 'G'"):
        rules.parse_feedback("GGGG")


def test_rules_hash_equal_and_pickle_by_their_lists():
    import pickle

    a, b = Wordle(answers=["crane"], guesses=["crane", "slate"]), Wordle(answers=["crane"], guesses=["crane", "slate"])
    assert a == b and hash(a) == hash(b) and a != Wordle()
    assert pickle.loads(pickle.dumps(a)) == a
    assert repr(Wordle()) == "Wordle(2500 answers, 10000 guesses)"


def test_a_game_renders_as_text_and_tiles():
    env = gym.make("Wordle-v0", render_mode="ansi")
    rules = env.unwrapped.rules
    env.reset(options={"secret": rules.answers.index("there")})
    env.step(rules.parse_action("three"))
    assert "three  ->  GGYYG" in env.render()
    env = gym.make("Wordle-v0", render_mode="rgb_array")
    env.reset(seed=0)
    empty = env.render()
    env.step(0)
    assert empty.shape == env.render().shape and (env.render() != empty).any()
