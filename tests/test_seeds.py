"""``python -m train --seeds``: one run per seed, each seed's figure and the aggregate across seeds."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import bootstrap, trim_mean

from train import cli
from train.seeds import aggregate

TINY = ["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--timesteps", "128", "--n-envs", "2"]


def test_aggregate_is_the_mean_and_the_iqm_with_bootstrap_intervals():
    values = [5.0, 4.0, 4.5, 9.0, 4.2, 4.4, 4.1, 4.3]
    a = aggregate("mean steps", values, seed=3)
    assert a.mean == pytest.approx(np.mean(values)) and a.values == tuple(values)
    assert a.iqm == pytest.approx(np.mean(sorted(values)[2:6]))  # the middle half: the outlier 9.0 is trimmed
    assert a.iqm == pytest.approx(trim_mean(values, 0.25))
    assert a.mean_ci[0] < a.mean < a.mean_ci[1] and a.iqm_ci[0] <= a.iqm <= a.iqm_ci[1]
    # The same interval scipy gives for the same resamples.
    expected = bootstrap((np.array(values),), np.mean, n_resamples=10_000, method="percentile",
                         rng=np.random.default_rng(3)).confidence_interval  # fmt: skip
    assert a.mean_ci == pytest.approx((expected.low, expected.high))
    assert aggregate("x", [2.0]).mean_ci == (2.0, 2.0)  # one seed: no interval to speak of
    assert aggregate("x", [1.0, 1.0, 1.0]).iqm_ci == (1.0, 1.0)
    with pytest.raises(ValueError, match="one finite value per seed"):
        aggregate("x", [1.0, float("nan")])


def test_seeds_train_one_run_each_and_report_each_and_their_aggregate(tmp_path, capsys):
    out = tmp_path / "s"
    argv = [*TINY, "--seed", "3", "--seeds", "4,7", "--workers", "2", "--no-progress", "--output", str(out)]
    policy = cli.main(argv)
    assert policy[0].episodes == 9  # the first seed's comparison: the trained policy on every 2x3 secret
    for seed in (4, 7):
        assert (out / f"seed-{seed}" / "model.zip").exists() and (out / f"seed-{seed}" / "comparison.md").exists()
        recorded = json.loads((out / f"seed-{seed}" / "run.json").read_text())
        assert (recorded["seed"], recorded["eval_seed"]) == (seed, 3)  # every seed scored on --seed's secrets
    table = (out / "seeds.md").read_text()
    assert table in capsys.readouterr().out and "evaluation seed 3" in table
    from agents import ISES, evaluate

    ises = evaluate(ISES(), "Mastermind-v0", {"pegs": 2, "colors": 3}, secrets="all")  # every 2x3 secret
    row = f"| ISES | {ises.mean_steps:.3f} | {ises.solve_rate:.1%} | {ises.worst} |"
    assert row in table  # the references on the same 9 secrets, played once for all the seeds
    rows = [line for line in table.splitlines() if line.startswith(("| 4 |", "| 7 |"))]
    assert len(rows) == 2
    steps = [float(row.split("|")[4]) for row in rows]
    (mean,) = [float(line.split("|")[2]) for line in table.splitlines() if line.startswith("| mean steps |")]
    assert mean == pytest.approx(np.mean(steps), abs=1e-3) and "| solved |" in table
    assert (out / "seeds.png").stat().st_size > 10_000
    assert not (out / ".jobs").exists()  # kept only while a run is unfinished


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seeds", "1,1"], "distinct seeds"),
        (["--seeds", "a"], "must be an integer >= 0"),
        (["--workers", "2"], "--workers is the number of seeds trained at a time"),
        (["--ray-address", "h:1"], "--ray-address goes with --executor ray"),
    ],
)
def test_bad_seed_options_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        cli.main([*TINY, *argv])
    assert message in capsys.readouterr().err
