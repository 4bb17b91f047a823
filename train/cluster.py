"""Start and stop a Ray node for ``--executor ray``, private unless told otherwise (issue 65).

    python -m train.cluster start                           # a head on this machine, on 127.0.0.1 only
    RAY_ADDRESS=127.0.0.1:6379 python -m train.experiments.clue_experiments --executor ray
    python -m train.cluster start --host 10.0.0.5           # a head other machines of a private network join
    python -m train.cluster start --host 10.0.0.6 --address 10.0.0.5:6379    # on each of them
    python -m train.cluster start --jobs                    # and Ray's job server, on 127.0.0.1:8265
    python -m train.cluster submit -- python -m train --seeds 0,1,2 --executor ray   # a run that outlives this shell
    python -m train.cluster stop                            # the nodes this command started, no other Ray

``ray start`` as this project needs it. On Linux, Ray replaces ``--node-ip-address=127.0.0.1`` by the machine's
routable address and its servers listen on every interface; without ``--host`` this command turns that off
(Ray's ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``), so the node takes the loopback address and listens there only.
With ``--host`` (this machine's address on the cluster's network) the node listens on that network (on every
interface, as Ray does): keep such a cluster on a private network behind a firewall. Either way every call must
carry the cluster's token (Ray's token authentication, ``RAY_AUTH_MODE=token``, set here when unset): a head
started here makes one if the machine has none (``~/.ray/auth_token``, as ``ray get-auth-token --generate``
does, readable by you alone); copy it to every machine of the cluster (or give it as ``RAY_AUTH_TOKEN``). The
executor carries it when it joins a cluster. Ray's workers run at niceness 15
to 19 by default, which starves them beside anything else; here they run at 0 (and the executor's tasks raise a
niced worker back to 0 where they may, on a cluster started any other way too). A node of a cluster on one
machine needs no second node: a head has the CPUs it is given (``--cpus``).

``--jobs`` also starts Ray's dashboard and job server on the head, on the loopback address whatever ``--host``
says (reach it from another machine through an SSH tunnel). ``submit`` hands a command to it as a Ray job: the
job's driver runs on the head, in this folder (``--folder``), joins the cluster (``RAY_ADDRESS`` is set for it,
so ``--executor ray`` needs no address), and goes on when the shell that submitted it ends. A job stopped or
lost part-way is resumed by submitting the same command again (``--seeds`` and ``--sweep`` resume by
themselves, the experiments with ``--resume``).

``stop`` stops the nodes that ``start`` started on this machine, and nothing else: not another user's Ray, not a Ray
of yours started otherwise (Ray's own ``ray stop`` stops every Ray process it may signal). Each node ``start``
starts keeps its files in a folder of yours alone (:func:`nodes_folder`; Ray's ``--temp-dir`` is its ``ray``
folder) and runs in a process group of its own, which ``start`` records there and ``stop`` signals (``SIGTERM``,
then ``SIGKILL`` after :data:`STOP_GRACE` seconds).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import importlib.util
import ipaddress
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from deduction_envs.executor import LOOPBACK_ONLY, carry_token, has_token
from train import arguments

__all__ = ["JOBS_PORT", "main", "nodes_folder", "ray_start_command", "stop", "submit"]

#: Seconds :func:`submit` waits for the job server and agent of a head that has just started (they come up after
#: ``ray start`` returns: seconds on an idle machine, a minute or more on a busy one).
AGENT_WAIT = 180

#: The port of the job server a head started with ``--jobs`` serves (Ray's default, which its ``ray job`` commands
#: assume).
JOBS_PORT = 8265

#: Seconds :func:`stop` gives a node's processes to end after ``SIGTERM`` before it kills them.
STOP_GRACE = 5
#: The file of :func:`nodes_folder` listing the process groups of the nodes ``start`` started.
NODES_FILE = "nodes.json"


def nodes_folder() -> Path:
    """The folder of this user's nodes started by ``python -m train.cluster start`` (Ray's ``--temp-dir`` for
    them is its ``ray`` folder, which Ray opens to everyone; and :data:`NODES_FILE`): ``deduction-envs-ray-<uid>``
    in the system's temporary folder (short, as Ray's socket paths must be), readable by this user alone.

    Raises:
        PermissionError: the folder exists and is not this user's alone (another user made it first).
    """
    folder = Path(tempfile.gettempdir(), f"deduction-envs-ray-{os.getuid()}")
    folder.mkdir(mode=0o700, exist_ok=True)
    status = folder.lstat()
    if folder.is_symlink() or status.st_uid != os.getuid() or status.st_mode & 0o077:
        raise PermissionError(f"{folder} is not a folder of yours alone: remove it, or have its owner remove it")
    return folder


@contextlib.contextmanager
def _nodes(folder: Path) -> Iterator[dict[str, int]]:
    """The nodes recorded in ``folder`` (port -> process group), to read and change; written back on leaving, under
    a lock (two commands at once change it one after the other)."""
    with open(folder / NODES_FILE, "a+") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        file.seek(0)
        try:
            found = json.loads(file.read() or "{}")
        except json.JSONDecodeError:
            found = {}
        nodes = {str(port): int(group) for port, group in found.items()} if isinstance(found, dict) else {}
        yield nodes
        file.seek(0)
        file.truncate()
        file.write(json.dumps(nodes, sort_keys=True) + "\n")


def _group_alive(group: int) -> bool:
    """Whether a process of ``group`` still runs (an ended one its parent has not reaped yet does not count)."""
    proc = Path("/proc")
    if not proc.is_dir():  # no /proc: any member, ended or not
        try:
            os.killpg(group, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            return True
    return False


def stop(port: int | None = None, grace: float = STOP_GRACE) -> list[int]:
    """Stop the nodes that ``start`` started on this machine (their process groups, recorded in
    :func:`nodes_folder`), or only the one started with ``--port port``: ``SIGTERM``, then ``SIGKILL`` for what is
    left after ``grace`` seconds. Returns the groups that were running."""
    with _nodes(nodes_folder()) as nodes:
        chosen = [key for key in nodes if port is None or key == str(port)]
        groups = [nodes.pop(key) for key in chosen]
    running = [group for group in groups if _group_alive(group)]
    for group in running:
        os.killpg(group, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while any(_group_alive(group) for group in running) and time.monotonic() < deadline:
        time.sleep(0.2)
    for group in running:
        if _group_alive(group):
            os.killpg(group, signal.SIGKILL)
    return running


def ray_start_command(
    host: str | None, port: int, cpus: int | None, address: str | None, jobs_port: int | None = None
) -> tuple[list[str], dict]:
    """The ``ray start`` command line and its environment for a node: a head (``address`` None) or a node joining
    ``address``; on the loopback address only unless ``host`` is given. ``jobs_port``: a head's job server (and
    dashboard) on that port of the loopback address; None: none."""
    ray = shutil.which("ray") or os.path.join(os.path.dirname(sys.executable), "ray")
    environment = dict(os.environ, RAY_worker_niceness="0", RAY_USAGE_STATS_ENABLED="0")
    environment.setdefault("RAY_AUTH_MODE", "token")  # every call carries the cluster's token
    command = [ray, "start", "--disable-usage-stats", f"--node-ip-address={host or '127.0.0.1'}"]
    if host is None:
        environment[LOOPBACK_ONLY] = "0"
    if address is None:
        command += ["--head", f"--port={port}"]
        if jobs_port is None:
            command.append("--include-dashboard=false")
        else:
            command += ["--include-dashboard=true", "--dashboard-host=127.0.0.1", f"--dashboard-port={jobs_port}"]
    else:
        command.append(f"--address={address}")
    if cpus is not None:
        command.append(f"--num-cpus={cpus}")
    return command, environment


def main(argv: list[str] | None = None) -> int:
    parser = arguments.Parser(
        prog="python -m train.cluster", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    start = commands.add_parser("start", help="start a Ray node here (a head, or one joining --address)")
    start.add_argument(
        "--host",
        type=arguments.host,
        help="this machine's address on the cluster's private network (default: 127.0.0.1 only, this machine)",
    )
    start.add_argument("--port", type=arguments.port, default=6379, help="the head's port (default 6379)")
    start.add_argument("--cpus", type=arguments.count(1), help="CPUs this node offers (default: all)")
    start.add_argument("--address", help="HOST:PORT of the head to join (default: start a head)")
    start.add_argument(
        "--jobs",
        nargs="?",
        const=JOBS_PORT,
        type=arguments.port,
        metavar="PORT",
        help=f"a head also serves Ray's job server (for submit) on 127.0.0.1:PORT (default {JOBS_PORT})",
    )
    send = commands.add_parser("submit", help="run a command as a Ray job on the head: it outlives this shell")
    send.add_argument(
        "--address",
        help="the head's job server (default: RAY_API_SERVER_ADDRESS, else "
        f"http://127.0.0.1:{JOBS_PORT}; from another machine, tunnel that port)",
    )
    send.add_argument("--folder", help="where the command runs on the head (default: this folder)")
    send.add_argument("--wait", type=arguments.number(0), default=AGENT_WAIT,
                      help=f"seconds to wait for a head's job server to answer (default {AGENT_WAIT})")  # fmt: skip
    send.add_argument("job", nargs=argparse.REMAINDER, metavar="-- COMMAND", help="the command to run")
    halt = commands.add_parser("stop", help="stop the Ray nodes this command started on this machine (no other Ray)")
    halt.add_argument("--port", type=arguments.port, default=None,
                      help="only the node started with this --port (default: every one)")  # fmt: skip
    args = parser.parse_args(argv)
    ray = shutil.which("ray") or os.path.join(os.path.dirname(sys.executable), "ray")
    if not os.path.exists(ray):
        parser.error('no ray command: pip install "deduction-envs[ray]"')
    try:
        nodes_folder()
    except PermissionError as error:
        parser.error(str(error))
    if args.command == "stop":
        stopped = stop(args.port)
        print(f"stopped {len(stopped)} node(s) started by {parser.prog} start" if stopped
              else f"no node started by {parser.prog} start is running here")  # fmt: skip
        return 0
    if args.command == "submit":
        job = args.job[1:] if args.job[:1] == ["--"] else args.job
        if not job:
            parser.error("submit needs the command to run after --, e.g. submit -- python -m train --seeds 0,1")
        address = args.address or os.environ.get("RAY_API_SERVER_ADDRESS") or f"http://127.0.0.1:{JOBS_PORT}"
        try:
            submission = submit(job, address, args.folder or os.getcwd(), args.wait)
        except (ConnectionError, ImportError) as error:
            parser.exit(1, f"{parser.prog} submit: error: {error}\n")
        follow = f"RAY_AUTH_MODE=token ray job {{}} {submission} --address {address}"
        print(f"submitted {submission}; it runs on the head until it ends or is stopped\n"
              f"  follow it: {follow.format('logs --follow')}\n  stop it:   {follow.format('stop')}")  # fmt: skip
        return 0
    if args.jobs is not None and args.address is not None:
        parser.error("--jobs goes with a head (the job server runs there), not with --address")
    if args.host is not None and _is_ip(args.host) and ipaddress.ip_address(args.host).is_unspecified:
        parser.error(f"--host is this machine's own address on the cluster's network, not {args.host}")
    if args.address is not None:
        host, _, port = args.address.rpartition(":")
        if not host or not port.isdigit():
            parser.error(f"--address is the head's HOST:PORT, got {args.address!r}")
        if args.host is None:
            parser.error(
                "a node joining a head takes --host, this machine's address on the cluster's private network "
                "(a cluster on one machine needs no second node: give the head --cpus)"
            )
    if args.jobs is not None and importlib.util.find_spec("aiohttp") is None:
        parser.error('--jobs needs Ray\'s job server, which its minimal install lacks: pip install "ray[default]"')
    folder = nodes_folder()
    command, environment = ray_start_command(args.host, args.port, args.cpus, args.address, args.jobs)
    command.append(f"--temp-dir={folder / 'ray'}")
    if args.address is None and environment["RAY_AUTH_MODE"] == "token" and not has_token():
        subprocess.run([ray, "get-auth-token", "--generate"], env=environment, check=True, capture_output=True)
        token = Path.home() / ".ray" / "auth_token"
        if token.exists():
            token.chmod(0o600)  # Ray writes it readable by every user of the machine
    # A group of its own: every process of the node (its daemons, their workers) is in it, and stop signals it.
    process = subprocess.Popen(command, env=environment, start_new_session=True)
    returncode = process.wait()
    if returncode == 0:
        with _nodes(folder) as nodes:
            nodes[str(args.port) if args.address is None else f"joined {args.address}"] = process.pid
        print(f"stop it (and no other Ray): {parser.prog} stop --port {args.port}")
    return returncode



def submit(command: list[str], address: str = f"http://127.0.0.1:{JOBS_PORT}", folder: str | None = None,
           wait: float = AGENT_WAIT) -> str:  # fmt: skip
    """Hand ``command`` (a program and its arguments) to the job server at ``address`` as a Ray job that runs in
    ``folder`` on the head (None: this process's folder), with the cluster's token; returns the job's id at once.

    Raises :class:`ConnectionError` if no job server answers there within ``wait`` seconds (a head just started
    brings its server and then its job agent up after ``ray start`` returns: polled once a second)."""
    import shlex

    from ray.job_submission import JobSubmissionClient

    carry_token()

    where = folder or os.getcwd()
    entrypoint = f"cd {shlex.quote(where)} && {shlex.join(command)}"
    deadline, said = time.monotonic() + wait, False
    while True:  # poll for readiness: the server, then its agent, come up after the head has started
        try:
            return JobSubmissionClient(address).submit_job(entrypoint=entrypoint)
        except ConnectionError as error:
            if not said and wait > 0:
                print(f"waiting up to {wait:g} s for the job server at {address}...", file=sys.stderr, flush=True)
                said = True
            if time.monotonic() > deadline:
                raise ConnectionError(
                    f"no Ray job server answers at {address} ({error}): start the head with "
                    "`python -m train.cluster start --jobs`, or give its server's address (--address)"
                ) from None
        except RuntimeError as error:  # a head just started has no job agent for some seconds
            if "No available agent" not in str(error) or time.monotonic() > deadline:
                raise
        time.sleep(1)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
