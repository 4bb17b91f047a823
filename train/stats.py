"""Small statistics for the experiments' tables: Wilson intervals, p-values as a table prints them, and the
parts a match of many games is played in."""

from __future__ import annotations

from scipy.stats import binomtest

__all__ = ["chunks", "format_p", "interval"]


def interval(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion."""
    ci = binomtest(successes, trials).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


def format_p(p: float) -> str:
    """A p-value for a table."""
    if p < 1e-300:
        return "< 1e-300"
    return f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"


def chunks(total: int, size: int) -> list[tuple[int, int]]:
    """``(start, games)`` parts of a match of ``total`` games, ``size`` a part (one job each)."""
    return [(start, min(size, total - start)) for start in range(0, total, size)]
