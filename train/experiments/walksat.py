"""The WalkSAT-like sampler of Neller & Luo (CG 2018) with the variations their slides compare.

Variables ``x[c, p]`` say that card ``c`` is at place ``p``. Knowledge is a set
of *at-least* clauses, "at least ``b`` of these literals are true": each card
is in at least one place and in at most one (at least ``places - 1`` of its
negated variables), each hand and each case-file category holds exactly its
count (two clauses each), a player who refuted unseen holds at least one of
the cards, a wrong accusation has at least one card outside the case file.
Variables fixed by logic are left out.

Search and Sample (their Algorithm 1): from a random assignment, at each step,
if every clause holds flip a random variable, else pick a random unsatisfied
clause and flip, among its false literals, a variable that breaks the fewest
satisfied clauses (ties at random), skipping variables flipped within the tabu
tenure or since the last sample; after every flip that leaves every clause
satisfied, record the assignment. The marginals are the share of the recorded
samples with each variable true. The variations (:data:`VARIANTS`, each as the
slides state it):

* (a) random restart: after recording a sample, reassign every variable at random;
* (b) random flip or restart: after recording a sample, with probability 0.2 go
  on with a random flip, else restart;
* (c) mixed random/heuristic flip: with probability 0.2 flip a random false
  literal's variable of the chosen clause instead of a least-breaking one;
* (d) eliminate duplicate solutions: record each satisfying assignment once;
* (e) reduce tabu tenure: (d) with the tenure cut from 10 to 2.

(a) to (c) are each one change to Algorithm 1; (e) is (d) and a shorter tenure,
"in addition to unique samples" as the slides say. Compiled with numba, like
our engine, so that equal time budgets compare the algorithms rather than the
languages. ``python -m train.experiments.clue_walksat`` compares them.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit, types
from numba.typed import Dict

__all__ = ["VARIANTS", "WalkSat", "hand_count_clauses"]

def hand_count_clauses(cards: int, players: int, hand: int) -> tuple[int, int, int]:
    """The slides' count of what "each player holds exactly ``hand`` of the ``cards``" costs: ``(at most as CNF
    clauses, at least as CNF clauses, at-least clauses)`` over the ``players``.

    In CNF, "at most ``hand`` true" forbids every ``hand + 1`` of the cards together (C(cards, hand + 1) clauses
    a player) and "at least ``hand`` true" asks one true in every ``cards - hand + 1`` of them (C(cards,
    cards - hand + 1)); as at-least clauses (this sampler's), each is one clause: at least ``hand`` of the
    player's literals and at least ``cards - hand`` of their negations. The slides' 6-player game with hands of
    3 of the 21 cards: 35,910, 1,260 and 12 (``tests/test_walksat.py`` checks the CNF by truth table).
    """
    from math import comb

    return players * comb(cards, hand + 1), players * comb(cards, cards - hand + 1), 2 * players


#: The slides' variations as :class:`WalkSat` options; "Algorithm 1" is their Search and Sample as given.
VARIANTS = {
    "Algorithm 1": {},
    "(a) random restart": {"after_sample": "restart"},
    "(b) random flip or restart": {"after_sample": "flip or restart"},
    "(c) mixed random/heuristic flip": {"noise": 0.2},
    "(d) eliminate duplicates": {"unique": True},
    "(e) (d) + tabu tenure 2": {"unique": True, "tenure": 2},
}
AFTER_SAMPLE = ("flip", "restart", "flip or restart")


@njit(cache=True)
def _flip(v, assign, true_count, need, occ_clause, occ_sign, occ_start, unsat, unsat_pos, n_unsat):
    old = assign[v]
    for k in range(occ_start[v], occ_start[v + 1]):
        c = occ_clause[k]
        if old == occ_sign[k]:  # the literal was true and becomes false
            true_count[c] -= 1
            if true_count[c] == need[c] - 1:
                unsat_pos[c] = n_unsat
                unsat[n_unsat] = c
                n_unsat += 1
        else:
            true_count[c] += 1
            if true_count[c] == need[c]:
                last = unsat[n_unsat - 1]
                unsat[unsat_pos[c]] = last
                unsat_pos[last] = unsat_pos[c]
                n_unsat -= 1
    assign[v] = 1 - old
    return n_unsat


@njit(cache=True)
def _breaks(v, assign, true_count, need, occ_clause, occ_sign, occ_start):
    count = 0
    for k in range(occ_start[v], occ_start[v + 1]):
        c = occ_clause[k]
        if assign[v] == occ_sign[k] and true_count[c] == need[c]:
            count += 1
    return count


@njit(cache=True)
def _tally(assign, true_count, need, lit_var, lit_sign, lit_start, unsat, unsat_pos, zobrist):
    """Count each clause's true literals and list the unsatisfied clauses for ``assign``; returns how many are
    unsatisfied and the assignment's hash."""
    key = 0
    for v in range(assign.size):
        if assign[v] == 1:
            key ^= zobrist[v]
    n_unsat = 0
    for c in range(need.size):
        count = 0
        for k in range(lit_start[c], lit_start[c + 1]):
            if assign[lit_var[k]] == lit_sign[k]:
                count += 1
        true_count[c] = count
        if count < need[c]:
            unsat_pos[c] = n_unsat
            unsat[n_unsat] = c
            n_unsat += 1
    return n_unsat, key


@njit(cache=True)
def _restart(assign, true_count, need, lit_var, lit_sign, lit_start, unsat, unsat_pos, zobrist):
    """Reassign every variable at random; returns the unsatisfied count and the assignment's hash."""
    for v in range(assign.size):
        assign[v] = np.random.randint(2)  # noqa: NPY002
    return _tally(assign, true_count, need, lit_var, lit_sign, lit_start, unsat, unsat_pos, zobrist)


@njit(cache=True)
def _search(steps, state, assign, true_count, need, lit_var, lit_sign, lit_start, occ_clause, occ_sign, occ_start,
            unsat, unsat_pos, last_flip, zobrist, seen, totals, tenure, unique, after, noise, seed):  # fmt: skip
    """Run ``steps`` steps; ``state`` holds [step, n_unsat, last_sample_step, hash, samples recorded].

    ``after``: 0 go on (flip), 1 restart, 2 flip with probability 0.2 else restart, after a sample is recorded.

    numba compiles numpy's legacy global generator (seeded here), not Generator objects.
    """
    np.random.seed(seed)  # noqa: NPY002
    step, n_unsat, last_sample, key = state[0], state[1], state[2], state[3]
    n_vars = assign.size
    candidates = np.zeros(lit_var.size, dtype=np.int64)
    for _ in range(steps):
        step += 1
        cutoff = max(1, step - tenure, last_sample)
        if n_unsat == 0:
            v = np.random.randint(n_vars)  # noqa: NPY002
        else:
            c = unsat[np.random.randint(n_unsat)]  # noqa: NPY002
            best = 1 << 30
            m = 0
            if noise > 0 and np.random.random() < noise:  # noqa: NPY002
                best = -1  # a random false literal of the clause: the tabu fallback below takes any
            for k in range(lit_start[c], lit_start[c + 1]):
                if best < 0:
                    break
                u = lit_var[k]
                if assign[u] == lit_sign[k] or last_flip[u] > cutoff:
                    continue  # already true, or tabu
                b = _breaks(u, assign, true_count, need, occ_clause, occ_sign, occ_start)
                if b < best:
                    best = b
                    m = 0
                if b == best:
                    candidates[m] = u
                    m += 1
            if m == 0:  # every helpful variable is tabu: take one at random
                for k in range(lit_start[c], lit_start[c + 1]):
                    if assign[lit_var[k]] != lit_sign[k]:
                        candidates[m] = lit_var[k]
                        m += 1
            v = candidates[np.random.randint(m)]  # noqa: NPY002
        n_unsat = _flip(v, assign, true_count, need, occ_clause, occ_sign, occ_start, unsat, unsat_pos, n_unsat)
        key ^= zobrist[v]
        last_flip[v] = step
        if n_unsat == 0:  # at most one restart a step: a restart that satisfies everything is left to the next step
            last_sample = step
            if not unique or key not in seen:
                seen[key] = 1
                totals += assign
                state[4] += 1
            if after == 1 or (after == 2 and np.random.random() >= 0.2):  # noqa: NPY002
                n_unsat, key = _restart(
                    assign, true_count, need, lit_var, lit_sign, lit_start, unsat, unsat_pos, zobrist
                )
    state[0], state[1], state[2], state[3] = step, n_unsat, last_sample, key


class WalkSat:
    """Search and Sample over at-least clauses of one knowledge state.

    Args:
        fixed: ``(cards, places)`` int array: 1 or 0 where logic fixed the
            variable, -1 where it is free.
        hand_sizes / category_masks (lists of card ids) / case_file_sizes:
            the deck and table.
        at_least: ``(place, cards)`` clauses (refuted, unseen).
        not_all_case: card lists of wrong accusations.
        tenure: the tabu tenure (Algorithm 1: 10).
        unique: record each satisfying assignment once (variation d).
        after_sample: ``"flip"`` (Algorithm 1), ``"restart"`` (a) or ``"flip or restart"`` (b).
        noise: the probability of flipping a random false literal of the chosen clause (c: 0.2).
    """

    def __init__(
        self,
        fixed,
        hand_sizes,
        categories,
        case_file_sizes,
        at_least,
        not_all_case,
        seed=0,
        tenure=10,
        unique=False,
        after_sample="flip",
        noise=0.0,
    ):
        if after_sample not in AFTER_SAMPLE:
            raise ValueError(f"after_sample must be one of {AFTER_SAMPLE}, not {after_sample!r}")
        if not 0 <= noise <= 1:
            raise ValueError(f"noise must be a probability in [0, 1], not {noise!r}")
        if int(tenure) < 0:
            raise ValueError(f"tenure must be 0 or more, not {tenure!r}")
        cards, places = fixed.shape
        free = np.flatnonzero(fixed.ravel() < 0)
        index = -np.ones(cards * places, dtype=np.int64)
        index[free] = np.arange(free.size)
        clauses: list[tuple[list[int], list[int], int]] = []

        def add(cells, positive, need):
            """At least ``need`` of the literals on cells (card, place) are true (``positive``) or false."""
            variables, signs = [], []
            for c, p in cells:
                value = fixed[c, p]
                if value < 0:
                    variables.append(index[c * places + p])
                    signs.append(1 if positive else 0)
                elif value == (1 if positive else 0):
                    need -= 1  # a literal fixed true
            if need > 0:
                clauses.append((variables, signs, need))

        for c in range(cards):
            cells = [(c, p) for p in range(places)]
            add(cells, True, 1)
            add(cells, False, places - 1)
        case = places - 1
        groups = [(range(cards), p, size) for p, size in enumerate(hand_sizes)]
        groups += [(category, case, size) for category, size in zip(categories, case_file_sizes, strict=True)]
        for members, p, size in groups:
            cells = [(c, p) for c in members]
            add(cells, True, size)
            add(cells, False, len(cells) - size)
        for p, members in at_least:
            add([(c, p) for c in members], True, 1)
        for members in not_all_case:
            add([(c, case) for c in members], False, 1)

        self.fixed, self.free = fixed, free
        n = free.size
        self.lit_start = np.cumsum([0] + [len(v) for v, _, _ in clauses]).astype(np.int64)
        self.lit_var = np.array([x for v, _, _ in clauses for x in v], dtype=np.int64)
        self.lit_sign = np.array([x for _, s, _ in clauses for x in s], dtype=np.int64)
        self.need = np.array([b for _, _, b in clauses], dtype=np.int64)
        clause_of = np.repeat(np.arange(len(clauses)), np.diff(self.lit_start))
        order = np.argsort(self.lit_var, kind="stable")
        self.occ_clause = clause_of[order]
        self.occ_sign = self.lit_sign[order]
        self.occ_start = np.searchsorted(self.lit_var[order], np.arange(n + 1)).astype(np.int64)
        rng = np.random.default_rng(seed)
        self.seed = int(rng.integers(2**31))
        self.assign = rng.integers(0, 2, size=n).astype(np.int64)  # random restart
        self.zobrist = rng.integers(-(2**62), 2**62, size=n, dtype=np.int64)
        self.true_count = np.zeros(len(clauses), dtype=np.int64)
        self.unsat = np.zeros(len(clauses), dtype=np.int64)
        self.unsat_pos = np.zeros(len(clauses), dtype=np.int64)
        broken, key = _tally(self.assign, self.true_count, self.need, self.lit_var, self.lit_sign, self.lit_start,
                             self.unsat, self.unsat_pos, self.zobrist)  # fmt: skip
        self.state = np.array([0, broken, 0, key, 0], dtype=np.int64)
        self.last_flip = np.full(n, -(2**40), dtype=np.int64)
        self.seen = Dict.empty(key_type=types.int64, value_type=types.int64)
        self.totals = np.zeros(n, dtype=np.int64)
        self.tenure, self.unique, self.noise = int(tenure), bool(unique), float(noise)
        self.after = AFTER_SAMPLE.index(after_sample)
        if broken == 0:
            self.seen[key] = 1
            self.totals += self.assign
            self.state[4] = 1

    @property
    def samples(self) -> int:
        """Satisfying assignments recorded (each once with ``unique``)."""
        return int(self.state[4])

    def run(self, seconds: float, chunk: int = 2000) -> None:
        """Search and sample until ``seconds`` have passed (checked every ``chunk`` steps)."""
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            if self.free.size == 0:
                return
            seed = self.seed + int(self.state[0])
            _search(chunk, self.state, self.assign, self.true_count, self.need, self.lit_var, self.lit_sign,
                    self.lit_start, self.occ_clause, self.occ_sign, self.occ_start, self.unsat, self.unsat_pos,
                    self.last_flip, self.zobrist, self.seen, self.totals, self.tenure, self.unique, self.after,
                    self.noise, seed)  # fmt: skip

    def probabilities(self) -> np.ndarray:
        """``(cards, places)`` marginals: fixed values, and shares of the recorded samples for free variables."""
        p = np.where(self.fixed > 0, 1.0, 0.0).ravel()
        if self.samples:
            p[self.free] = self.totals / self.samples
        else:
            p[self.free] = np.nan
        return p.reshape(self.fixed.shape)
