"""Trained SB3 models as agents: the same observation as the env, masks always applied."""

from __future__ import annotations

import re
from pathlib import Path

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


def test_files_that_are_not_whole_models_are_refused_naming_the_file_and_the_fault(tmp_path, capsys):
    """A zip without SB3's data ended in ``AssertionError: No data found in the saved file``; a damaged data member
    said "Unterminated string..." without naming the file."""
    import zipfile

    from agents.sb3_policy import check_saved_model, load_model
    from train import evaluate

    model = untrained(MaskablePPO)
    model.save(tmp_path / "good.zip")
    with zipfile.ZipFile(tmp_path / "good.zip") as archive:
        members = {name: archive.read(name) for name in archive.namelist()}

    def damaged(name: str, **changes: bytes | None) -> str:
        with zipfile.ZipFile(tmp_path / name, "w") as archive:
            for member, content in {**members, **changes}.items():
                if content is not None:
                    archive.writestr(member, content)
        return str(tmp_path / name)

    (tmp_path / "text.zip").write_text("not a zip")
    cases = {
        str(tmp_path / "text.zip"): "text.zip is not a model as stable-baselines3's model.save() writes it: it is not "
        "a zip file",
        damaged("nodata.zip", data=None): "nodata.zip is not a model as stable-baselines3's model.save() writes it: it "
        "has no 'data' member",
        damaged("noweights.zip", **{"policy.pth": None}): "noweights.zip is not a model as stable-baselines3's "
        "model.save() writes it: it has no 'policy.pth' member",
        damaged("cut.zip", data=members["data"][:50]): "cut.zip is damaged: its settings ('data', JSON) do not parse: "
        "Unterminated string",
        damaged("list.zip", data=b"[1, 2]"): "list.zip is damaged: its settings ('data') are not a JSON object",
        damaged("weights.zip", **{"policy.pth": b"garbage"}): "weights.zip could not be loaded as a maskable_ppo "
        "model",
    }
    for path, message in cases.items():
        for load in (check_saved_model, load_model, SB3Policy.load):
            if load is check_saved_model and "could not be loaded" in message:
                assert check_saved_model(path) == Path(path)  # whole on the outside: only loading finds it
                continue
            with pytest.raises(ValueError, match=re.escape(message)):
                load(path)
        with pytest.raises(SystemExit):
            evaluate.main(["--model", path, "--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3"])
        err = capsys.readouterr().err
        assert "Traceback" not in err and message in err, err  # a one-line argparse error
    assert load_model(tmp_path / "good", "maskable_ppo").action_space.n == model.action_space.n  # .zip is optional
    with pytest.raises(ValueError, match="could not be loaded as a dqn model"):
        load_model(tmp_path / "good.zip", "dqn")


def test_evaluate_plays_the_reference_agents_asked_for_beside_a_model(tmp_path, capsys):
    """The kept-model example ran with --no-references and so never showed ISES beside the model; --references
    picks which (SO-ISMCTS, at 0.1 s a decision, is the slow one)."""
    from train import evaluate as evaluate_command

    model = untrained(MaskablePPO)
    model.save(tmp_path / "model.zip")
    argv = ["--model", str(tmp_path / "model.zip"), "--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3"]
    results = evaluate_command.main([*argv, "--references", "ises,random_consistent"])
    assert [r.agent for r in results] == ["MaskablePPO policy", "ISES", "random (consistent)"]
    with pytest.raises(SystemExit):
        evaluate_command.main([*argv, "--references", "knuth"])
    assert "the reference agents are ises, ismcts, random, random_consistent, got knuth" in capsys.readouterr().err
