"""The training report end to end on a tiny run: both variants trained, references measured once, outputs written."""

from __future__ import annotations

import csv

import pytest

from deduction_envs.envs import env_rules
from train.experiments import report


def test_report_trains_both_variants_and_measures_the_references_once(tmp_path):
    argv = ["--games", "Mastermind", "--timesteps", "256", "--workers", "1", "--eval-time-limit", "0.005"]
    finished = report.main([*argv, "--runs", str(tmp_path / "runs"), "--output", str(tmp_path)])
    rows = report.table_rows(finished.settings, finished.results)
    trained = [r for r in rows if r.timesteps]
    assert [(r.variant, r.timesteps) for r in trained] == [("plain", 1024), ("entropy", 1024)]  # whole rollouts
    references = [r.agent for r in rows if not r.timesteps]
    assert references == ["ISES", "SO-ISMCTS", "random", "random (consistent)"]
    assert (tmp_path / "runs" / "Mastermind-entropy" / "model.zip").exists()
    with (tmp_path / "training_runs.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == len(rows) == 6
    table = (tmp_path / "training_runs.md").read_text()
    assert "**MaskablePPO policy (entropy)**" in table and "| Mastermind | 3x3 | ISES |" in table
    assert (tmp_path / "training_curves.png").read_bytes().startswith(b"\x89PNG")


def test_a_consistent_report_keeps_its_runs_and_files_apart(tmp_path):
    argv = ["--games", "TreasureHunt", "--timesteps", "64", "--workers", "1", "--eval-time-limit", "0.005"]
    report.main([*argv, "--action-mask", "consistent", "--runs", str(tmp_path), "--output", str(tmp_path)])
    assert (tmp_path / "TreasureHunt-plain-consistent" / "model.zip").exists()
    assert "the queries that could be the secret" in (tmp_path / "training_runs_consistent.md").read_text()
    assert (tmp_path / "training_curves_consistent.png").exists()


def test_every_report_size_is_a_valid_small_game():
    for env_id, _, env_kwargs, timesteps in report.GAMES.values():
        assert env_rules(env_id, **env_kwargs).num_secrets <= 2000 and timesteps > 0  # all secrets are played


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "Chess"], "invalid choice"),
        (["--timesteps", "0"], "argument --timesteps: must be an integer >= 1, got 0"),
        (["--entropy-scale", "0"], "argument --entropy-scale: must be a finite number > 0, got 0"),
        (["--eval-time-limit", "-1"], "argument --eval-time-limit: must be a finite number > 0, got -1"),
        (["--action-mask", "consistent", "--games", "FakeCoin"], "which ['FakeCoin'] lack"),
    ],
)
def test_bad_options_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        report.main(argv)
    assert message in capsys.readouterr().err
