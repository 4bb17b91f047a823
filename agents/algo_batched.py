"""Algo's reference opponents inside the batch (issue 61): the random agent (:class:`agents.batched.BatchedRandom`)
and the article's epsilon-greedy baseline, compiled.

:class:`BatchedEpsilonGreedy` is :class:`agents.algo_agents.AlgoEpsilonGreedy` for many games of a
:class:`~deduction_envs.envs.algo_batched.BatchedAlgoSeats`: the hit probability of every attack from the seat's
exact hand posterior (:meth:`~deduction_envs.envs.algo_batched.BatchedAlgoSeats.number_probabilities`, counted as
the Python agent's posterior counts it), the likeliest attack (the first in action order on ties), a stop after
a hit with probability ``epsilon``, a random own card to reveal. Fed the same random draws it decides as the
Python agent (``tests/test_conformance.py``). The max-entropy agent stays in Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.batched import BatchedAgent, BatchedRandom, checked, named_agent, pick_legal
from deduction_envs.games.algo import Phase

__all__ = ["BATCHED_AGENTS", "BatchedEpsilonGreedy", "batched_agent"]

_ATTACK, _CONTINUE, _REVEAL = int(Phase.ATTACK), int(Phase.CONTINUE), int(Phase.REVEAL)


class BatchedEpsilonGreedy:
    """The epsilon-greedy baseline deciding for many games at once; see the module docstring.

    Args:
        epsilon: the probability of stopping after a hit (0.1, the roster's).
    """

    def __init__(self, epsilon: float = 0.1) -> None:
        if not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be a probability in [0, 1], got {epsilon}")
        self.epsilon = float(epsilon)
        self.name = f"epsilon-greedy({epsilon:g})"

    def draws(self, rules: Any) -> int:
        return 1

    def act(self, seats: Any, games: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        batch, rules = seats.games, seats.games.rules
        games, uniforms = checked(seats, games, uniforms, 1)
        attacking = games & (batch.phase != _REVEAL)
        table = seats.number_probabilities(attacking, batch.mover)
        actions = np.zeros(batch.n, dtype=np.int64)
        _epsilon_greedy(games, batch.phase, batch.legal_masks(), table, rules.max_hand, rules.numbers,
                        rules.num_attacks, self.epsilon, uniforms[:, 0], actions)  # fmt: skip
        return actions


#: The compiled twins, by the roster's names (:mod:`agents.roster`).
BATCHED_AGENTS: dict[str, type] = {"random": BatchedRandom, "epsilon_greedy": BatchedEpsilonGreedy}


def batched_agent(name: str) -> BatchedAgent:
    """A compiled reference agent of Algo by its roster name (ValueError naming the choices if none)."""
    return named_agent(BATCHED_AGENTS, "Algo", name)


@njit(cache=True)
def _epsilon_greedy(games, phase, masks, table, max_hand, numbers, attacks, epsilon, uniforms,
                    actions):  # pragma: no cover - compiled  # fmt: skip
    for g in range(games.size):
        if not games[g]:
            continue
        if phase[g] == _REVEAL:  # a random own face-down card (rng.choice of the legal reveals)
            actions[g] = pick_legal(masks[g], uniforms[g])
            continue
        if phase[g] == _CONTINUE and uniforms[g] < epsilon:  # stop after a hit
            actions[g] = attacks
            continue
        best, best_value = 0, -2.0
        for a in range(attacks):  # the likeliest legal attack, the first on ties (argmax)
            value = -1.0
            if masks[g, a]:
                number = a % numbers
                rest = a // numbers
                target, position = rest // max_hand, rest % max_hand
                value = table[g, target + 1, position, number]
            if value > best_value:
                best, best_value = a, value
        actions[g] = best
