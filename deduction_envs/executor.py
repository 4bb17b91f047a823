"""The one executor seam: every many-job workload (evaluations, tournaments, demonstrations, experiments) runs its
jobs through :func:`run_jobs`.

A job is a hashable, picklable value that carries its own seed, and ``function(job, *args)`` its result, so a
table is the same whoever runs the jobs and in whatever order they finish. An :class:`Executor` runs them:
:class:`LocalExecutor` in this process (one worker) or in a pool of fresh processes; a cluster's executor
(Ray) plugs in behind the same :class:`Executor` protocol. With a ``store`` folder, each finished job's result is
kept there as it arrives, and a later call with the same function, jobs and arguments takes the kept results
instead of running those jobs again: a killed run resumes where it stopped.

:class:`RayExecutor` runs each job as a Ray task on a cluster (``pip install "deduction-envs[ray]"``): a worker
that dies costs a retry of its jobs, not the run. Nothing imports Ray unless a :class:`RayExecutor` runs.
:func:`make_executor` builds either from a command line's ``--executor``, ``--workers`` and ``--ray-address``.

    from deduction_envs.executor import run_jobs

    squares = run_jobs(pow, [1, 2, 3], 2, "squares", 2)   # {1: 1, 2: 4, 3: 9}, over two processes
"""

from __future__ import annotations

import hashlib
import itertools
import multiprocessing
import os
import pickle
import shutil
import sys
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, Protocol, TypeVar

from deduction_envs.core.rules import check_int

__all__ = [
    "EXECUTORS",
    "Executor",
    "LocalExecutor",
    "RayExecutor",
    "as_executor",
    "carry_token",
    "code_digest",
    "discard_store",
    "fold_jobs",
    "has_token",
    "in_flight",
    "make_executor",
    "private_ray",
    "run_jobs",
]

J = TypeVar("J", bound=Hashable)
R = TypeVar("R")
S = TypeVar("S")


class Executor(Protocol):
    """Runs ``function(job, *args)`` for every job and yields ``(job, result)`` as each finishes.

    ``workers``: how many jobs run at once (callers split their work into a few jobs per worker). ``jobs`` is
    read lazily, a job when there is room for it: at most ``limit`` jobs submitted at once (None:
    :func:`in_flight` of the workers), so a generator may make each job from the results before it (a sweep's
    next trial).
    """

    @property
    def workers(self) -> int: ...

    def run(
        self, function: Callable[..., Any], jobs: Iterable[Any], args: tuple, limit: int | None = None
    ) -> Iterator[tuple[Any, Any]]: ...


def _start_worker(parent: int) -> None:
    """A worker process computes with one thread (torch and BLAS read these when first imported): as many
    workers as cores, not workers times cores threads fighting over them. Ray does the same for its tasks.

    On Linux it also asks to be killed (SIGKILL) when the process that started it dies: a run killed from outside
    (SIGTERM, SIGKILL) takes its workers with it at once, instead of leaving them computing as orphans (a training
    job catches SIGTERM to save and stop, and would then take the next job from the pool's queue). What a killed
    job had done is on disk as its checkpoints, which the same command resumes from. ``parent``: the process id of
    that process, to tell whether it died before the request was made.
    """
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        PR_SET_PDEATHSIG = 1
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
        except (OSError, AttributeError):  # no prctl in this libc: the workers simply lack the guard
            return
        if os.getppid() != parent:  # the parent died before the request was made (the worker was adopted)
            os._exit(1)


#: Jobs an executor keeps submitted per worker: enough that no worker waits for the driver, few enough that the
#: driver's bookkeeping (and the cluster's queue) stays small however many jobs a run has.
IN_FLIGHT_PER_WORKER = 4


def in_flight(workers: int) -> int:
    """How many jobs an executor of ``workers`` keeps submitted at once (:data:`IN_FLIGHT_PER_WORKER` each)."""
    return IN_FLIGHT_PER_WORKER * check_int("workers", workers, low=1)


class LocalExecutor:
    """This machine: the jobs in this process with one worker, else in a pool of ``workers`` fresh (``spawn``)
    processes, so the function and its arguments must be picklable; at most :func:`in_flight` jobs submitted at
    once, the next submitted as one finishes."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = check_int("workers", workers, low=1)

    def run(
        self, function: Callable[..., Any], jobs: Iterable[Any], args: tuple, limit: int | None = None
    ) -> Iterator[tuple[Any, Any]]:
        if self.workers == 1:
            for job in jobs:
                yield job, function(job, *args)
            return
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(
            self.workers, mp_context=context, initializer=_start_worker, initargs=(os.getpid(),)
        ) as pool:
            pending: dict[Any, Any] = {}
            waiting = iter(jobs)
            limit = in_flight(self.workers) if limit is None else check_int("limit", limit, low=1)
            while True:
                for job in itertools.islice(waiting, limit - len(pending)):
                    pending[pool.submit(function, job, *args)] = job
                if not pending:
                    return
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield pending.pop(future), future.result()


#: What the Ray executor says where Ray is not installed.
NEEDS_RAY = 'the Ray executor needs Ray: pip install "deduction-envs[ray]"'


#: Ray's switch for "a cluster of several machines": off, a node takes the loopback address for its own and every
#: server it starts listens there only (on Linux Ray otherwise replaces 127.0.0.1 with the machine's routable
#: address and listens on every interface).
LOOPBACK_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def code_digest() -> str:
    """A digest of this project's code as this process imports it (every ``.py`` file of ``deduction_envs``,
    ``agents`` and ``train``, by path and content): two machines with the same digest run the same code."""
    global _DIGEST
    if _DIGEST is None:
        root = Path(__file__).resolve().parent.parent
        digest = hashlib.sha256()
        for package in ("deduction_envs", "agents", "train"):
            for path in sorted((root / package).rglob("*.py")):
                digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
        _DIGEST = digest.hexdigest()[:16]
    return _DIGEST


_DIGEST: str | None = None


def _call(function: Callable[..., Any], job: Any, args: tuple, where: str, code: str = "") -> Any:
    """One job, as a Ray task runs it: refused if this node's code is not the driver's (``code``: the driver's
    :func:`code_digest`); at the priority of the work (Ray starts its workers at niceness 15 to 19, which starves
    them beside anything else; raised back to 0 where the worker may) and in the driver's working directory
    ``where`` when this node has it (a relative path then means what it means to the driver; a ``ray start``
    worker otherwise runs wherever ``ray start`` ran)."""
    if code and code != code_digest():
        import socket

        raise RuntimeError(
            f"node {socket.gethostname()} runs other code than the driver (code digest {code_digest()}, the "
            f"driver's {code}; {Path(__file__).resolve().parent.parent}): install the driver's version of the "
            "project on every node, or ship it with Ray's runtime environment"
        )
    _work_priority()
    if where and os.path.isdir(where):
        os.chdir(where)
    return function(job, *args)


def _work_priority() -> None:
    """This process back at niceness 0 if it was niced and may change it (root, or CAP_SYS_NICE); else as it is."""
    try:
        if os.getpriority(os.PRIO_PROCESS, 0) > 0:
            os.setpriority(os.PRIO_PROCESS, 0, 0)
    except (OSError, AttributeError):  # not allowed, or not POSIX: the worker keeps its niceness
        pass


class RayExecutor:
    """A Ray cluster: every job a Ray task of one CPU, retried on another worker if its worker dies; at most
    :func:`in_flight` of them submitted at once, the next submitted as one finishes.

    Args:
        address: the cluster to join (``"HOST:PORT"`` of its head, or ``"auto"``); None: the ``RAY_ADDRESS``
            environment variable if set, else a Ray started for this process on this machine, bound to the
            loopback address, with ``workers`` CPUs.
        workers: CPUs of a Ray started here (ignored when joining a cluster, whose CPUs are its own).
        retries: how many times a job whose worker died is run again before the run fails.
        connect_timeout: seconds to wait for a cluster's head (``HOST:PORT``) to answer before giving up with a
            :class:`ConnectionError` (Ray itself retries for many minutes).
        cpus, gpus, memory: what each job asks of the cluster (CPUs and GPUs, fractions allowed; memory in bytes,
            None: no reservation): Ray runs a job only where they are free.

    A job refuses to run on a node whose code differs from the driver's (:func:`code_digest`), with a message
    naming the node.

    If Ray is already initialised in this process (``ray.init`` by the caller), the executor uses it as it is.
    Workers must be able to import this package and the job's function: on a cluster, install the project on
    every node (the same version).
    """

    def __init__(
        self,
        address: str | None = None,
        workers: int = 2,
        retries: int = 3,
        connect_timeout: float = 120.0,
        cpus: float = 1,
        gpus: float = 0,
        memory: int | None = None,
    ) -> None:
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise ValueError(f"address must be a cluster address such as 'HOST:6379' or 'auto', got {address!r}")
        for name, value in (("cpus", cpus), ("gpus", gpus)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < float("inf"):
                raise ValueError(f"{name} must be a finite number >= 0 a job, got {value!r}")
        if cpus == 0 and gpus == 0:
            raise ValueError("a job asks for some CPU or GPU: cpus and gpus cannot both be 0")
        #: What each job asks of the cluster (Ray's ``num_cpus``, ``num_gpus``, ``memory`` in bytes).
        self.resources: dict[str, Any] = {"num_cpus": cpus, "num_gpus": gpus}
        if memory is not None:
            self.resources["memory"] = check_int("memory", memory, low=1)
        self.address = address
        self._workers = check_int("workers", workers, low=1)
        self.retries = check_int("retries", retries, low=0)
        if (
            isinstance(connect_timeout, bool)
            or not isinstance(connect_timeout, int | float)
            or not (0 <= connect_timeout < float("inf"))
        ):
            raise ValueError(f"connect_timeout must be a finite number of seconds >= 0, got {connect_timeout!r}")
        self.connect_timeout = float(connect_timeout)

    def check_address(self) -> None:
        """Raise :class:`ConnectionError` unless the cluster to join (``address``, else ``RAY_ADDRESS``) answers
        within ``connect_timeout`` seconds; nothing to check for a Ray started here, ``"auto"`` or ``ray://``."""
        address = self.address or os.environ.get("RAY_ADDRESS") or ""
        host, _, port = address.rpartition(":")
        if "://" in address or not host or not port.isdigit():
            return
        import socket

        deadline = time.monotonic() + self.connect_timeout
        while True:
            try:
                socket.create_connection(
                    (host.strip("[]"), int(port)), timeout=max(0.1, deadline - time.monotonic())
                ).close()
            except OSError as error:
                if time.monotonic() >= deadline:
                    raise ConnectionError(
                        f"no Ray cluster answers at {address} ({error.strerror or error}; tried for "
                        f"{self.connect_timeout:g} s): start one there (ray start --head --node-ip-address 127.0.0.1) "
                        "or give the address of a running one (--ray-address, RAY_ADDRESS)"
                    ) from None
                time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
            else:
                return

    @property
    def workers(self) -> int:
        """The CPUs of the cluster (joined to count them), or of the Ray to be started here."""
        if self.address is None and not os.environ.get("RAY_ADDRESS"):
            return self._workers
        return max(1, int(self.start().cluster_resources().get("CPU", 1)))

    def start(self) -> Any:
        """Connect to (or start) Ray; returns the ``ray`` module."""
        try:
            import ray
        except ImportError as error:
            raise ImportError(NEEDS_RAY) from error
        if not ray.is_initialized():
            self.check_address()
            address = self.address or os.environ.get("RAY_ADDRESS") or None
            quiet: dict[str, Any] = {"log_to_driver": False, "logging_level": "WARNING"}
            if address is None:  # "local": a fresh Ray, never an address file a killed cluster left behind
                # Ray starts its workers at niceness 15; here they are the work, not a background to the driver.
                os.environ.setdefault("RAY_worker_niceness", "0")
                private_ray(ray)
                ray.init(address="local", num_cpus=self._workers, include_dashboard=False,
                         _node_ip_address="127.0.0.1", **quiet)  # fmt: skip
            else:
                if _loopback(address):  # a private cluster of this machine: Ray would otherwise look for it elsewhere
                    private_ray(ray)
                carry_token()
                ray.init(address=address, **quiet)
        return ray

    def run(
        self, function: Callable[..., Any], jobs: Iterable[Any], args: tuple, limit: int | None = None
    ) -> Iterator[tuple[Any, Any]]:
        waiting = iter(jobs)
        first = next(waiting, _NONE)
        if first is _NONE:
            return
        waiting = itertools.chain([first], waiting)
        ray = self.start()
        task = ray.remote(max_retries=self.retries, retry_exceptions=False, **self.resources)(_call)
        shared = ray.put(args)  # once, not once a job
        where, code = os.getcwd(), code_digest()
        pending: dict[Any, Any] = {}
        limit = in_flight(self.workers) if limit is None else check_int("limit", limit, low=1)
        try:
            while True:
                for job in itertools.islice(waiting, limit - len(pending)):
                    pending[task.remote(function, job, shared, where, code)] = job
                if not pending:
                    return
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    yield pending.pop(ref), ray.get(ref)
        finally:
            for ref in pending:  # an error or an interrupted driver: the rest is not wanted
                ray.cancel(ref, force=True)


_NONE = object()  # no first job


def _loopback(address: str) -> bool:
    """Whether a cluster address (``HOST:PORT``) names this machine's loopback address."""
    import ipaddress

    host = address.rpartition(":")[0].strip("[]") if "://" not in address else ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def has_token() -> bool:
    """Whether this machine has a Ray cluster token where Ray looks for one (``RAY_AUTH_TOKEN``,
    ``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``)."""
    return bool(os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH")
                or (Path.home() / ".ray" / "auth_token").exists())  # fmt: skip


def carry_token() -> None:
    """Carry the cluster's token on every call when this machine has one (:func:`has_token`) and
    ``RAY_AUTH_MODE`` does not say otherwise: a cluster started with a token refuses a driver without it, and Ray
    turns it on by itself only for a Ray it starts."""
    if "RAY_AUTH_MODE" in os.environ or not has_token():
        return
    os.environ["RAY_AUTH_MODE"] = "token"
    from ray._raylet import Config  # type: ignore[attr-defined]  # read at import: read again, as Ray does

    Config.initialize("")


def private_ray(ray: Any = None) -> None:
    """Make the Ray this process starts (and the processes it starts) take the loopback address and listen there
    only (:data:`LOOPBACK_ONLY` off). Ray reads the switch when first imported; ``ray``, if it is imported
    already, is told too."""
    os.environ[LOOPBACK_ONLY] = "0"
    if ray is not None:
        from ray._private import ray_constants  # the switch as Ray read it at import

        ray_constants.ENABLE_RAY_CLUSTER = False


#: The executors a command line may name.
EXECUTORS = ("local", "ray")


def make_executor(kind: str = "local", workers: int = 1, address: str | None = None, **resources: Any) -> Executor:
    """The executor a command line asks for: ``"local"`` (a pool of ``workers`` processes) or ``"ray"`` (a Ray
    cluster at ``address``, else ``RAY_ADDRESS``, else a Ray on this machine with ``workers`` CPUs).
    ``resources``: what each Ray job asks (:class:`RayExecutor`'s ``cpus``, ``gpus``, ``memory``)."""
    if kind == "local":
        if address is not None:
            raise ValueError("--ray-address goes with --executor ray")
        if resources:
            raise ValueError(f"--ray-{next(iter(resources))} goes with --executor ray")
        return LocalExecutor(workers)
    if kind == "ray":
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            raise ImportError(NEEDS_RAY)
        return RayExecutor(address, workers, **resources)
    raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {kind!r}")


def as_executor(workers: int | Executor) -> Executor:
    """``workers`` if it is an executor, else a :class:`LocalExecutor` of that many processes."""
    return workers if hasattr(workers, "run") else LocalExecutor(workers)  # type: ignore[return-value]


def _key(function: Callable[..., Any], job: Any, args: tuple) -> str:
    """The name a job's result is kept under: a digest of the function, the job and the arguments."""
    return _keys(function, [job], args)[job]


def _keys(function: Callable[..., Any], jobs: Sequence[Any], args: tuple) -> dict[Any, str]:
    """:func:`_key` of every job, the arguments written out once for all of them (they can be large)."""
    head = f"({function.__module__!r}, {function.__qualname__!r}, "
    tail = f", {args!r})".encode()
    return {job: hashlib.sha256(head.encode() + repr(job).encode() + tail).hexdigest()[:32] for job in jobs}


def discard_store(store: str | Path) -> None:
    """Remove a finished run's kept results (``store`` of :func:`run_jobs`), and its parent folder if that is
    left empty (the ``.jobs`` folder beside a run's outputs); nothing if no job ever kept a result there."""
    folder = Path(store)
    shutil.rmtree(folder, ignore_errors=True)
    if folder.parent.is_dir() and not any(folder.parent.iterdir()):
        folder.parent.rmdir()


def run_jobs(
    function: Callable[..., R],
    jobs: Sequence[J],
    workers: int | Executor,
    desc: str,
    *args: Any,
    store: str | Path | None = None,
    progress: bool | None = True,
    keep: Callable[[R], bool] | None = None,
) -> dict[J, R]:
    """``function(job, *args)`` for every job, through ``workers`` (an :class:`Executor`, or a number of local
    processes), with one progress bar named ``desc``: finished / total jobs, rate and time left (``progress``
    None: on a terminal only). Returns the results by job, in the order of ``jobs``.

    With ``store``, each result is kept there (one pickle a job) as it arrives, and jobs whose results are
    kept already are not run again; ``keep``: which results are kept (the others, such as a job that failed for a
    reason the next run may not meet, are returned but run again next time).
    """
    from tqdm.auto import tqdm

    executor = as_executor(workers)
    folder = None if store is None else Path(store)
    kept: dict[J, R] = {}
    keys = _keys(function, jobs, args) if folder is not None else {}
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        for job in jobs:
            path = folder / f"{keys[job]}.pickle"
            if path.exists():
                kept[job] = pickle.loads(path.read_bytes())
    todo = [job for job in jobs if job not in kept]
    with tqdm(total=len(jobs), initial=len(kept), desc=desc, disable=None if progress is None else not progress) as bar:
        for job, result in executor.run(function, todo, args):
            if folder is not None and (keep is None or keep(result)):
                path = folder / f"{keys[job]}.pickle"
                partial = path.with_suffix(".partial")
                partial.write_bytes(pickle.dumps(result))
                partial.replace(path)  # a job is kept whole or not at all
            kept[job] = result
            bar.update()
    return {job: kept[job] for job in jobs}


def fold_jobs(
    function: Callable[..., R],
    jobs: Sequence[J],
    workers: int | Executor,
    desc: str,
    *args: Any,
    start: Callable[[], S],
    add: Callable[[S, J, R], S],
    store: str | Path | None = None,
    progress: bool | None = True,
    save_every: float = 30.0,
) -> S:
    """``function(job, *args)`` for every job, as :func:`run_jobs`, but each result folded into a state as it
    arrives (``add(state, job, result)``, from ``start()``) and then let go: the caller holds the state, not the
    results, so its memory does not grow with the jobs. Jobs finish in any order, so ``add`` must give the same
    state in any order (counts, and sums of integers).

    With ``store``, the state and the jobs folded into it are kept in one file there (``folded.pickle``),
    rewritten at most every ``save_every`` seconds and at the end; a later call with the same function, jobs and
    arguments starts from it and runs only the jobs not folded in yet (those that finished after the last save
    run again, and are folded once).
    """
    from tqdm.auto import tqdm

    executor = as_executor(workers)
    keys = _keys(function, jobs, args)
    state, done = start(), set()
    path = None if store is None else Path(store) / "folded.pickle"
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            state, done = pickle.loads(path.read_bytes())

    def save() -> None:
        assert path is not None
        partial = path.with_suffix(".partial")
        partial.write_bytes(pickle.dumps((state, done)))
        partial.replace(path)  # the state and the jobs in it, kept together: whole or not at all

    todo = [job for job in jobs if keys[job] not in done]
    saved = time.monotonic()
    disable = None if progress is None else not progress
    with tqdm(total=len(jobs), initial=len(jobs) - len(todo), desc=desc, disable=disable) as bar:
        for job, result in executor.run(function, todo, args):
            state = add(state, job, result)
            done.add(keys[job])
            del result
            bar.update()
            if path is not None and time.monotonic() - saved >= save_every:
                save()
                saved = time.monotonic()
    if path is not None:
        save()
    return state
