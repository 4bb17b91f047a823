"""What the batched rules of the multiplayer games share (issue 61): :class:`BatchedRules`.

A batched rules object holds ``n`` games of one rules object as a struct of arrays, in PGX's style, and steps
them with compiled kernels (``deduction_envs.games.*_batched``). This base has what does not depend on the game:
the checks of the actions and of the games that move, the legality test against the legal masks, the games
stopped from outside the rules (a truncation or a forfeit), and the deal's indices. A game's class names its
phases, writes its legal masks and plays its moves (:meth:`legal_masks`, :meth:`_play`).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Any

import numpy as np

from deduction_envs.core.rules import check_int, check_seed

__all__ = ["BatchedRules"]


class BatchedRules:
    """``n`` games of ``rules`` (an instance of :attr:`rules_class`), stepped together.

    Args:
        rules: the game.
        n: the number of games.
        seed: seeds the batch's own generator, which deals the games reset without a seed of their own.

    A subclass sets :attr:`phase` (one a game; :attr:`phases` its enum, whose ``OVER`` ends a game), writes
    :meth:`legal_masks` into :attr:`_masks` and plays checked moves in :meth:`_play`.
    """

    rules_class: type[Any]
    phases: type[IntEnum]

    def __init__(self, rules: Any, n: int, seed: int | None = None) -> None:
        if not isinstance(rules, self.rules_class):
            raise ValueError(f"rules must be {self.rules_class.__name__}, got {type(rules).__name__}")
        self.rules, self.n = rules, check_int("n", n, low=1)
        self.phase = np.full(self.n, int(self.phases.OVER), dtype=np.int64)  # type: ignore[attr-defined]
        #: Games ended from outside the rules (:meth:`stop`: a truncation or a forfeit), their position kept.
        self.halted = np.zeros(self.n, dtype=np.bool_)
        self._masks = np.zeros((self.n, rules.num_actions), dtype=np.bool_)
        self.rng = np.random.default_rng(check_seed(seed))

    # ------------------------------------------------------------------ dealing
    def reset(self, seeds: Iterable[int | None] | None = None) -> None:
        """Deal every game: game ``i`` as the rules' ``new_game(np.random.default_rng(seeds[i]))`` deals it (the
        AEC env's deal for ``reset(seed=seeds[i])``), or with ``seeds`` None all from the batch's generator."""
        self.reset_games(np.arange(self.n), seeds)

    def reset_games(self, games: np.ndarray, seeds: Iterable[int | None] | None = None) -> None:
        """Deal the games ``games`` (indices) anew, each with its seed of ``seeds``, or (``seeds`` None) all at
        once from the batch's generator.

        Raises:
            ValueError: ``games`` are not indices of the batch, or ``seeds`` not one seed a game.
        """
        games = np.asarray(games, dtype=np.int64)
        if games.ndim != 1 or (games.size and (games.min() < 0 or games.max() >= self.n)):
            raise ValueError(f"games must be indices in [0, {self.n - 1}], got {games}")
        if seeds is None:
            self._deal_drawn(games)
            return
        seeds = [check_seed(s) for s in seeds]
        if len(seeds) != games.size:
            raise ValueError(f"give one seed a game: {games.size} games, {len(seeds)} seeds")
        self._deal_seeded(games, seeds)

    def _deal_drawn(self, games: np.ndarray) -> None:
        """Deal the games ``games`` from the batch's generator, all at once."""
        raise NotImplementedError

    def _deal_seeded(self, games: np.ndarray, seeds: list[int | None]) -> None:
        """Deal each game of ``games`` as the rules' ``new_game`` deals for its seed."""
        raise NotImplementedError

    # ------------------------------------------------------------------ playing
    @property
    def over(self) -> np.ndarray:
        """Which games are over: by the rules, or stopped (:meth:`stop`)."""
        return (self.phase == int(self.phases.OVER)) | self.halted  # type: ignore[attr-defined]

    def legal_masks(self) -> np.ndarray:
        """``(n, num_actions)`` bool: what each game's player to act may do (all False in a game that is over).
        The array is reused by the next call."""
        raise NotImplementedError

    def illegal(self, actions: Any, moving: Any = None) -> np.ndarray:
        """Which games' ``actions`` are outside the action space or masked now, bool a game (only games that
        are not over and, given ``moving``, marked by it count).

        Raises:
            ValueError: ``actions`` is not an integer a game, or ``moving`` not a bool a game.
        """
        actions, live = self._checked(actions, moving)
        return self._illegal(actions, live)

    def step(self, actions: Any, moving: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Play one action in every game that is not over (``actions[i]`` for game ``i``; ignored where it is
        over), or only in the games ``moving`` (a bool a game) marks; returns every seat's reward,
        ``(n, players)`` (nonzero only where a game ended now), and which games ended now.

        Raises:
            ValueError: an action is outside the action space or masked in its game, or ``moving`` is not a bool
                a game; nothing changes.
        """
        actions, live = self._checked(actions, moving)
        illegal = np.flatnonzero(self._illegal(actions, live))
        if illegal.size:
            game = int(illegal[0])
            raise ValueError(f"game {game}: action {int(actions[game])} is not legal now (phase "
                             f"{self.phases(int(self.phase[game])).name})")  # fmt: skip
        return self._play(actions, live)

    def _play(self, actions: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`step` without its checks: ``actions`` (int64) legal in every game ``live`` marks."""
        raise NotImplementedError

    def stop(self, games: np.ndarray) -> None:
        """End the games ``games`` (indices) now, with no winner and their position as it is (a truncation, or
        a forfeit whose penalty the caller gives, as the AEC env ends them)."""
        self.halted[games] = True

    def _checked(self, actions: Any, moving: Any) -> tuple[np.ndarray, np.ndarray]:
        """``actions`` as int64 and the games that move (not over, and marked by ``moving`` if given)."""
        actions = np.asarray(actions)
        if actions.shape != (self.n,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.n} integers (one a game), got shape {actions.shape}")
        live = ~self.over
        if moving is not None:
            moving = np.asarray(moving)
            if moving.shape != (self.n,) or moving.dtype != np.bool_:
                raise ValueError(f"moving must be {self.n} bools (one a game), got {moving.dtype} {moving.shape}")
            live &= moving
        return actions.astype(np.int64), live

    def _illegal(self, actions: np.ndarray, live: np.ndarray) -> np.ndarray:
        """The moving games whose action is outside the space or masked (a game may test it faster)."""
        masks = self.legal_masks()
        inside = (actions >= 0) & (actions < self.rules.num_actions)
        legal = np.zeros(self.n, dtype=np.bool_)
        legal[inside] = masks[np.flatnonzero(inside), actions[inside]]
        return live & ~legal
