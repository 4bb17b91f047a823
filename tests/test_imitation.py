"""Imitation in the single-player games: ISES's decisions as demonstrations, and a static-feature head fitted to
them (the multiplayer side is tested in test_multiplayer_training.py)."""

from __future__ import annotations

import json
import re

import gymnasium as gym
import numpy as np
import pytest

from agents import ISES
from train import cli
from train.imitation import Demonstrations, seen_secrets
from train.tasks import demonstrations

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


def test_seen_secrets_are_a_seeded_share_and_bad_shares_are_refused():
    half = seen_secrets(1296, 0.5, seed=3)
    assert half.size == 648 and np.array_equal(half, np.unique(half)) and 0 <= half.min() and half.max() < 1296
    assert np.array_equal(half, seen_secrets(1296, 0.5, seed=3))
    assert not np.array_equal(half, seen_secrets(1296, 0.5, seed=4))
    assert set(seen_secrets(1296, 0.25, seed=3)) <= set(half)  # a smaller share is a prefix of the same order
    assert seen_secrets(5, 0.01, seed=0).size == 1 and seen_secrets(5, 1, seed=0).tolist() == [0, 1, 2, 3, 4]
    for share in (0, -0.5, 1.5, True, "half", float("nan")):
        with pytest.raises(ValueError, match="share of secrets"):
            seen_secrets(10, share, seed=0)


def test_demonstrations_on_some_secrets_name_only_those():
    seen = np.array([2, 7, 11, 20])
    demos = demonstrations("Mastermind-v0", SIZES, "ises", [], 30, seed=1, secrets=seen)
    rules = gym.make("Mastermind-v0", **SIZES).unwrapped.rules
    # ISES ends every game by naming its secret: each game's last query is one of the seen secrets.
    last = [int(demos.actions[np.flatnonzero(demos.games == g)[-1]]) for g in range(30)]
    assert set(last) <= set(rules.guess_actions(seen).tolist()) and len(set(last)) == 4
    for bad, match in (([], "non-empty"), ([0.5], "indices"), ([27], r"indices in \[0, 26\]"), ([-1], "indices")):
        with pytest.raises(ValueError, match=match):
            demonstrations("Mastermind-v0", SIZES, "ises", [], 2, secrets=np.asarray(bad))


def test_a_fit_on_half_the_secrets_is_scored_on_each_half_apart(tmp_path, capsys):
    out = tmp_path / "half"
    argv = ["--env", "Mastermind-v0", "--size", "pegs=3", "--size", "colors=3", "--policy", "features"]
    argv += ["--imitate", "ises", "--imitate-games", "60", "--imitate-secrets", "0.5", "--timesteps", "0"]
    argv += ["--eval-time-limit", "0.002", "--no-progress", "--output", str(out)]
    policy, ises, *_ = cli.main(argv)
    seen = json.loads((out / "imitation.json").read_text())["seen_secrets"]
    assert seen == seen_secrets(27, 0.5, seed=0).tolist()
    table = (out / "comparison.md").read_text()
    assert "the 13 secrets the imitation's episodes were drawn from, and the 14 it never saw" in table
    mask = np.isin(np.arange(27), seen)
    for result in (policy, ises):
        row = next(line for line in table.splitlines() if line.startswith(f"| {result.agent} |") and "%" in line
                   and line.count("|") == 6)  # fmt: skip
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert float(cells[1]) == pytest.approx(result.steps[mask].mean(), abs=5e-4)
        assert float(cells[3]) == pytest.approx(result.steps[~mask].mean(), abs=5e-4)
    gap = (policy.steps[~mask] - ises.steps[~mask]).mean()
    assert f"On the never-seen secrets the policy takes {gap:+.3f} steps a secret against ISES" in table
    for extra, match in (
        (["--env", "Mastermind-v0", "--imitate-secrets", "0.5"], "needs --imitate NAME"),
        (["--env", "Mastermind-v0", "--imitate", "ises", "--imitate-secrets", "1.5"], r"number \(0, 1\], got"),
        (["--env", "Mastermind-v0", "--imitate", "ises", "--imitate-secrets", "0"], r"number \(0, 1\], got"),
        (["--env", "algo_v0", "--imitate", "epsilon_greedy", "--imitate-secrets", "0.5"], "single-player games"),
    ):
        capsys.readouterr()
        with pytest.raises(SystemExit):
            cli.parse_args(extra)
        assert re.search(match, capsys.readouterr().err), extra
