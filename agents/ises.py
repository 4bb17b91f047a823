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
"""

from __future__ import annotations

import time
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


def _decision_key(rules: DeductionRules, knowledge: InformationSet) -> tuple:
    return rules, type(knowledge).__name__, knowledge.key


class ISES(Agent):
    """Information Set Entropy Search; see the module docstring.

    Args:
        mode: ``"exhaustive"`` or ``"sampled"``.
        state_samples: sampled mode: secrets sampled per decision (default 100).
        action_samples: sampled mode: queries sampled per decision (default 100).
        time_limit: sampled mode: seconds after which scoring stops (None: no
            limit). Scoring proceeds in small batches (one query at a time
            when the information set is large), so a decision returns within
            the limit plus about one batch.
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
    ) -> None:
        super().__init__()
        if mode not in ("exhaustive", "sampled"):
            raise ValueError(f"mode must be 'exhaustive' or 'sampled', got {mode!r}")
        if mode == "exhaustive" and (state_samples, action_samples, time_limit) != (None, None, None):
            raise ValueError("state_samples, action_samples and time_limit apply to mode='sampled' only")
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
        self.name = "ISES" if mode == "exhaustive" else "sampled ISES"

    def act(self) -> int:
        if self.mode == "sampled":
            return self._act_sampled()
        global _memo_bytes
        key = _decision_key(self.rules, self.information_set)
        move = _decisions.get(key)
        if move is None:
            move = self._act_exhaustive()
            if _memo_bytes > DECISION_MEMO_BYTES:
                _decisions.clear()
                _memo_bytes = 0
            _decisions[key] = move
            _memo_bytes += len(key[2])
        return move

    def _act_exhaustive(self) -> int:
        actions = self.legal_actions()
        return self._choose(actions, self.information_set.expected_entropy(actions))

    def _act_sampled(self) -> int:
        start = time.perf_counter()
        knowledge, rules = self.information_set, self.rules
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
        if self.mode == "exhaustive":
            return "ISES(mode='exhaustive')"
        return (
            f"ISES(mode='sampled', state_samples={self.state_samples}, "
            f"action_samples={self.action_samples}, time_limit={self.time_limit})"
        )
