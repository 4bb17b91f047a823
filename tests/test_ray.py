"""The Ray executor on a real Ray: a local Ray and a two-node cluster on this machine (loopback only).

A tournament gives the same table on Ray as on the local executor; a worker killed in the middle of a run costs a
retry, not the run. These run in CI (the ``ray`` extra is installed there); locally they skip without Ray.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
from pathlib import Path

import pytest

# Every node on the loopback address (Ray reads this when first imported): nothing leaves the machine.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
os.environ.setdefault("RAY_worker_niceness", "0")  # the test cluster's workers at the tests' priority

if os.environ.get("DEDUCTION_ENVS_RAY_TESTS"):  # CI: Ray must be there, so a missing one fails
    import ray
else:
    ray = pytest.importorskip("ray")

from deduction_envs.executor import RayExecutor, make_executor, run_jobs
from train.experiments import algo_experiments
from train.experiments.runner import run_experiment

ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module

#: Where play_or_die leaves its mark (a global, so that it travels to the workers with the function).
KILL_MARKER: list[str] = []

ARGV = ["--games", "2", "--duel-games", "1", "--ismcts-games", "1", "--search-games", "1", "--chunk", "1"]


def tables(folder: Path) -> str:
    """The report without its command line (line 3), which names the executor."""
    return (folder / "algo.md").read_text().split("\n", 3)[3]


@pytest.fixture(scope="module")
def local_table(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("local")
    algo_experiments.main([*ARGV, "--output", str(folder), "--no-progress"])
    return tables(folder)


def square_or_die(job: int, marker: str) -> int:
    """Job 3 kills its own worker process the first time it runs (the marker file says it did)."""
    if job == 3 and not os.path.exists(marker):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return job * job


def play_or_die(job, settings):
    """The tournament's play, with the first job's first run killing its worker."""
    marker = KILL_MARKER[0]
    if not os.path.exists(marker):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return algo_experiments.play(job, settings)


def test_a_local_ray_gives_the_local_executors_table(local_table, tmp_path, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    executor = make_executor("ray", 2)
    assert isinstance(executor, RayExecutor) and executor.workers == 2
    try:
        argv = [*ARGV, "--executor", "ray", "--workers", "2", "--output", str(tmp_path), "--no-progress"]
        algo_experiments.main(argv)
        assert ray.is_initialized() and ray.cluster_resources()["CPU"] == 2
        assert tables(tmp_path) == local_table
        assert "--executor ray" in (tmp_path / "algo.md").read_text()  # the command that made it
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    nodes.add_node(num_cpus=1)
    ray.init(address=nodes.address, log_to_driver=False, logging_level="WARNING")
    nodes.wait_for_nodes()
    yield nodes
    ray.shutdown()
    nodes.shutdown()


def test_a_two_node_cluster_gives_the_same_table_and_survives_a_killed_worker(cluster, local_table, tmp_path):
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
    executor = RayExecutor(cluster.address)
    assert executor.workers == 2  # the cluster's CPUs

    marker = tmp_path / "killed"
    assert run_jobs(square_or_die, list(range(6)), executor, "squares", str(marker), progress=False) == {
        j: j * j for j in range(6)
    }
    assert marker.exists()  # job 3's worker died once, and the job ran again

    KILL_MARKER[:] = [str(tmp_path / "tournament-killed")]
    flaky = dataclasses.replace(algo_experiments.EXPERIMENT, play=play_or_die)
    argv = [*ARGV, "--executor", "ray", "--ray-address", cluster.address, "--output", str(tmp_path / "t")]
    run_experiment(flaky, [*argv, "--no-progress"])
    assert (tmp_path / "tournament-killed").exists()
    assert tables(tmp_path / "t") == local_table


def test_on_the_cluster_at_most_a_few_jobs_a_cpu_are_in_flight(cluster, monkeypatch, tmp_path):
    """Jobs are submitted as others finish: ``ray.wait`` never looks over more than the window, whatever the
    number of jobs (it looked over every pending job for each result: quadratic in a big run)."""
    from deduction_envs.executor import in_flight

    sizes: list[int] = []
    real_wait = ray.wait
    monkeypatch.setattr(ray, "wait", lambda refs, **kw: (sizes.append(len(refs)), real_wait(refs, **kw))[1])
    executor = RayExecutor(cluster.address)
    jobs = list(range(30))
    (tmp_path / "spared").touch()  # job 3 lives
    assert run_jobs(square_or_die, jobs, executor, "squares", str(tmp_path / "spared"), progress=False) == {
        j: j * j for j in jobs
    }
    assert max(sizes) == in_flight(executor.workers) == 8 and len(sizes) >= 30
    sizes.clear()  # a generator, read as there is room, and a smaller window
    assert dict(executor.run(square_or_die, iter(jobs[:6]), (str(tmp_path / "spared"),), limit=2)) == {
        j: j * j for j in jobs[:6]
    }
    assert max(sizes) == 2


def test_a_cluster_that_is_not_there_is_said_within_a_bounded_time(tmp_path, capsys, monkeypatch):
    """``--ray-address 127.0.0.1:1`` (nothing listens) retried for more than 7 minutes."""
    import time

    nowhere = RayExecutor("127.0.0.1:1", connect_timeout=1.5)
    start = time.monotonic()
    with pytest.raises(ConnectionError, match=r"no Ray cluster answers at 127\.0\.0\.1:1 \(.*tried for 1\.5 s\)"):
        nowhere.check_address()  # what start() asks before ray.init (a Ray the suite started already is used as is)
    assert 1.5 <= time.monotonic() - start < 10
    monkeypatch.setattr(RayExecutor.__init__, "__defaults__", (None, 2, 3, 1.0, 1, 0, None))  # the CLI's: 1 s
    with pytest.raises(SystemExit) as exit_:
        run_experiment(algo_experiments.EXPERIMENT, [*ARGV, "--executor", "ray", "--ray-address", "127.0.0.1:1",
                                                     "--output", str(tmp_path / "t")])  # fmt: skip
    assert exit_.value.code == 2 and "error: no Ray cluster answers at 127.0.0.1:1" in capsys.readouterr().err
    assert not (tmp_path / "t" / "algo.md").exists()
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")
    with pytest.raises(ConnectionError, match="no Ray cluster answers"):
        RayExecutor(connect_timeout=0).check_address()
    for bad in (-1, float("nan"), "5", True):
        with pytest.raises(ValueError, match="connect_timeout must be a finite number"):
            RayExecutor(connect_timeout=bad)


def test_ray_options_are_checked(capsys):
    with pytest.raises(ValueError, match="--ray-address goes with --executor ray"):
        make_executor("local", 1, "host:1")
    with pytest.raises(ValueError, match="executor must be one of local, ray"):
        make_executor("dask", 1)
    with pytest.raises(ValueError, match="address must be a cluster address"):
        RayExecutor("  ")


def test_a_sweep_runs_its_trials_on_the_two_node_cluster(cluster, tmp_path):
    """Two trials at once, one a node, reporting to the sweep's journal from the cluster's workers."""
    from train import cli
    from train.sweep import run_sweep

    # One env: rollouts of 128 steps, so a report at each (a report follows the rollout that passed its step).
    config = cli.parse_args(["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--n-envs", "1",
                             "--timesteps", "256", "--checkpoint-every", "128", "--sweep", "2", "--pruner", "none",
                             "--space", "learning_rate=1e-4..1e-2:log", "--no-progress", "--output",
                             str(tmp_path / "sweep")])  # fmt: skip
    result = run_sweep(config, RayExecutor(cluster.address), command=[])
    assert [t.state for t in result.trials] == ["complete", "complete"]
    for trial in result.trials:
        assert [step for step, _ in trial.reports] == [128, 256]  # reported from the worker, through the journal
        assert (tmp_path / "sweep" / f"trial-{trial.number}" / "comparison.md").exists()
    assert (tmp_path / "sweep" / "best.toml").exists()
