"""The executor seam: the same results by job on one or several processes, and a store that resumes a run."""

from __future__ import annotations

import pytest

from deduction_envs.executor import LocalExecutor, run_jobs

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


def sleeper(job: int, folder: str) -> int:
    """A job that says where it runs (its process id, in a file) and then takes a minute."""
    import os
    import time
    from pathlib import Path

    written = Path(folder) / f"{job}.tmp"
    written.write_text(str(os.getpid()))
    written.rename(written.with_suffix(".pid"))  # whole: the test reads a .pid file as soon as it appears
    time.sleep(60)
    return job


def test_a_run_killed_from_outside_takes_its_workers_with_it(tmp_path):
    """SIGKILL on the process that runs the jobs (nothing of Python's clean-up runs): its two worker processes
    end too, rather than finishing their jobs as orphans."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    if not sys.platform.startswith("linux"):
        pytest.skip("the workers' guard is Linux's parent-death signal")
    script = (
        "import sys; sys.path.insert(0, sys.argv[2])\n"
        "from deduction_envs.executor import run_jobs\n"
        "from tests.test_executor import sleeper\n"
        "run_jobs(sleeper, [1, 2], 2, 'sleep', sys.argv[1], progress=False)\n"
    )
    root = str(Path(__file__).resolve().parent.parent)
    parent = subprocess.Popen([sys.executable, "-c", script, str(tmp_path), root])
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("*.pid"))) < 2:
        assert time.monotonic() < deadline and parent.poll() is None, "the workers did not start"
        time.sleep(0.1)
    workers = [int(p.read_text()) for p in tmp_path.glob("*.pid")]
    parent.send_signal(signal.SIGKILL)
    parent.wait()

    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            return False
        return state not in ("Z", "X")  # a zombie has ended; only its exit status waits to be read

    deadline = time.monotonic() + 20
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    still = [pid for pid in workers if alive(pid)]
    for pid in still:
        os.kill(pid, signal.SIGKILL)
    assert not still, f"worker processes {still} outlived the run"


def test_at_most_a_few_jobs_a_worker_are_in_flight_however_many_jobs_a_run_has(monkeypatch):
    """The pool is handed jobs as others finish, never the whole run at once: the driver's bookkeeping stays the
    size of the window, and every result still arrives once, by job."""
    import concurrent.futures

    import deduction_envs.executor as executor

    sizes: list[int] = []
    real_wait = concurrent.futures.wait

    def watched(futures, **kwargs):
        sizes.append(len(futures))
        return real_wait(futures, **kwargs)

    monkeypatch.setattr(executor, "wait", watched)
    jobs = list(range(40))
    results = run_jobs(square, jobs, 2, "squares", 0, progress=False)
    assert results == {j: j * j for j in jobs}
    assert executor.in_flight(2) == 8 and max(sizes) == 8 and len(sizes) >= 40 // 8
    with pytest.raises(ValueError, match="workers must be an integer >= 1"):
        executor.in_flight(0)


def test_jobs_are_drawn_lazily_and_a_limit_keeps_fewer_in_flight(monkeypatch):
    """A generator of jobs is read a job at a time as there is room (a sweep makes its next trial from the
    results before it): with ``limit`` 2 on two workers, never more than two jobs were drawn and unfinished."""
    import concurrent.futures

    import deduction_envs.executor as executor

    sizes: list[int] = []
    real_wait = concurrent.futures.wait
    monkeypatch.setattr(executor, "wait", lambda fs, **kw: (sizes.append(len(fs)), real_wait(fs, **kw))[1])
    drawn, finished = [], []

    def jobs():
        for job in range(12):
            assert len(drawn) - len(finished) < 2  # room for this one only once a result came back
            drawn.append(job)
            yield job

    for job, result in LocalExecutor(2).run(square, jobs(), (0,), limit=2):
        assert result == job * job
        finished.append(job)
    assert sorted(finished) == list(range(12)) and max(sizes) == 2
    with pytest.raises(ValueError, match="limit must be an integer >= 1"):
        list(LocalExecutor(2).run(square, [1], (0,), limit=0))


def test_fold_jobs_folds_every_result_once_through_the_workers_and_resumes_from_its_one_file(tmp_path):
    """Results folded as they arrive (here a list, to see each job once) give the fold of all of them; the store
    is one file, and a run stopped after some jobs were saved resumes with only the others."""
    from deduction_envs.executor import fold_jobs

    def add(state: list, job: int, result: int) -> list:
        return [*state, (job, result)]

    folded = fold_jobs(square, list(range(20)), 2, "squares", 0, start=list, add=add, progress=False)
    assert sorted(folded) == [(j, j * j) for j in range(20)]
    store = tmp_path / "store"
    calls: list[int] = []

    def stop_after(state: list, job: int, result: int) -> list:
        calls.append(job)
        if len(calls) == 6:
            raise KeyboardInterrupt  # the driver stopped after five results were folded and saved
        return add(state, job, result)

    with pytest.raises(KeyboardInterrupt):
        fold_jobs(square, list(range(12)), 1, "squares", 0, start=list, add=stop_after, store=store, progress=False,
                  save_every=0)  # fmt: skip
    assert [path.name for path in store.iterdir()] == ["folded.pickle"]
    played: list[int] = []

    def counted(state: list, job: int, result: int) -> list:
        played.append(job)
        return add(state, job, result)

    resumed = fold_jobs(square, list(range(12)), 1, "squares", 0, start=list, add=counted, store=store,
                        progress=False)  # fmt: skip
    assert sorted(resumed) == [(j, j * j) for j in range(12)]  # every job once
    assert played == list(range(5, 12))  # five from the file, the seven others played


def test_a_jobs_kept_name_is_the_digest_of_the_function_the_job_and_the_arguments():
    """Written out once for all the jobs (a tournament's arguments can be large), the names are those a kept
    store was written under: a run interrupted before still resumes."""
    import hashlib

    from deduction_envs.executor import _key, _keys

    cases = [((4, "entropy", "deduction-sheet", 0, 25), ({"games": [1, 2]},)), (0, ()), ("j", ("only",))]
    for job, args in cases:
        text = repr((square.__module__, square.__qualname__, job, args))
        assert _key(square, job, args) == hashlib.sha256(text.encode()).hexdigest()[:32]
    assert _keys(square, [1, 2], (0,)) == {1: _key(square, 1, (0,)), 2: _key(square, 2, (0,))}
