"""SO-ISMCTS for Algo: Single-Observer Information Set MCTS (Cowling, Powley & Whitehouse 2012).

Each iteration determinises the hidden cards from the agent's own knowledge
(:meth:`~deduction_envs.reasoning.AlgoKnowledge.determinise`: a uniform
sample of the opponents' hands, the unseen rest shuffled into the deck),
then walks one tree of action sequences, every player's moves included,
choosing among the actions legal in that determinisation by UCB1 with
availability counts, each player maximising its own reward. It adds
one node, plays the game out at random and backs up the rank reward (+1 for
the winner, -1 for the first out, linear in between, as ``algo_v0``). The
decision is the most visited root action. Statistics belong to a node's
actions; an attack's hit and miss lead to different nodes, since everyone
sees the outcome (and it decides who moves next).
"""

from __future__ import annotations

import time

import numpy as np

from agents.multiplayer import SeatAgent
from deduction_envs.core.rules import check_int
from deduction_envs.games.algo import AlgoState, Phase

__all__ = ["AlgoISMCTS"]


class _Node:
    """An information set of the tree: who moves, and per action [visits, summed reward, availability]."""

    __slots__ = ("children", "mover", "stats")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.stats: dict[int, list[float]] = {}
        self.children: dict[tuple[int, bool], _Node] = {}  # by (action, hit)


class AlgoISMCTS(SeatAgent):
    """SO-ISMCTS for Algo through the :class:`~agents.multiplayer.SeatAgent` contract.

    Args:
        iterations: iterations per decision (default 300), unless ``time_limit``.
        time_limit: seconds per decision instead of a fixed number of iterations.
        exploration: the UCB1 constant.
    """

    def __init__(self, iterations: int | None = 300, time_limit: float | None = None, exploration: float = 0.7):
        super().__init__()
        if (iterations is None) == (time_limit is None):
            raise ValueError("give exactly one of iterations and time_limit")
        if iterations is not None:
            check_int("iterations", iterations, low=1)
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit}")
        if not exploration >= 0:
            raise ValueError(f"exploration must be >= 0, got {exploration}")
        self.iterations, self.time_limit, self.exploration = iterations, time_limit, float(exploration)
        self.name = "SO-ISMCTS"
        self.last_iterations = 0

    def act(self, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        root = _Node(self.seat)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        done = 0
        while (done < self.iterations) if deadline is None else (done == 0 or time.perf_counter() < deadline):
            self._iterate(root, self.knowledge.determinise(self.rng))
            done += 1
        self.last_iterations = done
        return max(root.stats, key=lambda a: root.stats[a][0])

    def _iterate(self, root: _Node, state: AlgoState) -> None:
        rules = self.rules
        path: list[tuple[_Node, int]] = []
        node = root
        # Selection, then the expansion of one untried action.
        while state.phase != Phase.OVER:
            legal = [int(a) for a in np.flatnonzero(rules.legal_mask(state))]
            untried = [a for a in legal if a not in node.stats]
            for action in legal:
                if action in node.stats:
                    node.stats[action][2] += 1
            action = untried[self.rng.integers(len(untried))] if untried else self._select(node, legal)
            if untried:
                node.stats[action] = [0, 0.0, 1]
            event = rules.apply(state, action)
            path.append((node, action))
            if untried:
                break
            node = node.children.setdefault((action, event.hit), _Node(state.mover))
        # Rollout: random legal actions to the end.
        while state.phase != Phase.OVER:
            rules.apply(state, int(self.rng.choice(np.flatnonzero(rules.legal_mask(state)))))
        reward = rules.rewards(state)
        # Backup: each action scores the reward of the player who chose it.
        for visited, action in path:
            stats = visited.stats[action]
            stats[0] += 1
            stats[1] += reward[visited.mover]

    def _select(self, node: _Node, legal: list[int]) -> int:
        """UCB1 with availability counts over the legal actions (all tried)."""
        stats = np.array([node.stats[a] for a in legal])
        visits, rewards, availability = stats[:, 0], stats[:, 1], stats[:, 2]
        value = rewards / visits + self.exploration * np.sqrt(np.log(availability) / visits)
        return legal[int(np.argmax(value))]
