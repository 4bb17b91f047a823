"""Single-Observer Information Set Monte Carlo Tree Search (Cowling, Powley & Whitehouse 2012).

SO-ISMCTS searches one tree whose nodes are the searching player's
information sets. In a single-player deduction game the only hidden thing is
the secret, so a node is a history of (query, feedback) pairs and its
information set is everything consistent with that history. Each iteration:

1. **Determinise**: draw a secret from the root's information set (by its
   probabilities).
2. **Select** down the tree: at a node whose legal queries have all been
   tried, pick the query maximising UCB1,
   ``mean + exploration * sqrt(ln(parent visits) / visits)``. The oracle's
   answer is the feedback the determinised secret gives, which picks the
   child. (Which queries are legal depends only on the node's information
   set, which every determinisation reaching the node shares, so the
   "availability" counts of ISMCTS equal the parent's visits.)
3. **Expand** one untried query of the first node that has any.
4. **Roll out** with random consistent queries (a query naming a random
   secret still possible in the rollout's own information set; a random legal
   query in games whose queries do not name secrets) until the game ends or
   the step budget is spent.
5. **Back up** a reward inversely related to the steps taken, as in Meng &
   Lucas (2024): ``(budget + 1 - k) / budget`` when the game ended ``k``
   queries after the decision point, and ``0`` when the step budget (the
   horizon minus the queries already made) ran out first. It is linear in
   ``k`` so that the best mean reward is the fewest mean steps; a reward of
   ``1 / k`` would favour gambling on a lucky early guess (on a 2x2 Treasure
   Hunt it prefers naming one cell, 2.25 queries on average, to halving, 2).

The decision is the root query with the most visits (ties: the higher mean
reward, then the lowest index).

One addition, as in sampled ISES: a node tries the queries that could be the
secret (in random order) before the others (in random order). Without it, a
game with many queries (1296 in Mastermind 4x6) would spend a 0.1 s budget
expanding random queries and could fail to name a secret it already knows.

``time_limit`` is checked after every simulated query, and an iteration cut
short is dropped, so a decision returns within the limit plus one simulated
query and the final choice. ``benchmarks/time_limits.py`` measures that overhead.
"""

from __future__ import annotations

import math
import time

import numpy as np

from agents.base import Agent
from deduction_envs.core.information_set import InformationSet
from deduction_envs.core.rules import DeductionRules, check_int

__all__ = ["ISMCTS"]


class _Deadline(Exception):
    """Raised inside an iteration when the time limit has passed."""


class _Node:
    """A decision node: an information set and the statistics of the queries tried from it.

    ``actions`` holds the node's legal queries in the order they are tried;
    the first ``tried`` have been expanded, and position ``i`` has
    ``visits[i]``, ``totals[i]`` (summed reward) and ``children[i]`` (the node
    each feedback leads to, or None where the game ends). The queries are listed
    on the node's first visit (:meth:`open`; ``opened`` says whether it was).
    """

    __slots__ = ("actions", "children", "knowledge", "opened", "totals", "tried", "visits")
    _NONE = np.zeros(0)

    def __init__(self, knowledge: InformationSet) -> None:
        self.knowledge = knowledge
        self.opened = False
        self.actions = self.visits = self.totals = self._NONE
        self.tried = 0
        self.children: list[dict[int, _Node | None]] = []

    def open(self, actions: np.ndarray) -> None:
        self.opened = True
        self.actions = actions
        self.visits = np.zeros(actions.size)
        self.totals = np.zeros(actions.size)


class ISMCTS(Agent):
    """SO-ISMCTS with random consistent rollouts; see the module docstring.

    Args:
        time_limit: seconds per decision (None: no limit). At least one of
            ``time_limit`` and ``iterations`` must be given.
        iterations: iterations per decision (None: no limit).
        exploration: the UCB1 exploration constant ``c``. Rewards lie in
            [0, 1] and one step is worth ``1 / budget`` of it; the default 0.3
            was the best of 0.1, 0.3 and 0.7 (the usual ``1 / sqrt(2)``) in a
            40-game sweep on Mastermind 4x6, Treasure Hunt 4x4 and Fake Coin
            12 at 0.05 s per decision, though within noise on the last two.
        horizon: the queries a game may take in all before a simulation counts
            as a failure (reward 0); None uses the game's default step limit.
    """

    def __init__(
        self,
        time_limit: float | None = 0.1,
        iterations: int | None = None,
        exploration: float = 0.3,
        horizon: int | None = None,
    ) -> None:
        super().__init__()
        if time_limit is not None and not (isinstance(time_limit, int | float) and time_limit > 0):
            raise ValueError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
        if iterations is not None:
            check_int("iterations", iterations, low=1)
        if time_limit is None and iterations is None:
            raise ValueError("give time_limit or iterations (or both); with neither the search would never stop")
        if not (isinstance(exploration, int | float) and exploration >= 0):
            raise ValueError(f"exploration must be a number >= 0, got {exploration!r}")
        if horizon is not None:
            check_int("horizon", horizon, low=1)
        self.time_limit = time_limit
        self.iterations = iterations
        self.exploration = float(exploration)
        self.horizon = horizon
        self.name = "SO-ISMCTS"
        #: Iterations completed by the last decision (for benchmarks and tests).
        self.last_iterations = 0

    def reset(self, rules: DeductionRules, seed: int | None = None) -> None:
        super().reset(rules, seed)
        self.last_iterations = 0

    # ------------------------------------------------------------------ search
    def act(self) -> int:
        start = time.perf_counter()
        deadline = math.inf if self.time_limit is None else start + self.time_limit
        horizon = self.rules.default_max_steps if self.horizon is None else self.horizon
        budget = max(1, horizon - len(self.history))
        root = _Node(self.information_set)
        done = 0
        while self.iterations is None or done < self.iterations:
            if time.perf_counter() >= deadline:
                break
            secret = int(self.information_set.sample(1, self.rng)[0])
            try:
                self._iterate(root, secret, budget, deadline)
            except _Deadline:
                break
            done += 1
        self.last_iterations = done
        if not root.opened:
            root.open(self._order(root.knowledge))
        if root.tried == 0:  # not one iteration fitted in the time: the first query it would try
            return int(root.actions[0])
        tried = root.actions[: root.tried]
        visits, totals = root.visits[: root.tried], root.totals[: root.tried]
        # Most visits, then the higher mean reward, then the lowest index.
        best = np.lexsort((tried, -totals / np.maximum(visits, 1), -visits))[0]
        return int(tried[best])

    def _iterate(self, root: _Node, secret: int, budget: int, deadline: float) -> None:
        """One determinised simulation from ``root``; statistics change only if it completes."""
        rules = self.rules
        path: list[tuple[_Node, int]] = []  # (node, position of the query taken)
        node: _Node | None = root
        expanded: _Node | None = None
        try:
            while node is not None and len(path) < budget and expanded is None:
                if not node.opened:
                    node.open(self._order(node.knowledge))
                if node.tried < node.actions.size:
                    position = node.tried
                    node.tried += 1
                    node.children.append({})
                    expanded = node
                else:
                    position = self._select(node)
                path.append((node, position))
                action = int(node.actions[position])
                feedback = int(rules.feedback_at(node.knowledge, action, np.array([secret]))[0])
                children = node.children[position]
                if feedback not in children:
                    after = node.knowledge.update(action, feedback)
                    children[feedback] = None if rules.is_terminal(action, feedback, after) else _Node(after)
                node = children[feedback]
                if time.perf_counter() >= deadline:
                    raise _Deadline
            if node is None:
                steps: int | None = len(path)
            else:
                rest = self._rollout(node.knowledge, secret, budget - len(path), deadline)
                steps = None if rest is None else len(path) + rest
            # Linear in the steps, so the best mean reward is the fewest mean steps; 0 when unsolved.
            reward = 0.0 if steps is None else (budget + 1 - steps) / budget
        except _Deadline:
            if expanded is not None:  # leave the tree as if this iteration had not started
                expanded.tried -= 1
                expanded.children.pop()
            raise
        for parent, position in path:
            parent.visits[position] += 1
            parent.totals[position] += reward

    def _select(self, node: _Node) -> int:
        """The position of the query maximising UCB1 (all of the node's queries have been tried)."""
        visits = node.visits
        ucb = node.totals / visits + self.exploration * np.sqrt(math.log(visits.sum()) / visits)
        return int(ucb.argmax())

    def _rollout(self, knowledge: InformationSet, secret: int, budget: int, deadline: float) -> int | None:
        """Queries a random consistent player needs to end the game, or None beyond ``budget``."""
        rules, rng = self.rules, self.rng
        secrets = np.array([secret])
        for step in range(1, budget + 1):
            guesses = rules.guess_actions(knowledge.sample(1, rng))
            if guesses is not None:
                action = int(guesses[0])
            elif (legal := rules.legal_actions(knowledge)) is None:
                action = int(rng.integers(rules.num_actions))
            else:
                action = int(rng.choice(np.flatnonzero(legal)))
            feedback = int(rules.feedback_at(knowledge, action, secrets)[0])
            knowledge = knowledge.update(action, feedback)
            if rules.is_terminal(action, feedback, knowledge):
                return step
            if time.perf_counter() >= deadline:
                raise _Deadline
        return None

    def _order(self, knowledge: InformationSet) -> np.ndarray:
        """A node's legal queries in the order to try them: random, but those that could win first."""
        rules, rng = self.rules, self.rng
        actions = np.flatnonzero(rules.action_mask(knowledge))
        guesses = rules.guess_actions(knowledge.support)
        if guesses is None:
            order = rng.permutation(actions)
        else:
            winning = np.unique(guesses)
            order = np.concatenate((rng.permutation(winning), rng.permutation(actions[~np.isin(actions, winning)])))
        return order

    def __repr__(self) -> str:
        return (
            f"ISMCTS(time_limit={self.time_limit}, iterations={self.iterations}, "
            f"exploration={self.exploration:.3g}, horizon={self.horizon})"
        )
