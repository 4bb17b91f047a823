"""The multiplayer layer: the engine protocol, projected events, per-seat knowledge and the one game loop.

Algo, Clue and Generalized Clue share one shape (``DESIGN.md``, "Multiplayer games"):

* a :class:`MultiplayerRules` object deals a game, says what is legal, applies
  an action and returns the *event*, says who must act, whether the game is
  over and how it ended; states are made only by the rules;
* an event has a public part and private parts, and the rules *project* it
  for each seat (:meth:`MultiplayerRules.observe_event`): a seat never
  receives another seat's private part;
* each seat's :class:`Knowledge` is built from the rules and updated from
  that seat's projected events only (the deal is the first event);
* a :class:`Table` holds one game in progress and delivers each event,
  projected, to one listener per seat. The AEC envs step it, and
  :func:`play` runs it to the end for games between agents; nothing else
  applies actions to a live game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Knowledge", "MultiplayerRules", "Table", "batched_ranks", "both", "play", "ranks_from_rewards"]


@runtime_checkable
class Knowledge(Protocol):
    """What one seat knows, updated from the events projected for it and nothing else."""

    player: int

    def update(self, event: Any) -> None:
        """Take one projected event (the deal first, then every action's)."""

    def entropy(self) -> float:
        """Bits of the seat's uncertainty about the hidden cards (0 once it knows everything it plays for)."""

    def determinise(self, rng: np.random.Generator) -> Any:
        """A whole game state drawn uniformly from those consistent with this knowledge (for search)."""


@runtime_checkable
class MultiplayerRules(Protocol):
    """The engine of a multiplayer game with private information (Algo, Clue, Generalized Clue).

    States are mutable and belong to whoever asked :meth:`new_game` for them
    (a :class:`Table`, or a search's own determinisation); events are
    immutable values. A seat's :class:`Knowledge` is the reasoning layer's;
    the registry pairs the rules with it
    (:func:`deduction_envs.registry.new_knowledge`), so the rules never import it.
    """

    @property
    def players(self) -> int:
        """Seats at the table."""

    @property
    def num_actions(self) -> int:
        """Size of the action space."""

    def new_game(self, rng: np.random.Generator, first: int = 0) -> Any:
        """Shuffle and deal with ``rng``; seat ``first`` starts."""

    def deal_event(self, state: Any) -> Any:
        """The deal as an event (every hand private to its seat), the first event each seat observes."""

    def mover(self, state: Any) -> int:
        """The seat that must act now (in Clue also a refuter choosing the card to show)."""

    def is_over(self, state: Any) -> bool:
        """Whether the game has ended."""

    def legal_mask(self, state: Any) -> np.ndarray:
        """Bool mask over ``num_actions`` of what :meth:`mover` may do (all False once over)."""

    def apply(self, state: Any, action: int) -> Any:
        """Play ``action`` for the mover, changing ``state``; the event. An illegal action raises ValueError."""

    def observe_event(self, event: Any, player: int) -> Any:
        """``event`` as ``player`` sees it: its public part and only ``player``'s own private parts."""

    def winner(self, state: Any) -> int | None:
        """The winning seat of a finished game (None while it goes on, or if nobody won)."""

    def rewards(self, state: Any) -> list[float]:
        """Each seat's reward for a finished game."""

    @property
    def reward_range(self) -> tuple[float, float]:
        """The lowest and the highest reward :meth:`rewards` gives a seat (last place's, the winner's): what a
        seat that forfeits is scored, and the scale a reward is read on."""


def both(first: Callable[[Any], None], second: Callable[[Any], None] | None) -> Callable[[Any], None]:
    """A listener telling each event to ``first``, then to ``second`` (just ``first`` if ``second`` is None): a
    seat's knowledge and whoever else listens to that seat."""
    if second is None:
        return first

    def told(event: Any) -> None:
        first(event)
        second(event)

    return told


def ranks_from_rewards(rewards: Sequence[float]) -> list[float]:
    """Each seat's rank (1 = first) by its final reward, tied seats sharing the mean of their places.

    Every multiplayer game's rewards order the seats as its ranking does
    (Clue: the winner first, the rest tied; Generalized Clue: linear in rank).
    """
    return batched_ranks(np.asarray(rewards, dtype=np.float64)).tolist()


def batched_ranks(rewards: np.ndarray) -> np.ndarray:
    """:func:`ranks_from_rewards` of every row of ``rewards`` (``(..., players)``, one game a row) at once."""
    values = np.asarray(rewards, dtype=np.float64)
    above = (values[..., None, :] > values[..., :, None]).sum(axis=-1)
    tied = (values[..., None, :] == values[..., :, None]).sum(axis=-1)
    return 1.0 + above + (tied - 1) / 2.0


Listener = Callable[[Any], None]


class Table:
    """One game in progress: its state (secrets included) and the delivery of every event, projected, per seat.

    Args:
        rules: the game's :class:`MultiplayerRules`.
        rng: the shuffle's generator.
        listeners: one callable per seat, given each event projected for that
            seat (a knowledge's ``update``, an agent's ``observe``).
        first: the seat that starts.

    Only the table applies actions to its state, so every listener hears
    every event exactly once, the deal first.
    """

    def __init__(
        self, rules: MultiplayerRules, rng: np.random.Generator, listeners: Sequence[Listener], first: int = 0
    ) -> None:
        if len(listeners) != rules.players:
            raise ValueError(f"the game has {rules.players} seats, got {len(listeners)} listeners")
        self.rules = rules
        self.listeners = list(listeners)
        self.state = rules.new_game(rng, first)
        #: Every action applied, in order: with the seed, a replay of the game.
        self.actions: list[int] = []
        self._mask: np.ndarray | None = None
        #: The last event, unprojected (for a spectator's render).
        self.last_event = self._deliver(rules.deal_event(self.state))

    @property
    def mover(self) -> int:
        return self.rules.mover(self.state)

    @property
    def over(self) -> bool:
        return self.rules.is_over(self.state)

    def legal_mask(self) -> np.ndarray:
        """What the mover may do now (read-only; computed once per position)."""
        if self._mask is None:
            self._mask = self.rules.legal_mask(self.state)
            self._mask.flags.writeable = False
        return self._mask

    def step(self, action: int) -> Any:
        """Apply ``action`` for the mover and tell every seat what it sees of it; returns the event."""
        event = self.rules.apply(self.state, action)
        self._mask = None
        self.actions.append(int(action))
        return self._deliver(event)

    def _deliver(self, event: Any) -> Any:
        self.last_event = event
        for seat, listen in enumerate(self.listeners):
            listen(self.rules.observe_event(event, seat))
        return event


def play(
    table: Table, choose: Callable[[int, np.ndarray], int], max_actions: int = 100_000, truncate: bool = False
) -> bool:
    """Run ``table`` to the end, asking ``choose(seat, legal_mask)`` for each action; True if the game ended.

    A game not over after ``max_actions`` actions (players that never end it, such as a Clue player that never
    accuses) raises a ``RuntimeError``, or with ``truncate`` stops there and gives False (the AEC envs'
    ``max_cycles`` truncation).
    """
    while not table.over:
        if len(table.actions) >= max_actions:
            if truncate:
                return False
            raise RuntimeError(
                f"the game did not end within {max_actions} actions (pass truncate=True to stop such a game as "
                "nobody's win)"
            )
        table.step(choose(table.mover, table.legal_mask()))
    return True
