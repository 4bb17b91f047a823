"""Black Box: the vectorised tracer against a cell-by-cell reference, worked boards, look-alike layouts."""

from __future__ import annotations

import itertools
import math

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs import DeductionEnv
from deduction_envs.core.information_set import EnumeratedInformationSet
from deduction_envs.games import BlackBox


def reference_answer(size, atoms, entry):
    """Follow one ray cell by cell, straight from the rule book. 0 hit, 1 reflection, 2 + p exit at p."""
    atoms = set(atoms)
    side, offset = divmod(entry, size)
    row, col, heading = {
        0: (-1, offset, (1, 0)),
        1: (offset, size, (0, -1)),
        2: (size, offset, (-1, 0)),
        3: (offset, -1, (0, 1)),
    }[side]

    def inside(r, c):
        return 0 <= r < size and 0 <= c < size

    def atom(r, c):
        return (r * size + c) in atoms if inside(r, c) else False

    entering = True
    while True:
        dr, dc = heading
        ahead = (row + dr, col + dc)
        if not entering and not inside(*ahead):
            exit_position = {(-1, 0): col, (0, 1): size + row, (1, 0): 2 * size + col, (0, -1): 3 * size + row}[heading]
            return 1 if exit_position == entry else 2 + exit_position
        if atom(*ahead):
            return 0
        # The two cells diagonally ahead: beside the cell ahead, across the heading.
        side_a = (ahead[0] + dc, ahead[1] + dr)
        side_b = (ahead[0] - dc, ahead[1] - dr)
        if atom(*side_a) or atom(*side_b):
            if entering:
                return 1  # the edge rule
            if atom(*side_a) and atom(*side_b):
                heading = (-dr, -dc)
            elif atom(*side_a):
                heading = (-dc, -dr)  # away from side_a
            else:
                heading = (dc, dr)
            continue
        row, col = ahead
        entering = False


@pytest.mark.parametrize(("size", "atoms"), [(2, 1), (3, 2), (4, 2), (4, 3), (5, 3)])
def test_every_ray_in_every_small_layout_matches_the_reference(size, atoms):
    rules = BlackBox(size=size, atoms=atoms)
    layouts = list(itertools.combinations(range(size * size), atoms))
    assert [tuple(x) for x in rules.layouts] == layouts
    table = rules.feedback_matrix(np.arange(rules.num_actions), np.arange(rules.num_secrets))
    for entry in range(4 * size):
        assert table[entry].tolist() == [reference_answer(size, layout, entry) for layout in layouts]


DEFAULT = BlackBox()


@given(layout=st.sets(st.integers(0, 63), min_size=4, max_size=4), entry=st.integers(0, 31))
def test_rays_on_the_default_board_match_the_reference(layout, entry):
    rules = DEFAULT
    index = rules.index_of(layout)
    assert sorted(layout) == rules.layouts[index].tolist()
    assert int(rules.feedback(entry, index)) == reference_answer(8, layout, entry)


@pytest.mark.parametrize(
    ("atoms", "ray", "answer"),
    [
        ([24], "L3", "exit at R3"),  # nothing near row 3: straight through
        ([7], "L3", "exit at B2"),  # the docstring's first diagram: deflected down
        ([7, 17], "L3", "reflection"),  # both diagonals: turned back
        ([0], "L2", "reflection"),  # the edge rule
        ([0], "L1", "hit"),  # an atom in the entry cell
        ([12], "T3", "hit"),  # straight down column C into the centre
        ([12], "T2", "exit at L2"),  # deflected left by the centre atom when at B2
        ([6, 8], "T3", "reflection"),  # B2 and D2 flank the column: back out of the top
        ([8, 16], "T3", "exit at L1"),  # at C1, D2 is diagonally ahead: left along row 1; B4 is never near
    ],
)
def test_hand_worked_boards_on_five_by_five(atoms, ray, answer):
    rules = BlackBox(size=5, atoms=len(atoms))
    layout = rules.index_of(atoms)
    assert rules.format_feedback(rules.feedback(rules.parse_action(ray), layout)) == answer
    assert reference_answer(5, atoms, rules.parse_action(ray)) == rules.feedback(rules.parse_action(ray), layout)


def test_layouts_that_no_ray_tells_apart_end_the_game_without_a_known_secret():
    env = gym.make("BlackBox-v0", size=4, atoms=3)
    rules = env.unwrapped.rules
    twins = [rules.index_of([0, 2, 14]), rules.index_of([2, 12, 14])]  # corner atoms the edge rule hides
    table = rules.feedback_matrix(np.arange(rules.num_actions), np.array(twins))
    assert (table[:, 0] == table[:, 1]).all()
    env.reset(options={"secret": twins[0]})
    for action in range(rules.num_actions):
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert terminated and not truncated
    assert info["secret_known"] is False and info["candidates"] == 2
    assert set(env.unwrapped.information_set.candidates) == set(twins)


def test_a_layout_told_apart_from_every_other_ends_with_the_secret_known():
    env = gym.make("BlackBox-v0", size=4, atoms=2)
    env.reset(options={"secret": 17})
    for action in range(env.unwrapped.rules.num_actions):
        _, _, terminated, _, info = env.step(action)
        if terminated:
            break
    assert terminated and info["secret_known"] is True and info["candidates"] == 1


@settings(max_examples=60, deadline=None)
@given(
    board=st.sampled_from([(4, 2), (4, 3), (5, 2)]),
    rays=st.lists(st.integers(0, 19), max_size=6),
    secret=st.integers(0, 10**6),
    traced=st.integers(0, 20),
)
def test_the_end_rule_agrees_with_every_ray_traced_by_hand(board, rays, secret, traced):
    """indistinguishable(set) is whether no ray answers two of its layouts differently, whatever rows of the
    memo are traced yet (a fresh rules object, so some rows are and some are not)."""
    size, atoms = board
    rules = BlackBox(size=size, atoms=atoms)
    rules.feedback_table(np.arange(min(traced, rules.num_actions)))  # trace the first few rows only
    knowledge = EnumeratedInformationSet(rules)
    secret %= rules.num_secrets
    for ray in rays:
        ray %= rules.num_actions
        knowledge = knowledge.update(ray, int(rules.feedback(ray, np.array([secret]))[0]))
    support = knowledge.support
    alike = all(
        len({reference_answer(size, rules.layouts[layout].tolist(), ray) for layout in support}) == 1
        for ray in range(rules.num_actions)
    )
    assert rules.indistinguishable(knowledge) == alike


def test_the_default_board_traces_each_ray_once_for_every_layout():
    env = gym.make("BlackBox-v0")
    rules = env.unwrapped.rules
    assert rules.num_secrets == 635_376 == math.comb(64, 4)
    _, info = env.reset(seed=3)
    assert info["entropy"] == pytest.approx(math.log2(635_376))
    table, ready = rules._feedback_rows
    first, second = rules.parse_action("T4"), rules.parse_action("L5")
    env.step(first)
    assert ready[first]  # the row of every layout, kept
    env.step(second)
    assert ready[second]
    layouts = np.random.default_rng(0).integers(rules.num_secrets, size=20)
    for layout in layouts:  # the memo agrees with the cell-by-cell reference
        assert table[second, layout] == reference_answer(8, rules.layouts[layout].tolist(), second)
    assert env.unwrapped._secret in env.unwrapped.information_set


def test_names_of_edge_positions_and_answers():
    rules = BlackBox(size=5, atoms=1)
    assert [rules.format_action(a) for a in (0, 4, 5, 10, 19)] == ["T1", "T5", "R1", "B1", "L5"]
    assert all(rules.parse_action(rules.format_action(a)) == a for a in range(rules.num_actions))
    assert rules.parse_action(" b3 ") == 12
    for bad in ("T0", "T6", "X1", "3"):
        with pytest.raises(ValueError, match=r"an edge position is T, R, B or L and a number in \[1, 5\]"):
            rules.parse_action(bad)
    with pytest.raises(ValueError, match=r"a layout is 1 distinct cells in \[0, 25\)"):
        rules.index_of([25])


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ({"size": 9}, r"size must be an integer in \[2, 8\], got 9"),
        ({"atoms": 0}, r"atoms must be an integer in \[1, 63\], got 0"),
        ({"size": 8, "atoms": 5}, r"has 7,624,512 layouts; at most 4,194,304 can be enumerated"),
    ],
)
def test_bad_sizes_are_clear_errors(sizes, message):
    with pytest.raises(ValueError, match=message):
        DeductionEnv("BlackBox", **sizes)


def test_boards_render_as_text_and_pictures():
    env = gym.make("BlackBox-v0", size=5, atoms=2, render_mode="ansi")
    rules = env.unwrapped.rules
    env.reset(options={"secret": rules.index_of([0, 24])})
    env.step(rules.parse_action("L1"))
    text = env.render()
    assert "L1  ->  hit" in text
    assert len(text.splitlines()[-5:]) == 5
    knowledge = env.unwrapped.information_set
    occupied = np.zeros(25)
    for layout in rules.layouts[knowledge.candidates]:
        occupied[layout] += 1 / knowledge.size
    np.testing.assert_allclose(rules.atom_probabilities(knowledge), occupied)
    assert occupied[5:].sum() > 0 and occupied[0] > occupied[4]  # a hit on row 1: nearer cells likelier
    picture = gym.make("BlackBox-v0", render_mode="rgb_array")
    picture.reset(seed=0)
    before = picture.render()
    picture.step(0)
    assert before.shape == picture.render().shape and (before != picture.render()).any()
