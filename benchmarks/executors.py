"""The executor seam on one machine: jobs per second of a Clue tournament, by executor.

    python -m benchmarks.executors [--jobs 24] [--games 4]        # needs the ray extra for the Ray rows

The jobs are parts of the Clue tournament (``train.experiments.clue_experiments.play_part``): the entropy agent
against deduction-sheet agents at four players, ``--games`` games a job (about a second each on this machine).
The same jobs run on:

* the local executor with 1 worker (the reference) and with 2 worker processes;
* a local Ray with 2 CPUs (started before the clock starts; its start-up is measured on its own);
* a two-node Ray cluster on this machine, 1 CPU a node (``ray.cluster_utils.Cluster``, loopback only),
  against the local Ray's 2 CPUs on one node.

Prints each set-up's wall seconds, jobs per second and the ratio to the reference, measured in the same run, and
checks that every set-up returned the same results. The workers of each pool are started inside the timing (a
pool is made per run, as the experiments make it), Ray's are warmed by a first pass that is not timed (Ray keeps
its workers between runs).
"""

from __future__ import annotations

import os
import time

from deduction_envs.executor import Executor, LocalExecutor, run_jobs
from train import arguments
from train.experiments.clue_experiments import Settings, play_part


def timed(executor: Executor, jobs: list, settings: Settings) -> tuple[float, dict]:
    """Wall seconds of the jobs, and their results without the decision times (which vary from run to run)."""
    start = time.perf_counter()
    results = run_jobs(play_part, jobs, executor, "jobs", settings, progress=False)
    seconds = time.perf_counter() - start
    games = {
        job: [{k: v for k, v in game.items() if not k.endswith("_times")} for game in part]
        for job, part in results.items()
    }
    return seconds, games


def main(argv: list[str] | None = None) -> None:

    parser = arguments.Parser(prog="python -m benchmarks.executors", description=__doc__)
    parser.add_argument("--jobs", type=arguments.count(2), default=24, help="jobs (default 24)")
    parser.add_argument("--games", type=arguments.count(1), default=4, help="games a job (default 4)")
    parser.add_argument("--no-ray", dest="ray", action="store_false", help="the local executor only")
    args = parser.parse_args(argv)
    settings = Settings(args.games * args.jobs, 1, 0.25, (4,), 0, args.games)
    jobs = [
        (4, "entropy", "deduction-sheet", start, args.games) for start in range(0, args.games * args.jobs, args.games)
    ]

    rows: list[tuple[str, float]] = []
    reference, expected = timed(LocalExecutor(1), jobs, settings)
    rows.append(("local, 1 worker (reference)", reference))
    seconds, results = timed(LocalExecutor(2), jobs, settings)
    assert results == expected
    rows.append(("local, 2 workers", seconds))

    notes = []
    if args.ray:
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only
        os.environ.setdefault("RAY_worker_niceness", "0")
        import ray
        from ray.cluster_utils import Cluster

        from deduction_envs.executor import RayExecutor

        start = time.perf_counter()
        executor = RayExecutor(workers=2)
        executor.start()
        notes.append(f"Ray start-up (ray.init, a local Ray of 2 CPUs): {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        timed(executor, jobs[:2], settings)  # the workers start and import the project
        notes.append(f"Ray's first two jobs, workers starting: {time.perf_counter() - start:.1f} s")
        seconds, results = timed(executor, jobs, settings)
        assert results == expected
        rows.append(("Ray, one node of 2 CPUs", seconds))
        ray.shutdown()

        start = time.perf_counter()
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False, logging_level="WARNING")
        cluster.wait_for_nodes()
        notes.append(f"two-node cluster start-up: {time.perf_counter() - start:.1f} s")
        executor = RayExecutor(cluster.address)
        timed(executor, jobs[:2], settings)
        seconds, results = timed(executor, jobs, settings)
        assert results == expected
        rows.append(("Ray, two nodes of 1 CPU", seconds))
        ray.shutdown()
        cluster.shutdown()

    print(f"{len(jobs)} jobs of {args.games} Clue games (entropy against deduction-sheet agents, 4 players)")
    print(f"{'set-up':<30} {'seconds':>8} {'jobs/s':>8} {'x reference':>12}")
    for label, seconds in rows:
        print(f"{label:<30} {seconds:8.2f} {len(jobs) / seconds:8.2f} {reference / seconds:12.2f}")
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
