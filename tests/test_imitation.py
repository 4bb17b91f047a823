"""Imitation in the single-player games: ISES's decisions as demonstrations, and a static-feature head fitted to
them (the multiplayer side is tested in test_multiplayer_training.py)."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

from agents import ISES
from train import cli
from train.imitation import Demonstrations, demonstrations

SIZES = {"pegs": 3, "colors": 3}


def test_single_player_demonstrations_are_ises_decisions_on_the_envs_observations(tmp_path):
    demos = demonstrations("Mastermind-v0", SIZES, "ises", [], 12, seed=4, gamma=0.9)
    again = demonstrations("Mastermind-v0", SIZES, "ises", [], 12, seed=4, gamma=0.9, workers=2)
    assert set(demos.observations) == {"history", "information_set"}
    assert (demos.actions == again.actions).all()  # the same over two processes
    assert (demos.observations["history"] == again.observations["history"]).all()
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    env = gym.make("Mastermind-v0", **SIZES)
    for game in range(12):  # replayed: the env's observations, and a fresh ISES choosing each action from them
        rows = np.flatnonzero(demos.games == game)
        seed = int(np.random.SeedSequence((4, game)).generate_state(1)[0])
        observation, _ = env.reset(seed=seed)
        agent = ISES()
        agent.reset(env.unwrapped.rules, seed=seed)
        for step, row in enumerate(rows):
            for key, value in observation.items():
                np.testing.assert_array_equal(demos.observations[key][row], value)
            assert agent.act() == demos.actions[row]
            observation, _, terminated, _, info = env.step(int(demos.actions[row]))
            assert terminated == (step == rows.size - 1)  # each game ends when ISES names the secret
            agent.observe(int(demos.actions[row]), info["feedback"])
        # -1 a query: the return from each decision is the discounted count of the queries left.
        np.testing.assert_allclose(demos.returns[rows], -(1 - 0.9 ** np.arange(rows.size, 0, -1)) / 0.1, rtol=1e-6)
    demos.save(tmp_path / "d.npz")
    loaded = Demonstrations.load(tmp_path / "d.npz")
    for key, value in demos.observations.items():
        np.testing.assert_array_equal(loaded.observations[key], value)
    assert (loaded.actions == demos.actions).all() and (loaded.returns == demos.returns).all()
    with pytest.raises(ValueError, match="single-player game's experts are ises"):
        demonstrations("Mastermind-v0", SIZES, "random", [], 2)
    with pytest.raises(ValueError, match="has no opponents"):
        demonstrations("Mastermind-v0", SIZES, "ises", ["random"], 2)


def test_a_static_feature_head_fitted_to_ises_plays_every_secret_as_ises_does(tmp_path):
    out = tmp_path / "bc"
    argv = ["--env", "Mastermind-v0", "--size", "pegs=3", "--size", "colors=3", "--policy", "features"]
    argv += ["--imitate", "ises", "--imitate-games", "200", "--imitate-epochs", "300", "--imitate-learning-rate"]
    argv += ["1e-3", "--timesteps", "0", "--eval-time-limit", "0.005", "--no-progress", "--output", str(out)]
    policy, ises, *_ = cli.main(argv)
    report = json.loads((out / "imitation.json").read_text())
    assert report["expert"] == "ises" and "opponents" not in report and report["games"] == 200
    assert report["epochs"][0]["agreement_fitted"] < 0.6 < 0.99 < report["epochs"][-1]["agreement_fitted"]
    assert policy.episodes == ises.episodes == 27 and np.array_equal(policy.steps, ises.steps)  # secret by secret
    assert json.loads((out / "run.json").read_text())["imitated"] == "ises"
    demos = Demonstrations.load(out / "demonstrations.npz")
    assert len(demos) == report["decisions"]
    cli.main([*argv[:-1], str(tmp_path / "again"), "--imitate-demos", str(out / "demonstrations.npz")])
    with pytest.raises(ValueError, match="another env or size"):
        cli.main(["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--imitate", "ises",
                       "--timesteps", "0", "--imitate-demos", str(out / "demonstrations.npz"),
                       "--output", str(tmp_path / "x"), "--no-progress"])  # fmt: skip
