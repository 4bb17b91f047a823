"""What the batched twins of the multiplayer AEC envs share (issue 61): :class:`BatchedSeats`.

A batched twin is a batched rules object (``deduction_envs.games.*_batched``: N games in arrays, compiled) and
its seats (a subclass of :class:`BatchedSeats` in ``deduction_envs.envs.*_batched``): what every seat of every
game knows, fed by each step, and any seat's observation, equal to the AEC env's (with the probability pieces
where the twin writes them: Algo's and Generalized Clue's, ``has_probabilities``).
The registry names both (``Game.batched_seats``); ``train.batched_seats`` trains on them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from deduction_envs.core.rules import check_int
from deduction_envs.envs.multiplayer_env import ILLEGAL_ACTION_REWARD

__all__ = ["BatchedSeats"]


class BatchedSeats:
    """What the batched twins of the multiplayer AEC envs share (issue 61): the seat-facing side of a batched
    rules object (its deals and moves go through this object), in PGX's style. The step plays masked actions as
    the AEC env's ``illegal_action`` says and truncates at ``max_cycles``; :meth:`observe` writes any seat's
    observation, checked. A subclass names its rules and observer, keeps what its seats know
    (:meth:`_start`, :meth:`_feed`) and writes their observation (:meth:`_encode`).

    Args:
        games: the batched games (their deals and moves go through this object from now on).
        max_cycles: actions after which a game is truncated (no rewards), as the AEC env's ``max_cycles``.
        illegal_action: as the AEC env's: ``"end"`` (a masked action ends that game, -1 for its player and 0 for
            the others; :attr:`illegal` marks it) or ``"raise"`` (a ValueError, and nothing moves).
    """

    rules_class: type[Any]
    #: Whether the twin can write the AEC env's probability pieces (its ``probabilities`` keyword).
    has_probabilities = False
    #: Whether it counts them compiled, across the batch (else one seat at a time with the AEC env's engine, no
    #: faster than the AEC env: a run on the twin then observes without them unless asked).
    compiled_probabilities = True
    #: Whether the twin gives each seat's entropy in bits as the AEC env's ``entropy(agent)`` (its ``entropy``).
    has_entropy = False

    def __init__(self, games: Any, max_cycles: int, illegal_action: str = "end") -> None:
        if not isinstance(games, self.rules_class):
            raise ValueError(f"games must be a {self.rules_class.__name__}, got {type(games).__name__}")
        if illegal_action not in ("end", "raise"):
            raise ValueError(f"illegal_action must be 'end' or 'raise', got {illegal_action!r}")
        self.games: Any = games  # the subclass's batched rules
        self.illegal_action = illegal_action
        self.max_cycles = check_int("max_cycles", max_cycles, low=1)
        self.observer = self.make_observer(games.rules)
        #: Actions played in each game since its deal (a game is truncated at ``max_cycles``).
        self.moves = np.zeros(games.n, dtype=np.int64)
        #: The games the last step ended on a masked action (``illegal_action="end"``).
        self.illegal = np.zeros(games.n, dtype=np.bool_)
        #: How many times each game has been dealt: a new game in the slot moves it (what an agent keeping
        #: something per game, as the compiled entropy agent its scores, checks).
        self.dealt = np.zeros(games.n, dtype=np.int64)

    def make_observer(self, rules: Any) -> Any:
        """The AEC env's observer of ``rules`` without the probability pieces (what :meth:`observe` equals)."""
        raise NotImplementedError

    def reset(self, seeds: Iterable[int | None] | None = None) -> None:
        """Deal every game (:meth:`BatchedClueRules.reset`) and give each seat its hand."""
        self.reset_games(np.arange(self.games.n), seeds)

    def reset_games(self, games: np.ndarray, seeds: Iterable[int | None] | None = None) -> None:
        """Deal the games ``games`` anew (:meth:`BatchedClueRules.reset_games`); their seats know their hands."""
        games = np.asarray(games, dtype=np.int64)
        self.games.reset_games(games, seeds)
        self._start(games)

    def deal(self, games: np.ndarray, places: np.ndarray, **board: Any) -> None:
        """Start the games ``games`` on the deals ``places`` (:meth:`BatchedClueRules.deal`; on Clue's board its
        ``weapons`` and ``dice_seeds`` too); seats know their hands."""
        games = np.asarray(games, dtype=np.int64)
        self.games.deal(games, places, **board)
        self._start(games)

    def _start(self, games: np.ndarray) -> None:
        """The seats of the games ``games`` (indices), just dealt: no move played yet."""
        self.moves[games] = 0
        self.dealt[games] += 1

    def step(self, actions: np.ndarray, moving: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play ``actions[i]`` in every game ``i`` that is not over (or only in those ``moving``, a bool a game,
        marks), then every seat of every game that moved takes what the event tells it. Returns every seat's
        reward ``(n, players)``, and which games ended now by the rules (``terminated``: a right accusation,
        everyone out, or a masked action) and by ``max_cycles`` (``truncated``, no rewards), as the AEC env.

        Raises:
            ValueError: ``actions`` or ``moving`` are not one a game; with ``illegal_action="raise"``, an action
                masked in its game (nothing moves).
        """
        games = self.games
        actions, live = games._checked(actions, moving)
        self.illegal = games._illegal(actions, live)
        if self.illegal.any():
            if self.illegal_action == "raise":
                games.step(actions, live)  # raises, naming the game
            live &= ~self.illegal
        rewards, ended = games._play(actions, live)  # checked above
        if self.illegal.any():
            forfeits = np.flatnonzero(self.illegal)
            rewards[forfeits, games.mover[forfeits]] = ILLEGAL_ACTION_REWARD
            games.stop(forfeits)
            ended |= self.illegal
        self.moves[live] += 1
        truncated = live & ~ended & (self.moves >= self.max_cycles)
        games.stop(np.flatnonzero(truncated))
        self._feed(live)
        return rewards, ended, truncated

    def observe(self, seats: np.ndarray | None = None, games: np.ndarray | None = None) -> np.ndarray:
        """``(n, observation size)`` float32: each game's observation of seat ``seats[i]`` (default its seat to
        act), as ``clue_v0`` (``probabilities=False``) gives it, for the games ``games`` marks (a bool a game;
        default those not over); zeros in the other rows."""
        batch = self.games
        n = batch.n
        seats = batch.mover if seats is None else np.asarray(seats, dtype=np.int64)
        games = ~batch.over if games is None else np.asarray(games)
        if seats.shape != (n,) or seats.min(initial=0) < 0 or seats.max(initial=0) >= batch.rules.players:
            raise ValueError(f"seats must be {n} seats in [0, {batch.rules.players - 1}], got {seats}")
        if games.shape != (n,) or games.dtype != np.bool_:
            raise ValueError(f"games must be {n} bools (one a game), got {games.dtype} {games.shape}")
        out = np.zeros((n, self.observer.size), dtype=np.float32)
        if not self._encode(games, seats, out):
            raise RuntimeError("a seat's facts contradict: the batched game and its events disagree")
        return out

    def _feed(self, live: np.ndarray) -> None:
        """Every seat of every game ``live`` marks takes what its last move tells it (nothing where the
        observation is a function of the position)."""

    def _encode(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> bool:
        """Write the observation of seat ``seats[i]`` of every game ``i`` that ``games`` marks into the zeroed
        ``out``; False if a seat's facts contradict."""
        raise NotImplementedError


