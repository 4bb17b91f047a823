"""The features policy: every action scored by its feature row, masks as usual, saved and loaded whole."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO

from agents import ClueDeductionSheet, SB3SeatPolicy
from deduction_envs.envs import clue_v0
from deduction_envs.envs.single_seat import SingleSeatEnv
from deduction_envs.games.clue import ClueRules
from train import training
from train.policies import FeatureHead, policy_for


def test_clue_action_features_name_each_actions_cards_and_kind():
    rules = ClueRules(4)
    features = rules.action_features()
    cards = rules.cards
    assert features.shape == (rules.num_actions, 3 * cards + 4)
    for action in range(rules.num_actions):
        move = rules.decode(action)
        kind = ("suggest", "accuse", "end", "show").index(move.kind)
        expected = np.zeros(3 * cards + 4)
        expected[3 * cards + kind] = 1
        if move.kind in ("suggest", "accuse"):
            expected[kind * cards + np.array(move.cards)] = 1
        elif move.kind == "show":
            expected[2 * cards + move.card] = 1
        np.testing.assert_array_equal(features[action], expected)


def test_the_head_scores_every_action_as_its_features_dot_the_weights():
    features = np.random.default_rng(0).random((7, 3)).astype(np.float32)
    head = FeatureHead(5, features)
    latent = torch.randn(4, 5)
    weights = head.weights(latent)
    torch.testing.assert_close(head(latent), weights @ torch.as_tensor(features.T))


@pytest.mark.parametrize("algorithm", [MaskablePPO, PPO])
def test_a_feature_policy_trains_masks_saves_and_loads(algorithm, tmp_path):
    env = SingleSeatEnv(clue_v0.raw_env(players=3), [ClueDeductionSheet(), ClueDeductionSheet()])
    name = "maskable_ppo" if algorithm is MaskablePPO else "ppo"
    policy, kwargs = policy_for(name, env.env.rules.action_features())
    model = algorithm(policy, env, n_steps=32, batch_size=32, n_epochs=1, seed=0, policy_kwargs=kwargs, device="cpu")
    model.learn(64)
    assert isinstance(model.policy.action_net, FeatureHead)
    model.save(tmp_path / "m")
    loaded = algorithm.load(tmp_path / "m", device="cpu")
    observation, _ = env.reset(seed=3)
    mask = env.action_masks()
    a = SB3SeatPolicy(model, clue_v0.raw_env(players=3))
    b = SB3SeatPolicy(loaded, clue_v0.raw_env(players=3))
    from agents.sb3_policy import _action_scores

    np.testing.assert_allclose(_action_scores(a.model, observation, mask), _action_scores(b.model, observation, mask))
    assert (_action_scores(a.model, observation, mask)[~mask] == 0).all()


def test_bad_feature_matrices_and_algorithms_are_refused(tmp_path, capsys):
    env = SingleSeatEnv(clue_v0.raw_env(players=3), [ClueDeductionSheet(), ClueDeductionSheet()])
    policy, _ = policy_for("maskable_ppo", np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"a row per action \(670\)"):
        MaskablePPO(policy, env, policy_kwargs={"action_features": np.zeros((3, 2))})
    with pytest.raises(ValueError, match="the features policy is for maskable_ppo or ppo"):
        policy_for("dqn", np.zeros((670, 2)))
    with pytest.raises(SystemExit):
        training.main(["--env", "algo_v0", "--policy", "features"])
    assert "algo_v0 has no action features yet" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        training.main(["--env", "Mastermind-v0", "--policy", "features", "--algo", "a2c"])
    assert "--policy features is for maskable_ppo and ppo" in capsys.readouterr().err
