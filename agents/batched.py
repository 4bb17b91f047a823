"""What the compiled reference agents of the batched multiplayer games share (issue 61): their protocol, their
random draws, and the random agent, which needs nothing of a game but its legal actions.

A compiled agent decides for the seat to act in many games of a batched twin at once (Clue's
:class:`~deduction_envs.envs.clue_batched.BatchedClueSeats`, Generalized Clue's
:class:`~deduction_envs.envs.generalized_clue_batched.BatchedGeneralizedClueSeats`), reading only what that seat
knows. Its random draws are given as uniform numbers, ``uniforms[g, k]`` for the ``k``-th draw of game ``g``'s
decision, where its Python agent draws ``rng.integers(k)`` or ``rng.choice(pool)``: fed the same numbers, the two
decide alike (each game's twins are tested so). :class:`UniformDraws` is a generator for the Python agent that
replays such numbers the way the compiled agents read them.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numba import njit

from deduction_envs.reasoning.clue_counting import popcount

__all__ = [
    "DRAWS",
    "BatchedAgent",
    "BatchedRandom",
    "UniformDraws",
    "checked",
    "named_agent",
    "pick",
    "pick_legal",
    "pick_many",
    "reshown",
]

#: Uniform draws a decision takes at most (a Clue suggestion's three cards).
DRAWS = 3


class UniformDraws:
    """A stand-in for a Python agent's ``numpy.random.Generator`` that draws from given uniform numbers, in order, as
    the compiled agents read them: ``random()`` is the next number ``u`` (``random(k)`` the next ``k``),
    ``integers(low, high)`` is ``low + int(u * (high - low))``, ``choice(pool)`` is ``pool[int(u * len(pool))]``
    (an int pool is ``range(pool)``), ``choice(pool, p=...)`` numpy's pick from one number (the first option whose
    cumulative probability, normalised by the last, passes ``u``), and ``choice(pool, size, replace=False)`` draws
    one after another, each removed (``permutation(pool)`` draws all of it so). Fed to the Python agent
    (``agent.rng``) with the numbers its compiled twin was given, the two decide alike::

        from agents.batched import UniformDraws

        rng = UniformDraws([0.5, 0.25, 0.9])
        assert (rng.choice(4), rng.integers(2, 6), rng.random()) == (2, 3, 0.9)
    """

    def __init__(self, uniforms: np.ndarray) -> None:
        self.uniforms = list(uniforms)

    def integers(self, low: int, high: int | None = None) -> int:
        low, high = (0, low) if high is None else (low, high)
        return low + int(self.uniforms.pop(0) * (high - low))

    def random(self, size: int | None = None) -> Any:
        if size is None:
            return self.uniforms.pop(0)
        return np.array([self.uniforms.pop(0) for _ in range(size)])

    def choice(self, pool: Any, size: int | None = None, replace: bool = True, p: Any = None) -> Any:
        pool = list(range(pool)) if isinstance(pool, int) else list(np.asarray(pool).tolist())
        if p is not None:
            if size is not None:
                raise ValueError("UniformDraws draws one option with probabilities at a time")
            cumulative = np.cumsum(p)
            return pool[int(np.searchsorted(cumulative / cumulative[-1], self.uniforms.pop(0), side="right"))]
        if size is None:
            return pool[int(self.uniforms.pop(0) * len(pool))]
        if replace:
            raise ValueError("UniformDraws draws several options without replacement only")
        return np.array([pool.pop(int(self.uniforms.pop(0) * len(pool))) for _ in range(size)], dtype=np.int64)

    def permutation(self, pool: Any) -> np.ndarray:
        """``pool`` (a sequence, or ``range(pool)``) shuffled: ``choice(pool, len(pool), replace=False)``."""
        pool = list(range(pool)) if isinstance(pool, int) else list(np.asarray(pool).tolist())
        return self.choice(pool, len(pool), replace=False)


class BatchedAgent(Protocol):
    """A reference agent deciding for the seat to act in many batched games at once."""

    name: str

    def draws(self, rules: Any) -> int:
        """The uniform draws a decision of a game of ``rules`` takes at most."""
        ...

    def act(self, seats: Any, games: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        """The actions of each game's seat to act in the games ``games`` marks (a bool a game), one a game
        (rows not marked: 0); ``uniforms`` ``(n, draws)`` in [0, 1) are its random draws."""
        ...


def checked(seats: Any, games: np.ndarray, uniforms: np.ndarray, draws: int = DRAWS) -> tuple[np.ndarray, np.ndarray]:
    """``games`` (only those not over) and ``uniforms`` (at least ``draws`` a game) as arrays, or a ValueError
    naming what is wrong."""
    n = seats.games.n
    games, uniforms = np.asarray(games), np.asarray(uniforms, dtype=np.float64)
    if games.shape != (n,) or games.dtype != np.bool_:
        raise ValueError(f"games must be {n} bools (one a game), got {games.dtype} {games.shape}")
    if (
        uniforms.ndim != 2
        or uniforms.shape[0] != n
        or uniforms.shape[1] < draws
        or (uniforms.size and not (0 <= uniforms.min() and uniforms.max() < 1))
    ):
        raise ValueError(f"uniforms must be ({n}, {draws}) numbers in [0, 1), got shape {uniforms.shape}")
    return games & ~seats.games.over, uniforms


def named_agent(table: dict[str, type], game: str, name: str) -> BatchedAgent:
    """A new compiled agent ``name`` of ``table`` (a game's twins by roster name).

    Raises:
        ValueError: no compiled twin has that name (the choices are named).
    """
    if name not in table:
        raise ValueError(f"{game}'s compiled opponents are {', '.join(table)}, got {name!r}")
    return table[name]()


class BatchedRandom:
    """:class:`agents.multiplayer.RandomSeatAgent` for many games of any batched twin: a legal action uniformly
    at random (the ``int(u * k)``-th of the ``k`` legal ones, as ``rng.integers(k)`` picks)."""

    name = "random"

    def draws(self, rules: Any) -> int:
        return 1

    def act(self, seats: Any, games: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        games, uniforms = checked(seats, games, uniforms, 1)
        actions = np.zeros(seats.games.n, dtype=np.int64)
        _random_actions(seats.games.legal_masks(), games, uniforms[:, 0], actions)
        return actions


@njit(cache=True)
def pick(bits, u):  # pragma: no cover - compiled
    """The ``int(u * k)``-th set bit (ascending) of the ``k`` in ``bits``: ``rng.choice`` of a sorted pool."""
    pick_at = int(u * popcount(bits))
    card = 0
    while True:
        if bits >> card & 1:
            if pick_at == 0:
                return card
            pick_at -= 1
        card += 1


@njit(cache=True)
def pick_many(bits, uniforms, start, k):  # pragma: no cover - compiled
    """``k`` set bits of ``bits`` drawn one after another without replacement, the ``i``-th at
    ``uniforms[start + i]`` among those left (as a sorted pool's ``rng.choice(pool, k, replace=False)`` is
    replayed by the tests' draws): the drawn bits."""
    drawn = np.int64(0)
    for i in range(k):
        card = pick(bits, uniforms[start + i])
        bits &= ~(np.int64(1) << card)
        drawn |= np.int64(1) << card
    return drawn


@njit(cache=True)
def reshown(mine, shown, asker, u, most_shown=False):  # pragma: no cover - compiled
    """The card a refuter shows of its matching cards ``mine`` (bits), as :func:`agents.multiplayer.reshown_card`
    and its fallback choose it: one already shown to ``asker`` (``shown[seat, card] > 0``: shown to that seat),
    else to anyone (with ``most_shown``, Velma's rule: to the most seats), else any of them, drawn at ``u``."""
    to_asker, to_anyone, most = np.int64(0), np.int64(0), 0
    for c in range(shown.shape[1]):
        if mine >> c & 1:
            if shown[asker, c] > 0:
                to_asker |= np.int64(1) << c
            seen = 0
            for q in range(shown.shape[0]):
                if shown[q, c] > 0:
                    seen += 1
            if seen > 0 and (not most_shown or seen >= most):
                if most_shown and seen > most:
                    to_anyone, most = np.int64(0), seen
                to_anyone |= np.int64(1) << c
    return pick(to_asker if to_asker else (to_anyone if to_anyone else mine), u)


@njit(cache=True)
def pick_legal(mask, u):  # pragma: no cover - compiled
    """The ``int(u * k)``-th of the ``k`` legal actions of ``mask`` (a bool row), as ``rng.integers(k)`` or
    ``rng.choice`` of the legal actions picks it."""
    legal = 0
    for a in range(mask.size):
        legal += mask[a]
    at = int(u * legal)
    for a in range(mask.size):
        if mask[a]:
            if at == 0:
                return a
            at -= 1
    return -1


@njit(cache=True)
def _random_actions(masks, games, uniforms, actions):  # pragma: no cover - compiled
    for g in range(games.size):
        if games[g]:
            actions[g] = pick_legal(masks[g], uniforms[g])
