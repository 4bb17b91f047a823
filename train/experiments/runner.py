"""One experiment runner: every experiment is a declared set of seeded jobs plus a writer of its outputs.

An :class:`Experiment` says what it needs from the command line (its own options), how those become a typed
settings value (its quick mode included), which jobs it plays (each hashable, seeded by the settings and
itself alone, so a table is the same whoever runs the jobs and in whatever order), the function that plays one
job, and the writer of its tables and figures. :func:`run_experiment` gives every experiment the same command
line around that:

* ``--output FOLDER`` (default ``results/``; ``runs/quick/`` with ``--quick``, which never writes into
  ``results/``), ``--seed``, ``--no-progress``;
* where the jobs run: ``--workers`` processes of the local executor (default), or ``--executor ray`` on a Ray
  cluster (``--ray-address``, else ``RAY_ADDRESS``, else a Ray started on this machine with ``--workers`` CPUs);
* ``--quick``: the experiment's small run, for a look in a minute and for the tests;
* resumable runs: each finished job's result is kept in ``FOLDER/.jobs/<experiment>/`` as it arrives
  (:func:`deduction_envs.executor.run_jobs` with ``store=``); after an interruption the same command
  with ``--resume`` plays only the jobs that had not finished. The kept results are removed once the outputs
  are written; a run without ``--resume`` starts afresh.
* big runs: an experiment that declares a :class:`Fold` has each job's result folded into its tables as it
  arrives and let go (:func:`deduction_envs.executor.fold_jobs`), so the driver's memory does not grow with the
  games, and its resumable store is one file (the tables so far and the jobs in them).

The jobs run through the one executor seam (:mod:`deduction_envs.executor`); the writer is told the
command that regenerates its outputs, the minutes the jobs took and the machine, to put beside its figures.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from deduction_envs.executor import discard_store, fold_jobs, run_jobs
from train import arguments

__all__ = [
    "Experiment",
    "Finished",
    "Fold",
    "Run",
    "gather",
    "match_summaries",
    "named_agent",
    "results_folder",
    "run_experiment",
    "truncated_line",
    "truncated_sentence",
]

S = TypeVar("S")  # an experiment's settings
J = TypeVar("J", bound=Hashable)  # one of its jobs
R = TypeVar("R")  # a job's result


@dataclass(frozen=True)
class Run:
    """What a writer knows of the run besides the results."""

    command: str  #: the command line that regenerates the outputs
    output: Path  #: the folder the outputs go to
    workers: int
    minutes: float  #: wall-clock minutes of the jobs (resumed jobs' time not counted)
    quick: bool
    executor: str = "local"  #: where the jobs ran: "local" (``workers`` processes) or "ray" (``workers``: its CPUs)

    @property
    def machine(self) -> str:
        """The processor and Python the jobs ran on, for the text beside a figure."""
        return f"{platform.processor() or platform.machine()}, Python {platform.python_version()}"

    @property
    def where(self) -> str:
        """Where the jobs ran, for the text beside a figure."""
        if self.executor == "ray":
            return f"on a Ray cluster of {self.workers} CPUs (the command run on {self.machine})"
        return f"with {self.workers} worker processes on {self.machine}"


@dataclass(frozen=True)
class Fold(Generic[S, J, R]):
    """How an experiment folds its jobs' results into its tables as they arrive: ``start(settings)`` the empty
    tables, ``add(tables, job, result)`` them with one job's result in (the same whatever order the jobs finish
    in: counts and integer sums). The writer is then given the tables instead of the results."""

    start: Callable[[S], Any]
    add: Callable[[Any, J, R], Any]
    save_every: float = 30.0  #: seconds between saves of the tables so far to the run's store (for --resume)


@dataclass(frozen=True)
class Experiment(Generic[S, J, R]):
    """An experiment declared: its options, settings, seeded jobs, the player of one job and the writer.

    ``play(job, settings)`` must be a module-level function (the local executor runs it in fresh processes);
    ``write(settings, results, run)`` writes the outputs into ``run.output`` and returns the text to print
    (``results``: by job, or with a ``fold`` the folded tables).
    """

    name: str  #: the module under ``train.experiments``
    description: str  #: the command's help (the module's docstring)
    options: Callable[[argparse.ArgumentParser], None]
    settings: Callable[[argparse.Namespace, argparse.ArgumentParser], S]
    jobs: Callable[[S], Sequence[J]]
    play: Callable[[J, S], R]
    write: Callable[[S, dict[J, R], Run], str]
    workers: int = 2  #: default ``--workers``
    job_name: str = "jobs"  #: the progress bar's name
    fold: Fold | None = None  #: fold each result into the tables as it arrives (big runs) instead of keeping it

    @property
    def command(self) -> str:
        return f"python -m train.experiments.{self.name}"


@dataclass(frozen=True)
class Finished(Generic[S, J, R]):
    """A run's settings, results by job (in job order; an experiment with a :class:`Fold`: its folded tables) and
    the printed text."""

    settings: S
    results: Any
    run: Run
    text: str


def results_folder(parser: argparse.ArgumentParser, output: Path | None, quick: bool) -> Path:
    """Where an experiment writes: ``output``, else ``results/`` (``runs/quick/`` for a quick run, which never
    overwrites ``results/``)."""
    if output is None:
        return Path("runs/quick") if quick else Path("results")
    if quick and output.resolve() == Path("results").resolve():
        parser.error("--quick runs never overwrite results/: give another --output")
    return output


def parser_for(experiment: Experiment) -> argparse.ArgumentParser:
    """The command line of ``experiment``: its own options, then the runner's."""
    parser = arguments.Parser(
        prog=experiment.command,
        description=experiment.description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    experiment.options(parser)
    common = parser.add_argument_group("every experiment")
    common.add_argument("--quick", action="store_true", help="a small run, written to runs/quick/ by default")
    common.add_argument("--seed", type=arguments.seed, default=0, help="seed of the deals, secrets and agents (0)")
    arguments.add_executor_options(common, experiment.workers)
    common.add_argument(
        "--output",
        type=arguments.output_folder,
        default=None,
        help="folder for the outputs (default results/, or runs/quick/ with --quick)",
    )
    common.add_argument(
        "--resume",
        action="store_true",
        help="take the jobs an interrupted run of the same command finished (kept in OUTPUT/.jobs/) and play the rest",
    )
    common.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    return parser


def run_experiment(experiment: Experiment[S, J, R], argv: Sequence[str] | None = None) -> Finished[S, J, R]:
    """Parse ``argv`` (default the process's), play every job through the executor seam and write the outputs."""
    parser = parser_for(experiment)
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    output = results_folder(parser, args.output, args.quick)
    settings = experiment.settings(args, parser)
    jobs = list(experiment.jobs(settings))
    if len(set(jobs)) != len(jobs):
        raise ValueError(f"{experiment.name} declared a job twice; every job must be distinct")
    store = output / ".jobs" / experiment.name
    if args.resume and not store.exists():
        parser.error(
            f"nothing to resume: {store} holds no jobs of an interrupted run (--resume takes up a run of the same "
            "command and --output that was stopped; without it, the run starts afresh)"
        )
    if store.exists() and not args.resume:
        shutil.rmtree(store)
    start = time.perf_counter()
    executor = arguments.executor(args, parser)
    desc, progress = f"{experiment.name} {experiment.job_name}", None if args.progress else False
    results: Any
    if experiment.fold is None:
        results = run_jobs(experiment.play, jobs, executor, desc, settings, store=store, progress=progress)
    else:
        fold = experiment.fold
        results = fold_jobs(experiment.play, jobs, executor, desc, settings, start=lambda: fold.start(settings),
                            add=fold.add, store=store, progress=progress, save_every=fold.save_every)  # fmt: skip
    command = " ".join([experiment.command, *map(shlex.quote, argv)])
    run = Run(command, output, executor.workers, (time.perf_counter() - start) / 60, args.quick, args.executor)
    output.mkdir(parents=True, exist_ok=True)
    text = experiment.write(settings, results, run)
    discard_store(store)  # kept only while the run is unfinished
    print(text)
    return Finished(settings, results, run, text)


def gather(parts: dict[tuple, list[Any]]) -> dict[tuple, list[Any]]:
    """A tournament's parts joined: jobs ending in ``(start, games)`` give each table's games in game order,
    keyed by the job without its last two items."""
    tables: dict[tuple, list[Any]] = {}
    for job in sorted(parts):
        tables.setdefault(job[:-2], []).extend(parts[job])
    return tables


def named_agent(makers: dict[str, Callable[[], Any]], name: str) -> Any:
    """A fresh agent of a tournament by its name in ``makers``, named so in the tables."""
    if name not in makers:
        raise ValueError(f"no agent named {name!r}; the agents are {sorted(makers)}")
    agent = makers[name]()
    agent.name = name
    return agent


def match_summaries(
    rules: Any, agents: list[Any], games: int, seed: int, start: int, summarise: Callable[..., Any]
) -> list[Any]:
    """Games ``[start, start + games)`` of a tournament cell (:func:`agents.play_match`, seats rotated), each
    summarised by ``summarise(rules, record, agents, lineup)`` as it ends (the agents' logs are read then).

    A game not over after :data:`agents.multiplayer.TOURNAMENT_MAX_ACTIONS` actions is stopped there as
    nobody's win (``record.truncated``; the reports count them), so that one looping agent does not stop a
    whole tournament."""
    from agents.multiplayer import TOURNAMENT_MAX_ACTIONS, play_match

    out: list[Any] = []
    play_match(rules, agents, games, seed=seed, start=start, max_actions=TOURNAMENT_MAX_ACTIONS, truncate=True,
               after_game=lambda record, lineup: out.append(summarise(rules, record, agents, lineup)))  # fmt: skip
    return out


def truncated_line(results: dict[Any, list[dict]]) -> str:
    """The reports' sentence on the games stopped at the action cap, of tables of game summaries that each say
    ``"truncated"`` (:func:`match_summaries`)."""
    games = [game for table in results.values() for game in table]
    return truncated_sentence(sum(game["truncated"] for game in games), len(games))


def truncated_sentence(truncated: int, games: int) -> str:
    """The reports' sentence on the games stopped at the action cap: ``truncated`` of ``games``."""
    from agents.multiplayer import TOURNAMENT_MAX_ACTIONS

    return (
        f"Games stopped at the cap of {TOURNAMENT_MAX_ACTIONS:,} actions (nobody's win: an agent that never ends a "
        f"game): {truncated} of {games:,}."
    )
