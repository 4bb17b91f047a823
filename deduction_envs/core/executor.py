"""The one executor seam: every many-job workload (evaluations, tournaments, demonstrations, experiments) runs its
jobs through :func:`run_jobs`.

A job is a hashable, picklable value that carries its own seed, and ``function(job, *args)`` its result, so a
table is the same whoever runs the jobs and in whatever order they finish. An :class:`Executor` runs them:
:class:`LocalExecutor` in this process (one worker) or in a pool of fresh processes; a cluster's executor
(Ray) plugs in behind the same :class:`Executor` protocol. With a ``store`` folder, each finished job's result is
kept there as it arrives, and a later call with the same function, jobs and arguments takes the kept results
instead of running those jobs again: a killed run resumes where it stopped.

    from deduction_envs.core.executor import run_jobs

    squares = run_jobs(pow, [1, 2, 3], 2, "squares", 2)   # {1: 1, 2: 4, 3: 9}, over two processes
"""

from __future__ import annotations

import hashlib
import multiprocessing
import pickle
from collections.abc import Callable, Hashable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Protocol, TypeVar

from deduction_envs.core.rules import check_int

__all__ = ["Executor", "LocalExecutor", "run_jobs"]

J = TypeVar("J", bound=Hashable)
R = TypeVar("R")


class Executor(Protocol):
    """Runs ``function(job, *args)`` for every job and yields ``(job, result)`` as each finishes."""

    def run(self, function: Callable[..., Any], jobs: Sequence[Any], args: tuple) -> Iterator[tuple[Any, Any]]: ...


class LocalExecutor:
    """This machine: the jobs in this process with one worker, else in a pool of ``workers`` fresh (``spawn``)
    processes, so the function and its arguments must be picklable."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = check_int("workers", workers, low=1)

    def run(self, function: Callable[..., Any], jobs: Sequence[Any], args: tuple) -> Iterator[tuple[Any, Any]]:
        if self.workers == 1:
            for job in jobs:
                yield job, function(job, *args)
            return
        with ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(function, job, *args): job for job in jobs}
            for future in as_completed(futures):
                yield futures[future], future.result()


def _key(function: Callable[..., Any], job: Any, args: tuple) -> str:
    """The name a job's result is kept under: a digest of the function, the job and the arguments."""
    text = repr((function.__module__, function.__qualname__, job, args))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def run_jobs(
    function: Callable[..., R],
    jobs: Sequence[J],
    workers: int,
    desc: str,
    *args: Any,
    executor: Executor | None = None,
    store: str | Path | None = None,
    progress: bool | None = True,
) -> dict[J, R]:
    """``function(job, *args)`` for every job, through ``executor`` (default: :class:`LocalExecutor` with
    ``workers``), with a progress bar named ``desc`` (``progress`` None: on a terminal only). Returns the
    results by job, in the order of ``jobs``.

    With ``store``, each result is kept there (one pickle a job) as it arrives, and jobs whose results are
    kept already are not run again.
    """
    from tqdm.auto import tqdm

    executor = LocalExecutor(workers) if executor is None else executor
    folder = None if store is None else Path(store)
    kept: dict[J, R] = {}
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        for job in jobs:
            path = folder / f"{_key(function, job, args)}.pickle"
            if path.exists():
                kept[job] = pickle.loads(path.read_bytes())
    todo = [job for job in jobs if job not in kept]
    with tqdm(total=len(jobs), initial=len(kept), desc=desc, disable=None if progress is None else not progress) as bar:
        for job, result in executor.run(function, todo, args):
            if folder is not None:
                path = folder / f"{_key(function, job, args)}.pickle"
                partial = path.with_suffix(".partial")
                partial.write_bytes(pickle.dumps(result))
                partial.replace(path)  # a job is kept whole or not at all
            kept[job] = result
            bar.update()
    return {job: kept[job] for job in jobs}
