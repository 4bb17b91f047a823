"""The marginals rule: the scoring rule a marginals head starts from, played with no network."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from deduction_envs.core.rules import DeductionRules, marginal_pointers

__all__ = ["MarginalRule"]


class MarginalRule(Agent):
    """Each query scored by the sum of its components' marginal probabilities over the secrets still possible
    (Mastermind: the probability of each peg's colour; Wordle: of each position's letter, the positional
    letter-frequency rule), the best query not asked yet played, ties to the lowest index.

    It is the untrained start of ``--policy marginals`` (every marginal's weight equal, the network's part 0),
    measured as a rung of the reference ladder (``train/experiments/ladder.py``). Games whose queries do not
    name values of the secret's components have no such rule (ValueError at :meth:`reset`).
    """

    name = "marginals rule"
    deterministic = True

    def reset(self, rules: DeductionRules, seed: int | None = None) -> None:
        super().reset(rules, seed)
        self._pointers = marginal_pointers(rules)

    def act(self) -> int:
        score = self.information_set.component_marginals()[self._pointers].sum(axis=1)
        allowed = np.zeros(self.rules.num_actions, dtype=bool)
        allowed[self.legal_actions()] = True
        allowed[[query for query, _ in self.history]] = False
        return int(np.flatnonzero(allowed)[np.argmax(score[allowed])])

    def __repr__(self) -> str:
        return "MarginalRule()"
