"""Each question scored in bits against the best question from the same knowledge, and a game's information
efficiency: one definition for every game of the text layer.

A question's score is ``(gained, expected, best)``: the bits of uncertainty it removed (the player's entropy
before it, less after its answer), the bits it was expected to remove (its information gain, averaged over the
answers the player's knowledge allowed), and the most any legal question was expected to remove from the same
knowledge. The game's information efficiency is the sum of ``expected`` over the sum of ``best``, over the
questions where some question could gain anything: 1.0 when every question was as informative as the best.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["EPSILON", "Bits", "efficiency"]

#: Bits below which a question is taken to gain nothing (rounding of the entropies).
EPSILON = 1e-9

#: A question's ``(gained, expected, best)`` bits.
Bits = tuple[float, float, float]


def efficiency(bits: Iterable[Bits]) -> float:
    """The information efficiency of a game's questions (their ``(gained, expected, best)`` bits): the expected
    bits over the best's, summed over the questions whose best could gain anything; 1.0 if there were none."""
    expected = best = 0.0
    for _, gain, most in bits:
        if most > EPSILON:
            expected, best = expected + gain, best + most
    return expected / best if best > 0 else 1.0
