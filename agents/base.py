"""The contract of a single-player agent: built from rules, taught only by feedback."""

from __future__ import annotations

import abc

import numpy as np

from deduction_envs.core.information_set import InformationSet, make_information_set
from deduction_envs.core.rules import DeductionRules

__all__ = ["Agent"]


class Agent(abc.ABC):
    """A policy for a single-player deduction game.

    An agent never touches an env or a secret. It is built from a game's rules
    (which every player knows) by :meth:`reset`, chooses queries with
    :meth:`act`, and learns only through :meth:`observe`, which gives it the
    query it made and the feedback the oracle returned. The base class keeps
    the agent's own information set from those observations.

    Subclasses implement :meth:`act` and may extend :meth:`reset`.
    """

    #: A short name for tables and plots.
    name: str = "agent"
    #: Whether the agent plays a given game the same way every time (its choices a function of what it has
    #: observed): then one play of every secret is its exact mean. False for any agent that draws at random or
    #: stops on a clock, and the safe default for an agent that does not say.
    deterministic: bool = False

    def __init__(self) -> None:
        self._rules: DeductionRules | None = None
        self._knowledge: InformationSet | None = None
        self.history: list[tuple[int, int]] = []
        self._seed: int | None = None
        self._rng: np.random.Generator | None = None

    @property
    def rules(self) -> DeductionRules:
        """The rules of the game being played."""
        if self._rules is None:
            raise RuntimeError(f"{type(self).__name__}.reset(rules) must be called before playing")
        return self._rules

    @property
    def information_set(self) -> InformationSet:
        """The agent's knowledge: the secrets consistent with its observations."""
        if self._knowledge is None:
            raise RuntimeError(f"{type(self).__name__}.reset(rules) must be called before playing")
        return self._knowledge

    def reset(self, rules: DeductionRules, seed: int | None = None) -> None:
        """Start a new game of ``rules``; ``seed`` fixes the agent's own randomness."""
        if not isinstance(rules, DeductionRules):
            raise TypeError(f"rules must be a DeductionRules object, got {type(rules).__name__}")
        self._rules = rules
        self._knowledge = make_information_set(rules)
        self.history = []
        self._seed, self._rng = seed, None

    @property
    def rng(self) -> np.random.Generator:
        """The agent's own random generator, seeded by :meth:`reset` (made on first use: most agents never
        draw, and making one costs more than an exhaustive decision from a remembered state)."""
        if self._rng is None:
            self._rng = np.random.default_rng(self._seed)
        return self._rng

    def legal_actions(self) -> np.ndarray:
        """The queries the rules allow given the agent's knowledge, ascending."""
        return np.flatnonzero(self.rules.action_mask(self.information_set))

    @abc.abstractmethod
    def act(self) -> int:
        """The next query, as an action index of the game."""

    def observe(self, action: int, feedback: int) -> None:
        """Learn that query ``action`` was answered with ``feedback``.

        Raises ValueError, and learns nothing, if the feedback is impossible
        given what the agent already knows.
        """
        self._knowledge = self.information_set.update(int(action), int(feedback))
        self.history.append((int(action), int(feedback)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
