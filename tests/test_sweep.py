"""``python -m train --sweep``: a hyperparameter search over the training config (train.sweep)."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
import tomllib
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

from train import cli
from train.config import RunConfig
from train.seeds import latest_checkpoint
from train.sweep import parse_space, run_sweep, search_space

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--n-envs", "2", "--no-progress"]


@pytest.mark.parametrize(
    ("text", "distribution"),
    [
        ("learning_rate=1e-4..3e-3:log", FloatDistribution(1e-4, 3e-3, log=True)),
        ("ent_coef=0..0.05", FloatDistribution(0.0, 0.05)),
        ("n_epochs=3..20", IntDistribution(3, 20)),
        ("n_steps=16..256:log", IntDistribution(16, 256, log=True)),
        ("n_steps=64,128,256", CategoricalDistribution([64, 128, 256])),
        (" normalize_advantage = true,false ", CategoricalDistribution([True, False])),
        ("gae_lambda=0.9,0.95,1", CategoricalDistribution([0.9, 0.95, 1])),
    ],
)
def test_a_space_item_is_a_range_a_log_range_or_a_list(text, distribution):
    assert parse_space(text) == (text.split("=")[0].strip(), distribution)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("learning_rate", "NAME=SPEC"),
        ("=1..2", "NAME=SPEC"),
        ("lr=", "NAME=SPEC"),
        ("lr=3..1", "LOW must be below its HIGH"),
        ("lr=0..1:log", "log scale needs LOW above 0"),
        ("lr=1..2:ln", "ends in ':log'"),
        ("lr=a..b", "two numbers"),
        ("lr=1..nan", "two numbers"),
        ("lr=5", "at least two distinct values"),
        ("lr=5,5", "at least two distinct values"),
        ("lr=5,,6", "no empty value"),
    ],
)
def test_a_malformed_space_item_is_a_clear_error(text, message):
    with pytest.raises(ValueError, match=message):
        parse_space(text)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--space", "learning_rate=1e-4..1e-3"], "--space goes with --sweep TRIALS"),
        (["--pruner", "median"], "--pruner goes with --sweep TRIALS"),
        (["--sweep", "0"], "--sweep"),
        (["--sweep", "2", "--seeds", "1,2"], "cannot be given with --seeds"),
        (["--sweep", "2", "--space", "learning_rate=1..0"], "LOW must be below its HIGH"),
        (["--sweep", "2", "--pruner", "hyperband"], "invalid choice"),
    ],
)
def test_bad_sweep_options_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        cli.main([*TINY, *argv])
    assert message in capsys.readouterr().err


def test_the_space_comes_from_the_config_file_and_the_command_line_and_names_the_algorithms_keywords(tmp_path):
    config_file = tmp_path / "h.toml"
    config_file.write_text('[maskable_ppo]\nn_steps = 32\n\n[sweep]\nn_steps = "32,64"\nent_coef = "0..0.1"\n')
    config = RunConfig(env="Mastermind-v0", config=config_file, sweep=2, space=["ent_coef=0..0.2"])
    assert search_space(config) == {"n_steps": CategoricalDistribution([32, 64]),
                                    "ent_coef": FloatDistribution(0.0, 0.2)}  # fmt: skip
    with pytest.raises(ValueError, match="MaskablePPO takes no learning_rat "):
        search_space(RunConfig(env="Mastermind-v0", sweep=2, space=["learning_rat=1..2"]))
    with pytest.raises(ValueError, match="needs a search space"):
        search_space(RunConfig(env="Mastermind-v0", sweep=2))


def test_a_sweep_trains_every_trial_through_the_workers_keeps_each_and_names_the_best(tmp_path, capsys):
    """Three trials on two local processes: each a run of its own hyperparameters (every other one the config
    file's), evaluated as python -m train would; a trial whose hyperparameters cannot train is failed, not the
    sweep; the same command again trains nothing; a larger --sweep adds trials."""
    out = tmp_path / "sweep"
    argv = [*TINY, "--timesteps", "256", "--checkpoint-every", "128", "--sweep", "3", "--space",
            "clip_range_vf=-1,0.2", "learning_rate=1e-4..1e-2:log", "--pruner", "none", "--workers", "2",
            "--output", str(out)]  # fmt: skip
    cli.main(argv)
    table = (out / "sweep.md").read_text()
    assert table in capsys.readouterr().out and "python -m train " + shlex.join(argv) in table
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert sorted(int(row[0][2:]) for row in rows) == [0, 1, 2]
    study = optuna.load_study(study_name="sweep", storage=_storage(out))
    for trial in study.trials:
        folder = out / f"trial-{trial.number}"
        written = tomllib.loads((folder / "hyperparameters.toml").read_text())["maskable_ppo"]
        assert {name: written[name] for name in trial.params} == trial.params
        assert written["ent_coef"] == 0.01 and written["n_epochs"] == 10  # the rest: the shipped config's
        if trial.params["clip_range_vf"] == -1:  # PPO refuses a negative clip range
            assert trial.state == optuna.trial.TrialState.FAIL
            assert f"| {trial.number} | -1 | {trial.params['learning_rate']:.3g} | failed: AssertionError: " in table
            continue
        assert trial.state == optuna.trial.TrialState.COMPLETE
        comparison = (folder / "comparison.md").read_text()
        assert f"| {trial.value:.3f} |" in comparison  # the objective: the trial's own evaluation
        assert (folder / "model.zip").exists() and (folder / "learning_curve.png").exists()
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert 0 < len(done) < 3  # seed 0 draws both: the failed path and the trained one are both seen
    best = min(done, key=lambda t: (t.value, t.number))
    assert f"Best: trial {best.number} " in table
    assert (out / "best.toml").read_text() == (out / f"trial-{best.number}" / "hyperparameters.toml").read_text()
    assert (out / "sweep.png").stat().st_size > 10_000
    # The same command again: every trial is kept, none trained.
    stamp = (out / "trial-0" / "run.json").stat().st_mtime_ns
    cli.main([*argv, "--workers", "1"])
    assert (out / "trial-0" / "run.json").stat().st_mtime_ns == stamp and not (out / "trial-3").exists()
    # One more trial.
    cli.main([*[a if a != "3" else "4" for a in argv], "--workers", "1"])  # here, in this process
    assert len(optuna.load_study(study_name="sweep", storage=_storage(out)).trials) == 4
    # Other settings in the same folder are refused.
    with pytest.raises(ValueError, match="holds a sweep of other settings"):
        run_sweep(cli.parse_args([a if a != "256" else "512" for a in argv]))


def _storage(folder: Path):
    from train.sweep import _storage

    return _storage(folder)


def test_a_pruned_trial_stops_at_the_checkpoint_keeps_its_model_and_is_not_evaluated(tmp_path):
    out = tmp_path / "sweep"
    config = cli.parse_args([*TINY, "--timesteps", "1024", "--checkpoint-every", "256", "--sweep", "2",
                             "--space", "learning_rate=1e-4..1e-2:log", "--output", str(out)])  # fmt: skip
    result = run_sweep(config, pruner=optuna.pruners.ThresholdPruner(upper=0.5))  # any curve is above 0.5 queries
    assert [t.state for t in result.trials] == ["pruned", "pruned"] and result.best is None
    for trial in result.trials:
        assert trial.timesteps == 256 and [step for step, _ in trial.reports] == [256]  # stopped at its first report
        folder = out / f"trial-{trial.number}"
        assert (folder / "model.zip").exists() and not (folder / "comparison.md").exists()
    assert "No trial finished unstopped" in (out / "sweep.md").read_text() and not (out / "best.toml").exists()


def test_a_sweep_whose_driver_was_killed_resumes_its_running_trial_from_the_last_checkpoint(tmp_path, capsys):
    """The driver is killed (SIGKILL) during trial 0, after its first checkpoint. The same command again goes on
    with that trial (same number, hyperparameters and folder) and trains only the steps it had left; the reports
    of its first run stay its own, so ASHA (the default pruner) weighs it against other trials, never against
    itself."""
    out = tmp_path / "sweep"
    argv = [*TINY, "--timesteps", "2048", "--checkpoint-every", "256", "--sweep", "1", "--space",
            "learning_rate=1e-4..1e-2:log", "--output", str(out)]  # fmt: skip
    driver = subprocess.Popen([sys.executable, "-m", "train", *argv], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    checkpoints = out / "trial-0" / "checkpoints"
    deadline = time.monotonic() + 120
    while latest_checkpoint(checkpoints) is None and driver.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(driver.pid, signal.SIGKILL)
    driver.wait()
    assert latest_checkpoint(checkpoints) is not None and not (out / "trial-0" / "model.zip").exists()
    (killed,) = optuna.load_study(study_name="sweep", storage=_storage(out)).trials
    assert killed.state == optuna.trial.TrialState.RUNNING  # as the dead driver left it
    path, steps = latest_checkpoint(checkpoints)
    (checkpoints / "model_1792_steps.zip").write_bytes(b"PK\x03\x04 cut off")  # one the kill cut short: passed over
    capsys.readouterr()
    (trial,) = run_sweep(cli.parse_args(argv)).trials
    assert f"trial 0: resuming from {path.name}, {2048 - steps} of 2048 steps left" in capsys.readouterr().out
    assert (trial.number, trial.params, trial.state, trial.timesteps) == (0, killed.params, "complete", 2048)
    assert (out / "trial-0" / "model.zip").exists() and not (out / "trial-1").exists()
    assert trial.reports[0][0] == steps + 256  # its reports go on from the checkpoint
    (after,) = optuna.load_study(study_name="sweep", storage=_storage(out)).trials
    assert after.intermediate_values.items() >= killed.intermediate_values.items()  # the first run's, kept
    assert after.intermediate_values.items() >= dict(trial.reports).items()


def test_a_resumed_sweep_asks_exactly_the_trials_an_uninterrupted_one_asks(tmp_path, monkeypatch):
    """Killed during trial 1 of 12 and started again, a sweep goes on with trial 1 and then draws for trials 2 to 11
    what the uninterrupted sweep draws, at random (the first ten) and by TPE. Each start made a new sampler seeded
    by --seed, so trials 2 and 3 drew trials 0 and 1's values again. The trials here are a stand-in whose figure
    is its learning rate (the search, not the training, is under test)."""
    from train import sweep
    from train.sweep import TrialResult

    class Killed(BaseException):
        pass

    kill = {"at": None}

    def trial(job, config, pruner_name, pruner):
        number, params = job
        if number == kill["at"]:
            kill["at"] = None
            raise Killed
        sweep.trial_config(config, number, params)  # its folder and hyperparameters.toml, as a trial writes them
        return TrialResult(number, params, "complete", 256, float(params["learning_rate"]), (), 0.0)

    monkeypatch.setattr(sweep, "_train_trial", trial)
    argv = [*TINY, "--timesteps", "256", "--sweep", "12", "--space", "learning_rate=1e-4..1e-2:log"]

    def drawn(output) -> list[tuple[int, float]]:
        return [(t.number, t.params["learning_rate"]) for t in run_sweep(cli.parse_args(
            [*argv, "--output", str(output)])).trials]  # fmt: skip

    straight = drawn(tmp_path / "straight")
    assert len({value for _, value in straight}) == 12
    kill["at"] = 1
    with pytest.raises(Killed):
        drawn(tmp_path / "killed")
    assert drawn(tmp_path / "killed") == straight
