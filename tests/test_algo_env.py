"""The Algo AEC env: PettingZoo's API, seed and render tests, observations, rewards and truncation."""

from __future__ import annotations

import numpy as np
import pytest

from deduction_envs.envs import algo_v0
from deduction_envs.envs.algo import observation_size


def play(env, seed: int) -> dict[str, float]:
    """A random game; checks every observation on the way and returns the final rewards."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rules = env.unwrapped.rules
    n, k = rules.numbers, rules.max_hand
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        player = env.possible_agents.index(agent)
        state = env.unwrapped.table.state
        table = observation["observation"][: rules.players * k * (3 + 3 * n)].reshape(rules.players, k, 3 + 3 * n)
        for row in range(rules.players):
            seat = (player + row) % rules.players
            hand = state.hands[seat]
            assert table[row, : len(hand), 0].all() and not table[row, len(hand) :].any()
            truth = np.array(hand) // 2
            probabilities = table[row, : len(hand), 3 + 2 * n :]
            np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-5)
            assert (probabilities[np.arange(len(hand)), truth] > 0).all()  # the truth is always possible
            if seat == player:  # its own numbers are known to it
                assert (table[row, np.arange(len(hand)), 3 + truth] == 1).all()
            else:  # an opponent's face-down numbers are not in the one-hot
                hidden = [i for i, c in enumerate(hand) if c not in state.revealed[seat]]
                assert not table[row, hidden, 3 : 3 + n].any()
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
    return totals


@pytest.mark.parametrize(
    ("players", "expected"), [(2, [-1.0, 1.0]), (3, [-1.0, 0.0, 1.0]), (4, [-1.0, -1 / 3, 1 / 3, 1.0])]
)
def test_observations_are_information_sets_and_rewards_rank_the_players(players, expected):
    env = algo_v0.env(players=players)
    for seed in range(3):
        totals = play(env, seed)
        state = env.unwrapped.table.state
        assert sorted(totals.values()) == pytest.approx(expected)
        assert totals[f"player_{state.winner}"] == 1.0 and totals[f"player_{state.out[0]}"] == -1.0


def test_max_cycles_truncates_with_no_reward_and_the_table_can_be_switched_off():
    env = algo_v0.env(max_cycles=5, probabilities=False)
    env.reset(seed=1)
    steps = 0
    for _ in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            assert truncation and reward == 0 and steps == 5
            env.step(None)
            continue
        assert observation["observation"].shape == (observation_size(env.unwrapped.rules),)
        assert not observation["observation"][: 2 * 20 * 39].reshape(2, 20, 39)[:, :, 27:].any()  # no table
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        steps += 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 5}, "players must be an integer in \\[2, 4\\]"),
        ({"max_cycles": 0}, "max_cycles must be an integer >= 1"),
        ({"render_mode": "video"}, "render_mode must be one of"),
    ],
)
def test_bad_arguments_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        algo_v0.env(**kwargs)


def test_registered_with_pettingzoo_where_it_has_a_registry():
    import pettingzoo

    if not hasattr(pettingzoo, "make"):
        pytest.skip(f"PettingZoo {pettingzoo.__version__} has no registry")
    env = pettingzoo.make("aec", "deduction_envs/algo-v0", players=3, max_cycles=50)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"] and env.unwrapped.max_cycles == 50


@pytest.mark.parametrize("make", [algo_v0.env, algo_v0.raw_env])
def test_a_masked_action_ends_the_game_with_a_penalty_and_strict_mode_raises(make):
    env = make(players=3)
    env.reset(seed=4)
    agent = env.agent_selection
    masked = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="masked action"):
        env.step(masked)
    assert all(env.terminations.values()) and env.infos[agent] == {"illegal_action": masked}
    assert env.rewards == {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
    strict = make(players=3, illegal_action="raise")
    strict.reset(seed=4)
    before = strict.unwrapped.table.state.copy()
    with pytest.raises(ValueError, match=f"action {masked} is masked"):
        strict.step(masked)
    assert strict.unwrapped.table.state == before and not any(strict.terminations.values())


@pytest.mark.parametrize("action", [-1, 10**6, 2.5, True, "3", None])
def test_an_action_outside_the_action_space_is_a_clear_error(action):
    env = algo_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action must be an integer in \[0, 260\]"):
        env.step(action)
