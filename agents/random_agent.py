"""The random baseline."""

from __future__ import annotations

from agents.base import Agent

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """A uniformly random query.

    Args:
        consistent: draw only among queries that could still be the secret
            (for games whose queries name secrets, such as Mastermind); other
            games ignore it.
    """

    def __init__(self, consistent: bool = False) -> None:
        super().__init__()
        self.consistent = consistent
        self.name = "random (consistent)" if consistent else "random"

    def act(self) -> int:
        if self.consistent:
            guesses = self.rules.guess_actions(self.information_set.support)
            if guesses is not None:
                return int(guesses[self.rng.integers(guesses.size)])
        legal = self.legal_actions()
        return int(legal[self.rng.integers(legal.size)])

    def __repr__(self) -> str:
        return f"RandomAgent(consistent={self.consistent})"
