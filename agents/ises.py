"""Information Set Entropy Search (Meng & Lucas, IEEE CoG 2024).

ISES picks the query whose feedback leaves the least entropy in the
information set on average, that is, the query that is expected to tell the
most. Two modes:

* ``"exhaustive"``: every query is scored against every secret still
  possible, in one vectorised pass
  (:meth:`~deduction_envs.core.information_set.InformationSet.feedback_outcomes`).
  For tabular information sets the feedback is weighted by the table's
  probabilities. A decision depends only on the rules and the information
  set, so each is computed once per process and then reused: the first move
  of every game, and every node of the decision tree when all secrets are
  played.
* ``"sampled"``: the paper's Algorithm 1. Sample ``state_samples`` secrets
  from the information set and ``action_samples`` queries; score each query
  by the mean, over the sampled secrets, of the entropy of the (whole)
  information set after the feedback that secret would give; stop scoring at
  ``time_limit`` and return the best query scored so far. One addition to the
  paper: the queries that name the sampled secrets are scored first, so that
  the agent can always finish a game whose secret it already knows (with
  random queries alone, a game like Mastermind could stall on its last
  guess).

Ties are broken deterministically: first toward queries that could be the
secret, then toward the lowest index.

**Lookahead** (beyond the paper, whose ISES is greedy): with ``lookahead=2``
the exhaustive agent takes the ``candidates`` best first queries by expected
entropy, one of each kind (queries with equal expected entropy and equally
able to be the secret are taken for symmetric copies, and only the first is
kept), and scores each by the expected number of queries to finish: one for
the query itself, and for every answer that does not end the game, the
expected cost of the best second query over the set that answer leaves
(:func:`expected_queries_after`), whose own answers are estimated by
:func:`queries_left` (an optimistic estimate from the set's size). The query
with the fewest expected queries is played. With ``time_limit``, scoring
stops when the time is up and the best query scored so far is played (the
greedy choice is always scored first). Over every secret, Mastermind 4x6
takes 4.3434 queries on average with ``candidates=5`` and 4.3403, the
optimum, with 30 (greedy ISES: 4.4151); Bulls and Cows 4 of 10 5.2280 and
5.2192 (greedy 5.2429, optimum 5.2131); see ``results/ises_lookahead.md``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar, Literal

import numpy as np

from agents.base import Agent
from deduction_envs.core.information_set import InformationSet
from deduction_envs.core.rules import DeductionRules, check_int

__all__ = ["ISES"]

#: Entropies closer than this (bits) count as a tie.
TIE_TOLERANCE = 1e-9

#: Exhaustive ISES's decision in each information set met in this process, by rules and set: the decision is
#: a function of them, so playing every secret pays for each node of the decision tree once. Cleared when its
#: keys pass DECISION_MEMO_BYTES.
_decisions: dict[tuple, int] = {}
DECISION_MEMO_BYTES = 256 << 20
_memo_bytes = 0


def _decision_key(rules: DeductionRules, knowledge: InformationSet, how: tuple = ()) -> tuple:
    return rules, type(knowledge).__name__, how, knowledge.key


def memoised_decision(rules: DeductionRules, knowledge: InformationSet, how: tuple, decide: Callable[[], int]) -> int:
    """``decide()``, an agent's deterministic decision in ``knowledge``, computed once per process for each
    rules, set and ``how`` (what else the decision depends on: the agent and its settings)."""
    global _memo_bytes
    key = _decision_key(rules, knowledge, how)
    move = _decisions.get(key)
    if move is None:
        move = decide()
        if _memo_bytes > DECISION_MEMO_BYTES:
            _decisions.clear()
            _memo_bytes = 0
        _decisions[key] = move
        _memo_bytes += len(key[-1])
    return move


def queries_left(sizes: np.ndarray, answers: int) -> np.ndarray:
    """An optimistic estimate of the queries still needed to find the secret among ``sizes`` candidates (the
    last query, the one that names it, included), for a game of ``answers`` feedback values.

    0 for no candidate; ``(2n - 1) / n`` for ``n`` candidates that one query could tell apart (it names one of
    them and splits the rest: 1 query with chance ``1/n``, else 2); beyond ``answers`` candidates, one more than
    the ``log_answers(n)`` queries a perfect split needs, whichever is larger.
    """
    n = np.asarray(sizes, dtype=float)
    safe = np.maximum(n, 1.0)
    estimate = np.maximum((2 * safe - 1) / safe, 1 + np.log(safe) / np.log(max(answers, 2)))
    return np.where(n > 0, estimate, 0.0)


def expected_queries_after(rules: DeductionRules, knowledge: InformationSet) -> float:
    """The expected number of queries to find the secret from ``knowledge`` when the next query is the best by
    one step of lookahead: ``1 + sum_g P(g) * queries_left(|set after g|)``, the answer that names the secret
    costing nothing more. Uniform sets: each secret equally likely."""
    n = knowledge.size
    if n == 1:
        return 1.0
    legal = np.flatnonzero(rules.action_mask(knowledge))
    answers = rules.num_feedbacks
    feedback = rules.feedback_matrix_at(knowledge, legal, knowledge.support).astype(np.int64)
    rows = np.arange(legal.size)[:, None] * answers
    counts = np.bincount((rows + feedback).ravel(), minlength=legal.size * answers).reshape(legal.size, answers)
    value = 1 + (counts / n * queries_left(counts, answers)).sum(axis=1)
    guesses = rules.guess_actions(knowledge.support)
    if guesses is not None:
        value -= np.isin(legal, guesses) / n  # where the query was the secret, no further query
    return float(value.min())


class ISES(Agent):
    """Information Set Entropy Search; see the module docstring.

    Args:
        mode: ``"exhaustive"`` or ``"sampled"``.
        state_samples: sampled mode: secrets sampled per decision (default 100).
        action_samples: sampled mode: queries sampled per decision (default 100).
        time_limit: sampled mode: seconds after which scoring stops (None: no
            limit). Scoring proceeds in small batches (one query at a time
            when the information set is large), so a decision returns within
            the limit plus about one batch. Exhaustive mode with
            ``lookahead=2``: seconds after which no further first query is
            scored (the one being scored finishes).
        lookahead: exhaustive mode: 1 (the paper's greedy ISES) or 2 (two
            queries ahead, by the expected number of queries; see the module
            docstring). Information sets that are not uniform are played
            greedily.
        candidates: with ``lookahead=2``: the first queries scored, the best
            by expected entropy, one of each kind (default 5).
    """

    #: Queries scored between two readings of the clock: at most ``BATCH``, and
    #: fewer when the information set is large, so that one batch scores about
    #: ``BATCH_CELLS`` (query, secret) pairs at most.
    BATCH: ClassVar[int] = 16
    BATCH_CELLS: ClassVar[int] = 1 << 16

    def __init__(
        self,
        mode: Literal["exhaustive", "sampled"] = "exhaustive",
        *,
        state_samples: int | None = None,
        action_samples: int | None = None,
        time_limit: float | None = None,
        lookahead: int = 1,
        candidates: int = 5,
    ) -> None:
        super().__init__()
        if mode not in ("exhaustive", "sampled"):
            raise ValueError(f"mode must be 'exhaustive' or 'sampled', got {mode!r}")
        check_int("lookahead", lookahead, low=1, high=2)
        check_int("candidates", candidates, low=1)
        if mode == "sampled" and lookahead != 1:
            raise ValueError("lookahead=2 applies to mode='exhaustive' only")
        if mode == "exhaustive" and (state_samples, action_samples) != (None, None):
            raise ValueError("state_samples and action_samples apply to mode='sampled' only")
        if mode == "exhaustive" and lookahead == 1 and time_limit is not None:
            raise ValueError("time_limit applies to mode='sampled' or lookahead=2 only")
        if state_samples is not None:
            check_int("state_samples", state_samples, low=1)
        if action_samples is not None:
            check_int("action_samples", action_samples, low=1)
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
        self.mode = mode
        self.state_samples = 100 if state_samples is None and mode == "sampled" else state_samples
        self.action_samples = 100 if action_samples is None and mode == "sampled" else action_samples
        self.time_limit = time_limit
        self.lookahead, self.candidates = int(lookahead), int(candidates)
        self.name = "ISES" if mode == "exhaustive" else "sampled ISES"
        if self.lookahead == 2:
            self.name = f"ISES(lookahead 2, {self.candidates} candidates)"

    @property
    def deterministic(self) -> bool:  # type: ignore[override]
        """Exhaustive and untimed: the same query for the same information set, ties broken by a fixed order."""
        return self.mode == "exhaustive" and self.time_limit is None

    def act(self) -> int:
        if self.mode == "sampled":
            return self._act_sampled()
        if self.time_limit is not None:  # a timed choice is not a function of the set: neither memoised nor reused
            return self._act_exhaustive()
        how = () if self.lookahead == 1 else (self.lookahead, self.candidates)
        return memoised_decision(self.rules, self.information_set, how, self._act_exhaustive)

    def _act_exhaustive(self) -> int:
        actions = self.legal_actions()
        entropy = self.information_set.expected_entropy(actions)
        knowledge = self.information_set
        if self.lookahead == 1 or knowledge.size <= 2 or not knowledge.uniform:
            return self._choose(actions, entropy)
        return self._act_lookahead(actions, entropy)

    def _act_lookahead(self, actions: np.ndarray, entropy: np.ndarray) -> int:
        """Two queries ahead: the expected number of queries after each of the best few first queries."""
        start = time.perf_counter()
        knowledge, rules = self.information_set, self.rules
        guesses = rules.guess_actions(knowledge.support)
        could = np.zeros(actions.size, dtype=bool) if guesses is None else np.isin(actions, guesses)
        order = np.lexsort((actions, ~could, np.round(entropy, 9)))
        kinds: set[tuple[float, bool]] = set()
        best: tuple[tuple[float, bool, int], int] | None = None
        for i in order:
            kind = (round(float(entropy[i]), 9), bool(could[i]))
            if kind in kinds:
                continue  # a symmetric copy of a query already scored
            kinds.add(kind)
            action = int(actions[i])
            feedback = rules.feedback_at(knowledge, action, knowledge.support)
            values, sizes = np.unique(feedback, return_counts=True)
            cost = 1.0
            for value, size in zip(values, sizes, strict=True):
                if not rules.is_terminal(action, int(value), knowledge):
                    after = knowledge.update(action, int(value))
                    cost += size / knowledge.size * expected_queries_after(rules, after)
            score = (round(cost, 9), not could[i], action)
            if best is None or score < best[0]:
                best = (score, action)
            if len(kinds) == self.candidates:
                break
            if self.time_limit is not None and time.perf_counter() - start >= self.time_limit:
                break
        assert best is not None
        return best[1]

    def _act_sampled(self) -> int:
        start = time.perf_counter()
        knowledge, rules = self.information_set, self.rules
        assert self.state_samples is not None and self.action_samples is not None  # set in sampled mode
        support = knowledge.support
        states = self.rng.choice(
            support, size=min(self.state_samples, support.size), replace=False, p=knowledge.probabilities()
        )
        legal = self.legal_actions()
        random_actions = self.rng.choice(legal, size=min(self.action_samples, legal.size), replace=False)
        guesses = rules.guess_actions(states)
        if guesses is None:
            actions = random_actions
        else:
            # Guesses of the sampled secrets first, then the random queries not already among them.
            guesses = np.unique(guesses)
            actions = np.concatenate((self.rng.permutation(guesses), random_actions[~np.isin(random_actions, guesses)]))

        scores = np.full(actions.size, np.inf)
        size = min(self.BATCH, max(1, self.BATCH_CELLS // support.size))
        for begin in range(0, actions.size, size):
            batch = actions[begin : begin + size]
            _, entropy = knowledge.feedback_outcomes(batch)
            feedback = rules.feedback_matrix_at(knowledge, batch, states)
            scores[begin : begin + batch.size] = np.take_along_axis(entropy, feedback.astype(np.intp), axis=1).mean(1)
            if self.time_limit is not None and time.perf_counter() - start >= self.time_limit:
                break
        scored = np.isfinite(scores)
        return self._choose(actions[scored], scores[scored])

    def _choose(self, actions: np.ndarray, expected_entropy: np.ndarray) -> int:
        tied = actions[expected_entropy <= expected_entropy.min() + TIE_TOLERANCE]
        guesses = self.rules.guess_actions(self.information_set.support)
        if guesses is not None:
            # The tied queries that name a secret still possible (np.isin costs ~70 us on sets this small).
            guesses = np.sort(guesses)
            at = np.minimum(np.searchsorted(guesses, tied), guesses.size - 1)
            could_win = tied[guesses[at] == tied]
            if could_win.size:
                return int(could_win.min())
        return int(tied.min())

    def __repr__(self) -> str:
        if self.mode == "exhaustive" and self.lookahead == 2:
            return f"ISES(mode='exhaustive', lookahead=2, candidates={self.candidates}, time_limit={self.time_limit})"
        if self.mode == "exhaustive":
            return "ISES(mode='exhaustive')"
        return (
            f"ISES(mode='sampled', state_samples={self.state_samples}, "
            f"action_samples={self.action_samples}, time_limit={self.time_limit})"
        )
