"""Exact counting of Clue deals: a dynamic programme over places on bitmasks.

The problem this module solves is the one :mod:`~deduction_envs.reasoning.clue_knowledge`
leaves after propagating the certain facts: ``n`` *free* cards (bits ``0 .. n-1``
of an int64 mask) to share among places (players and the case file), each
place taking a fixed number of them from the cards it may hold, subject to
constraints that each concern one place only:

- *at least one of* a set (a player refuted a suggestion I did not see);
- *not all of* a set (a wrong accusation, on the case file);
- exactly ``c`` cards of a category (the case file).

Because every constraint concerns one place, a deal is a sequence of valid
hands, one per place in a fixed order, and the number of deals is a sum over
paths through the sets of cards still to deal: ``g`` (forward) counts the ways
to reach a set, ``f`` (backward) the ways to finish from it. A card's
probability at a place is the share of ``g(S) * f(S minus H)`` over the
transitions that put it there. Sets are kept sparse per layer; a dense scratch
array of ``2**n`` doubles deduplicates them, so exact counting is for
``n <= MAX_EXACT_CARDS``. Counts are float64: exact while the unconstrained
number of deals is below 2**53 (every intermediate count is at most that).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = [
    "MAX_EXACT_CARDS",
    "MAX_HANDS",
    "ExactCounts",
    "FreeProblem",
    "WorkLimitExceeded",
    "count_exactly",
    "popcount",
]

#: Free cards above which exact counting is not tried (the scratch array has 2**n doubles).
MAX_EXACT_CARDS = 24
#: Candidate hands of one place above which exact counting is not tried (the hand buffer).
MAX_HANDS = 2_000_000


class WorkLimitExceeded(RuntimeError):
    """Exact counting would enumerate more hands than the budget allows."""


@dataclass(frozen=True)
class FreeProblem:
    """Free cards, places and per-place constraints, in masks over the free cards.

    Attributes:
        n: number of free cards.
        places: the place ids of the caller, in DP order.
        sizes: free cards each place takes.
        allowed: mask of the free cards each place may take.
        at_least / not_all / categories: per place, a tuple of masks (and for
            categories, ``(mask, count)`` pairs).
    """

    n: int
    places: tuple[int, ...]
    sizes: tuple[int, ...]
    allowed: tuple[int, ...]
    at_least: tuple[tuple[int, ...], ...]
    not_all: tuple[tuple[int, ...], ...]
    categories: tuple[tuple[tuple[int, int], ...], ...]

    def reordered(self, order: list[int]) -> FreeProblem:
        """The same problem with its places in ``order`` (indices into the current order)."""
        pick = lambda seq: tuple(seq[i] for i in order)  # noqa: E731
        return FreeProblem(
            self.n,
            pick(self.places),
            pick(self.sizes),
            pick(self.allowed),
            pick(self.at_least),
            pick(self.not_all),
            pick(self.categories),
        )

    def with_empty_place(self) -> FreeProblem:
        """Append a place that takes no card: the last layer then checks that nothing is left."""
        return FreeProblem(
            self.n,
            (*self.places, -1),
            (*self.sizes, 0),
            (*self.allowed, 0),
            (*self.at_least, ()),
            (*self.not_all, ()),
            (*self.categories, ()),
        )

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The constraint arrays the kernels take (CSR lists of masks per place)."""

        def csr(lists):
            start = np.zeros(len(lists) + 1, dtype=np.int64)
            start[1:] = np.cumsum([len(x) for x in lists])
            flat = np.array([m for x in lists for m in x], dtype=np.int64)
            return flat, start

        al, al_start = csr(self.at_least)
        na, na_start = csr(self.not_all)
        cat, cat_start = csr([[mask for mask, _ in x] for x in self.categories])
        counts = np.array([c for x in self.categories for _, c in x], dtype=np.int64)
        sizes = np.array(self.sizes, dtype=np.int64)
        allowed = np.array(self.allowed, dtype=np.int64)
        return sizes, allowed, al, al_start, na, na_start, cat, counts, cat_start

    def max_hands(self) -> int:
        """An upper bound on the hands any place can enumerate within one set."""
        return max(math.comb(int(a).bit_count(), s) for a, s in zip(self.allowed, self.sizes, strict=True))


@njit(cache=True)
def popcount(x):
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@njit(cache=True)
def _valid(hand, i, al, al_start, na, na_start, cat, counts, cat_start):
    for k in range(al_start[i], al_start[i + 1]):
        if hand & al[k] == 0:
            return False
    for k in range(na_start[i], na_start[i + 1]):
        if hand & na[k] == na[k]:
            return False
    for k in range(cat_start[i], cat_start[i + 1]):
        if popcount(hand & cat[k]) != counts[k]:
            return False
    return True


@njit(cache=True)
def _hands(remaining, i, sizes, allowed, al, al_start, na, na_start, cat, counts, cat_start, bits, index, out,
           limit=1 << 62):  # fmt: skip
    """Write the valid hands of place ``i`` within ``remaining`` to ``out``; return (valid, enumerated).

    Stops once more than ``limit`` hands were enumerated (then ``enumerated > limit``).
    """
    candidates = remaining & allowed[i]
    k = sizes[i]
    nb = 0
    while candidates:
        low = candidates & -candidates
        bits[nb] = low
        nb += 1
        candidates ^= low
    if nb < k:
        return 0, 0
    for t in range(k):
        index[t] = t
    valid = 0
    enumerated = 0
    while True:
        hand = 0
        for t in range(k):
            hand |= bits[index[t]]
        enumerated += 1
        if _valid(hand, i, al, al_start, na, na_start, cat, counts, cat_start):
            out[valid] = hand
            valid += 1
        j = k - 1
        while j >= 0 and index[j] == nb - k + j:
            j -= 1
        if j < 0 or enumerated > limit:
            return valid, enumerated
        index[j] += 1
        for t in range(j + 1, k):
            index[t] = index[t - 1] + 1


@njit(cache=True)
def _forward(states, weights, i, sizes, allowed, al, al_start, na, na_start, cat, counts, cat_start, bits, index, out,
             scratch, touched, work_limit):  # fmt: skip
    """Push the weights of layer ``i`` to the sets left after place ``i``; -1 if over the work limit."""
    found = 0
    work = 0
    for s in range(states.size):
        remaining = states[s]
        valid, enumerated = _hands(
            remaining,
            i,
            sizes,
            allowed,
            al,
            al_start,
            na,
            na_start,
            cat,
            counts,
            cat_start,
            bits,
            index,
            out,
            work_limit - work,
        )
        work += enumerated
        if work > work_limit:
            return -1, work
        for j in range(valid):
            child = remaining ^ out[j]
            if scratch[child] == 0.0:
                touched[found] = child
                found += 1
            scratch[child] += weights[s]
    return found, work


@njit(cache=True)
def _add_bits(row, hand, weight):
    b = 0
    while hand:
        if hand & 1:
            row[b] += weight
        hand >>= 1
        b += 1


@njit(cache=True)
def _backward(states, g, i, sizes, allowed, al, al_start, na, na_start, cat, counts, cat_start, bits, index, out,
              scratch, row):  # fmt: skip
    """Completions of each set of layer ``i`` (``scratch`` holds those of layer ``i+1``); card weights into ``row``."""
    f = np.zeros(states.size)
    for s in range(states.size):
        remaining = states[s]
        valid, _ = _hands(
            remaining, i, sizes, allowed, al, al_start, na, na_start, cat, counts, cat_start, bits, index, out
        )
        total = 0.0
        for j in range(valid):
            v = scratch[remaining ^ out[j]]
            if v > 0.0:
                total += v
                _add_bits(row, out[j], g[s] * v)
        f[s] = total
    return f


@njit(cache=True)
def _last(states, g, i, allowed, al, al_start, na, na_start, cat, counts, cat_start, row):
    """The last place takes whatever is left: 1 completion if that is a valid hand."""
    f = np.zeros(states.size)
    for s in range(states.size):
        hand = states[s]
        if hand & ~allowed[i] == 0 and _valid(hand, i, al, al_start, na, na_start, cat, counts, cat_start):
            f[s] = 1.0
            _add_bits(row, hand, g[s])
    return f


@njit(cache=True)
def _lookup(states, values, key):
    pos = np.searchsorted(states, key)
    if pos < states.size and states[pos] == key:
        return values[pos]
    return 0.0


@njit(cache=True)
def _sample(flat_states, flat_f, offsets, uniforms, sizes, allowed, al, al_start, na, na_start, cat, counts,
            cat_start, bits, index, out, deals):  # fmt: skip
    """Draw deals top-down: at each layer a hand with probability f(child) / f(set)."""
    layers = offsets.size - 1
    weights = np.zeros(out.size)
    for d in range(uniforms.shape[0]):
        remaining = flat_states[offsets[0]]
        for i in range(layers - 1):
            nxt = flat_states[offsets[i + 1] : offsets[i + 2]]
            nxt_f = flat_f[offsets[i + 1] : offsets[i + 2]]
            valid, _ = _hands(
                remaining, i, sizes, allowed, al, al_start, na, na_start, cat, counts, cat_start, bits, index, out
            )
            total = 0.0
            for j in range(valid):
                weights[j] = _lookup(nxt, nxt_f, remaining ^ out[j])
                total += weights[j]
            target = uniforms[d, i] * total
            chosen = valid - 1
            acc = 0.0
            for j in range(valid):
                acc += weights[j]
                if target < acc and weights[j] > 0.0:
                    chosen = j
                    break
            while weights[chosen] == 0.0:  # rounding at the top end
                chosen -= 1
            deals[d, i] = out[chosen]
            remaining ^= out[chosen]
        deals[d, layers - 1] = remaining


@njit(cache=True)
def _answers(states, g, i, sizes, allowed, al, al_start, na, na_start, cat, counts, cat_start, bits, index, out,
             nxt, nxt_f, query, fixed, scratch, touched, shown):  # fmt: skip
    """One asked place of a suggestion: mass that refutes (split by card shown), and the clean sets it passes on.

    ``shown[b]`` gets the deals in which this place refutes and shows free card
    ``b``; ``shown[-1]`` those in which it shows one of its ``fixed`` known
    query cards. The refuter shows each matching card with equal probability.
    """
    found = 0
    for s in range(states.size):
        remaining = states[s]
        valid, _ = _hands(
            remaining, i, sizes, allowed, al, al_start, na, na_start, cat, counts, cat_start, bits, index, out
        )
        for j in range(valid):
            child = remaining ^ out[j]
            v = _lookup(nxt, nxt_f, child)
            if v == 0.0:
                continue
            matched = out[j] & query
            matching = popcount(matched) + fixed
            if matching == 0:
                if scratch[child] == 0.0:
                    touched[found] = child
                    found += 1
                scratch[child] += g[s]
            else:
                w = g[s] * v / matching
                _add_bits(shown, matched, w)
                shown[-1] += w * fixed
    return found


@dataclass
class ExactCounts:
    """The layers of one exact count: sets left before each place, with forward and backward counts.

    Attributes:
        problem: the problem counted (places in DP order).
        states / forward / backward: per layer ``i``, the sets of free cards
            left before place ``i`` (sorted), how many ways lead to each, and
            how many ways finish from each.
        card_weights: ``(places, n)``, the number of deals putting each free
            card at each place.
        work: hands enumerated.
    """

    problem: FreeProblem
    states: list[np.ndarray]
    forward: list[np.ndarray]
    backward: list[np.ndarray]
    card_weights: np.ndarray
    work: int

    @property
    def total(self) -> float:
        """The number of deals."""
        return float(self.backward[0][0]) if self.backward[0].size else 0.0

    def first_place_hands(self, limit: float = math.inf) -> tuple[np.ndarray, np.ndarray]:
        """The valid hands of the first place and the number of deals with each (for the case file).

        ``limit`` is the interface of :meth:`TypeCounts.first_place_hands`; here the hands were enumerated within
        the work limit already, and the buffer holds them.
        """
        p = self.problem
        arrays = p.arrays()
        bits, index, out = _hand_buffers(p)
        start = self.states[0][0]
        if len(p.places) == 1:
            return np.array([start]), np.array([self.total])
        valid, _ = _hands(start, 0, *arrays, bits, index, out)
        hands = out[:valid].copy()
        weights = _values(self.states[1], self.backward[1], start ^ hands)
        return hands[weights > 0], weights[weights > 0]

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` uniform deals as free-card masks per place: ``(n, places)``."""
        return self.sample(rng.random((n, len(self.problem.places))))

    def sample(self, uniforms: np.ndarray) -> np.ndarray:
        """Deals, one row per row of ``uniforms`` (in [0, 1)), as free-card masks per place."""
        p = self.problem
        offsets = np.zeros(len(self.states) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([s.size for s in self.states])
        deals = np.zeros((uniforms.shape[0], len(p.places)), dtype=np.int64)
        bits, index, out = _hand_buffers(p)
        _sample(
            np.concatenate(self.states),
            np.concatenate(self.backward),
            offsets,
            uniforms,
            *p.arrays(),
            bits,
            index,
            out,
            deals,
        )
        return deals


def _hand_buffers(problem: FreeProblem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scratch space of :func:`_hands`: candidate bits, combination indices, valid hands."""
    n = max(problem.n, 1)
    return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(max(problem.max_hands(), 1), np.int64)


def _buffers(problem: FreeProblem, work_limit: float) -> tuple[np.ndarray, ...]:
    """The hand buffers and the dense ``2**n`` scratch array, once the problem is known to fit."""
    if problem.n > MAX_EXACT_CARDS:
        raise WorkLimitExceeded(f"{problem.n} free cards is above the exact limit of {MAX_EXACT_CARDS}")
    most = problem.max_hands()
    if most > min(work_limit, MAX_HANDS):
        raise WorkLimitExceeded(f"a place has {most} candidate hands")
    return (*_hand_buffers(problem), np.zeros(1 << problem.n, dtype=np.float64))


def _collect(scratch: np.ndarray, touched: np.ndarray, found: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``found`` sets accumulated in ``scratch`` (sorted) and their weights; clears ``scratch``."""
    sets = np.sort(touched[:found])
    weights = scratch[sets].copy()
    scratch[sets] = 0.0
    return sets, weights


def _advance(states, weights, i, arrays, bits, index, out, scratch, work_limit, n):
    """The sets left after place ``i`` and the ways to reach each."""
    if states.size == 0:
        return states, weights, 0
    left = int(states[0]).bit_count() - int(arrays[0][i])
    capacity = min(math.comb(n, left), states.size * out.size) if left >= 0 else 0
    touched = np.zeros(max(capacity, 1), dtype=np.int64)
    found, work = _forward(states, weights, i, *arrays, bits, index, out, scratch, touched, work_limit)
    if found < 0:
        raise WorkLimitExceeded(f"more than {work_limit:.0f} hands to enumerate")
    return (*_collect(scratch, touched, found), work)


def _values(states: np.ndarray, values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``values`` at ``keys`` in the sorted ``states``, 0 where a key is absent."""
    if states.size == 0:
        return np.zeros(keys.size)
    pos = np.minimum(np.searchsorted(states, keys), states.size - 1)
    return np.where(states[pos] == keys, values[pos], 0.0)


def count_exactly(problem: FreeProblem, work_limit: float = 1.5e7) -> ExactCounts:
    """Count every deal of ``problem`` and the deals putting each card at each place.

    Raises:
        WorkLimitExceeded: more than ``work_limit`` hands would be enumerated,
            or the problem has more than :data:`MAX_EXACT_CARDS` free cards.
    """
    bits, index, out, scratch = _buffers(problem, work_limit)
    arrays = problem.arrays()
    layers = len(problem.places)
    states = [np.array([(1 << problem.n) - 1], dtype=np.int64)]
    forward = [np.ones(1)]
    work = 0
    dealt = 0
    for i in range(layers - 1):
        # Every set of this layer enumerates at least the hands of the cards it surely still has.
        least = math.comb(max(problem.allowed[i].bit_count() - dealt, 0), problem.sizes[i]) * states[i].size
        if work + least > work_limit:
            raise WorkLimitExceeded(f"more than {work_limit:.0f} hands to enumerate")
        dealt += problem.sizes[i]
        child, child_weights, spent = _advance(
            states[i], forward[i], i, arrays, bits, index, out, scratch, work_limit - work, problem.n
        )
        work += spent
        states.append(child)
        forward.append(child_weights)
    card_weights = np.zeros((layers, max(problem.n, 1)))
    backward = [np.zeros(0)] * layers
    allowed, *constraints = arrays[1:]
    backward[-1] = _last(states[-1], forward[-1], layers - 1, allowed, *constraints, card_weights[-1])
    for i in range(layers - 2, -1, -1):
        scratch[states[i + 1]] = backward[i + 1]
        backward[i] = _backward(states[i], forward[i], i, *arrays, bits, index, out, scratch, card_weights[i])
        scratch[states[i + 1]] = 0.0
    return ExactCounts(problem, states, forward, backward, card_weights[:, : problem.n], work)


def answer_weights(problem: FreeProblem, asked: int, queries: list[tuple[int, int]], work_limit: float = 1.5e7):
    """Deals by who refutes a suggestion first and which card they show.

    Args:
        problem: places in DP order with the ``asked`` places first, in the
            order they are asked.
        queries: per asked place, ``(query mask over free cards, number of
            query cards it is known to hold)``.

    Returns:
        ``(shown, nobody, total)``: ``shown[j]`` is an array over free cards
        plus a last entry for the place's known cards; ``nobody`` the deals in
        which no asked place can refute.
    """
    problem = problem.with_empty_place()
    counts = count_exactly(problem, work_limit)
    bits, index, out, scratch = _buffers(problem, work_limit)
    arrays = problem.arrays()
    states, weights = counts.states[0], counts.forward[0]
    shown = []
    for j in range(asked):
        query, fixed = queries[j]
        touched = np.zeros(max(counts.states[j + 1].size, 1), dtype=np.int64)
        row = np.zeros(problem.n + 1)
        found = _answers(states, weights, j, *arrays, bits, index, out, counts.states[j + 1], counts.backward[j + 1],
                         query, fixed, scratch, touched, row)  # fmt: skip
        shown.append(row)
        states, weights = _collect(scratch, touched, found)
    nobody = float(weights @ _values(counts.states[asked], counts.backward[asked], states))
    return shown, nobody, counts.total
