"""``python -m train --seeds``: one run per seed, each seed's figure and the aggregate across seeds."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import trim_mean

from train import cli
from train.seeds import aggregate

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--timesteps", "128", "--n-envs", "2"]


def test_aggregate_is_the_mean_with_a_t_interval_the_range_and_the_iqm():
    values = [5.0, 4.0, 4.5, 9.0, 4.2, 4.4, 4.1, 4.3]
    a = aggregate("mean steps", values)
    assert a.mean == pytest.approx(np.mean(values)) and a.values == tuple(values) and a.range == (4.0, 9.0)
    assert a.iqm == pytest.approx(np.mean(sorted(values)[2:6]))  # the middle half: the outlier 9.0 is trimmed
    assert a.iqm == pytest.approx(trim_mean(values, 0.25))
    # The Student t interval, worked by hand: mean +- t(0.975, 7) s / sqrt(8).
    half = 2.364624 * np.std(values, ddof=1) / np.sqrt(8)
    assert a.mean_ci == pytest.approx((np.mean(values) - half, np.mean(values) + half), rel=1e-6)
    # Three seeds: the t interval is wider than their range (a percentile bootstrap would give about the range).
    three = aggregate("x", [4.560, 4.565, 4.578])
    assert three.mean_ci[0] < 4.560 and three.mean_ci[1] > 4.578 and three.iqm == pytest.approx(three.mean)
    assert aggregate("x", [1.0, 1.0, 1.0]).mean_ci == (1.0, 1.0)  # every seed agrees: no width
    assert np.isnan(aggregate("x", [2.0]).mean_ci).all()  # one seed: no interval to speak of
    # a share's interval stays within [0, 1]: two seeds solving 0.1 and 0.99 give a t interval of [-5.1, 6.2]
    assert aggregate("solved", [0.1, 0.99]).mean_ci[0] < -5
    assert aggregate("solved", [0.1, 0.99], share=True).mean_ci == (0.0, 1.0)
    assert aggregate("solved", [0.5, 0.6, 0.55], share=True).mean_ci == aggregate("x", [0.5, 0.6, 0.55]).mean_ci
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
    assert "| figure | mean | 95% t interval | range | IQM |" in table
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
        (["--workers", "2"], "--workers is the number of seeds or trials trained at a time"),
        (["--ray-address", "h:1"], "--ray-address goes with --executor ray"),
    ],
)
def test_bad_seed_options_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        cli.main([*TINY, *argv])
    assert message in capsys.readouterr().err


def test_a_seed_stopped_after_a_checkpoint_resumes_from_it_for_the_steps_it_had_left(tmp_path, capsys):
    """A seed whose run was cut after its first checkpoint (its final model, later checkpoints and kept result
    gone, as when a driver or node dies) trains only the steps it had left, from that checkpoint; its episode
    log goes on where it stopped."""
    import zipfile

    from train.seeds import latest_checkpoint

    out = tmp_path / "s"
    argv = [*TINY, "--timesteps", "512", "--checkpoint-every", "256", "--seeds", "5", "--no-progress",
            "--output", str(out)]  # fmt: skip
    cli.main(argv)
    seed = out / "seed-5"
    assert latest_checkpoint(seed / "checkpoints") == (seed / "checkpoints" / "model_512_steps.zip", 512)
    (seed / "checkpoints" / "model_512_steps.zip").unlink()  # cut after the first checkpoint (a whole rollout)
    (seed / "model.zip").unlink()
    (out / "seeds.md").unlink()
    monitor = next((seed / "monitor").glob("*monitor.csv"))
    episodes = len(monitor.read_text().splitlines())
    capsys.readouterr()
    cli.main(argv)
    assert "seed 5: resuming from model_256_steps.zip, 256 of 512 steps left" in capsys.readouterr().out
    with zipfile.ZipFile(seed / "model.zip") as saved:
        data = json.loads(saved.read("data"))
    assert data["num_timesteps"] == 512  # 256 from the checkpoint and the 256 left, not 512 more
    assert len(monitor.read_text().splitlines()) > episodes  # the same episode log, appended to
    assert latest_checkpoint(seed / "checkpoints")[1] == 512 and (out / "seeds.md").exists()
    assert latest_checkpoint(tmp_path / "nothing") is None
    (seed / "checkpoints" / "model_768_steps.zip").write_bytes(b"PK\x03\x04")  # cut off as it was written
    assert latest_checkpoint(seed / "checkpoints")[1] == 512  # passed over for the last whole one
    # Stopped after its last checkpoint, before its model was saved: nothing is trained again, from step 0 or any.
    (seed / "checkpoints" / "model_768_steps.zip").unlink()
    (seed / "model.zip").unlink()
    (out / "seeds.md").unlink()
    written = {path.name: path.stat().st_mtime_ns for path in (seed / "checkpoints").glob("*.zip")}
    capsys.readouterr()
    cli.main(argv)
    assert "seed 5: resuming from model_512_steps.zip, 0 of 512 steps left" in capsys.readouterr().out
    assert {path.name: path.stat().st_mtime_ns for path in (seed / "checkpoints").glob("*.zip")} == written
    with zipfile.ZipFile(seed / "model.zip") as saved:
        assert json.loads(saved.read("data"))["num_timesteps"] == 512
    assert (out / "seeds.md").exists()


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux's /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the workers' guard is Linux's (prctl)")
def test_a_killed_seeds_driver_takes_its_workers_with_it(tmp_path):
    """SIGTERM to the driver of ``--seeds 0,1,2 --workers 2`` on the local pool: its workers end with it (they
    caught SIGTERM to save and stop, then took the queued seed and trained it into the output)."""
    out = tmp_path / "seeds"
    argv = [*TINY, "--timesteps", "100000", "--checkpoint-every", "256", "--seeds", "0,1,2", "--workers", "2",
            "--no-progress", "--output", str(out)]  # fmt: skip
    driver = subprocess.Popen([sys.executable, "-m", "train", *argv], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while not all(any((out / f"seed-{s}" / "checkpoints").glob("*.zip")) for s in (0, 1)):
            assert driver.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        workers = _children(driver.pid)
        assert workers
        driver.send_signal(signal.SIGTERM)
        driver.wait(timeout=30)
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text()
                  for pid in workers):  # fmt: skip
            assert time.monotonic() < deadline, "a worker outlived its driver"
            time.sleep(0.1)
        time.sleep(2)
        assert not (out / "seed-2").exists()  # the queued seed was never taken
    finally:
        driver.kill()
