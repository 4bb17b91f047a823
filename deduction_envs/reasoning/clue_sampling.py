"""Uniform sampling of Clue deals when they are too many to count exactly.

The *relaxed* problem keeps the hard facts (which places may hold each free
card, how many cards each place takes, how many of each category the case
file holds) and drops the clauses (*at least one of*, *not all of*). Its deals
are counted exactly by a dynamic programme over the cards, one at a time, whose
state is the capacity left at each place: at most ``prod(capacity + 1)`` states,
with the case file split into one place per category so that its per-category
counts are capacities too. The most restrictive *at least one of* clauses
(fewest cards first) are kept in the problem as one bit each in the state,
"already satisfied", as many as fit :data:`TRACKED_ENTRIES`; the final state
requires every bit. Walking those counts forward draws deals uniformly among
those that respect the hard facts and the tracked clauses; keeping the ones
that satisfy the other clauses leaves uniform deals of the real problem
(rejection sampling), and the share kept estimates the real count as
``relaxed count * acceptance`` with a binomial error (exact when every clause
is tracked).

Estimates average over the *distinct* deals drawn. Draws are uniform, so given
how many distinct deals were seen, they are a uniform random subset of all
consistent deals: a simple random sample without replacement, whose average is
unbiased, has a smaller variance than the average over all draws, and is exact
once every deal has been seen (late in a game, when few remain).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numba import njit

from deduction_envs.reasoning.clue_counting import FreeProblem
from deduction_envs.reasoning.clue_facts import mask_bits

__all__ = [
    "MAX_RELAXED_ENTRIES",
    "TRACKED_ENTRIES",
    "RelaxedCounts",
    "SampledDeals",
    "SwapChain",
    "groups_sharing_cards",
    "relaxed_feasible",
]

T = TypeVar("T")

#: Cards x states above which the relaxed counts are not built (float64 entries).
MAX_RELAXED_ENTRIES = 20_000_000
#: Cards x states up to which at-least clauses are tracked in the state (each doubles it).
TRACKED_ENTRIES = 1_000_000
#: Draws after which rejection may give up early when it could not reach the deals it needs (see
#: :meth:`RelaxedCounts.sample`).
EARLY_DRAWS = 16_384


@njit(cache=True)
def _fill_table(table, option_place, option_flag, option_start, strides, room, capacity_states):
    """table[b, s]: relaxed deals of cards b.. from state s (clause bits, capacities left); the last row is given.

    ``room[left, p]`` says whether relaxed place ``p`` has capacity left in capacity state ``left``.
    """
    for b in range(table.shape[0] - 2, -1, -1):
        for bits in range(table.shape[1] // capacity_states):
            base = bits * capacity_states
            for left in range(capacity_states):
                total = 0.0
                for k in range(option_start[b], option_start[b + 1]):
                    p = option_place[k]
                    if room[left, p]:
                        total += table[b + 1, (bits | option_flag[k]) * capacity_states + left - strides[p]]
                table[b, base + left] = total


@njit(cache=True)
def _draw(table, option_place, option_flag, option_start, strides, room, capacity_states, start, owner, seed, deals):
    """Relaxed deals, one a row: each card's place drawn in proportion to the completions left.

    numba compiles numpy's legacy global generator, seeded here from the caller's Generator.
    """
    np.random.seed(seed)  # noqa: NPY002
    for d in range(deals.shape[0]):
        bits, left = start // capacity_states, start % capacity_states
        for b in range(deals.shape[1]):
            target = np.random.random() * table[b, bits * capacity_states + left]  # noqa: NPY002
            acc = 0.0
            chosen = -1
            for k in range(option_start[b], option_start[b + 1]):
                p = option_place[k]
                if room[left, p]:
                    w = table[b + 1, (bits | option_flag[k]) * capacity_states + left - strides[p]]
                    if w > 0.0:
                        acc += w
                        chosen = k
                        if target < acc:
                            break
            p = option_place[chosen]
            bits |= option_flag[chosen]
            left -= strides[p]
            deals[d, b] = owner[p]


@njit(cache=True)
def _satisfies(deals, clause_place, clause_at_least, clause_start, clause_cards, ok):
    """Which deals satisfy every clause (at least one of its cards at its place, or not all of them)."""
    for d in range(deals.shape[0]):
        ok[d] = True
        for c in range(clause_place.size):
            count = 0
            for k in range(clause_start[c], clause_start[c + 1]):
                count += deals[d, clause_cards[k]] == clause_place[c]
            size = clause_start[c + 1] - clause_start[c]
            if (clause_at_least[c] and count == 0) or (not clause_at_least[c] and count == size):
                ok[d] = False
                break


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
    #: Drawn by :class:`SwapChain` (approximately uniform, and no count) rather than exactly.
    mcmc: bool = False

    def distinct(self) -> np.ndarray:
        """The distinct accepted deals (rows of ``places``), in order of first draw."""
        if self.places.shape[0] == 0:
            return self.places
        keys = self.places @ np.random.default_rng(0).integers(1, 2**62, size=self.places.shape[1])
        _, first = np.unique(keys, return_index=True)  # a 64-bit hash of each row; collisions are negligible
        return self.places[np.sort(first)]

    @property
    def acceptance(self) -> float:
        return self.places.shape[0] / self.drawn if self.drawn else 0.0

    def count_estimate(self) -> tuple[float, float]:
        """The number of deals, estimated, and its standard error (NaN from a swap chain, which cannot count)."""
        if self.mcmc:
            return float("nan"), float("nan")
        a = self.acceptance
        error = np.sqrt(a * (1 - a) / self.drawn) if self.drawn else np.inf
        return self.relaxed_total * a, self.relaxed_total * float(error)


class RelaxedCounts:
    """Exact counts of the deals of ``problem`` that respect its hard facts and its tracked clauses.

    Args:
        problem: the problem.
        tracked_entries: how large the table may grow by tracking clauses
            (each tracked clause doubles it).

    Raises:
        MemoryError: the table would need more than :data:`MAX_RELAXED_ENTRIES` entries.
    """

    def __init__(self, problem: FreeProblem, tracked_entries: float = TRACKED_ENTRIES) -> None:
        self.problem = problem
        capacities: list[int] = []
        owner: list[int] = []  # the problem place of each relaxed place
        options: list[list[int]] = [[] for _ in range(problem.n)]
        for i, (size, allowed, categories) in enumerate(
            zip(problem.sizes, problem.allowed, problem.categories, strict=True)
        ):
            parts = categories or ((allowed, size),)
            for mask, count in parts:
                for b in mask_bits(mask & allowed):
                    options[b].append(len(capacities))
                capacities.append(count)
                owner.append(i)
        self.owner = np.array(owner, dtype=np.int64)
        radix = np.array(capacities, dtype=np.int64) + 1
        self.strides = np.cumprod(np.concatenate([[1], radix]))[:-1].astype(np.int64)
        self.states = int(np.prod(radix))
        if self.states * (problem.n + 1) > MAX_RELAXED_ENTRIES:
            raise MemoryError(
                f"the relaxed counts need {self.states} states x {problem.n + 1} cards, "
                f"above the limit of {MAX_RELAXED_ENTRIES} entries"
            )
        self.capacity_states = self.states
        # Track the clauses with the fewest cards while the table stays small; reject on the others.
        at_least = sorted(
            ((i, m) for i, ms in enumerate(problem.at_least) for m in ms), key=lambda c: (c[1].bit_count(), c)
        )
        tracked = 0
        while tracked < len(at_least) and self.states * 2 ** (tracked + 1) * (problem.n + 1) <= tracked_entries:
            tracked += 1
        self.tracked = tracked
        flags: list[list[int]] = [[] for _ in range(problem.n)]
        for b, places in enumerate(options):
            for p in places:
                flag = sum(1 << j for j, (i, m) in enumerate(at_least[:tracked]) if i == owner[p] and m >> b & 1)
                flags[b].append(flag)
        self.states *= 2**tracked
        self.option_place = np.array([p for o in options for p in o], dtype=np.int64)
        self.option_flag = np.array([f for o in flags for f in o], dtype=np.int64)
        self.option_start = np.cumsum([0] + [len(o) for o in options]).astype(np.int64)
        self.start = int(np.dot(self.strides, capacities))
        clauses = [(i, True, m) for i, m in at_least[tracked:]]
        clauses += [(i, False, m) for i, ms in enumerate(problem.not_all) for m in ms]
        self.clause_place = np.array([i for i, _, _ in clauses], dtype=np.int64)
        self.clause_at_least = np.array([a for _, a, _ in clauses], dtype=np.bool_)
        self.clause_start = np.cumsum([0] + [m.bit_count() for _, _, m in clauses]).astype(np.int64)
        self.clause_cards = np.array([b for _, _, m in clauses for b in mask_bits(m)], dtype=np.int64)
        left = np.arange(self.capacity_states)[:, None]
        self.room = (left // self.strides[None, :]) % radix[None, :] > 0
        self.table = np.zeros((problem.n + 1, self.states))
        self.table[problem.n, (2**tracked - 1) * self.capacity_states] = 1.0  # capacities used up, clauses met
        _fill_table(self.table, self.option_place, self.option_flag, self.option_start, self.strides, self.room,
                    self.capacity_states)  # fmt: skip

    @property
    def total(self) -> float:
        """The number of relaxed deals."""
        return float(self.table[0, self.start])

    def draw(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` uniform relaxed deals, as problem place indices per free card."""
        deals = np.zeros((count, self.problem.n), dtype=np.int64)
        seed = int(rng.integers(2**31))
        _draw(self.table, self.option_place, self.option_flag, self.option_start, self.strides, self.room,
              self.capacity_states, self.start, self.owner, seed, deals)  # fmt: skip
        return deals

    def satisfies(self, deals: np.ndarray) -> np.ndarray:
        """Which relaxed deals satisfy the clauses that are not tracked."""
        ok = np.zeros(deals.shape[0], dtype=np.bool_)
        _satisfies(deals, self.clause_place, self.clause_at_least, self.clause_start, self.clause_cards, ok)
        return ok

    def sample(
        self,
        rng: np.random.Generator,
        samples: int,
        seconds: float | None = None,
        max_draws: int = 10_000_000,
        enough: int = 0,
    ) -> SampledDeals:
        """Draw batches until ``samples`` deals are accepted, ``seconds`` have passed or ``max_draws`` were drawn.

        Batches start at 256 deals and double up to 8192; with a time budget,
        drawing stops at 60% of it (the caller summarises the deals in the
        rest) and each batch is cut to what the time left allows at the speed
        measured so far (at least one batch is drawn). Every accepted deal of every
        batch is kept (cutting a batch short would bias the acceptance rate),
        so there may be more than ``samples``. Drawing also stops once
        :data:`EARLY_DRAWS` are drawn if, at the acceptance seen, ``max_draws``
        would not reach ``enough`` accepted deals (the caller then has a better
        sampler to turn to).
        """
        start = time.perf_counter()
        kept: list[np.ndarray] = []
        accepted = drawn = 0
        batch = 256
        while accepted < samples and drawn < max_draws:
            if drawn >= EARLY_DRAWS and accepted * max_draws < enough * drawn:
                break
            if seconds is not None and drawn:
                # Drawing gets 60% of the time; finding the distinct deals and summarising them takes the rest.
                left = 0.6 * seconds - (time.perf_counter() - start)
                per_deal = (time.perf_counter() - start) / drawn
                batch = int(min(batch, left / per_deal))  # the batch that fits the time left
                if batch < 64:
                    break
            deals = self.draw(batch, rng)
            good = deals[self.satisfies(deals)]
            kept.append(good)
            accepted += good.shape[0]
            drawn += batch
            batch = min(2 * batch, 8192)
        places = np.concatenate(kept) if kept else np.zeros((0, self.problem.n), dtype=np.int64)
        return SampledDeals(places, drawn, self.total)


@njit(cache=True)
def _violations(place, hand, clause_start, clause_mask, clause_at_least):
    """How many of ``place``'s clauses ``hand`` breaks."""
    broken = 0
    for c in range(clause_start[place], clause_start[place + 1]):
        common = hand & clause_mask[c]
        if (clause_at_least[c] and common == 0) or (not clause_at_least[c] and common == clause_mask[c]):
            broken += 1
    return broken


@njit(cache=True)
def _swap_delta(a, b, p, q, hands, allowed, clause_start, clause_mask, clause_at_least):
    """The change in broken facts if cards ``a`` (at ``p``) and ``b`` (at ``q``) swap places."""
    swapped = (np.int64(1) << a) | (np.int64(1) << b)
    before = ((allowed[p] >> a) & 1 == 0) + ((allowed[q] >> b) & 1 == 0)
    before += _violations(p, hands[p], clause_start, clause_mask, clause_at_least)
    before += _violations(q, hands[q], clause_start, clause_mask, clause_at_least)
    after = ((allowed[q] >> a) & 1 == 0) + ((allowed[p] >> b) & 1 == 0)
    after += _violations(p, hands[p] ^ swapped, clause_start, clause_mask, clause_at_least)
    after += _violations(q, hands[q] ^ swapped, clause_start, clause_mask, clause_at_least)
    return after - before


@njit(cache=True)
def _swap_chain(where, hands, allowed, category, ruled, clause_start, clause_mask, clause_at_least, seed, burn,
                thin, search, out):  # fmt: skip
    """Repair ``where`` into a consistent deal by swaps, then walk consistent deals by swaps; False if no repair.

    A proposal swaps two random cards at different places (of one category when
    either place is ``ruled`` by category counts). While facts are broken, a
    swap is taken if it breaks no more of them (or, rarely, one more); then
    only swaps to consistent deals are taken, a symmetric chain whose
    stationary distribution is uniform over the consistent deals it can reach.
    """
    np.random.seed(seed)  # noqa: NPY002
    n = where.size
    broken = 0
    for b in range(n):
        broken += (allowed[where[b]] >> b) & 1 == 0
    for p in range(hands.size):
        broken += _violations(p, hands[p], clause_start, clause_mask, clause_at_least)
    steps = 0
    while broken > 0:
        if steps >= search:
            return False
        steps += 1
        a, b = np.random.randint(n), np.random.randint(n)  # noqa: NPY002
        p, q = where[a], where[b]
        if p == q or ((ruled[p] or ruled[q]) and category[a] != category[b]):
            continue
        delta = _swap_delta(a, b, p, q, hands, allowed, clause_start, clause_mask, clause_at_least)
        if delta <= 0 or np.random.random() < 0.05:  # noqa: NPY002
            swapped = (np.int64(1) << a) | (np.int64(1) << b)
            hands[p] ^= swapped
            hands[q] ^= swapped
            where[a], where[b] = q, p
            broken += delta
    for s in range(out.shape[0]):
        for _ in range(burn if s == 0 else thin):
            a, b = np.random.randint(n), np.random.randint(n)  # noqa: NPY002
            p, q = where[a], where[b]
            if p == q or ((ruled[p] or ruled[q]) and category[a] != category[b]):
                continue
            if _swap_delta(a, b, p, q, hands, allowed, clause_start, clause_mask, clause_at_least) == 0:
                swapped = (np.int64(1) << a) | (np.int64(1) << b)
                hands[p] ^= swapped
                hands[q] ^= swapped
                where[a], where[b] = q, p
        out[s] = where
    return True


class SwapChain:
    """Approximately uniform deals by a Markov chain of card swaps, for tables too large for :class:`RelaxedCounts`.

    It starts from a random deal with the right number of cards at each place
    (and of each category in the case file), repairs it into a consistent deal
    by swaps, then walks consistent deals by swaps: a symmetric chain whose
    stationary distribution is uniform over the deals it can reach, with
    ``burn`` swaps proposed before the first deal kept and ``thin`` between
    kept deals (defaults: 50 and 4 per free card). The deals are correlated and
    only approximately uniform, and the chain cannot count them; the engine says
    so (``SampledDeals.mcmc``).

    Raises:
        RuntimeError: no consistent deal was found within ``search`` swaps.
    """

    def __init__(self, problem: FreeProblem, burn: int | None = None, thin: int | None = None, search: int = 2_000_000):
        self.problem = problem
        n = problem.n
        self.burn = 50 * max(n, 1) if burn is None else burn
        self.thin = 4 * max(n, 1) if thin is None else thin
        self.search = search
        self.allowed = np.array(problem.allowed, dtype=np.int64)
        self.sizes = np.array(problem.sizes, dtype=np.int64)
        self.category = np.full(n, -1, dtype=np.int64)
        self.ruled = np.array([bool(c) for c in problem.categories], dtype=np.bool_)
        for parts in problem.categories:
            for j, (mask, _) in enumerate(parts):
                self.category[mask_bits(mask)] = j
        clauses = [(p, m, True) for p, ms in enumerate(problem.at_least) for m in ms]
        clauses += [(p, m, False) for p, ms in enumerate(problem.not_all) for m in ms]
        clauses.sort(key=lambda c: c[0])
        self.clause_mask = np.array([m for _, m, _ in clauses], dtype=np.int64)
        self.clause_at_least = np.array([a for _, _, a in clauses], dtype=np.bool_)
        self.clause_start = np.searchsorted([p for p, _, _ in clauses], np.arange(len(problem.sizes) + 1)).astype(
            np.int64
        )

    def _start(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """A random deal with the right sizes (and case-file categories), preferring allowed places."""
        problem, n = self.problem, self.problem.n
        where = np.full(n, -1, dtype=np.int64)
        for p, parts in enumerate(problem.categories):
            for mask, count in parts:
                cards = np.array(mask_bits(mask), dtype=np.int64)
                ok = cards[(self.allowed[p] >> cards) & 1 == 1]
                pool = ok if ok.size >= count else cards
                where[rng.choice(pool, size=count, replace=False)] = p
        slots = [p for p, size in enumerate(problem.sizes) if not problem.categories[p] for _ in range(size)]
        where[where < 0] = rng.permutation(np.array(slots, dtype=np.int64))
        hands = np.zeros(len(problem.sizes), dtype=np.int64)
        for b, place in enumerate(where):
            hands[place] |= np.int64(1) << b
        return where, hands

    def sample(self, rng: np.random.Generator, samples: int, seconds: float | None = None) -> SampledDeals:
        """``samples`` deals (``seconds`` is accepted for the interface; a chain's cost is its length)."""
        where, hands = self._start(rng)
        out = np.zeros((samples, self.problem.n), dtype=np.int64)
        found = _swap_chain(where, hands, self.allowed, self.category, self.ruled, self.clause_start,
                            self.clause_mask, self.clause_at_least, int(rng.integers(2**31)), self.burn, self.thin,
                            self.search, out)  # fmt: skip
        if not found:
            raise RuntimeError(f"the swap chain found no consistent deal in {self.search} swaps")
        return SampledDeals(out, samples, float("nan"), mcmc=True)


def _disjoint_clauses(masks: Iterable[int], allowed: int = -1) -> list[int]:
    """A greedy set of pairwise disjoint clauses among ``masks`` (smallest first), each cut to ``allowed``."""
    chosen: list[int] = []
    taken = 0
    for mask in sorted((m & allowed for m in masks), key=lambda m: (m.bit_count(), m)):
        if not mask & taken:
            chosen.append(mask)
            taken |= mask
    return chosen


#: Nodes the exact smallest hitting set of one group of overlapping clauses may visit before the disjoint
#: clauses' count stands in for it (a lower bound too).
HITTING_SET_NODES = 2000


def _smallest_hitting_set(clauses: list[int]) -> int:
    """A lower bound on the cards a hand needs to meet every clause (masks): the exact smallest hitting set,
    by branch and bound within :data:`HITTING_SET_NODES`, else the count of a greedy set of disjoint clauses."""
    best = len(clauses)  # a card from each clause meets them all
    nodes = 0

    def search(open_clauses: list[int], chosen: int) -> None:
        nonlocal best, nodes
        nodes += 1
        if nodes > HITTING_SET_NODES:
            raise OverflowError
        if not open_clauses:
            best = min(best, chosen)
            return
        if chosen + len(_disjoint_clauses(open_clauses)) >= best:
            return
        smallest = min(open_clauses, key=lambda m: (m.bit_count(), m))
        for card in mask_bits(smallest):
            search([m for m in open_clauses if not m >> card & 1], chosen + 1)

    try:
        search(clauses, 0)
    except OverflowError:
        return len(_disjoint_clauses(clauses))
    return best


def groups_sharing_cards(items: Iterable[T], cards: Callable[[T], int]) -> list[list[T]]:
    """``items`` (clauses) in groups such that no two groups share a card (``cards(item)``, a mask), each
    group as small as that allows: the connected parts of the graph of items that share a card."""
    groups: list[tuple[int, list[T]]] = []  # (the group's cards, its items)
    for item in items:
        mask, members = cards(item), [item]
        for group in [g for g in groups if g[0] & cards(item)]:
            groups.remove(group)
            mask |= group[0]
            members += group[1]
        groups.append((mask, members))
    return [members for _, members in groups]


def _cards_needed(clauses: tuple[int, ...], allowed: int) -> int:
    """A lower bound on the cards a place needs to meet its *at least one of* clauses: the smallest hitting set
    of each group of overlapping clauses (groups share no card, so their needs add up)."""
    groups = groups_sharing_cards([m & allowed for m in clauses], lambda mask: mask)
    return sum(_smallest_hitting_set(members) for members in groups)


def relaxed_feasible(problem: FreeProblem) -> bool:
    """Whether a deal may respect the hard facts (allowed places, sizes, the case file's categories) and the
    *at least one of* clauses: exact when the problem has no clauses, a necessary condition otherwise.

    A bipartite matching with capacities (each place, and each category of the
    case file, takes so many cards), grown by augmenting paths: exact at any size.
    A place without categories also gets one slot of its own per clause in a
    greedy set of its pairwise disjoint *at least one of* clauses, which only a
    card of that clause fills (and which its size pays for): a hand that meets
    those clauses holds a distinct card of each, so a deal of the real problem is
    a matching here. Before matching, such a place must have room for the
    smallest hitting set of each group of its overlapping clauses. These refute
    the pigeonhole contradictions (more clauses than cards left to hold them)
    that a search over the clauses would take exponential time to exhaust.
    """
    capacity: list[int] = []
    options: list[list[int]] = [[] for _ in range(problem.n)]
    for size, allowed, parts, at_least in zip(
        problem.sizes, problem.allowed, problem.categories, problem.at_least, strict=True
    ):
        if not parts:
            if _cards_needed(at_least, allowed) > size:
                return False
            slots = _disjoint_clauses(at_least, allowed)
            for mask in slots:
                for b in mask_bits(mask):
                    options[b].append(len(capacity))
                capacity.append(1)
            size -= len(slots)
        for mask, count in parts or ((allowed, size),):
            for b in mask_bits(mask & allowed):
                options[b].append(len(capacity))
            capacity.append(count)
    if sum(capacity) != problem.n:
        return False
    holders: list[list[int]] = [[] for _ in capacity]

    def place(card: int, seen: set[int]) -> bool:
        for slot in options[card]:
            if slot in seen:
                continue
            seen.add(slot)
            if len(holders[slot]) < capacity[slot]:
                holders[slot].append(card)
                return True
            for other in holders[slot]:
                if place(other, seen):
                    holders[slot].remove(other)
                    holders[slot].append(card)
                    return True
        return False

    return all(place(card, set()) for card in range(problem.n))
