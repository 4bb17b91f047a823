"""What the multiplayer tournaments share: agents that log their decisions, intervals and p-values, chunked jobs."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from scipy.stats import binomtest

from agents import SeatAgent

__all__ = ["Logged", "chunks", "format_p", "interval"]


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


def interval(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion."""
    ci = binomtest(successes, trials).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


def format_p(p: float) -> str:
    """A p-value for a table."""
    return f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"


def chunks(total: int, size: int) -> list[tuple[int, int]]:
    """``(start, games)`` parts of a match of ``total`` games, ``size`` a part (one job each)."""
    return [(start, min(size, total - start)) for start in range(0, total, size)]
