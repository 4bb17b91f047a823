"""The entropy analysis: first-query gains, trajectories and the two summary numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents import ISES, RandomAgent
from deduction_envs.games import Mastermind, SimpleMastermind
from train.experiments import analysis


def entropy_of(probabilities):
    return -sum(p * math.log2(p) for p in probabilities if p > 0)


def test_mastermind_first_guesses_fall_into_the_five_colour_patterns():
    classes = analysis.first_action_classes(Mastermind())
    by_label = {c.label: c for c in classes}
    assert {label: c.actions.size for label, c in by_label.items()} == {
        "ABCD": 360,
        "AABC": 720,
        "AABB": 90,
        "AAAB": 120,
        "AAAA": 6,
    }
    # AAAA's feedback is the number of A's in the secret, binomial(4, 1/6): its gain is that distribution's entropy.
    binomial = [math.comb(4, k) * (1 / 6) ** k * (5 / 6) ** (4 - k) for k in range(5)]
    assert by_label["AAAA"].gain == pytest.approx(entropy_of(binomial))
    assert classes[0].label == "ABCD" and classes[-1].label == "AAAA"  # sorted by gain, best first
    assert analysis.spatial_depth(classes) > 0.1


def test_every_simple_mastermind_first_guess_is_worth_the_same():
    classes = analysis.first_action_classes(SimpleMastermind())
    assert len(classes) == 1 and classes[0].actions.size == 1296
    assert analysis.spatial_depth(classes) == pytest.approx(0.0, abs=1e-12)


def test_binary_search_in_treasure_hunt_has_no_temporal_uncertainty():
    trajectories, steps = analysis.entropy_trajectories(ISES(), "TreasureHunt-v0")
    np.testing.assert_allclose(trajectories, np.tile([4.0, 3.0, 2.0, 1.0, 0.0], (16, 1)))
    assert (steps == 4).all()
    assert analysis.temporal_uncertainty(trajectories) == pytest.approx(0.0, abs=1e-12)


def test_mastermind_trajectories_shrink_to_zero_and_vary_between_secrets():
    trajectories, steps = analysis.entropy_trajectories(ISES(), "Mastermind-v0", {"pegs": 3, "colors": 3})
    assert trajectories.shape == (27, steps.max() + 1)
    assert np.allclose(trajectories[:, 0], math.log2(27)) and np.allclose(trajectories[:, -1], 0.0)
    assert (np.diff(trajectories, axis=1) <= 1e-12).all()
    assert analysis.temporal_uncertainty(trajectories) > 0.5


def test_sampled_trajectories_are_reproducible():
    first, _ = analysis.entropy_trajectories(RandomAgent(), "Mastermind-v0", secrets=5, seed=3)
    again, _ = analysis.entropy_trajectories(RandomAgent(), "Mastermind-v0", secrets=5, seed=3)
    np.testing.assert_array_equal(first, again)
    assert first.shape[0] == 5


def test_the_command_writes_the_table_and_both_figures(tmp_path, capsys):
    analysis.main(["--quick", "--games", "TreasureHunt", "SimpleMastermind", "--output", str(tmp_path)])
    table = (tmp_path / "game_analysis.md").read_text()
    assert "| TreasureHunt | 4x4 | 16 (4.00) | 100 |" in table
    assert "| SimpleMastermind | 3x3 | 27 (4.75) | 27 | 1 | 1.698 / 1.698 | 0.000 |" in table
    assert table in capsys.readouterr().out
    for name in ("game_analysis_first_actions.png", "game_analysis_trajectories.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")


def test_a_quick_run_writes_under_runs_not_into_results(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    analysis.main(["--quick", "--games", "TreasureHunt", "--secrets", "4"])
    assert (tmp_path / "runs" / "quick" / "game_analysis.md").exists() and not (tmp_path / "results").exists()


def test_bad_arguments_are_clear_errors(capsys):
    with pytest.raises(SystemExit):
        analysis.main(["--secrets", "0"])
    assert "argument --secrets: must be an integer >= 1, got 0" in capsys.readouterr().err
