"""Exact counting of Clue deals by types of interchangeable cards: fast where few constraints tell cards apart.

Two free cards that every constraint treats alike (the same places allow them,
the same category, the same clauses) are interchangeable: swapping them maps
deals to deals. Early in a game most cards are alike (with only my hand known,
Clue's free cards form three types, one per category), and a deal is then
described, place after place, by *how many* cards of each type the place
takes. The number of deals is a dynamic programme over the counts of each type
still to deal (``prod(count + 1)`` states, a few hundred early on), each
transition weighted by binomial coefficients (which cards of a type). By
symmetry a card's probability at a place is the expected number of its type
there over the type's size.

:func:`count_by_types` answers what :func:`~deduction_envs.reasoning.clue_counting.count_exactly`
answers (total, per-card weights, the case file's hands, uniform samples) for
problems whose state space is small, and raises
:class:`~deduction_envs.reasoning.clue_counting.WorkLimitExceeded` otherwise,
when the bitmask programme is the better tool (late in a game, when clauses
have made most cards unique). The two agree exactly (tested).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from deduction_envs.reasoning.clue_counting import FreeProblem, WorkLimitExceeded

__all__ = ["MAX_TYPE_STATES", "TypeCounts", "count_by_types"]

#: States (``prod(count + 1)`` over the types) above which the bitmask programme is used instead.
MAX_TYPE_STATES = 400_000
#: A state-choice pair costs about a quarter of what the bitmask programme spends on a hand (17 ns and 75 ns
#: measured), so ``work_limit``, given in hands, allows four times as many pairs.
PAIRS_PER_HAND = 4
#: Rows of a place's first table of choices: most places have a few, so a small table, enlarged (and the
#: choices enumerated again) when full; a table as large as the limit allows cost tens of microseconds to allocate.
FIRST_CHOICE_ROWS = 256


@njit(cache=True)
def _decode(s, counts, strides, rem):
    for t in range(counts.size):
        rem[t] = (s // strides[t]) % (counts[t] + 1)


@njit(cache=True)
def _transition(s, rem, choice, strides, binom):
    """From state ``s`` (``rem`` left per type), the ways to take count vector ``choice`` and the state after."""
    weight = 1.0
    target = s
    for t in range(rem.size):
        k = choice[t]
        if k > rem[t]:
            return 0.0, s
        weight *= binom[rem[t], k]
        target -= k * strides[t]
    return weight, target


@njit(cache=True)
def _forward(f_in, f_out, counts, strides, choices, binom):
    """``f_out[s - k] += f_in[s] * prod C(rem, k)`` over every choice ``k`` of the layer."""
    rem = np.zeros(counts.size, dtype=np.int64)
    for s in range(f_in.size):
        value = f_in[s]
        if value == 0.0:  # only the states with this layer's number of cards left are reached
            continue
        _decode(s, counts, strides, rem)
        for j in range(choices.shape[0]):
            weight, target = _transition(s, rem, choices[j], strides, binom)
            if weight > 0.0:
                f_out[target] += value * weight


@njit(cache=True)
def _backward(f_in, b_next, b_out, counts, strides, choices, binom, expected, totals, left):
    """``b_out[s]``: ways to finish from ``s``; ``expected[t]``: deals times cards of type ``t`` placed here.

    Only states with ``left`` cards still to deal (``totals[s]``) can be met here.
    """
    rem = np.zeros(counts.size, dtype=np.int64)
    for s in range(b_out.size):
        if totals[s] != left:
            continue
        _decode(s, counts, strides, rem)
        total = 0.0
        for j in range(choices.shape[0]):
            weight, target = _transition(s, rem, choices[j], strides, binom)
            if weight > 0.0:
                ways = weight * b_next[target]
                total += ways
                if f_in[s] > 0.0 and ways > 0.0:
                    for t in range(counts.size):
                        expected[t] += f_in[s] * ways * choices[j, t]
        b_out[s] = total


def _types(problem: FreeProblem) -> list[list[int]]:
    """The free cards grouped by what every constraint says of them (in order of first card)."""
    masks = [*problem.allowed]
    for place in range(len(problem.places)):
        masks += [*problem.at_least[place], *problem.not_all[place], *(m for m, _ in problem.categories[place])]
    groups: dict[tuple[int, ...], list[int]] = {}
    for card in range(problem.n):
        groups.setdefault(tuple(m >> card & 1 for m in masks), []).append(card)
    return list(groups.values())


@njit(cache=True)
def _enumerate(caps, size, at_least, not_all, categories, category_counts, out):
    """Every count vector ``k <= caps`` with ``sum(k) == size`` meeting the place's clauses, into ``out``.

    ``at_least`` / ``not_all`` / ``categories`` are 0/1 matrices of which types each
    clause or category covers. An odometer over the vectors whose sum is at most
    ``size``; returns how many were written, or -1 if ``out`` is too small.
    """
    types = caps.size
    k = np.zeros(types, dtype=np.int64)
    total = 0
    found = 0
    while True:
        if total == size and _meets(k, caps, at_least, not_all, categories, category_counts):
            if found == out.shape[0]:
                return -1
            out[found] = k
            found += 1
        t = types - 1
        while t >= 0:
            if k[t] < caps[t] and total < size:
                k[t] += 1
                total += 1
                break
            total -= k[t]
            k[t] = 0
            t -= 1
        if t < 0:
            return found


@njit(cache=True)
def _meets(k, caps, at_least, not_all, categories, category_counts):
    for c in range(at_least.shape[0]):
        if np.sum(at_least[c] * k) == 0:
            return False
    for c in range(not_all.shape[0]):  # every card of the clause here: every covered type taken whole
        whole = True
        for t in range(k.size):
            if not_all[c, t] == 1 and k[t] != caps[t]:
                whole = False
        if whole:
            return False
    for c in range(categories.shape[0]):
        if np.sum(categories[c] * k) != category_counts[c]:
            return False
    return True


def _choices(problem: FreeProblem, place: int, types: list[list[int]], limit: int) -> np.ndarray:
    """Every count vector a place may take (independent of what is left): ``(choices, types)``."""
    members = [sum(1 << c for c in cards) for cards in types]
    caps = np.array(
        [len(cards) if problem.allowed[place] & m else 0 for cards, m in zip(types, members, strict=True)],
        dtype=np.int64,
    )

    def cover(masks) -> np.ndarray:
        return np.array([[1 if m & mask else 0 for m in members] for mask in masks], dtype=np.int64).reshape(
            len(masks), len(types)
        )

    categories = problem.categories[place]
    arguments = (
        caps,
        problem.sizes[place],
        cover(problem.at_least[place]),
        cover(problem.not_all[place]),
        cover([mask for mask, _ in categories]),
        np.array([count for _, count in categories], dtype=np.int64),
    )
    most = min(limit, 1 << 20) + 1  # one more than the limit: finding it says the limit is passed
    rows = min(most, FIRST_CHOICE_ROWS)
    while True:
        out = np.empty((rows, len(types)), dtype=np.int64)
        found = _enumerate(*arguments, out)
        if found >= 0 or rows == most:
            break
        rows = min(most, 16 * rows)
    if found < 0 or found > limit:
        raise WorkLimitExceeded(f"a place has more than {limit} ways to take cards by type")
    return out[:found].copy()


@dataclass
class TypeCounts:
    """One exact count by types (the interface of :class:`~deduction_envs.reasoning.clue_counting.ExactCounts`).

    Attributes:
        problem: the problem counted (places in DP order).
        types: the free cards of each type.
        card_weights: ``(places, n)``, the number of deals putting each free card at each place.
        work: state-choice pairs visited (at most).
    """

    problem: FreeProblem
    types: list[list[int]]
    counts: np.ndarray
    strides: np.ndarray
    choices: list[np.ndarray]
    binom: np.ndarray
    backward: list[np.ndarray]
    card_weights: np.ndarray
    work: int

    @property
    def total(self) -> float:
        return float(self.backward[0][-1])

    def _ways(self, layer: int, state: int) -> tuple[np.ndarray, np.ndarray]:
        """The layer's choices from ``state``: the deals each leads to, and the state after it."""
        rem = (state // self.strides) % (self.counts + 1)
        choices = self.choices[layer]
        fits = (choices <= rem).all(axis=1)
        weights = np.prod(self.binom[rem, choices], axis=1) * fits
        after = state - np.where(fits[:, None], choices, 0) @ self.strides
        return weights * self.backward[layer + 1][after], after

    def first_place_hands(self, limit: float = math.inf) -> tuple[np.ndarray, np.ndarray]:
        """The first place's possible hands (masks over the free cards) and the deals with each.

        Raises:
            WorkLimitExceeded: more than ``limit`` hands, counted before any is listed.
        """
        full = int(self.counts @ self.strides)
        ways, after = self._ways(0, full)
        sizes = [len(cards) for cards in self.types]
        listed = sum(
            math.prod(math.comb(size, k) for size, k in zip(sizes, self.choices[0][j].tolist(), strict=True))
            for j in np.flatnonzero(ways > 0)
        )
        if listed > limit:
            raise WorkLimitExceeded(f"the first place has {listed} hands to list")
        hands, weights = [np.zeros(0, dtype=np.int64)], [np.zeros(0)]
        subsets: dict[tuple[int, int], np.ndarray] = {}  # (type, k): its k-card subsets, met again and again
        for j in np.flatnonzero(ways > 0):
            masks = np.zeros(1, dtype=np.int64)
            for t, k in enumerate(self.choices[0][j].tolist()):
                if k:  # taking no card of a type leaves the hands as they are
                    if (t, k) not in subsets:
                        subsets[t, k] = subset_masks(self.types[t], k)
                    masks = (masks[:, None] | subsets[t, k][None, :]).ravel()
            hands.append(masks)
            weights.append(np.full(masks.size, self.backward[1][after[j]]))
        return np.concatenate(hands), np.concatenate(weights)

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` uniform deals as free-card masks per place: ``(n, places)``.

        A deal is drawn place by place: how many cards of each type the place
        takes (each count vector in proportion to the deals it leads to,
        compiled), then which of the type's cards (a random order per type,
        taken in turn).
        """
        layers = len(self.problem.places)
        offsets = np.cumsum([0, *(c.shape[0] for c in self.choices)])
        chosen = _draw_counts(
            int(self.counts @ self.strides),
            self.counts,
            self.strides,
            np.concatenate(self.choices).reshape(-1, len(self.types)),
            offsets,
            self.binom,
            np.stack(self.backward),
            rng.random((n, layers)),
        )  # (n, layers, types): how many cards of each type each place takes
        deals = np.zeros((n, layers), dtype=np.int64)
        for t, cards in enumerate(self.types):
            order = np.asarray(cards, dtype=np.int64)[np.argsort(rng.random((n, len(cards))), axis=1)]
            bits = np.left_shift(np.int64(1), order)
            position = np.arange(len(cards))
            end = np.cumsum(chosen[:, :, t], axis=1)
            for layer in range(layers):
                pick = (position >= (end[:, layer] - chosen[:, layer, t])[:, None]) & (position < end[:, layer, None])
                deals[:, layer] |= np.where(pick, bits, 0).sum(axis=1)  # distinct bits: the sum is the union
        return deals


@njit(cache=True)
def _draw_counts(full, counts, strides, choices, offsets, binom, backward, uniforms):
    """Per row of ``uniforms``, the count vector each layer takes, each in proportion to the deals it leads to."""
    n, layers = uniforms.shape
    out = np.zeros((n, layers, counts.size), dtype=np.int64)
    rem = np.zeros(counts.size, dtype=np.int64)
    for row in range(n):
        s = full
        for layer in range(layers):
            _decode(s, counts, strides, rem)
            total = 0.0
            for j in range(offsets[layer], offsets[layer + 1]):
                weight, target = _transition(s, rem, choices[j], strides, binom)
                total += weight * backward[layer + 1, target]
            goal = uniforms[row, layer] * total
            pick, after = -1, s
            for j in range(offsets[layer], offsets[layer + 1]):
                weight, target = _transition(s, rem, choices[j], strides, binom)
                ways = weight * backward[layer + 1, target]
                if ways > 0.0:
                    pick, after = j, target  # the last choice with ways absorbs rounding at the top
                    goal -= ways
                    if goal < 0.0:
                        break
            out[row, layer] = choices[pick]
            s = after
    return out


def subset_masks(cards: list[int], k: int) -> np.ndarray:
    """The bit masks of every ``k``-card subset of ``cards``, in lexicographic order of positions (numpy)."""
    bits = np.left_shift(np.int64(1), np.asarray(cards, dtype=np.int64))
    masks, last = np.zeros(1, dtype=np.int64), np.full(1, -1, dtype=np.int64)  # subsets so far, their last position
    for _ in range(k):
        # Extend each subset by every position after its last one.
        counts = np.maximum(len(cards) - 1 - last, 0)
        parent = np.repeat(np.arange(masks.size), counts)
        offset = np.arange(parent.size) - np.repeat(np.cumsum(counts) - counts, counts)
        position = last[parent] + 1 + offset
        masks, last = masks[parent] | bits[position], position
    return masks


def count_by_types(problem: FreeProblem, work_limit: float = 1.5e7) -> TypeCounts:
    """Count every deal of ``problem`` by types of interchangeable cards; see the module docstring.

    Raises:
        WorkLimitExceeded: more than :data:`MAX_TYPE_STATES` states, or more
            state-choice pairs to visit than ``work_limit`` (in the bitmask
            programme's hands) allows.
    """
    pairs = work_limit * PAIRS_PER_HAND
    types = _types(problem)
    counts = np.array([len(cards) for cards in types], dtype=np.int64)
    states = math.prod(int(c) + 1 for c in counts)
    if states > MAX_TYPE_STATES:
        raise WorkLimitExceeded(f"{len(types)} types of cards make {states} states")
    strides = np.cumprod([1, *(counts + 1)])[:-1].astype(np.int64)
    totals = ((np.arange(states)[:, None] // strides) % (counts + 1)).sum(axis=1)  # cards left in each state
    met = np.bincount(totals, minlength=problem.n + 1)  # states per number of cards left
    left = problem.n - np.cumsum([0, *problem.sizes])  # cards left before each layer
    work = 0
    choices = []
    for place in range(len(problem.places)):
        choices.append(_choices(problem, place, types, max(1, int(pairs // max(met[left[place]], 1)))))
        work += int(met[left[place]]) * choices[-1].shape[0]
        if work > pairs:
            raise WorkLimitExceeded(f"more than {pairs:.0f} state-choice pairs to visit")
    top = int(counts.max()) if counts.size else 0
    binom = np.array([[math.comb(a, b) for b in range(top + 1)] for a in range(top + 1)], dtype=np.float64)
    layers = len(problem.places)
    forward = [np.zeros(states) for _ in range(layers + 1)]
    forward[0][-1] = 1.0  # every card still to deal: the last state
    for i in range(layers):
        _forward(forward[i], forward[i + 1], counts, strides, choices[i], binom)
    backward = [np.zeros(states) for _ in range(layers + 1)]
    backward[layers][0] = 1.0
    card_weights = np.zeros((layers, problem.n))
    for i in range(layers - 1, -1, -1):
        expected = np.zeros(len(types))
        _backward(
            forward[i], backward[i + 1], backward[i], counts, strides, choices[i], binom, expected, totals, left[i]
        )
        for t, cards in enumerate(types):
            card_weights[i, cards] = expected[t] / len(cards)
    return TypeCounts(problem, types, counts, strides, choices, binom, backward, card_weights, work)
