"""train.experiments.rl_alone: kept seat policies measured as the seeds of one recipe."""

from __future__ import annotations

import pytest

from train.experiments import rl_alone
from train.stats import over_seeds


def test_a_kept_model_wins_there_what_train_evaluate_finds_and_the_baseline_sits_on_the_same_games(tmp_path):
    from train.evaluate import evaluate_model
    from train.kept_models import MODELS

    name = "clue-imitation-entropy"
    argv = ["--models", name, "--opponents", "deduction_sheet", "--games", "6", "--seed", "5", "--workers", "1"]
    finished = rl_alone.main([*argv, "--no-progress", "--output", str(tmp_path)])
    found = rl_alone.evaluations(finished.settings, finished.results)
    (evaluated,) = evaluate_model(MODELS / name / "model.zip", opponents=["deduction_sheet"], games=8, seed=5,
                                  output=tmp_path / "evaluation")  # fmt: skip
    # 6 games round up to 8, two rotations of the 4 seats: the games train.evaluate plays with the same seed
    assert found[name, "deduction_sheet"].games == evaluated.games == 8
    assert found[name, "deduction_sheet"].wins == evaluated.wins
    assert found["agent:random", "deduction_sheet"].games == 8
    text = (tmp_path / "rl_alone.md").read_text()
    assert f"| seed 0 | {evaluated.wins} |" in text and "| random (baseline) |" in text
    assert "python -m train.experiments.rl_alone --models clue-imitation-entropy" in text


def test_over_seeds_is_a_t_interval_with_the_range():
    # mean 0.5, sd 0.1, t(0.975, 2) = 4.303: half-width 4.303 * 0.1 / sqrt(3) = 0.248
    assert over_seeds([0.4, 0.5, 0.6]) == "0.500 [0.252, 0.748] (range 0.400 to 0.600)"
    assert over_seeds([0.3]) == "0.300 (one seed)"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--models", "nothing", "--opponents", "random"], "no kept model named 'nothing'"),
        (["--models", "wordle-ises", "--opponents", "random"], "single-player game"),
        (["--models", "clue-imitation-entropy", "algo-imitation-max-entropy", "--opponents", "random"], "one game"),
        (["--models", "clue-imitation-entropy", "--opponents", "nobody"], "nobody"),
        (["--models", "clue-imitation-entropy", "--opponents", "random", "--games", "1", "2"], "one per opponent"),
        (["--models", "clue-imitation-entropy", "clue-imitation-entropy", "--opponents", "random"], "each model once"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(argv, message, capsys):
    with pytest.raises(SystemExit):
        rl_alone.main([*argv, "--output", "/nonexistent-never-written"])
    assert message in capsys.readouterr().err


def test_a_kept_curve_is_the_monitors_episodes_in_equal_spans_of_steps(tmp_path):
    """Hand-worked: six episodes of 2 steps (12 steps) in 3 spans of 4 steps, two episodes a span; the second
    log appended by a resumed run (its clock restarted) comes after the first."""
    from train.curves import curve_table, read_curve, write_curve

    monitor = tmp_path / "monitor"
    monitor.mkdir()
    header = '#{"t_start": 0, "env_id": "clue_v0"}\nr,l,t,rank,won\n'
    rows = ["1,2,1.0,1,1", "-1,2,2.0,3,0", "-1,2,3.0,2,0", "1,2,4.0,1,1", "-1,2,1.0,4,0", "-1,2,2.0,4,0"]
    (monitor / "batched.monitor.csv").write_text(header + "\n".join(rows) + "\n")
    table = curve_table(monitor, bins=3)
    assert list(table) == ["steps", "episodes", "r", "l", "rank", "won"]
    assert table["steps"].tolist() == [4, 8, 12] and table["episodes"].tolist() == [2, 2, 2]
    assert table["won"].tolist() == [0.5, 0.5, 0.0] and table["rank"].tolist() == [2.0, 1.5, 4.0]
    assert curve_table(monitor, bins=24)["steps"].size == 6  # spans without an episode are left out
    assert write_curve(monitor, tmp_path / "curve.csv", bins=3)
    assert {k: v.tolist() for k, v in read_curve(tmp_path / "curve.csv").items()} == {
        k: v.tolist() for k, v in table.items()
    }
    empty = tmp_path / "empty"
    empty.mkdir()
    assert curve_table(empty) == {} and not write_curve(empty, tmp_path / "none.csv")


def test_the_curves_command_writes_each_runs_curve_and_one_figure(tmp_path, capsys):
    import json

    from train import curves

    header = '#{"t_start": 0, "env_id": "clue_v0"}\nr,l,t,rank,won\n'
    for name, won in (("a", 1), ("b", 0)):
        (tmp_path / name / "monitor").mkdir(parents=True)
        (tmp_path / name / "run.json").write_text(json.dumps({"env": "clue_v0", "sizes": {"players": 4}}))
        rows = [f"0,3,{t}.0,{1 if won else 4},{won}" for t in range(1, 41)]
        (tmp_path / name / "monitor" / "batched.monitor.csv").write_text(header + "\n".join(rows) + "\n")
    out = tmp_path / "out"
    curves.main([str(tmp_path / "a"), str(tmp_path / "b"), "--labels", "won", "lost", "--output", str(out)])
    assert curves.read_curve(out / "won.csv")["won"].tolist() == [1.0] * 40  # 40 episodes, one a span
    assert curves.read_curve(out / "lost.csv")["rank"].tolist() == [4.0] * 40
    assert (out / "curves.png").stat().st_size > 10_000
    with pytest.raises(SystemExit):
        curves.main([str(tmp_path), "--output", str(out)])
    assert "holds no run of python -m train" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        curves.main([str(tmp_path / "a"), "--labels", "x", "y", "--output", str(out)])
    assert "one per run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        curves.main([str(tmp_path / "a"), "--labels", "../x", "--output", str(out)])
    assert "distinct file names" in capsys.readouterr().err
