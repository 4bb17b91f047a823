"""A private cluster by default (issue 65): the executor's own Ray and a node started by ``python -m train.cluster``
listen on the loopback address only; a job runs at niceness 0 in the driver's working directory, on a node
started by the command and on one started otherwise; the command's bad input is a clear error.

Each Ray here runs in its own process (the driver of a subprocess, or ``ray start``'s), so the listening
sockets it opens can be told from the test process's by comparing the machine's before and after."""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

if not os.environ.get("DEDUCTION_ENVS_RAY_TESTS"):  # CI: Ray must be there, so a missing one fails
    pytest.importorskip("ray")

from deduction_envs.executor import _call, _loopback
from train import cluster
from train.seeds import latest_checkpoint

ROOT = Path(__file__).resolve().parent.parent


def listening() -> set[tuple[str, int]]:
    """Every listening TCP socket of the machine: (address as the kernel writes it, port)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                address, port = fields[1].split(":")
                found.add((address, int(port, 16)))
    return found


def loopback(address: str) -> bool:
    """127.0.0.1 (``0100007F``), ::1, or ::ffff:127.0.0.1 as /proc/net writes them."""
    return address in ("0100007F", "00000000000000000000000001000000", "0000000000000000FFFF00000100007F")


def free_port(outside_ephemeral: bool = False) -> int:
    """A port free now. Ray's processes take ephemeral ports as they start (and workers 10002 to 19999), so a
    port Ray binds late (the job server's) is drawn from 20000 to 29999, where neither falls."""
    candidates = random.sample(range(20000, 30000), 200) if outside_ephemeral else [0]
    for candidate in candidates:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return probe.getsockname()[1]
    raise RuntimeError("no free port")


DRIVER = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    sys.path.insert(0, {root!r})
    from deduction_envs.executor import RayExecutor, run_jobs

    def probe(job):
        return os.getpriority(os.PRIO_PROCESS, 0), os.getcwd()

    executor = RayExecutor({address!r}, workers=1)
    ray = executor.start()
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    print(run_jobs(probe, [0, 1], executor, "probe", progress=False))
    print(sorted({{node["NodeManagerAddress"] for node in ray.nodes()}}))
    Path({ready!r}).write_text("up")
    sys.stdin.read()  # held up until the test has looked at the sockets
    """
)


def drive(tmp_path: Path, address: str | None) -> tuple[str, set]:
    """A driver in a subprocess (working in ``tmp_path``) that runs two probes on ``address`` (None: a Ray it
    starts); returns what it printed and the sockets that were listening while it held its Ray up."""
    ready = tmp_path / "ready"
    script = tmp_path / "driver.py"
    script.write_text(DRIVER.format(root=str(ROOT), address=address, ready=str(ready)))
    environment = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    process = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=environment)  # fmt: skip
    try:
        for _ in range(600):
            if ready.exists() or process.poll() is not None:
                break
            time.sleep(0.2)
        sockets = listening()
        out, _ = process.communicate("", timeout=120)
    finally:
        process.kill()
    assert ready.exists(), out
    return out, sockets


def test_the_executors_own_ray_listens_on_loopback_only_and_runs_jobs_at_priority_0_in_the_drivers_folder(tmp_path):
    before = listening()
    out, during = drive(tmp_path, None)
    opened = during - before
    assert opened and all(loopback(address) for address, _ in opened), opened
    assert f"{{0: (0, '{tmp_path}'), 1: (0, '{tmp_path}')}}" in out and "['127.0.0.1']" in out


def test_a_node_started_by_the_command_is_private_and_the_executor_joins_it_with_its_token(tmp_path):
    """A head with its job server (``--jobs``) listens on the loopback address only; the executor joins it; and a
    training run submitted to it as a job (``submit``, which returns at once) is stopped part-way, submitted
    again and goes on from its checkpoints (the first ones are not written again) to the end."""
    port, jobs = free_port(), free_port(outside_ephemeral=True)
    before = listening()
    started = subprocess.run([sys.executable, "-m", "train.cluster", "start", "--port", str(port), "--cpus", "1",
                              "--jobs", str(jobs)], cwd=ROOT, capture_output=True, text=True)  # fmt: skip
    try:
        assert started.returncode == 0, started.stderr[-2000:]
        head = listening() - before
        assert (("0000000000000000FFFF00000100007F", port) in head or ("0100007F", port) in head), head
        assert ("0100007F", jobs) in head and all(loopback(address) for address, _ in head), head
        out, _ = drive(tmp_path, f"127.0.0.1:{port}")
        assert f"{{0: (0, '{tmp_path}'), 1: (0, '{tmp_path}')}}" in out and "['127.0.0.1']" in out

        server = f"http://127.0.0.1:{jobs}"
        run = ["python", "-m", "train", "--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3",
               "--n-envs", "2", "--no-progress", "--timesteps", "2048", "--checkpoint-every", "256", "--seeds", "0",
               "--executor", "ray", "--output", "runs"]  # fmt: skip
        checkpoints = tmp_path / "runs" / "seed-0" / "checkpoints"

        def submit() -> str:
            sent = subprocess.run([sys.executable, "-m", "train.cluster", "submit", "--address", server, "--", *run],
                                  cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
            assert sent.returncode == 0 and "ray job stop" in sent.stdout, sent.stderr[-2000:]
            return sent.stdout.split()[1].rstrip(";")

        def job(call: str, submission: str) -> str:
            """``JobSubmissionClient(server).CALL(submission)`` in a process that carries the token."""
            code = "from ray.job_submission import JobSubmissionClient as C; "
            code += f"print(C({server!r}).{call}({submission!r}))"
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                                  env=dict(os.environ, RAY_AUTH_MODE="token"))  # fmt: skip
            return done.stdout + done.stderr[-3000:]

        first = submit()  # runs in the folder it was submitted from: its relative --output lands here
        deadline = time.monotonic() + 120
        while (latest := latest_checkpoint(checkpoints)) is None or latest[1] < 512:
            assert time.monotonic() < deadline, job("get_job_logs", first)[-3000:]
            time.sleep(0.2)
        assert job("stop_job", first).strip() == "True"
        while job("get_job_status", first).strip() != "STOPPED":  # a stop is asked for, then done
            assert time.monotonic() < deadline + 60
            time.sleep(0.5)
        # Every checkpoint but the last, which the stop may have cut short (then passed over and written again).
        written = sorted(checkpoints.glob("*.zip"), key=lambda path: int(path.name.split("_")[1]))[:-1]
        kept = {path.name: path.stat().st_mtime_ns for path in written}
        assert kept
        second = submit()
        while (status := job("get_job_status", second).strip()) != "SUCCEEDED":
            assert status in ("PENDING", "RUNNING") and time.monotonic() < deadline + 120, job("get_job_logs", second)
            time.sleep(0.5)
        assert (tmp_path / "runs" / "seed-0" / "model.zip").exists() and (tmp_path / "runs" / "seeds.md").exists()
        changed = [name for name, when in kept.items() if checkpoints.joinpath(name).stat().st_mtime_ns != when]
        assert not changed, changed  # not trained again from step 0
        assert latest_checkpoint(checkpoints)[1] > max(int(name.split("_")[1]) for name in kept)
    finally:
        subprocess.run([sys.executable, "-m", "train.cluster", "stop", "--port", str(port)], cwd=ROOT,
                       capture_output=True)  # fmt: skip


def test_stop_stops_the_node_start_started_and_no_other_ray_and_the_token_is_the_users_alone(tmp_path):
    """``stop`` was a bare ``ray stop``: every Ray of the machine went, whoever started it. Here a Ray started
    otherwise (Ray's own ``ray start``, in its own session, as another user's or another tool's) outlives it; the
    node ``start`` started does not. A token ``start`` makes is readable by its user alone (Ray writes it 0644)."""
    ours, theirs = free_port(), free_port()
    ray = str(Path(sys.executable).with_name("ray"))
    environment = dict(os.environ, RAY_AUTH_MODE="token", RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",
                       RAY_USAGE_STATS_ENABLED="0", HOME=str(tmp_path))  # fmt: skip
    environment.pop("RAY_AUTH_TOKEN", None)
    without_token = {k: v for k, v in environment.items() if k not in ("RAY_AUTH_MODE", "HOME")}
    folder = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Ray's socket paths must be
    foreign = subprocess.run([ray, "start", "--head", f"--port={theirs}", "--node-ip-address=127.0.0.1",
                              "--include-dashboard=false", "--num-cpus=1", f"--temp-dir={folder}"],
                             env=without_token, capture_output=True, text=True, start_new_session=True)  # fmt: skip
    assert foreign.returncode == 0, foreign.stderr[-2000:]
    theirs_group = None
    try:
        theirs_group = next(os.getpgid(int(p.parent.name)) for p in Path("/proc").glob("[0-9]*/cmdline")
                            if folder in p.read_bytes().decode(errors="replace"))  # fmt: skip
        started = subprocess.run([sys.executable, "-m", "train.cluster", "start", "--port", str(ours), "--cpus", "1"],
                                 cwd=ROOT, capture_output=True, text=True, env=environment)  # fmt: skip
        assert started.returncode == 0, started.stderr[-2000:]
        assert f"python -m train.cluster stop --port {ours}" in started.stdout
        assert (tmp_path / ".ray" / "auth_token").stat().st_mode & 0o777 == 0o600
        assert {ours, theirs} <= {port for _, port in listening()}
        stopped = subprocess.run([sys.executable, "-m", "train.cluster", "stop", "--port", str(ours)], cwd=ROOT,
                                 capture_output=True,
                                 text=True, env=environment, timeout=120)  # fmt: skip
        assert stopped.returncode == 0 and "stopped 1 node(s)" in stopped.stdout, stopped.stderr[-2000:]
        ports = {port for _, port in listening()}
        assert ours not in ports and theirs in ports
        again = subprocess.run([sys.executable, "-m", "train.cluster", "stop", "--port", str(ours)], cwd=ROOT,
                               capture_output=True,
                               text=True, env=environment, timeout=60)  # fmt: skip
        assert again.returncode == 0 and "no node started by" in again.stdout
    finally:
        if theirs_group is not None:
            os.killpg(theirs_group, 9)
        subprocess.run([sys.executable, "-m", "train.cluster", "stop", "--port", str(ours)], cwd=ROOT,
                       capture_output=True, env=environment)  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)


def test_a_niced_worker_is_raised_back_and_works_in_the_drivers_folder_where_the_node_has_it(tmp_path):
    """A worker of a cluster started with plain ``ray start`` runs at niceness 15: the executor's task wrapper
    raises it to 0 (root here may) and works in the driver's folder, or where it is if the node has no such
    folder."""
    code = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        from deduction_envs.executor import _call
        where = lambda job: (os.getpriority(os.PRIO_PROCESS, 0), os.getcwd())
        print(_call(where, 0, (), {str(tmp_path)!r}), _call(where, 0, (), "/no/such/folder"))
        """
    )
    niced = subprocess.run(["nice", "-n", "15", sys.executable, "-c", code], cwd="/", capture_output=True, text=True)
    assert niced.stdout.strip() == f"(0, '{tmp_path}') (0, '{tmp_path}')", niced.stderr
    assert _call(lambda job, n: job * n, 3, (2,), "") == 6


def test_the_command_refuses_what_it_cannot_do_and_says_why(capsys):
    for argv, message in [
        (["start", "--address", "10.0.0.5:6379"], "a node joining a head takes --host"),
        (["start", "--host", "0.0.0.0"], "--host is this machine's own address"),
        (["start", "--host", "10.0.0.6", "--address", "nowhere"], "--address is the head's HOST:PORT"),
        (["start", "--port", "0"], "port"),
        (["start", "--cpus", "0"], "cpus"),
        (["launch"], "invalid choice"),
        (["start", "--jobs", "0"], "--jobs: must be an integer in [1, 65535]"),
        (["start", "--host", "10.0.0.6", "--address", "10.0.0.5:6379", "--jobs"], "--jobs goes with a head"),
        (["submit"], "submit needs the command to run after --"),
        (["submit", "--"], "submit needs the command to run after --"),
        (["submit", "--address", f"http://127.0.0.1:{free_port()}", "--wait", "0", "--", "true"],
         "no Ray job server answers"),
    ]:
        with pytest.raises(SystemExit):
            cluster.main(argv)
        assert message in capsys.readouterr().err
    command, environment = cluster.ray_start_command(None, 6379, 2, None)
    assert "--node-ip-address=127.0.0.1" in command and "--head" in command and "--num-cpus=2" in command
    assert environment["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] == "0" and environment["RAY_worker_niceness"] == "0"
    assert "--include-dashboard=false" in command
    command, _ = cluster.ray_start_command("10.0.0.5", 6379, None, None, jobs_port=8265)
    assert "--dashboard-host=127.0.0.1" in command and "--dashboard-port=8265" in command  # whatever --host says
    command, environment = cluster.ray_start_command("10.0.0.6", 6379, None, "10.0.0.5:6379")
    assert "--address=10.0.0.5:6379" in command and "--node-ip-address=10.0.0.6" in command
    assert "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER" not in environment or os.environ.get(
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER") == environment["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"]  # fmt: skip
    assert environment["RAY_AUTH_MODE"] in ("token", os.environ.get("RAY_AUTH_MODE"))
    assert _loopback("127.0.0.1:6379") and _loopback("localhost:1") and _loopback("[::1]:6379")
    assert not _loopback("10.0.0.5:6379") and not _loopback("ray://127.0.0.1:10001") and not _loopback("auto")


def test_a_node_with_other_code_refuses_the_job_and_says_which_and_resources_are_checked():
    from deduction_envs.executor import RayExecutor, code_digest

    assert len(code_digest()) == 16 and code_digest() == code_digest()
    assert _call(lambda job: job + 1, 1, (), "", code_digest()) == 2
    with pytest.raises(RuntimeError, match=r"runs other code than the driver \(code digest \w+, the driver's 0{16}"):
        _call(lambda job: job, 1, (), "", "0" * 16)
    assert RayExecutor(cpus=0.5, gpus=1, memory=2**30).resources == {"num_cpus": 0.5, "num_gpus": 1,
                                                                      "memory": 2**30}  # fmt: skip
    assert RayExecutor().resources == {"num_cpus": 1, "num_gpus": 0}
    for bad, message in [({"cpus": -1}, "cpus must be a finite number >= 0"), ({"gpus": float("nan")}, "gpus must"),
                         ({"cpus": True}, "cpus must"), ({"cpus": 0}, "cannot both be 0"),
                         ({"memory": 0}, "memory must be an integer >= 1")]:  # fmt: skip
        with pytest.raises(ValueError, match=message):
            RayExecutor(**bad)


def test_what_each_job_asks_of_the_cluster_is_set_on_the_command_line_for_any_workload(capsys):
    """``--ray-cpus``, ``--ray-gpus`` and ``--ray-memory`` (GiB) reach the Ray executor of a command and of a
    training run's config; with the local executor, or asking for nothing, they are clear errors."""
    from train import arguments
    from train.config import RunConfig

    parser = arguments.Parser(prog="probe")
    arguments.add_executor_options(parser)
    chosen = arguments.executor(parser.parse_args(["--executor", "ray", "--ray-cpus", "0.5", "--ray-memory", "0.5"]),
                                parser)  # fmt: skip
    assert chosen.resources == {"num_cpus": 0.5, "num_gpus": 0, "memory": 2**29}
    config = RunConfig(executor="ray", ray_gpus=1, ray_memory=2)
    assert config.executor_for(2).resources == {"num_cpus": 1, "num_gpus": 1, "memory": 2 * 2**30}
    ray = ["--executor", "ray"]
    for argv, message in [(["--ray-gpus", "1"], "--ray-gpus goes with --executor ray"),
                          ([*ray, "--ray-cpus", "0"], "cannot both be 0"),
                          ([*ray, "--ray-memory", "0"], "--ray-memory: must be a finite number > 0"),
                          ([*ray, "--ray-cpus", "-1"], "--ray-cpus: must be a finite number")]:  # fmt: skip
        with pytest.raises(SystemExit):
            arguments.executor(parser.parse_args(argv), parser)
        assert message in capsys.readouterr().err
    with pytest.raises(ValueError, match="--ray-cpus goes with --executor ray"):
        RunConfig(ray_cpus=2).check()
