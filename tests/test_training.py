"""The training command end to end on a tiny run: train, save, resume, evaluate, write the table."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from train import cli, curves, evaluate
from train.config import hyperparameters, run_settings

TINY = ["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--eval-time-limit", "0.005"]


def test_train_save_evaluate_and_resume(tmp_path, capsys):
    out = tmp_path / "run"
    results = cli.main([*TINY, "--timesteps", "256", "--checkpoint-every", "128", "--output", str(out)])
    assert [r.agent for r in results] == ["MaskablePPO policy", "ISES", "SO-ISMCTS", "random", "random (consistent)"]
    assert all(r.episodes == 9 for r in results)  # every secret of 2x3 Mastermind, for every agent
    assert [r.exact for r in results] == [True, True, False, False, False]  # only the deterministic ones are exact
    assert (out / "model.zip").exists() and sorted(p.name for p in (out / "checkpoints").iterdir())
    assert (out / "learning_curve.png").read_bytes().startswith(b"\x89PNG")
    assert any((out / "tensorboard").rglob("events.out.tfevents*"))
    table = (out / "comparison.md").read_text()
    first = capsys.readouterr().out
    assert "| ISES | 9 |" in table and table in first
    # The quick start said only "saved .../model.zip": the labels are explained, and what was written is listed.
    assert "*exact*: every secret was played once" in table and "*random (consistent)*: a code drawn" in table
    assert "*± x*" in table and "| exact |" in table  # the policy and ISES exact, the rows that draw at random not
    listed = first[first.index(f"wrote to {out}/:") :].splitlines()[1:]
    assert [line.split()[0] for line in listed] == ["model.zip", "run.json", "comparison.md", "learning_curve.png",
                                                     "checkpoints/", "monitor/", "tensorboard/"]  # fmt: skip
    assert f"tensorboard --logdir {out}/tensorboard" in listed[-1]

    import torch

    assert torch.get_num_threads() == 1  # one torch thread per process unless --torch-threads says otherwise
    played = curves.read_monitors(out / "monitor").sum()
    cli.main([*TINY, "--timesteps", "256", "--resume", str(out / "model.zip"), "--output", str(out)])
    # PPO collects whole rollouts (8 envs x n_steps 128), so each run trains 1,024 steps; the second continues
    # the first, and its monitors add to the episode log rather than replace it.
    assert "trained 1024 timesteps" in first and "trained 2048 timesteps" in capsys.readouterr().out
    assert played <= 1024 < curves.read_monitors(out / "monitor").sum()  # more than one run could play
    # Resumed into a new folder, the run starts its own episode log, header and all, and plots its curve.
    cli.main([*TINY, "--timesteps", "256", "--resume", str(out / "model.zip"), "--output", str(tmp_path / "b")])
    assert 0 < curves.read_monitors(tmp_path / "b" / "monitor").sum() <= 1024
    assert (tmp_path / "b" / "learning_curve.png").exists()


def test_a_resumed_run_keeps_its_entropy_reward_and_refuses_another_game(tmp_path, capsys):
    argv = [*TINY, "--timesteps", "64", "--n-envs", "2", "--no-progress", "--output", str(tmp_path)]
    cli.main([*argv, "--entropy-reward", "0.5"])
    assert run_settings(tmp_path / "model.zip")["entropy_reward"] == 0.5
    args = cli.parse_args([*argv, "--resume", str(tmp_path / "model.zip")])
    assert args.entropy_reward == 0.5 and "resuming with the run's --entropy-reward 0.5" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.parse_args(["--env", "Mastermind-v0", "--resume", str(tmp_path / "model.zip")])
    assert "--resume: the model was trained with sizes {'pegs': 2, 'colors': 3}" in capsys.readouterr().err


def test_subprocess_envs_with_the_consistent_mask(tmp_path):
    argv = [*TINY, "--timesteps", "64", "--n-envs", "2", "--vec-env", "subproc", "--action-mask", "consistent"]
    results = cli.main([*argv, "--no-progress", "--output", str(tmp_path)])
    # With the consistent mask every query could win, so even an untrained policy solves every 2x3 game.
    assert results[0].solve_rate == 1


def test_max_minutes_stops_training_on_the_clock(tmp_path, capsys):
    argv = [*TINY, "--timesteps", "1000000", "--max-minutes", "1e-6", "--no-progress", "--output", str(tmp_path)]
    cli.main(argv)
    # The clock is read after every step of the 8 envs; the deadline has passed by the first, within the first
    # rollout: none of its steps was learned from, and the run says so.
    assert "trained 0 timesteps" in capsys.readouterr().out and (tmp_path / "model.zip").exists()


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_other_algorithms_and_the_entropy_reward_train_too(tmp_path, algo):
    argv = [*TINY, "--algo", algo, "--timesteps", "128", "--entropy-reward", "0.5", "--output", str(tmp_path)]
    results = cli.main(argv)
    assert results[0].agent == f"{algo.upper()} policy" and results[0].episodes == 9


def test_the_batched_env_is_the_default_where_it_plays_the_game(tmp_path):
    def chosen(*argv: str) -> str:
        return cli.parse_args(list(argv)).vec_env

    assert chosen(*TINY) == "batched"
    assert chosen(*TINY, "--entropy-reward", "1") == "batched"
    assert chosen("--env", "FakeCoin-v0") == "dummy"
    assert chosen(*TINY, "--vec-env", "subproc") == "subproc"
    argv = [*TINY, "--timesteps", "64", "--n-envs", "2", "--vec-env", "batched", "--action-mask", "consistent"]
    results = cli.main([*argv, "--no-progress", "--output", str(tmp_path)])
    assert results[0].solve_rate == 1  # every query could win: the batched env's masks reached the policy
    assert [p.name for p in (tmp_path / "monitor").iterdir()] == ["batched.monitor.csv"]
    assert curves.read_monitors(tmp_path / "monitor").sum() >= 64


KEPT_MODEL = Path(__file__).parents[1] / "models" / "mastermind-4x6-ises" / "model.zip"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--env", "FakeCoin-v0", "--vec-env", "batched"], "--vec-env batched: FakeCoin's information sets"),
        (["--env", "Chess-v0"], "invalid choice"),
        (["--algo", "sac"], "invalid choice"),
        (["--size", "pegs=0"], "pegs must be an integer in [1, 22]"),
        (["--size", "rows=3"], "has no size parameter 'rows'"),
        (["--resume", "missing.zip"], "argument --resume: no file at missing.zip"),
        (["--entropy-reward", "-1"], "argument --entropy-reward: must be a finite number >= 0, got -1"),
        (["--n-envs", "0"], "argument --n-envs: must be an integer >= 1, got 0"),
        (["--max-minutes", "0"], "argument --max-minutes: must be a finite number > 0, got 0"),
        (["--env", "FakeCoin-v0", "--action-mask", "consistent"], "needs queries that name secrets"),
        (["--config", "none.toml"], "argument --config: no file at none.toml"),
        (["--vec-env", "ray"], "invalid choice"),
        (["--torch-threads", "0"], "argument --torch-threads: must be an integer >= 1, got 0"),
        (["--device", "banana"], "--device:"),
    ],
)
def test_bad_options_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        cli.main(argv)
    assert message in capsys.readouterr().err


def test_options_that_need_a_saved_model_refuse_other_files_and_combinations_before_any_work(tmp_path, capsys):
    model = tmp_path / "m.zip"
    with zipfile.ZipFile(model, "w") as archive:
        archive.writestr("data", "{}")
        archive.writestr("policy.pth", b"")
    (tmp_path / "c.toml").write_text("")
    (tmp_path / "notzip.zip").write_text("not a zip")
    (tmp_path / "file").write_text("")
    cases = [
        (["--resume", str(tmp_path / "notzip.zip")], "model.save() writes it: it is not a zip file"),
        (["--resume", str(tmp_path)], "is not a file"),
        (["--resume", str(model), "--config", str(tmp_path / "c.toml")], "--config is for a new run"),
        (["--env", "Mastermind-v0", "--imitate", "ises", "--resume", str(model)], "cannot be given with --resume"),
        (["--output", "/proc/x/y"], "argument --output: cannot make the folder /proc/x/y"),
        (["--output", str(tmp_path / "file")], "exists and is not a folder"),
        (["--eval-time-limit", "-1"], "argument --eval-time-limit: must be a finite number > 0, got -1"),
        (["--eval-time-limit", "inf"], "argument --eval-time-limit: must be a finite number > 0, got inf"),
        (["--seed", "-3"], "argument --seed: must be an integer >= 0, got -3"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as exit_:
            cli.main(argv)
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and message in err, (argv, err)
        assert err.strip().splitlines()[0].startswith("python -m train: error:")
    assert not Path("/proc/x").exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        "c.toml", "file", "m.zip", "notzip.zip"]  # fmt: skip


def test_hyperparameters_merge_the_algorithm_defaults_with_env_overrides(tmp_path):
    config = tmp_path / "h.toml"
    config.write_text('[ppo]\nn_steps = 512\ngamma = 0.99\n\n["Wordle-v0".ppo]\nn_steps = 64\n')
    assert hyperparameters("ppo", "Wordle-v0", config) == {"n_steps": 64, "gamma": 0.99}
    assert hyperparameters("ppo", "Mastermind-v0", config) == {"n_steps": 512, "gamma": 0.99}


def test_a_linear_schedule_in_the_config_decays_to_zero_and_bad_ones_are_clear_errors(tmp_path):
    from train.config import LinearSchedule

    config = tmp_path / "c.toml"
    config.write_text('[maskable_ppo]\nlearning_rate = "lin_1e-3"\nclip_range = 0.2\n')
    found = hyperparameters("maskable_ppo", "LowMiddleHigh-v0", config)
    assert found["learning_rate"] == LinearSchedule(1e-3) and found["clip_range"] == 0.2
    assert found["learning_rate"](1.0) == 1e-3 and found["learning_rate"](0.25) == pytest.approx(2.5e-4)
    assert found["learning_rate"](0.0) == 0.0
    for bad in ('"exp_1e-3"', '"lin_x"', '"lin_-1"', '"lin_inf"'):
        config.write_text(f"[maskable_ppo]\nlearning_rate = {bad}\n")
        with pytest.raises(ValueError, match="learning_rate must"):
            hyperparameters("maskable_ppo", "LowMiddleHigh-v0", config)


def test_evaluate_measures_a_saved_model_and_rejects_a_mismatched_game(tmp_path, capsys):
    cli.main([*TINY, "--timesteps", "64", "--no-progress", "--output", str(tmp_path)])
    capsys.readouterr()
    model = str(tmp_path / "model.zip")
    args = ["--model", model, "--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3"]
    results = evaluate.main([*args, "--eval-time-limit", "0.005", "--output", str(tmp_path / "eval")])
    assert [r.episodes for r in results] == [9] * 5
    assert "| ISES | 9 | 2.333 | exact |" in (tmp_path / "eval" / "evaluation-seed0.md").read_text()
    with pytest.raises(SystemExit):
        evaluate.main(["--model", model, "--env", "Mastermind-v0"])  # trained on 2x3, asked about 4x6
    error = capsys.readouterr().err
    assert "trained on another game or size" in error
    assert "(it was trained on Mastermind-v0 {'pegs': 2, 'colors': 3})" in error
    with pytest.raises(SystemExit):
        evaluate.main(["--model", str(tmp_path / "none.zip"), "--env", "Mastermind-v0"])
    assert "argument --model: no file at" in capsys.readouterr().err


def test_sigterm_stops_training_and_saves_the_model(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    argv = [*TINY, "--timesteps", "10000000", "--no-progress", "--output", str(tmp_path)]
    process = subprocess.Popen([sys.executable, "-m", "train", *argv], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not any(tmp_path.rglob("events.out.tfevents*")) and time.monotonic() < deadline:  # learn() has begun
        time.sleep(0.2)
    os.kill(process.pid, signal.SIGTERM)
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 0 and "Interrupted: saving what was trained." in out
    assert (tmp_path / "model.zip").exists() and (tmp_path / "comparison.md").exists()


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_algorithms_without_masks_train_where_actions_are_masked(tmp_path, algo):
    """Fake Coin masks weighings the player has no coins for; without masks they are wasted steps, not crashes."""
    argv = ["--env", "FakeCoin-v0", "--size", "coins=4", "--algo", algo, "--timesteps", "256", "--n-envs", "2",
            "--eval-secrets", "8", "--eval-time-limit", "0.005", "--output", str(tmp_path)]  # fmt: skip
    results = cli.main(argv)
    assert results[0].agent == f"{algo.upper()} policy" and (tmp_path / "model.zip").exists()


def test_cuda_is_refused_where_there_is_none(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(SystemExit):
        cli.main(["--device", "cuda"])
    assert "no CUDA device" in capsys.readouterr().err


def test_a_long_title_is_broken_to_the_figures_width():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from train.plotting import fitted_title

    figure = plt.figure(figsize=(5, 3))
    title = "maskable_ppo on algo_v0 {'players': 2, 'exposure': 8, 'playouts': 20} against epsilon_greedy, 417184 steps"
    lines = fitted_title(figure, title).split("\n")
    short = fitted_title(figure, "short")
    plt.close(figure)
    assert len(lines) > 1 and " ".join(lines) == title and max(map(len, lines)) <= 5 * 72 / (0.55 * 12)
    assert short == "short"


def test_the_comparison_legend_explains_the_labels_the_table_uses():
    from types import SimpleNamespace

    from train.comparison import comparison_legend

    sampled = [SimpleNamespace(agent="MaskablePPO policy", exact=False), SimpleNamespace(agent="ISES", exact=False)]
    legend = comparison_legend(sampled)
    assert "*± x*: the half-width of a 95% interval" in legend and "*exact*" not in legend
    assert "*random*" not in legend and legend.endswith("counts its limit in the mean).")
    both = comparison_legend([*sampled, SimpleNamespace(agent="random", exact=True)])
    assert "*exact*" in both and "*± x*" in both and "*random*: a legal query drawn uniformly" in both
