"""Shared test settings and helpers."""

from __future__ import annotations

import contextlib
import itertools
from collections import Counter
from collections.abc import Iterator

import numpy as np
from hypothesis import settings

settings.register_profile("default", deadline=None, max_examples=60)
settings.load_profile("default")


def reference_score(guess: tuple[int, ...], secret: tuple[int, ...]) -> tuple[int, int]:
    """Black and white pegs, straight from the rule book: slow and obviously correct."""
    black = sum(g == s for g, s in zip(guess, secret, strict=True))
    unmatched_guess = Counter(g for g, s in zip(guess, secret, strict=True) if g != s)
    unmatched_secret = Counter(s for g, s in zip(guess, secret, strict=True) if g != s)
    white = sum(min(n, unmatched_secret[symbol]) for symbol, n in unmatched_guess.items())
    return black, white


def all_codes(length: int, symbols: int, distinct: bool) -> list[tuple[int, ...]]:
    """Every code in lexicographic order, by brute force."""
    if distinct:
        return list(itertools.permutations(range(symbols), length))
    return list(itertools.product(range(symbols), repeat=length))


def assert_same(a, b) -> None:
    """Two env outputs (observations, infos, whole trajectories: nested dicts, tuples and arrays) are equal."""
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y)
    else:
        np.testing.assert_array_equal(a, b)


@contextlib.contextmanager
def registered(entry) -> Iterator:
    """``entry`` (a ``registry.Game``) registered while the block runs, and the registry (and Gymnasium's, for a
    single-player game) as before after it: the tests' toy games."""
    import gymnasium as gym

    from deduction_envs import registry

    games = dict(registry._GAMES)
    registry.register_game(entry)
    try:
        yield entry
    finally:
        registry._GAMES.clear()
        registry._GAMES.update(games)
        gym.registry.pop(entry.env_id, None)
