"""Run independent jobs in worker processes with a progress bar (the experiments of ``train``)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, TypeVar

from tqdm import tqdm

J = TypeVar("J", bound=Hashable)
R = TypeVar("R")


def run_jobs(function: Callable[..., R], jobs: Sequence[J], workers: int, desc: str, *args: Any) -> dict[J, R]:
    """``function(job, *args)`` for every job, in the given order, over ``workers`` processes.

    With one worker the jobs run in this process; otherwise in fresh
    (``spawn``) processes, so ``function`` and its arguments must be
    picklable. Returns the results by job.
    """
    results: dict[J, R] = {}
    with tqdm(total=len(jobs), desc=desc) as bar:
        if workers == 1:
            for job in jobs:
                results[job] = function(job, *args)
                bar.update()
        else:
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(workers, mp_context=context) as pool:
                futures = {pool.submit(function, job, *args): job for job in jobs}
                for future in as_completed(futures):
                    results[futures[future]] = future.result()
                    bar.update()
    return results
