"""Uniform sampling of Clue deals when they are too many to count exactly.

The *relaxed* problem keeps the hard facts (which places may hold each free
card, how many cards each place takes, how many of each category the case
file holds) and drops the clauses (*at least one of*, *not all of*). Its deals
are counted exactly by a dynamic programme over the cards, one at a time, whose
state is the capacity left at each place: at most ``prod(capacity + 1)`` states,
with the case file split into one place per category so that its per-category
counts are capacities too. Walking those counts forward draws relaxed deals
uniformly; keeping the ones that satisfy every clause leaves uniform deals of
the real problem (rejection sampling), and the share kept estimates the real
count as ``relaxed count * acceptance`` with a binomial error.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from deduction_envs.reasoning.clue_counting import FreeProblem

__all__ = ["MAX_RELAXED_ENTRIES", "RelaxedCounts", "SampledDeals"]

#: Cards x states above which the relaxed counts are not built (float64 entries).
MAX_RELAXED_ENTRIES = 20_000_000


def _bits(mask: int) -> list[int]:
    return [b for b in range(mask.bit_length()) if mask >> b & 1]


@dataclass
class SampledDeals:
    """Uniform deals of a problem: ``places[d, b]`` is the index (in problem order) of free card ``b``'s place.

    Attributes:
        places: accepted deals, shape ``(samples, n)``.
        drawn: relaxed deals drawn, accepted or not.
        relaxed_total: the exact number of relaxed deals.
    """

    places: np.ndarray
    drawn: int
    relaxed_total: float

    @property
    def acceptance(self) -> float:
        return self.places.shape[0] / self.drawn if self.drawn else 0.0

    def count_estimate(self) -> tuple[float, float]:
        """The number of deals, estimated, and its standard error."""
        a = self.acceptance
        error = np.sqrt(a * (1 - a) / self.drawn) if self.drawn else np.inf
        return self.relaxed_total * a, self.relaxed_total * float(error)


class RelaxedCounts:
    """Exact counts of the deals of ``problem`` without its clauses.

    Raises:
        MemoryError: the table would need more than :data:`MAX_RELAXED_ENTRIES` entries.
    """

    def __init__(self, problem: FreeProblem) -> None:
        self.problem = problem
        capacities: list[int] = []
        owner: list[int] = []  # the problem place of each relaxed place
        options: list[list[int]] = [[] for _ in range(problem.n)]
        for i, (size, allowed, categories) in enumerate(
            zip(problem.sizes, problem.allowed, problem.categories, strict=True)
        ):
            parts = categories or ((allowed, size),)
            for mask, count in parts:
                for b in _bits(mask & allowed):
                    options[b].append(len(capacities))
                capacities.append(count)
                owner.append(i)
        self.owner = np.array(owner, dtype=np.int64)
        radix = np.array(capacities, dtype=np.int64) + 1
        self.strides = np.concatenate([[1], np.cumprod(radix)[:-1]]).astype(np.int64)
        self.states = int(np.prod(radix))
        if self.states * (problem.n + 1) > MAX_RELAXED_ENTRIES:
            raise MemoryError(
                f"the relaxed counts need {self.states} states x {problem.n + 1} cards, "
                f"above the limit of {MAX_RELAXED_ENTRIES} entries"
            )
        index = np.arange(self.states, dtype=np.int64)
        self.left = [(index // stride) % r for stride, r in zip(self.strides, radix, strict=True)]
        self.options = [np.array(o, dtype=np.int64) for o in options]
        self.start = int(np.dot(self.strides, capacities))
        # table[b][s]: relaxed deals of cards b.. from state s (capacities left).
        table = np.zeros((problem.n + 1, self.states))
        table[problem.n, 0] = 1.0
        for b in range(problem.n - 1, -1, -1):
            for p in self.options[b]:
                has_room = self.left[p] > 0
                table[b, has_room] += table[b + 1, index[has_room] - self.strides[p]]
        self.table = table

    @property
    def total(self) -> float:
        """The number of relaxed deals."""
        return float(self.table[0, self.start])

    def draw(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` uniform relaxed deals, as problem place indices per free card."""
        state = np.full(count, self.start, dtype=np.int64)
        deals = np.zeros((count, self.problem.n), dtype=np.int64)
        for b in range(self.problem.n):
            options = self.options[b]
            weights = np.zeros((count, options.size))
            for k, p in enumerate(options):
                room = self.left[p][state] > 0
                weights[room, k] = self.table[b + 1, state[room] - self.strides[p]]
            cumulative = np.cumsum(weights, axis=1)
            target = rng.random(count) * cumulative[:, -1]
            chosen = np.minimum((cumulative <= target[:, None]).sum(axis=1), options.size - 1)
            relaxed_place = options[chosen]
            state -= self.strides[relaxed_place]
            deals[:, b] = self.owner[relaxed_place]
        return deals

    def satisfies(self, deals: np.ndarray) -> np.ndarray:
        """Which relaxed deals satisfy every clause."""
        ok = np.ones(deals.shape[0], dtype=bool)
        for place, (at_least, not_all) in enumerate(zip(self.problem.at_least, self.problem.not_all, strict=True)):
            for mask in at_least:
                ok &= np.any(deals[:, _bits(mask)] == place, axis=1)
            for mask in not_all:
                ok &= ~np.all(deals[:, _bits(mask)] == place, axis=1)
        return ok

    def sample(
        self,
        rng: np.random.Generator,
        samples: int,
        seconds: float | None = None,
        batch: int = 2048,
        max_draws: int = 10_000_000,
    ) -> SampledDeals:
        """Draw batches until ``samples`` deals are accepted, ``seconds`` have passed or ``max_draws`` were drawn.

        Every accepted deal of every batch is kept (cutting a batch short would
        bias the acceptance rate), so there may be more than ``samples``.
        """
        deadline = None if seconds is None else time.perf_counter() + seconds
        kept: list[np.ndarray] = []
        accepted = drawn = 0
        while accepted < samples and drawn < max_draws:
            if deadline is not None and time.perf_counter() > deadline:
                break
            deals = self.draw(batch, rng)
            good = deals[self.satisfies(deals)]
            kept.append(good)
            accepted += good.shape[0]
            drawn += batch
        places = np.concatenate(kept) if kept else np.zeros((0, self.problem.n), dtype=np.int64)
        return SampledDeals(places, drawn, self.total)
