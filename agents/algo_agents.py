"""Agents for Algo that play from their own view: the article's epsilon-greedy baseline.

The probabilities come from :class:`deduction_envs.reasoning.AlgoHandPosterior`,
exact over every deal consistent with the agent's view.
"""

from __future__ import annotations

import numpy as np

from agents.multiplayer import SeatAgent
from deduction_envs.games.algo import Move, Phase, PlayerView
from deduction_envs.reasoning import AlgoHandPosterior

__all__ = ["AlgoEpsilonGreedy", "attack_probabilities"]


def attack_probabilities(rules, view: PlayerView, posterior: AlgoHandPosterior | None = None) -> np.ndarray:
    """The probability that each attack action hits (0 for face-up positions and players who are out)."""
    posterior = posterior or AlgoHandPosterior(view, rules.numbers)
    hits = np.zeros(rules.num_attacks)
    table = hits.reshape(rules.players - 1, rules.max_hand, rules.numbers)
    for target in range(rules.players - 1):
        player = rules.target_player(view.player, target)
        hand = view.hands[player]
        hidden = [i for i, known in enumerate(hand.known) if known < 0]
        if hidden:
            table[target, hidden] = posterior.number_probabilities(player)[hidden]
    return hits


class AlgoEpsilonGreedy(SeatAgent):
    """The article's baseline: attack the most probable (position, number); after a hit, stop with probability epsilon.

    ``epsilon`` is a stop probability, not exploration: 0 attacks until a
    miss, 1 stops after every hit. Ties between equally probable attacks go to
    the first in action order. With the deck empty, a miss makes it reveal a
    random own face-down card.
    """

    def __init__(self, epsilon: float = 0.1) -> None:
        super().__init__()
        if not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be a probability in [0, 1], got {epsilon}")
        self.epsilon = float(epsilon)
        self.name = f"epsilon-greedy({epsilon:g})"

    def act(self, view: PlayerView, mask: np.ndarray) -> int:
        if view.phase == Phase.REVEAL:
            return int(self.rng.choice(np.flatnonzero(mask)))
        if view.phase == Phase.CONTINUE and self.rng.random() < self.epsilon:
            return self.rules.action_index(Move("stop"))
        hits = np.where(mask[: self.rules.num_attacks], attack_probabilities(self.rules, view), -1.0)
        return int(np.argmax(hits))
