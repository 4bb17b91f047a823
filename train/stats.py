"""Small statistics for the experiments' tables: Wilson intervals, bootstrap intervals over rows, p-values as a
table prints them, and the parts a match of many games is played in."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy.stats import binomtest

__all__ = ["bootstrap_rows", "chunks", "format_p", "interval", "over_seeds", "sign_test", "t_interval"]


def interval(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion."""
    ci = binomtest(successes, trials).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


def t_interval(values: Sequence[float]) -> tuple[float, float]:
    """The 95% Student t interval of the mean of ``values`` (one a seed, or a game): the mean +- t(0.975, n-1)
    s / sqrt(n). With one value there is no interval: ``(nan, nan)``. Unlike a bootstrap, which over three seeds
    can only give their range back, it widens as the values get fewer."""
    from scipy.stats import t

    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return float("nan"), float("nan")
    mean = float(x.mean())
    half = float(t.ppf(0.975, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return mean - half, mean + half


def over_seeds(values: Sequence[float]) -> str:
    """The mean of the seeds' figures with a 95% t interval over the seeds, and their range."""
    mean = float(np.mean(values))
    if len(values) < 2:
        return f"{mean:.3f} (one seed)"
    low, high = t_interval(values)
    return f"{mean:.3f} [{low:.3f}, {high:.3f}] (range {min(values):.3f} to {max(values):.3f})"


def bootstrap_rows(
    rows: Sequence[Any], statistic: Callable[[list[Any]], float], seed: int, draws: int = 2000
) -> tuple[float, float]:
    """A 95% percentile interval of ``statistic(rows)`` over ``draws`` resamples of the rows (games, states)
    with replacement; resamples where the statistic is not finite are left out (NaN, NaN if all are)."""
    rng = np.random.default_rng(seed)
    values = [statistic([rows[i] for i in rng.integers(len(rows), size=len(rows))]) for _ in range(draws)]
    finite = [v for v in values if np.isfinite(v)]
    if not finite:
        return float("nan"), float("nan")
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def sign_test(first: Sequence[bool], second: Sequence[bool]) -> tuple[int, int, float]:
    """Paired outcomes (game ``g`` of both: the same deal) compared by the exact two-sided sign test on the pairs
    where exactly one succeeded: ``(only first, only second, p)`` (p = 1 when no pair differs)."""
    pairs = list(zip(first, second, strict=True))
    only_first = sum(a and not b for a, b in pairs)
    only_second = sum(b and not a for a, b in pairs)
    differ = only_first + only_second
    return only_first, only_second, binomtest(only_first, differ).pvalue if differ else 1.0


def format_p(p: float) -> str:
    """A p-value for a table."""
    if p < 1e-300:
        return "< 1e-300"
    return f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"


def chunks(total: int, size: int) -> list[tuple[int, int]]:
    """``(start, games)`` parts of a match of ``total`` games, ``size`` a part (one job each)."""
    return [(start, min(size, total - start)) for start in range(0, total, size)]
