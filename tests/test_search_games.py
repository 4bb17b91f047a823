"""Treasure Hunt and Low-Middle-High: rules against slow references, worked examples, errors."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from deduction_envs.core.information_set import EnumeratedInformationSet
from deduction_envs.games import LowMiddleHigh, TreasureHunt


def reference_rectangles(width, height):
    """Every (top, left, bottom, right), in lexicographic order, by brute force."""
    return sorted(
        (t, left, b, r)
        for t in range(height)
        for b in range(height)
        for left in range(width)
        for r in range(width)
        if t <= b and left <= r
    )


@pytest.mark.parametrize(("width", "height"), [(1, 2), (3, 2), (4, 4), (5, 3)])
def test_treasure_hunt_feedback_matches_the_rule_book(width, height):
    rules = TreasureHunt(width=width, height=height)
    rects = reference_rectangles(width, height)
    assert [tuple(r) for r in rules.rectangles] == rects
    assert rules.num_actions == width * (width + 1) * height * (height + 1) // 4
    cells = np.arange(width * height)
    expected = np.array(
        [[int(t <= cell // width <= b and left <= cell % width <= r) for cell in cells] for t, left, b, r in rects]
    )
    np.testing.assert_array_equal(rules.feedback_matrix(np.arange(len(rects)), cells), expected)


def test_treasure_hunt_worked_example_from_the_docstring():
    env = gym.make("TreasureHunt-v0")
    rules = env.unwrapped.rules
    env.reset(options={"secret": rules.parse_cell("C2")})
    answers = []
    for query in ("A1:D2", "C1:D2", "C1:C2", "C2"):
        _, _, terminated, _, info = env.step(rules.parse_action(query))
        answers.append((rules.format_feedback(info["feedback"]), info["candidates"], terminated))
    assert answers == [("inside", 8, False), ("inside", 4, False), ("inside", 2, False), ("inside", 1, True)]


def test_treasure_hunt_names_and_parses_cells_and_rectangles():
    rules = TreasureHunt(width=4, height=3)
    assert rules.cell_name(0) == "A1" and rules.cell_name(6) == "C2" and rules.parse_cell("c2") == 6
    for action in range(rules.num_actions):
        assert rules.parse_action(rules.format_action(action)) == action
    assert rules.parse_action("B3:A1") == rules.parse_action("A1:B3")
    assert rules.format_action(rules.guess_actions(np.array([6]))[0]) == "C2:C2"
    for bad in ("E1", "A4", "A0", "A1:B2:C3", "11", ""):
        with pytest.raises(ValueError, match=r"a cell is a column letter|a rectangle is two cells"):
            rules.parse_action(bad)


def test_halving_finds_every_treasure_of_a_4x4_grid_in_4_queries():
    rules = TreasureHunt()
    for secret in range(16):
        knowledge = EnumeratedInformationSet(rules)
        steps = 0
        while knowledge.size > 1:
            cells = knowledge.candidates
            rows, cols = np.divmod(cells, 4)
            # The top (or left) half of the bounding box of the candidates.
            if rows.max() > rows.min():
                mid = (rows.min() + rows.max()) // 2
                query = f"A{rows.min() + 1}:D{mid + 1}"
            else:
                mid = (cols.min() + cols.max()) // 2
                query = f"{'ABCD'[cols.min()]}{rows[0] + 1}:{'ABCD'[mid]}{rows[0] + 1}"
            action = rules.parse_action(query)
            knowledge = knowledge.update(action, int(rules.feedback(action, secret)))
            steps += 1
            assert knowledge.entropy() == pytest.approx(4 - steps)  # a straight line, one bit per query
        assert steps == 4 and knowledge.candidates.tolist() == [secret]


@pytest.mark.parametrize("n", [2, 3, 7, 81])
def test_low_middle_high_feedback_matches_the_rule_book(n):
    rules = LowMiddleHigh(n=n)
    pairs = [(a, b) for a in range(1, n + 1) for b in range(a, n + 1)]
    assert [tuple(c) for c in rules.cuts] == pairs
    assert [rules.action_of(a, b) for a, b in pairs] == list(range(len(pairs)))
    numbers = np.arange(1, n + 1)
    expected = np.array([[0 if v < a else 1 if v <= b else 2 for v in numbers] for a, b in pairs])
    np.testing.assert_array_equal(rules.feedback_matrix(np.arange(len(pairs)), numbers - 1), expected)


def test_low_middle_high_worked_example_from_the_docstring():
    env = gym.make("LowMiddleHigh-v0")
    rules = env.unwrapped.rules
    env.reset(options={"secret": 50 - 1})
    answers = []
    for query in ("28-54", "37-45", "49-51", "50-50"):
        _, _, terminated, _, info = env.step(rules.parse_action(query))
        answers.append((rules.format_feedback(info["feedback"]), info["candidates"], terminated))
    assert answers == [("middle", 27, False), ("high", 9, False), ("middle", 3, False), ("middle", 1, True)]


@pytest.mark.parametrize(("n", "queries"), [(2, 1), (3, 1), (4, 2), (9, 2), (10, 3), (81, 4), (82, 5), (243, 5)])
def test_thirds_find_every_number_in_ceil_log3_n_queries(n, queries):
    rules = LowMiddleHigh(n=n)
    assert rules.optimal_queries == queries == math.ceil(round(math.log(n, 3), 9))
    worst = 0
    for secret in range(n):
        knowledge, steps = EnumeratedInformationSet(rules), 0
        while knowledge.size > 1:
            low, high = knowledge.candidates[0] + 1, knowledge.candidates[-1] + 1
            third = -(-(high - low + 1) // 3)
            action = rules.action_of(low + third, min(low + 2 * third - 1, high))
            knowledge = knowledge.update(action, int(rules.feedback(action, secret)))
            steps += 1
        worst = max(worst, steps)
    assert worst == queries


def test_low_middle_high_parses_and_rejects_queries():
    rules = LowMiddleHigh(n=10)
    assert rules.parse_action(" 3 - 7 ") == rules.parse_action("3,7") == rules.action_of(3, 7)
    assert all(rules.parse_action(rules.format_action(a)) == a for a in range(rules.num_actions))
    for bad in ("7-3", "0-5", "3-11", "3", "a-b"):
        with pytest.raises(ValueError, match=r"two cut points 'a-b' with 1 <= a <= b <= 10"):
            rules.parse_action(bad)
    with pytest.raises(ValueError, match=r"b must be an integer in \[7, 10\], got 3"):
        rules.action_of(7, 3)


@pytest.mark.parametrize(
    ("game", "sizes", "message"),
    [
        ("TreasureHunt", {"width": 0}, r"width must be an integer in \[1, 26\], got 0"),
        ("TreasureHunt", {"width": 1, "height": 1}, r"at least 2 cells"),
        ("TreasureHunt", {"height": 27}, r"height must be an integer in \[1, 26\], got 27"),
        ("LowMiddleHigh", {"n": 1}, r"n must be an integer in \[2, 2048\], got 1"),
        ("LowMiddleHigh", {"n": 2.5}, r"n must be an integer in \[2, 2048\], got 2.5"),
    ],
)
def test_bad_sizes_are_clear_errors(game, sizes, message):
    with pytest.raises(ValueError, match=message):
        gym.make(f"{game}-v0", **sizes)


def test_boards_render_as_text_and_pictures():
    env = gym.make("TreasureHunt-v0", render_mode="ansi")
    rules = env.unwrapped.rules
    env.reset(options={"secret": 0})
    env.step(rules.parse_action("A1:B4"))
    text = env.render()
    assert "A1:B4  ->  inside" in text and " 1 ? ? . ." in text
    env = gym.make("LowMiddleHigh-v0", render_mode="rgb_array")
    env.reset(options={"secret": 0})
    before = env.render()
    env.step(env.unwrapped.rules.parse_action("10-20"))
    after = env.render()
    assert before.dtype == np.uint8 and before.shape == after.shape and (before != after).any()
    text_env = gym.make("LowMiddleHigh-v0", render_mode="ansi")
    text_env.reset(options={"secret": 0})
    text_env.step(text_env.unwrapped.rules.parse_action("10-20"))
    assert "possible: 1..9" in text_env.render()
