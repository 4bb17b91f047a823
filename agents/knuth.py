"""Knuth's minimax strategy (D. E. Knuth, "The computer as master mind", J. Recreational Mathematics 9(1),
1976-77): each query minimises the size of the largest set of secrets any answer could leave.

Among the queries tied on that worst case, one that could itself be the secret is preferred, then the lowest
(queries are numbered as the game numbers its actions: on Mastermind, codes in lexicographic order, so that
the first query is ``1122``, Knuth's). On Mastermind 4x6 this plays every secret in 5,801 queries, 4.476 a
secret and at most 5, Knuth's published figures (``tests/test_knuth.py`` plays all 1,296).

It is defined for any game whose information set the env keeps exactly (the same games as
:class:`~agents.ISES`); where the secrets are not equally likely, the "size" of an answer's set is its
probability.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.ises import memoised_decision

__all__ = ["Knuth"]


class Knuth(Agent):
    """Minimax on the worst-case answer (Knuth 1976); see the module docstring. Deterministic: the same
    information set always gives the same query."""

    deterministic = True

    def __init__(self) -> None:
        super().__init__()
        self.name = "Knuth"

    def act(self) -> int:
        return memoised_decision(self.rules, self.information_set, ("knuth",), self._minimax)

    def _minimax(self) -> int:
        knowledge, actions = self.information_set, self.legal_actions()
        _, likeliest = knowledge.answer_statistics(actions)  # the share of the set in each query's largest answer
        worst = np.round(likeliest * knowledge.size, 6)  # the largest answer's set, in secrets
        tied = actions[worst == worst.min()]
        guesses = self.rules.guess_actions(knowledge.support)
        if guesses is not None:
            could_win = tied[np.isin(tied, guesses)]
            if could_win.size:
                return int(could_win.min())
        return int(tied.min())

    def __repr__(self) -> str:
        return "Knuth()"
