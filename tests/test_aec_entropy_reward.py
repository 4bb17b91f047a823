"""The entropy reward on the multiplayer env: it telescopes to each player's bits, with opponents' gains charged."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from deduction_envs.envs import algo_v0
from deduction_envs.wrappers import AECEntropyRewardWrapper


def play_random(env, seed: int) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """A random game: each player's total reward, total shaping, and its entropy at the start."""
    env.reset(seed=seed)
    raw = env.unwrapped
    start = {a: raw.entropy(a) for a in env.possible_agents}
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    shaping = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        rewards[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        for a in env.possible_agents:
            shaping[a] += raw.infos[a]["entropy_reward"]
    return rewards, shaping, start


@pytest.mark.filterwarnings("ignore:Observation (space for each agent probably|is not a NumPy array):UserWarning")
def test_passes_the_api_test():
    api_test(AECEntropyRewardWrapper(algo_v0.env(), scale=0.5, opponents=0.5), num_cycles=200)


@pytest.mark.parametrize(("players", "opponents"), [(2, 0.0), (2, 1.0), (3, 0.5)])
def test_the_shaping_telescopes_to_the_bits_each_player_started_with(players, opponents):
    env = AECEntropyRewardWrapper(algo_v0.env(players=players), scale=0.25, opponents=opponents)
    for seed in range(3):
        rewards, shaping, start = play_random(env, seed)
        for agent in env.possible_agents:
            others = sum(start.values()) - start[agent]
            # The game ends with potential 0, so each player is credited all the bits it started with.
            assert shaping[agent] == pytest.approx(0.25 * (start[agent] - opponents * others))
        game = {a: rewards[a] - shaping[a] for a in env.possible_agents}
        assert sorted(game.values())[-1] == pytest.approx(1.0)  # the game's own rewards are untouched


def test_on_truncation_the_potential_is_kept():
    env = AECEntropyRewardWrapper(algo_v0.env(max_cycles=6), scale=1.0)
    rewards, shaping, start = play_random(env, seed=2)
    end = {a: env.unwrapped.entropy(a) for a in env.possible_agents}
    for agent in env.possible_agents:
        assert shaping[agent] == pytest.approx(start[agent] - end[agent]) and rewards[agent] == pytest.approx(
            shaping[agent]
        )


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="gamma must be in"):
        AECEntropyRewardWrapper(algo_v0.env(), gamma=0)
    with pytest.raises(ValueError, match="opponents must be >= 0"):
        AECEntropyRewardWrapper(algo_v0.env(), opponents=-1)
