"""Batched Clue's seats (issue 61, second piece): the observation of each game's seat to act equals
``clue_v0``'s (``probabilities=False``) at every step of random seeded games, and a seat's observation does not
change with cards it cannot see."""

from __future__ import annotations

import numpy as np
import pytest

from deduction_envs.envs import clue_v0
from deduction_envs.envs.clue_batched import BatchedClueSeats
from deduction_envs.games.clue import ClueRules
from deduction_envs.games.clue_batched import BatchedClueRules


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_each_seats_observation_is_the_aec_envs(players):
    rules, n = ClueRules(players), 12
    seats = BatchedClueSeats(BatchedClueRules(rules, n))
    seats.reset(seeds=range(n))
    envs = [clue_v0.raw_env(players=players, probabilities=False, max_cycles=10_000) for _ in range(n)]
    for seed, env in enumerate(envs):
        env.reset(seed=seed)
    rng, compared = np.random.default_rng(players), 0
    while not all(env.table.over for env in envs):
        observed = seats.observe()
        everyone = np.ones(n, dtype=bool)  # every seat's observation, the games over included
        for seat in range(players):
            theirs = seats.observe(np.full(n, seat), everyone)
            for g, env in enumerate(envs):
                np.testing.assert_array_equal(theirs[g], env.observe(f"player_{seat}")["observation"])
        actions = np.zeros(n, dtype=np.int64)
        for g, env in enumerate(envs):
            if env.table.over:
                continue
            expected = env.observe(env.agent_selection)
            np.testing.assert_array_equal(observed[g], expected["observation"], err_msg=f"game {g}")
            legal = np.flatnonzero(expected["action_mask"])
            accusations = legal[(legal >= rules.num_triples) & (legal < rules.end_action)]
            pick = accusations if accusations.size and rng.random() < 0.05 else legal[legal < rules.num_triples]
            actions[g] = rng.choice(pick if pick.size else legal)
            compared += 1
        seats.step(actions)
        for g, env in enumerate(envs):
            if not env.table.over:
                env.step(int(actions[g]))
    assert compared > 5 * n


def test_a_seats_observation_does_not_see_the_others_cards():
    """Two deals that differ only in a card swapped between seats 1 and 2: seats 0 and 3, who see neither hand,
    get the same observations while every turn is a wrong accusation (its verdict depends on the case file alone,
    the same in both)."""
    rules = ClueRules(4)
    seats = BatchedClueSeats(BatchedClueRules(rules, 2))
    places = np.array(rules.new_game(np.random.default_rng(7)).places)
    twin = places.copy()
    one, two = int(np.flatnonzero(places == 1)[0]), int(np.flatnonzero(places == 2)[0])
    twin[one], twin[two] = 2, 1
    seats.deal(np.array([0, 1]), np.stack([places, twin]))
    case = sorted(np.flatnonzero(places == 4).tolist())
    wrong = next(t for t in range(rules.num_triples) if sorted(rules.triple(t)) != case)
    compared = 0
    while not seats.games.over.all():
        observed, movers = seats.observe(), seats.games.mover
        assert movers[0] == movers[1]
        if movers[0] in (0, 3):
            np.testing.assert_array_equal(observed[0], observed[1])
            compared += 1
        seats.step(np.full(2, rules.num_triples + wrong))
    assert compared == 2
    with pytest.raises(ValueError, match="a deal gives each player its hand"):
        seats.deal(np.array([0]), np.zeros((1, rules.cards), dtype=np.int64))


def test_a_step_can_move_some_games_only():
    """The games not marked keep their state, knowledge and record; the marked ones move as if alone."""
    rules, n = ClueRules(3), 6
    both = [BatchedClueSeats(BatchedClueRules(rules, n)) for _ in range(2)]
    for seats in both:
        seats.reset(seeds=range(n))
    rng = np.random.default_rng(0)
    for turn in range(30):
        masks = both[0].games.legal_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        moving = np.arange(n) % 2 == turn % 2
        both[0].step(actions, moving)  # half the games a step, in turn
        both[1].step(np.where(moving, actions, 0), moving)
        np.testing.assert_array_equal(both[0].observe(), both[1].observe())
        assert (both[0].record == both[1].record).all()
    frozen = BatchedClueSeats(BatchedClueRules(rules, n))
    frozen.reset(seeds=range(n))
    before = frozen.observe().copy()
    frozen.step(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool))
    np.testing.assert_array_equal(frozen.observe(), before)
    with pytest.raises(ValueError, match="moving must be 6 bools"):
        frozen.step(np.zeros(n, dtype=np.int64), np.ones(n))


def test_a_masked_action_ends_its_game_only_as_the_aec_env_says():
    rules, n = ClueRules(3), 4
    seats = BatchedClueSeats(BatchedClueRules(rules, n))
    seats.reset(seeds=range(n))
    env = clue_v0.raw_env(players=3, probabilities=False)
    env.reset(seed=2)
    masked = int(np.flatnonzero(~seats.games.legal_masks()[2])[0])
    actions = np.array([0, 0, masked, 0])
    with pytest.warns(UserWarning, match="masked action"):
        env.step(masked)
    rewards, terminated, truncated = seats.step(actions)
    assert rewards[2].tolist() == [env.rewards[a] for a in env.possible_agents] == [-1.0, 0.0, 0.0]
    assert terminated.tolist() == [False, False, True, False] and not truncated.any()
    assert seats.illegal.tolist() == [False, False, True, False] and seats.games.over.tolist() == terminated.tolist()
    assert (seats.games.event["kind"][[0, 1, 3]] == 1).all()  # the others suggested
    strict = BatchedClueSeats(BatchedClueRules(rules, n), illegal_action="raise")
    strict.reset(seeds=range(n))
    before = strict.observe().copy()
    with pytest.raises(ValueError, match="game 2: action"):
        strict.step(actions)
    np.testing.assert_array_equal(strict.observe(), before)  # nothing moved
    with pytest.raises(ValueError, match="illegal_action must be"):
        BatchedClueSeats(BatchedClueRules(rules, n), illegal_action="skip")
    with pytest.raises(ValueError, match="max_cycles"):
        BatchedClueSeats(BatchedClueRules(rules, n), max_cycles=0)
    with pytest.raises(ValueError, match="seats must be 4 seats"):
        seats.observe(np.full(n, 3))


def test_max_cycles_truncates_as_the_aec_env():
    rules, n, cycles = ClueRules(4), 3, 7
    seats = BatchedClueSeats(BatchedClueRules(rules, n), max_cycles=cycles)
    seats.reset(seeds=range(n))
    envs = [clue_v0.raw_env(players=4, probabilities=False, max_cycles=cycles) for _ in range(n)]
    for seed, env in enumerate(envs):
        env.reset(seed=seed)
    for step in range(cycles):
        masks = seats.games.legal_masks()
        actions = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks])  # suggest, show, end
        rewards, terminated, truncated = seats.step(actions)
        for g, env in enumerate(envs):
            env.step(int(actions[g]))
            assert truncated[g] == env.truncations[env.agent_selection] == (step == cycles - 1)
        assert not terminated.any() and not rewards.any()
    assert seats.games.over.all()
    final = seats.observe(np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool))
    for g, env in enumerate(envs):
        np.testing.assert_array_equal(final[g], env.observe("player_0")["observation"])
