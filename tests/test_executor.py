"""The executor seam: the same results by job on one or several processes, and a store that resumes a run."""

from __future__ import annotations

import pytest

from deduction_envs.core.executor import LocalExecutor, run_jobs

CALLS: list[int] = []
FAIL_AT: set[int] = set()


def square(job: int, offset: int) -> int:
    """A job that records that it ran (in this process) and fails where asked."""
    CALLS.append(job)
    if job in FAIL_AT:
        raise RuntimeError(f"job {job} failed")
    return job * job + offset


def test_results_are_by_job_in_the_order_given_whatever_the_workers():
    jobs = [5, 3, 8, 1]
    one = run_jobs(square, jobs, 1, "squares", 10, progress=False)
    two = run_jobs(square, jobs, 2, "squares", 10, progress=False)  # in spawned processes
    assert list(one) == jobs and one == two == {5: 35, 3: 19, 8: 74, 1: 11}
    with pytest.raises(ValueError, match="workers must be an integer >= 1, got 0"):
        LocalExecutor(0)


def test_a_store_keeps_each_result_as_it_arrives_and_a_killed_run_resumes_where_it_stopped(tmp_path):
    CALLS.clear()
    FAIL_AT.clear()
    FAIL_AT.add(3)
    with pytest.raises(RuntimeError, match="job 3 failed"):  # the run dies at its third job
        run_jobs(square, [1, 2, 3, 4], 1, "squares", 0, store=tmp_path, progress=False)
    assert CALLS == [1, 2, 3] and len(list(tmp_path.glob("*.pickle"))) == 2
    FAIL_AT.clear()
    CALLS.clear()
    assert run_jobs(square, [1, 2, 3, 4], 1, "squares", 0, store=tmp_path, progress=False) == {1: 1, 2: 4, 3: 9, 4: 16}
    assert CALLS == [3, 4]  # only what was not kept
    CALLS.clear()
    assert run_jobs(square, [4, 1], 1, "squares", 0, store=tmp_path, progress=False) == {4: 16, 1: 1}
    assert CALLS == []
    assert run_jobs(square, [1], 1, "squares", 100, store=tmp_path, progress=False) == {1: 101}  # other arguments
    assert CALLS == [1]
