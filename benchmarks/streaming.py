"""The driver's memory over a big Clue tournament: results folded as they arrive against results kept.

    python -m benchmarks.streaming [--games 200000] [--real 200] [--no-ray]

A Clue tournament cell (the entropy agent against three deduction-sheet agents, 4 players) of ``--games`` games
in parts of 25, run through the executor seam as ``python -m train.experiments.clue_experiments`` runs it, in two
ways: **folded** (each part's games folded into the cell's tally as they arrive and let go,
:func:`deduction_envs.executor.fold_jobs`, what the experiment does now) and **kept** (every part's game summaries
held until the end, :func:`deduction_envs.executor.run_jobs`, what it did before). The driver's resident memory
is read at its first result and at its last.

A real game takes 0.6 to 0.8 s on this machine, so 200,000 of them would take about two days of CPU: the parts'
games are ``--real`` real games, played once before the clock starts, and part ``k`` returns real part
``k mod (real / 25)``. The driver does for each part exactly what it does in a real run (receives it, folds or
keeps it); only the workers are spared the playing.

The folded run goes through the local pool (2 workers) and, unless ``--no-ray``, through a two-node Ray cluster
on this machine (loopback only, 1 CPU a node); the two tallies must be identical.
"""

from __future__ import annotations

import os
import resource
import time

from deduction_envs.executor import Executor, LocalExecutor, fold_jobs, run_jobs
from train import arguments
from train.experiments.clue_experiments import Settings, Tally, add_part, play_part, start_tallies

CELL = (4, "entropy", "deduction-sheet")
PART = 25


def resident_mb() -> float:
    """This process's resident memory now, MB (Linux: /proc/self/statm)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def replayed_part(job: tuple, parts: list[list[dict]]) -> list[dict]:
    """Part ``job`` of the tournament: the real part it stands for (its index among the parts, modulo)."""
    return parts[(job[3] // PART) % len(parts)]


class Watched:
    """The driver's memory at its first result, its last, and the most it reached between (read every part)."""

    def __init__(self) -> None:
        self.first = self.last = self.most = 0.0

    def read(self) -> None:
        now = resident_mb()
        self.first = self.first or now
        self.last, self.most = now, max(self.most, now)


def folded(executor: Executor, jobs: list, settings: Settings, parts: list) -> tuple[dict, Watched, float]:
    watched = Watched()

    def add(tallies: dict, job: tuple, games: list[dict]) -> dict:
        add_part(tallies, job, games)
        watched.read()
        return tallies

    start = time.perf_counter()
    tallies = fold_jobs(replayed_part, jobs, executor, "folded", parts, start=lambda: start_tallies(settings),
                        add=add, progress=False)  # fmt: skip
    return tallies, watched, time.perf_counter() - start


def kept(executor: Executor, jobs: list, parts: list) -> tuple[Watched, float]:
    """The jobs' results held by job until the last is in, as :func:`run_jobs` holds them."""
    watched, results = Watched(), {}
    start = time.perf_counter()
    for job, games in executor.run(replayed_part, jobs, (parts,)):
        results[job] = games
        watched.read()
    seconds = time.perf_counter() - start
    del results
    return watched, seconds


def same(first: dict[tuple, Tally], second: dict[tuple, Tally]) -> bool:
    """Whether two runs' tallies hold the same figures."""
    return all(
        (a.won == b.won).all() and a.wrong == b.wrong and a.turns == b.turns and a.truncated == b.truncated
        and (a.times == b.times).all() and a.time_ns == b.time_ns
        for a, b in ((first[key], second[key]) for key in first)
    ) and first.keys() == second.keys()  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(prog="python -m benchmarks.streaming", description=__doc__)
    parser.add_argument("--games", type=arguments.count(PART), default=200_000, help="games (default 200000)")
    parser.add_argument("--real", type=arguments.count(PART), default=200, help="real games replayed (default 200)")
    parser.add_argument("--no-ray", dest="ray", action="store_false", help="the local pool only")
    args = parser.parse_args(argv)
    games = args.games // PART * PART
    settings = Settings(games, 1, 0.25, (4,), 0, PART, (CELL[1],), (CELL[2],))
    real = run_jobs(play_part, [(*CELL, s, PART) for s in range(0, args.real // PART * PART, PART)], 2,
                    "real games", settings)  # fmt: skip
    parts = list(real.values())
    jobs = [(*CELL, s, PART) for s in range(0, games, PART)]
    print(f"{games:,} games of {CELL[1]} against {CELL[2]} agents ({CELL[0]} players), {len(jobs):,} parts of "
          f"{PART}, replaying {len(parts) * PART} real games")  # fmt: skip
    print(f"{'run':<34} {'seconds':>8} {'MB at first':>12} {'MB at last':>11} {'growth':>8} {'most':>8}")

    def row(label: str, watched: Watched, seconds: float) -> None:
        growth = watched.last - watched.first
        print(f"{label:<34} {seconds:8.1f} {watched.first:12.1f} {watched.last:11.1f} {growth:+8.1f} "
              f"{watched.most:8.1f}")  # fmt: skip

    local, watched, seconds = folded(LocalExecutor(2), jobs, settings, parts)
    row("folded, local pool of 2", watched, seconds)
    watched, seconds = kept(LocalExecutor(2), jobs, parts)
    row("kept, local pool of 2", watched, seconds)
    if args.ray:
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only
        os.environ.setdefault("RAY_worker_niceness", "0")
        import ray
        from ray.cluster_utils import Cluster

        from deduction_envs.executor import RayExecutor

        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False, logging_level="WARNING")
        cluster.wait_for_nodes()
        try:
            tallies, watched, seconds = folded(RayExecutor(cluster.address), jobs, settings, parts)
            row("folded, two-node Ray cluster", watched, seconds)
            print(f"the cluster's tallies are the local pool's: {same(tallies, local)}")
        finally:
            ray.shutdown()
            cluster.shutdown()
    tally = local[CELL]
    print(f"the table's cell: {tally.games:,} games, {tally.wins:,} won; peak of the process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
