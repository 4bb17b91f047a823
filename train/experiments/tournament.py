"""What the multiplayer tournaments share: agents that log their decisions, intervals and p-values, chunked jobs."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents import SeatAgent
from deduction_envs.core.executor import run_jobs

__all__ = ["Logged", "results_folder", "run_tournament"]


class Logged(SeatAgent):
    """An agent that logs each decision (action and seconds) and is otherwise the agent it wraps."""

    def __init__(self, agent: SeatAgent) -> None:
        super().__init__()
        self.agent, self.name, self.log = agent, agent.name, []

    def reset(self, rules: Any, seat: int, seed: int | None = None) -> None:
        self.agent.reset(rules, seat, seed)
        self.rules, self.seat, self.log = rules, seat, []

    def observe(self, event: Any) -> None:
        self.agent.observe(event)

    def act(self, mask: np.ndarray) -> int:
        start = time.perf_counter()
        action = int(self.agent.act(mask))
        self.log.append((action, time.perf_counter() - start))
        return action


def results_folder(parser: argparse.ArgumentParser, output: Path | None, quick: bool) -> Path:
    """Where a tournament writes: ``output``, else ``results/`` (``runs/quick/`` for a quick run, which never
    overwrites ``results/``)."""
    if output is None:
        return Path("runs/quick") if quick else Path("results")
    if quick and output.resolve() == Path("results").resolve():
        parser.error("--quick runs never overwrite results/: give another --output")
    return output


def run_tournament(
    play_part: Callable[..., list[dict]], jobs: list[tuple], workers: int, desc: str, *args: Any
) -> tuple[dict[tuple, list[dict]], float]:
    """Play every job (a tuple ending in ``(start, games)``) over ``workers`` processes.

    Returns each table's games in game order, keyed by the job without its
    last two items, and the minutes it took.
    """
    start = time.perf_counter()
    parts = run_jobs(play_part, jobs, workers, desc, *args)
    results: dict[tuple, list[dict]] = {}
    for job in sorted(jobs):
        results.setdefault(job[:-2], []).extend(parts[job])
    return results, (time.perf_counter() - start) / 60
