"""Start and stop a Ray node for ``--executor ray``, private unless told otherwise (issue 65).

    python -m train.cluster start                           # a head on this machine, on 127.0.0.1 only
    RAY_ADDRESS=127.0.0.1:6379 python -m train.experiments.clue_experiments --executor ray
    python -m train.cluster start --host 10.0.0.5           # a head other machines of a private network join
    python -m train.cluster start --host 10.0.0.6 --address 10.0.0.5:6379    # on each of them
    python -m train.cluster stop

``ray start`` as this project needs it. On Linux, Ray replaces ``--node-ip-address=127.0.0.1`` by the machine's
routable address and its servers listen on every interface; without ``--host`` this command turns that off
(Ray's ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``), so the node takes the loopback address and listens there only.
With ``--host`` (this machine's address on the cluster's network) the node listens on that network (on every
interface, as Ray does): keep such a cluster on a private network behind a firewall. Either way every call must
carry the cluster's token (Ray's token authentication, ``RAY_AUTH_MODE=token``, set here when unset): a head
started here makes one if the machine has none (``~/.ray/auth_token``, as ``ray get-auth-token --generate``
does); copy it to every machine of the cluster (or give it as ``RAY_AUTH_TOKEN``). The executor carries it when
it joins a cluster. Ray's workers run at niceness 15
to 19 by default, which starves them beside anything else; here they run at 0 (and the executor's tasks raise a
niced worker back to 0 where they may, on a cluster started any other way too). A node of a cluster on one
machine needs no second node: a head has the CPUs it is given (``--cpus``).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import shutil
import subprocess
import sys

from deduction_envs.executor import LOOPBACK_ONLY, has_token
from train import arguments

__all__ = ["main", "ray_start_command"]


def ray_start_command(host: str | None, port: int, cpus: int | None, address: str | None) -> tuple[list[str], dict]:
    """The ``ray start`` command line and its environment for a node: a head (``address`` None) or a node joining
    ``address``; on the loopback address only unless ``host`` is given."""
    ray = shutil.which("ray") or os.path.join(os.path.dirname(sys.executable), "ray")
    environment = dict(os.environ, RAY_worker_niceness="0", RAY_USAGE_STATS_ENABLED="0")
    environment.setdefault("RAY_AUTH_MODE", "token")  # every call carries the cluster's token
    command = [ray, "start", "--disable-usage-stats", f"--node-ip-address={host or '127.0.0.1'}"]
    if host is None:
        environment[LOOPBACK_ONLY] = "0"
    if address is None:
        command += ["--head", f"--port={port}", "--include-dashboard=false"]
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
    commands.add_parser("stop", help="stop every Ray node of this machine")
    args = parser.parse_args(argv)
    ray = shutil.which("ray") or os.path.join(os.path.dirname(sys.executable), "ray")
    if not os.path.exists(ray):
        parser.error('no ray command: pip install "deduction-envs[ray]"')
    if args.command == "stop":
        return subprocess.run([ray, "stop"], check=False).returncode
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
    command, environment = ray_start_command(args.host, args.port, args.cpus, args.address)
    if args.address is None and environment["RAY_AUTH_MODE"] == "token" and not has_token():
        subprocess.run([ray, "get-auth-token", "--generate"], env=environment, check=True, capture_output=True)
    return subprocess.run(command, env=environment, check=False).returncode



def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
