"""Trained SB3 models as agents: the same observation as the env, masks always applied."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from stable_baselines3 import A2C, DQN, PPO

from agents import SB3Policy, evaluate
from deduction_envs.games import Mastermind

SIZES = {"pegs": 2, "colors": 3}


def untrained(algorithm, **sizes):
    return algorithm("MultiInputPolicy", gym.make("Mastermind-v0", **(sizes or SIZES)), seed=0, device="cpu")


@pytest.mark.parametrize("mask", ["consistent", "unasked"])
@pytest.mark.parametrize("algorithm", [MaskablePPO, PPO, A2C, DQN], ids=lambda a: a.__name__)
def test_the_policy_sees_exactly_the_envs_observation_and_plays_legal_queries(algorithm, mask):
    policy = SB3Policy(untrained(algorithm))
    env = gym.make("Mastermind-v0", action_mask=mask, illegal_action="raise", **SIZES)  # masked queries raise
    for seed in range(3):
        observation, info = env.reset(seed=seed)
        policy.reset(env.unwrapped.rules, seed=seed)
        policy.action_mask = mask
        terminated = truncated = False
        while not (terminated or truncated):
            mine = policy.observation()
            np.testing.assert_array_equal(mine["history"], observation["history"])
            np.testing.assert_array_equal(mine["information_set"], observation["information_set"])
            np.testing.assert_array_equal(policy.mask(), env.unwrapped.action_masks())
            action = policy.act()
            observation, _, terminated, truncated, info = env.step(action)
            if not terminated:
                policy.observe(action, info["feedback"])
        assert terminated  # consistent guesses, and 12 distinct ones of 9 codes, always find the secret


def test_a_saved_model_loads_and_plays_like_the_original(tmp_path):
    model = untrained(MaskablePPO)
    model.save(tmp_path / "model")
    original, loaded = SB3Policy(model), SB3Policy.load(tmp_path / "model.zip")
    rules = Mastermind(**SIZES)
    for agent in (original, loaded):
        agent.reset(rules, seed=0)
    for _ in range(3):
        action = original.act()
        assert loaded.act() == action
        feedback = int(rules.feedback(action, 5))
        if feedback == rules.solved_feedback:
            break
        original.observe(action, feedback)
        loaded.observe(action, feedback)


def test_the_evaluation_harness_takes_a_trained_model_like_any_agent():
    result = evaluate(SB3Policy(untrained(MaskablePPO), action_mask="consistent"), "Mastermind-v0", SIZES)
    assert result.exact and result.episodes == 9 and result.solve_rate == 1.0


def test_bad_models_and_mismatched_games_are_clear_errors(tmp_path):
    with pytest.raises(TypeError, match="must be a stable-baselines3 model"):
        SB3Policy("model.zip")
    with pytest.raises(FileNotFoundError, match="no saved model"):
        SB3Policy.load(tmp_path / "missing.zip")
    with pytest.raises(ValueError, match="algo must be one of"):
        SB3Policy.load(tmp_path / "missing.zip", algo="sac")
    policy = SB3Policy(untrained(MaskablePPO))
    with pytest.raises(ValueError, match="trained on another game or size"):
        policy.reset(Mastermind(pegs=3, colors=3))
    with pytest.raises(ValueError, match="action_mask must be"):
        SB3Policy(untrained(MaskablePPO), action_mask="some")
