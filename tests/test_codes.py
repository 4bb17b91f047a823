"""The code-breaking family's rules against brute force and hand-worked boards."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from conftest import all_codes, reference_score
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs.core.rules import MAX_ENUMERABLE_SECRETS
from deduction_envs.games import BullsAndCows, Mastermind, SimpleMastermind, make_rules, score_codes

SMALL_GAMES = [
    Mastermind(pegs=2, colors=3),
    Mastermind(pegs=3, colors=3),
    Mastermind(pegs=3, colors=4),
    Mastermind(pegs=4, colors=3),
    SimpleMastermind(pegs=3, colors=3),
    SimpleMastermind(pegs=2, colors=4),
    BullsAndCows(digits=2, symbols=4),
    BullsAndCows(digits=3, symbols=5),
]


def expected_feedback(rules, guess, secret):
    black, white = reference_score(guess, secret)
    return black * (rules.code_length + 1) + white if rules.count_whites else black


@pytest.mark.parametrize("rules", SMALL_GAMES, ids=repr)
def test_feedback_of_every_pair_matches_the_reference(rules):
    codes = all_codes(rules.code_length, rules.num_symbols, rules.distinct_symbols)
    assert len(codes) == rules.num_secrets
    every = np.arange(rules.num_secrets)
    for action, guess in enumerate(codes):
        expected = [expected_feedback(rules, guess, secret) for secret in codes]
        np.testing.assert_array_equal(rules.feedback(action, every), expected)


@pytest.mark.parametrize("rules", SMALL_GAMES, ids=repr)
def test_codes_are_numbered_in_lexicographic_order(rules):
    codes = all_codes(rules.code_length, rules.num_symbols, rules.distinct_symbols)
    np.testing.assert_array_equal(rules.codes, np.array(codes))
    for index, code in enumerate(codes):
        assert rules.code_of(index) == code
        assert rules.index_of(code) == index
        assert rules.parse_code(rules.format_code(index)) == index


@pytest.mark.parametrize(
    ("secret", "guess", "black", "white"),
    [
        ("AABB", "ABBA", 2, 2),  # repeated colours on both sides
        ("AABB", "BBAA", 0, 4),
        ("ABCD", "AAAA", 1, 0),  # one A in the secret matches once, not four times
        ("AAAA", "ABCD", 1, 0),
        ("ABCC", "CCAB", 0, 4),
        ("AABC", "ADAA", 1, 1),  # the secret's second A is the only one left for white
        ("FFFF", "FFFF", 4, 0),
        ("ABCD", "EFEF", 0, 0),
    ],
)
def test_hand_worked_mastermind_scores(secret, guess, black, white):
    rules = Mastermind()
    feedback = int(rules.feedback(rules.parse_code(guess), rules.parse_code(secret)))
    assert tuple(rules.feedback_components(feedback)) == (black, white)
    assert rules.format_feedback(feedback) == f"black {black}, white {white}"


def test_hand_worked_simple_mastermind_and_bulls_and_cows():
    simple = SimpleMastermind()
    assert simple.feedback(simple.parse_code("ABBA"), simple.parse_code("AABB")) == 2
    assert simple.format_feedback(2) == "black 2"
    bulls = BullsAndCows()
    feedback = int(bulls.feedback(bulls.parse_code("1243"), bulls.parse_code("1234")))
    assert bulls.format_feedback(feedback) == "bulls 2, cows 2"
    assert bulls.feedback(bulls.parse_code("4567"), bulls.parse_code("0123")) == 0


def test_documented_index_order_of_the_classic_sizes():
    mastermind = Mastermind()
    assert mastermind.num_secrets == 1296
    assert mastermind.format_code(0) == "AAAA"
    assert mastermind.format_code(1) == "AAAB"
    assert mastermind.format_code(1295) == "FFFF"
    assert mastermind.index_of("CFAB") == 2 * 216 + 5 * 36 + 0 * 6 + 1
    bulls = BullsAndCows()
    assert bulls.num_secrets == 5040
    assert (bulls.format_code(0), bulls.format_code(1), bulls.format_code(5039)) == ("0123", "0124", "9876")


def test_uncached_feedback_on_a_million_codes_matches_the_reference():
    rules = Mastermind(pegs=5, colors=16)  # 1,048,576 codes: too many for the row cache
    assert rules.num_secrets == 1 << 20
    assert rules._feedback_rows is None
    rng = np.random.default_rng(7)
    secrets = rng.choice(rules.num_secrets, size=300, replace=False)
    action = int(rng.integers(rules.num_secrets))
    got = rules.feedback(action, secrets)
    guess = rules.code_of(action)
    np.testing.assert_array_equal(got, [expected_feedback(rules, guess, rules.code_of(s)) for s in secrets])
    # The whole-row path (no gather) agrees with the gathered one, and so does one secret alone.
    np.testing.assert_array_equal(rules._compute_feedback(action, None)[secrets], got)
    assert rules.feedback(action, int(secrets[0])) == got[0]


@settings(max_examples=50, deadline=None)
@given(
    pegs=st.integers(1, 7),
    symbols=st.integers(2, 9),
    whites=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_score_codes_matches_the_reference_on_random_codes(pegs, symbols, whites, seed):
    rng = np.random.default_rng(seed)
    guesses = rng.integers(symbols, size=(int(rng.integers(1, 6)), pegs))
    secrets = rng.integers(symbols, size=(int(rng.integers(1, 40)), pegs))
    got = score_codes(guesses, secrets, symbols, whites=whites)
    for i, guess in enumerate(guesses):
        for j, secret in enumerate(secrets):
            black, white = reference_score(tuple(guess), tuple(secret))
            assert got[i, j] == (black * (pegs + 1) + white if whites else black)


@pytest.mark.parametrize(
    ("guesses", "secrets", "symbols", "message"),
    [
        ([[0, 1, 2]], [[0, 1, 2, 3]], 4, "guesses have 3 pegs and secrets 4"),
        ([[0, 1, 4]], [[0, 1, 2]], 4, r"guesses must hold symbols 0..3, got 0..4"),
        ([[0, 1, 2]], [[-1, 1, 2]], 4, r"secrets must hold symbols 0..3, got -1..2"),
        ([[0.5, 1, 2]], [[0, 1, 2]], 4, "guesses must be integer codes"),
        ([[[0]]], [[0]], 4, r"guesses must be integer codes of shape \(count, pegs\)"),
        ([[0]], [[0]], 0, r"symbols must be an integer in \[1, 255\], got 0"),
    ],
)
def test_score_codes_refuses_bad_codes_clearly(guesses, secrets, symbols, message):
    with pytest.raises(ValueError, match=message):
        score_codes(guesses, secrets, symbols)


def test_cached_rows_give_the_same_answers_as_direct_computation():
    rules = BullsAndCows()
    secrets = np.arange(0, rules.num_secrets, 13)
    first = rules.feedback(77, secrets)
    np.testing.assert_array_equal(rules.feedback(77, secrets), first)  # from the cache now
    np.testing.assert_array_equal(rules._compute_feedback(77, secrets), first)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Mastermind(pegs=0), r"pegs must be an integer in \[1, 22\], got 0"),
        (lambda: Mastermind(colors=1), r"colors must be an integer in \[2, 26\], got 1"),
        (lambda: Mastermind(colors=27), r"colors must be an integer in \[2, 26\], got 27"),
        (lambda: Mastermind(pegs=2.5), r"pegs must be an integer in \[1, 22\], got 2.5"),
        (lambda: Mastermind(pegs=True), r"pegs must be an integer in \[1, 22\], got True"),
        (lambda: BullsAndCows(digits=5, symbols=4), r"digits \(5\) must not exceed symbols \(4\)"),
        (lambda: BullsAndCows(symbols=37), r"symbols must be an integer in \[2, 36\], got 37"),
        (lambda: Mastermind(pegs=10, colors=10), r"10,000,000,000 codes; at most 4,194,304 can be enumerated"),
        (lambda: SimpleMastermind(pegs=23, colors=2), r"pegs must be an integer in \[1, 22\], got 23"),
        (lambda: SimpleMastermind(pegs=10**9), r"pegs must be an integer in \[1, 22\], got 1000000000"),
        (lambda: Mastermind(pegs=12, colors=4), r"16,777,216 codes; at most 4,194,304"),
    ],
)
def test_bad_sizes_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_the_enumeration_limit_itself_is_accepted():
    rules = SimpleMastermind(pegs=22, colors=2)
    assert rules.num_secrets == MAX_ENUMERABLE_SECRETS


def test_make_rules_names_what_it_accepts():
    assert make_rules("BullsAndCows", digits=3) == BullsAndCows(digits=3, symbols=10)
    with pytest.raises(TypeError, match=r"no size parameter 'peg'.*\['pegs', 'colors'\]"):
        make_rules("Mastermind", peg=3)
    with pytest.raises(ValueError, match="unknown game 'Chess'; the games are Mastermind-v0"):
        make_rules("Chess")


@pytest.mark.parametrize(
    ("text", "message"),
    [("AAB", "a code is 4 symbols from 'ABCDEF'"), ("AAAG", "a code is 4 symbols"), ("", "a code is 4")],
)
def test_malformed_codes_are_clear_errors(text, message):
    with pytest.raises(ValueError, match=message):
        Mastermind().parse_code(text)


def test_codes_with_repeats_are_not_bulls_and_cows_codes():
    with pytest.raises(ValueError, match="must be distinct"):
        BullsAndCows().parse_code("1123")
    with pytest.raises(ValueError, match="code symbols must be in"):
        BullsAndCows().index_of([0, 1, 2, 10])


def test_parsing_ignores_case_spaces_and_commas():
    rules = Mastermind()
    assert rules.parse_code("a a, b b") == rules.parse_code("AABB")


def test_rules_are_immutable_hashable_and_pickle_without_caches():
    rules = Mastermind()
    rules.feedback(3, np.arange(10))  # fills a cache
    with pytest.raises(AttributeError):
        rules.pegs = 5
    assert {rules: 1}[Mastermind(pegs=4, colors=6)] == 1
    payload = pickle.dumps(rules)
    assert len(payload) < 1000  # the 1296 x 1296 row cache stayed behind
    restored = pickle.loads(payload)
    assert restored == rules
    np.testing.assert_array_equal(restored.feedback(3, np.arange(10)), rules.feedback(3, np.arange(10)))
    with pytest.raises(ValueError):
        rules.codes[0, 0] = 1  # read-only
