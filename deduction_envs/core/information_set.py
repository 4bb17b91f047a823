"""Information sets: the secrets consistent with everything a player has seen.

Meng & Lucas (2024, section III-B) give two representations, and both are
here behind one interface:

* :class:`EnumeratedInformationSet` lists the candidate secrets, all equally
  likely; its entropy is ``log2 n`` (their equation 2). Mastermind and its
  relatives use it.
* :class:`TabularInformationSet` keeps a probability for every secret (their
  Figure 2's table for the fake-coin game); its entropy is Shannon's
  (equation 1). It also accepts a non-uniform prior.

An information set holds public knowledge only: it is built from the rules
and updated with (query, feedback) pairs, and it is immutable, so that
:meth:`InformationSet.update` returns a new set and the old one can still be
used to explore other answers. An update that no secret is consistent with
raises ValueError and changes nothing.
"""

from __future__ import annotations

import abc
import weakref
from collections.abc import Callable
from typing import ClassVar, cast

import numpy as np
from numba import njit
from numpy.typing import ArrayLike

from deduction_envs.core.entropy import entropy_bits, uniform_entropy_bits
from deduction_envs.core.rules import MAX_ENUMERABLE_SECRETS, DeductionRules, component_offsets, one_hot

__all__ = [
    "EnumeratedInformationSet",
    "InformationSet",
    "TabularInformationSet",
    "make_information_set",
]


#: Cells (queries x candidates) of feedback the rules score at once for a game without a feedback memo.
BLOCK_CELLS = 1 << 21

#: Rules whose one-hot component table fits in this many bytes get one, which
#: turns marginals into a single row sum.
ONE_HOT_TABLE_BYTES = 16 << 20

_per_rules: dict[str, weakref.WeakKeyDictionary] = {"one_hot": weakref.WeakKeyDictionary(),
                                                   "components": weakref.WeakKeyDictionary(),
                                                   "initial": weakref.WeakKeyDictionary()}  # fmt: skip


def _table_of(
    kind: str, rules: DeductionRules, build: Callable[[DeductionRules], np.ndarray | None]
) -> np.ndarray | None:
    """The ``kind`` table of ``rules``, built once per rules object (None when too large, remembered too)."""
    store = _per_rules[kind]
    try:
        return store[rules]
    except KeyError:
        table = store[rules] = build(rules)
        return table


def _one_hot_components(rules: DeductionRules) -> np.ndarray | None:
    """Secret x (component, value) indicator table, or None if it is too large."""

    def build(rules: DeductionRules) -> np.ndarray | None:
        if rules.num_secrets * sum(rules.secret_nvec) * np.dtype(np.float32).itemsize > ONE_HOT_TABLE_BYTES:
            return None
        return readonly(one_hot(rules.secret_components(np.arange(rules.num_secrets)), rules.secret_nvec))

    return _table_of("one_hot", rules, build)


#: Rules without a one-hot table whose components of every secret fit in this many bytes keep them in one
#: table, which a compiled loop counts for the marginals (Black Box's layouts: 2.5 MB).
COMPONENT_TABLE_BYTES = 64 << 20


def _component_table(rules: DeductionRules) -> np.ndarray | None:
    """Every secret's components, ``(num_secrets, len(secret_nvec))``, or None if too large."""

    def build(rules: DeductionRules) -> np.ndarray | None:
        dtype = np.min_scalar_type(max(rules.secret_nvec) - 1)
        if rules.num_secrets * len(rules.secret_nvec) * dtype.itemsize > COMPONENT_TABLE_BYTES:
            return None
        return readonly(np.ascontiguousarray(rules.secret_components(np.arange(rules.num_secrets)), dtype=dtype))

    return _table_of("components", rules, build)


@njit(cache=True)
def _count_components(table: np.ndarray, secrets: np.ndarray, offsets: np.ndarray, counts: np.ndarray) -> None:
    """``counts[offsets[j] + v]`` += 1 for each of ``secrets`` whose component ``j`` is ``v``."""
    for i in range(secrets.size):
        secret = secrets[i]
        for j in range(table.shape[1]):  # indexed, not a row view, which costs a reference count per secret
            counts[offsets[j] + table[secret, j]] += 1


@njit(cache=True)
def _narrow(row, candidates, feedback, components, offsets, values):
    """The ``candidates`` whose entry in ``row`` (one query's feedback against every secret) is ``feedback``,
    and their marginals over ``values`` component values, counted as :func:`_count_components` counts them:
    one compiled call for the update and the marginals (the filter without a branch, which large sets
    mispredict; then the count over the kept only)."""
    kept = np.empty(candidates.size, dtype=candidates.dtype)
    k = 0
    for i in range(candidates.size):  # without a branch: write each candidate, move on past the kept ones
        secret = candidates[i]
        kept[k] = secret
        k += row[secret] == feedback
    counts = np.zeros(values, dtype=np.int64)
    width = components.shape[1]
    for i in range(k):
        secret = kept[i]
        for j in range(width):
            counts[offsets[j] + components[secret, j]] += 1
    return kept[:k].copy(), counts / max(k, 1)


def _clogc_table(n: int) -> np.ndarray:
    """``c * log2(c)`` for c = 0 .. n (0 for c = 0), the whole table for n, cached for the largest n met."""
    global _clogc
    if _clogc.size <= n:
        c = np.arange(max(n + 1, 2 * _clogc.size), dtype=np.float64)
        _clogc = readonly(c * np.log2(np.maximum(c, 1.0)))
    return _clogc


_clogc = np.zeros(1)


@njit(cache=True)
def _partition_entropies(table, actions, candidates, feedbacks, clogc, out, largest) -> None:
    """``out[i]``: the expected entropy (bits) after query ``actions[i]`` over equally likely ``candidates``,
    ``sum over answers of (c / n) log2 c`` with ``c`` the candidates giving that answer (rows of ``table``);
    ``largest[i]``: the largest ``c``."""
    n = candidates.size
    counts = np.zeros(feedbacks, dtype=np.int64)
    seen = np.empty(min(n, feedbacks), dtype=np.int64)
    for i in range(actions.size):
        row = table[actions[i]]
        k = 0
        for j in range(n):
            f = row[candidates[j]]
            if counts[f] == 0:
                seen[k] = f
                k += 1
            counts[f] += 1
        total = 0.0
        most = 0
        for t in range(k):
            c = counts[seen[t]]
            total += clogc[c]
            most = max(most, c)
            counts[seen[t]] = 0
        out[i] = total / n
        largest[i] = most


def readonly(array: np.ndarray) -> np.ndarray:
    """``array``, marked read-only in place (so a caller cannot change a cached table)."""
    array.flags.writeable = False
    return array


class InformationSet(abc.ABC):
    """The set of secrets a player cannot yet rule out, with their probabilities."""

    __slots__ = ("rules",)

    rules: DeductionRules

    #: Whether every secret in the support is equally likely.
    uniform: ClassVar[bool] = False

    @property
    @abc.abstractmethod
    def size(self) -> int:
        """The number of secrets with positive probability."""

    @property
    @abc.abstractmethod
    def support(self) -> np.ndarray:
        """The secrets with positive probability, sorted ascending (read-only)."""

    @abc.abstractmethod
    def probabilities(self) -> np.ndarray:
        """The probability of each secret in :attr:`support`, summing to 1."""

    @abc.abstractmethod
    def entropy(self) -> float:
        """The entropy of the secret given this knowledge, in bits."""

    @abc.abstractmethod
    def _restrict(self, keep: np.ndarray) -> InformationSet:
        """A new set keeping only the support entries where ``keep`` is true."""

    def update(self, action: int, feedback: int) -> InformationSet:
        """The information set after query ``action`` was answered with ``feedback``.

        Raises ValueError (and changes nothing) if no secret in the set gives
        that feedback.
        """
        keep = self.rules.feedback_at(self, action, self.support) == feedback
        if not keep.any():
            raise ValueError(
                f"feedback {feedback} ({self.rules.format_feedback(feedback)}) to action {action} "
                f"({self.rules.format_action(action)}) contradicts every one of the {self.size} "
                "secrets still possible; the information set is unchanged"
            )
        return self._restrict(keep)

    def feedback_outcomes(self, actions: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """What each query could answer, and what the player would know after it.

        Returns two ``(len(actions), rules.num_feedbacks)`` arrays: the
        probability of each feedback value under this information set, and the
        entropy in bits of the information set after that feedback (0 where
        the feedback is impossible). The expected entropy after query ``i`` is
        ``(probability[i] * entropy[i]).sum()``, and the expected information
        gain is this set's entropy minus that.
        """
        actions = np.atleast_1d(np.asarray(actions, dtype=np.intp))
        support, weights = self.support, self.probabilities()
        n_feedbacks = self.rules.num_feedbacks
        probability = np.empty((actions.size, n_feedbacks))
        entropy = np.empty((actions.size, n_feedbacks))
        # Chunks of actions keep the action x secret matrix near 2^21 entries.
        chunk = max(1, (1 << 21) // max(support.size, 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            surprisal = np.where(weights > 0, weights * np.log2(weights), 0.0)
            for start in range(0, actions.size, chunk):
                rows = actions[start : start + chunk]
                cells = self.rules.feedback_matrix_at(self, rows, support).astype(np.intp)
                cells += np.arange(rows.size)[:, None] * n_feedbacks
                size = rows.size * n_feedbacks
                if self.uniform:
                    # Equally likely secrets: a cell of n of them holds log2 n bits.
                    counts = np.bincount(cells.ravel(), minlength=size)
                    mass: np.ndarray = counts / support.size
                    cell_entropy = np.where(counts > 0, np.log2(counts), 0.0)
                else:
                    mass = np.bincount(cells.ravel(), np.tile(weights, rows.size), minlength=size)
                    plogp = np.bincount(cells.ravel(), np.tile(surprisal, rows.size), minlength=size)
                    # H(cell) = log2 W - sum(p log2 p) / W, with W the cell's mass.
                    cell_entropy = np.where(mass > 0, np.log2(mass) - plogp / mass, 0.0)
                probability[start : start + rows.size] = mass.reshape(rows.size, n_feedbacks)
                entropy[start : start + rows.size] = np.maximum(cell_entropy, 0.0).reshape(rows.size, n_feedbacks)
        return probability, entropy

    def expected_entropy(self, actions: ArrayLike) -> np.ndarray:
        """The expected entropy in bits after each query (exhaustive over the set)."""
        return self.answer_statistics(actions)[0]

    def answer_statistics(self, actions: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """For each query: the expected entropy in bits after it, and the probability of its likeliest answer
        (the share of the set in its largest answer class, for a uniform set).

        For a uniform set of a game whose feedback does not depend on knowledge, a compiled loop counts each
        query's answer classes over the candidates alone (``sum(c log2 c) / n`` from a lookup table),
        touching only the classes that occur: over the feedback memo's rows, or, where the game has no memo,
        over blocks of rows the rules score for the candidates; otherwise :meth:`feedback_outcomes`.
        """
        actions = np.atleast_1d(np.asarray(actions, dtype=np.intp))
        rules = self.rules
        if self.uniform and not rules.knowledge_dependent_actions:
            n, support = self.size, self.support
            out = np.empty(actions.size, dtype=np.float64)
            largest = np.empty(actions.size, dtype=np.int64)
            clogc = _clogc_table(n)
            table = rules.feedback_table(actions)
            if table is not None:
                _partition_entropies(table, actions, support, rules.num_feedbacks, clogc, out, largest)
            else:
                # No memo (the table is too large): the rules score a block of queries at a time, near 2^21
                # cells, and the same loop counts each block's rows.
                chunk = max(1, BLOCK_CELLS // n)
                columns = np.arange(n)
                for start in range(0, actions.size, chunk):
                    block = rules.feedback_matrix(actions[start : start + chunk], support)
                    rows = np.arange(block.shape[0])
                    end = start + rows.size
                    _partition_entropies(
                        block, rows, columns, rules.num_feedbacks, clogc, out[start:end], largest[start:end]
                    )
            return out, largest / n
        probability, entropy = self.feedback_outcomes(actions)
        return (probability * entropy).sum(axis=1), probability.max(axis=1, initial=0.0)

    @property
    def key(self) -> bytes:
        """The set's content as bytes: two sets of the same rules and class hold the same secrets with the same
        probabilities exactly when their keys are equal (a dictionary key for memos of sets)."""
        support = self.support.astype(np.int64, copy=False).tobytes()
        return support if self.uniform else support + self.probabilities().tobytes()

    def __contains__(self, secret: object) -> bool:
        if not isinstance(secret, (int, np.integer)):
            return False
        support = self.support
        i = np.searchsorted(support, secret)
        return bool(i < support.size and support[i] == secret)

    def component_marginals(self) -> np.ndarray:
        """P(component j of the secret takes value v), for every (j, v).

        Returned flat, component after component, with ``sum(rules.secret_nvec)``
        entries; for Mastermind it is the probability of each colour at each
        peg, position-major.
        """
        nvec = self.rules.secret_nvec
        components = self.rules.secret_components(self.support)
        flat = (components + component_offsets(nvec)).ravel()
        weights = np.repeat(self.probabilities(), len(nvec))
        return np.bincount(flat, weights=weights, minlength=sum(nvec))

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` secrets drawn independently from this distribution."""
        return rng.choice(self.support, size=n, p=self.probabilities())


class EnumeratedInformationSet(InformationSet):
    """Candidate secrets, all equally likely; entropy ``log2(len(candidates))``.

    Args:
        rules: the game's rules.
        candidates: secret indices still possible; all secrets by default.
    """

    __slots__ = ("_candidates", "_components", "_marginals", "_one_hot")

    uniform: ClassVar[bool] = True

    def __init__(self, rules: DeductionRules, candidates: ArrayLike | None = None) -> None:
        if rules.num_secrets > MAX_ENUMERABLE_SECRETS:
            raise ValueError(
                f"{rules!r} has {rules.num_secrets:,} secrets; an enumerated information set "
                f"holds at most {MAX_ENUMERABLE_SECRETS:,}"
            )
        if candidates is None:
            cands = np.arange(rules.num_secrets)
        else:
            cands = np.unique(np.asarray(candidates))
            if cands.size == 0:
                raise ValueError("candidates must not be empty: the secret is always in the information set")
            if not np.issubdtype(cands.dtype, np.integer) or cands[0] < 0 or cands[-1] >= rules.num_secrets:
                raise ValueError(f"candidates must be secret indices in [0, {rules.num_secrets})")
        self.rules = rules
        self._candidates = readonly(cands.astype(np.intp, copy=False))
        self._marginals: np.ndarray | None = None
        self._one_hot = _one_hot_components(rules)
        self._components = _component_table(rules)

    def _of(self, candidates: np.ndarray) -> EnumeratedInformationSet:
        new = EnumeratedInformationSet.__new__(EnumeratedInformationSet)
        new.rules = self.rules
        new._candidates = readonly(candidates)
        new._marginals = None
        new._one_hot = self._one_hot
        new._components = self._components
        return new

    @property
    def candidates(self) -> np.ndarray:
        """The candidate secrets, sorted ascending (read-only)."""
        return self._candidates

    @property
    def support(self) -> np.ndarray:
        return self._candidates

    @property
    def size(self) -> int:
        return self._candidates.size

    def probabilities(self) -> np.ndarray:
        return np.full(self.size, 1.0 / self.size)

    def entropy(self) -> float:
        return uniform_entropy_bits(self.size)

    def _restrict(self, keep: np.ndarray) -> EnumeratedInformationSet:
        return self._of(self._candidates[keep])

    def update(self, action: int, feedback: int) -> EnumeratedInformationSet:
        # The hot path of every env step. Where the feedback is memoised and every secret's components are in
        # a table, one compiled pass over the candidates narrows them and counts the new set's marginals (the
        # env observes them next; numpy's filter then one-hot sum cost about three times as much, even on
        # small sets). Otherwise numpy's filter.
        candidates, rules, components = self._candidates, self.rules, self._components
        row = None
        if components is not None and not rules.knowledge_dependent_actions:
            row = rules.feedback_row(action)
        if row is None:
            kept = candidates[rules.feedback_at(self, action, candidates) == feedback]
            if kept.size == 0:
                return cast(EnumeratedInformationSet, super().update(action, feedback))  # raises, with the message
            return self._of(kept)
        nvec = rules.secret_nvec
        kept, marginals = _narrow(row, candidates, feedback, components, component_offsets(nvec), sum(nvec))
        if kept.size == 0:
            return cast(EnumeratedInformationSet, super().update(action, feedback))  # raises
        new = self._of(kept)
        new._marginals = readonly(marginals)
        return new

    def component_marginals(self) -> np.ndarray:
        # Computed at most once per set (sets are immutable; the env reuses its
        # initial one every episode). Uniform weights: counting beats weighting.
        if self._marginals is None:
            if self._one_hot is not None:
                # take() gathers rows several times faster than fancy indexing.
                marginals = self._one_hot.take(self._candidates, axis=0).sum(axis=0, dtype=np.float64)
            elif (table := self._components) is not None:
                nvec = self.rules.secret_nvec
                counts = np.zeros(sum(nvec), dtype=np.int64)
                _count_components(table, self._candidates, component_offsets(nvec), counts)
                marginals = counts.astype(np.float64)
            else:
                nvec = self.rules.secret_nvec
                components = self.rules.secret_components(self._candidates)
                flat = (components + component_offsets(nvec)).ravel()
                marginals = np.bincount(flat, minlength=sum(nvec)).astype(np.float64)
            marginals /= self.size
            self._marginals = readonly(marginals)
        return self._marginals

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return self._candidates[rng.integers(self.size, size=n)]

    def __repr__(self) -> str:
        return f"EnumeratedInformationSet({self.rules!r}, size={self.size})"


class TabularInformationSet(InformationSet):
    """A probability for every secret; Shannon entropy of the table.

    Args:
        rules: the game's rules.
        table: prior weights over all secrets, of shape ``rules.table_shape``
            or flat; uniform by default. Normalised on construction.
    """

    __slots__ = ("_entropy", "_marginals", "_support", "_table")

    def __init__(self, rules: DeductionRules, table: ArrayLike | None = None) -> None:
        n = rules.num_secrets
        if n > MAX_ENUMERABLE_SECRETS:
            raise ValueError(
                f"{rules!r} has {n:,} secrets; a tabular information set holds at most {MAX_ENUMERABLE_SECRETS:,}"
            )
        if table is None:
            weights = np.full(n, 1.0 / n)
        else:
            weights = np.asarray(table, dtype=np.float64).ravel()
            if weights.size != n:
                raise ValueError(f"table must have {n} entries (shape {rules.table_shape}), got {weights.size}")
            if not np.all(np.isfinite(weights)) or np.any(weights < 0) or weights.sum() <= 0:
                raise ValueError("table must hold finite, non-negative weights that are not all zero")
            weights = weights / weights.sum()
        self.rules = rules
        self._table = readonly(weights)
        self._support: np.ndarray | None = None
        self._entropy: float | None = None
        self._marginals: np.ndarray | None = None

    @property
    def table(self) -> np.ndarray:
        """The probability of every secret, shaped ``rules.table_shape`` (read-only)."""
        return self._table.reshape(self.rules.table_shape)

    @property
    def support(self) -> np.ndarray:
        if self._support is None:  # the table never changes, so neither does its support
            self._support = readonly(np.flatnonzero(self._table))
        return self._support

    @property
    def size(self) -> int:
        return self.support.size

    def probabilities(self) -> np.ndarray:
        return self._table[self.support]

    def entropy(self) -> float:
        if self._entropy is None:  # once per set (sets are immutable); the table was checked when made
            self._entropy = float(entropy_bits(self._table, check=False))
        return self._entropy

    def _restrict(self, keep: np.ndarray) -> TabularInformationSet:
        weights = np.zeros_like(self._table)
        kept = self.support[keep]
        weights[kept] = self._table[kept]
        new = TabularInformationSet.__new__(TabularInformationSet)
        new.rules = self.rules
        new._table = readonly(weights / weights.sum())
        new._support = readonly(kept)
        new._entropy = None
        new._marginals = None
        return new

    def component_marginals(self) -> np.ndarray:
        if self._marginals is None:  # once per set, as the entropy
            self._marginals = readonly(super().component_marginals())
        return self._marginals

    def __repr__(self) -> str:
        return f"TabularInformationSet({self.rules!r}, size={self.size})"


def information_set_kind(rules: DeductionRules, kind: object = None) -> str:
    """``kind`` checked (``"enumerated"`` or ``"tabular"``), or the game's own for None; a clear ValueError
    for anything else."""
    kind = rules.information_set_kind if kind is None else kind
    if not isinstance(kind, str) or kind not in ("enumerated", "tabular"):
        raise ValueError(f"information_set must be 'enumerated' or 'tabular' (None: the game's own), got {kind!r}")
    return kind


def make_information_set(rules: DeductionRules, kind: str | None = None) -> InformationSet:
    """The information set over all secrets, before any query; ``kind`` defaults to the game's own.

    Sets are immutable, so one per rules and kind is made and shared (with what it computes once, such as
    its marginals) by every env and agent that starts a game.
    """
    kind = information_set_kind(rules, kind)
    initial = _per_rules["initial"].setdefault(rules, {})
    knowledge = initial.get(kind)
    if knowledge is None:
        make = EnumeratedInformationSet if kind == "enumerated" else TabularInformationSet
        knowledge = initial[kind] = make(rules)
    return knowledge
