"""Shannon entropy in bits: the one entropy function of the suite.

Every entropy figure in the package (information sets, rewards, agents,
analysis) goes through :func:`entropy_bits` or :func:`uniform_entropy_bits`, so
that they agree to the last bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "DEFAULT_ENTROPY_END",
    "ENTROPY_ENDS",
    "binary_entropy_bits",
    "check_shaping",
    "conditional_entropy_bits",
    "entropy_bits",
    "entropy_shaping",
    "grouped_conditional_entropy_bits",
    "sampled_entropy_bits",
    "uniform_entropy_bits",
]


def uniform_entropy_bits(count: int) -> float:
    """Entropy of a uniform distribution over ``count`` outcomes: ``log2(count)``.

    This is the entropy of an enumerated information set (equation 2 of Meng &
    Lucas, 2024).
    """
    if count < 1:
        raise ValueError(f"count must be >= 1 (an information set is never empty), got {count}")
    return math.log2(count)


def entropy_bits(weights: ArrayLike, axis: int = -1, *, check: bool = True) -> np.ndarray | float:
    """Shannon entropy in bits of non-negative ``weights`` along ``axis``.

    The weights are normalised first, so probabilities and raw counts give the
    same answer; zero weights contribute nothing (0 log 0 = 0). A 1-D input
    returns a float, a batch returns an array with ``axis`` removed. ``check=False``
    skips validating the weights, for callers whose weights are valid by
    construction (an information set's table), where it is the hot path.

    >>> entropy_bits([1, 1, 1, 1])
    2.0
    >>> entropy_bits([0.5, 0.5, 0.0])
    1.0
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.size == 0:
        raise ValueError("entropy_bits needs at least one weight")
    if check and (np.any(w < 0) or not np.all(np.isfinite(w))):
        raise ValueError("weights must be finite and non-negative")
    total = w.sum(axis=axis, keepdims=True)
    if check and np.any(total <= 0):
        raise ValueError("weights must not all be zero")
    p = w / total
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(p), 0.0)
    # Clip the tiny negative values that rounding leaves for point masses.
    h = np.maximum(terms.sum(axis=axis), 0.0)
    return float(h) if h.ndim == 0 else h


def sampled_entropy_bits(frequencies: ArrayLike, samples: int) -> float:
    """Entropy in bits estimated from the outcome ``frequencies`` of ``samples`` independent draws.

    The plug-in estimate (:func:`entropy_bits` of the frequencies) is biased
    low, by about ``(K - 1) / (2 N ln 2)`` bits for ``K`` observed outcomes and
    ``N`` draws; this is the Miller-Madow estimator, the plug-in estimate
    plus that first-order bias. Its remaining bias is of order ``1/N**2`` when
    every outcome is seen; outcomes never drawn (rare ones when ``N`` is small
    against the support) still make it an underestimate.

    >>> round(sampled_entropy_bits([0.5, 0.5], samples=100), 4)
    1.0072
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    plug_in = entropy_bits(frequencies)
    observed = int(np.count_nonzero(np.asarray(frequencies)))
    return float(plug_in + (observed - 1) / (2 * samples * math.log(2)))


def conditional_entropy_bits(joint: ArrayLike, sampled: bool = False) -> np.ndarray | float:
    """Expected entropy in bits of a value once an outcome is known, from joint weights ``(..., outcomes, values)``.

    ``sum_o P(o) H(value | o)``, batched over the leading axes (each batch's
    weights normalised on their own). With ``sampled``, the weights count
    independent draws (fractional weights allowed) and each outcome's entropy
    is the Miller-Madow estimate of :func:`sampled_entropy_bits` from its own
    draws: without it, outcomes seen in few draws would look more certain than
    they are, and a question with many outcomes more informative than it is.

    >>> conditional_entropy_bits([[1, 1], [2, 0]])  # half the time the outcome leaves 1 bit
    0.5
    """
    w = np.asarray(joint, dtype=np.float64)
    if w.ndim < 2:
        raise ValueError(f"joint needs an outcome axis and a value axis, got shape {w.shape}")
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite and non-negative")
    per_outcome = w.sum(axis=-1)
    total = per_outcome.sum(axis=-1)
    if np.any(total <= 0):
        raise ValueError("weights must not all be zero")
    with np.errstate(divide="ignore", invalid="ignore"):
        p = w / per_outcome[..., None]
        h = np.where(w > 0, -p * np.log2(p), 0.0).sum(axis=-1)  # each outcome's plug-in entropy
        if sampled:
            observed = np.count_nonzero(w, axis=-1)
            h = np.where(observed > 1, h + (observed - 1) / (2 * per_outcome * math.log(2)), h)
    result = np.maximum((per_outcome * h).sum(axis=-1) / total, 0.0)
    return float(result) if result.ndim == 0 else result


def grouped_conditional_entropy_bits(
    outcome: ArrayLike, value: ArrayLike, weights: ArrayLike | None = None, sampled: bool = False
) -> float:
    """:func:`conditional_entropy_bits` from draws instead of a table: for values too many to tabulate.

    ``outcome[i]`` and ``value[i]`` (integers) of draw ``i``, with ``weights``
    (default 1 each); the same estimate, Miller-Madow per outcome when
    ``sampled``, as the table of their joint weights would give.

    >>> grouped_conditional_entropy_bits([0, 0, 1, 1], [5, 7, 5, 5])
    0.5
    """
    outcome, value = np.asarray(outcome, dtype=np.int64), np.asarray(value, dtype=np.int64)
    w = np.ones(outcome.size) if weights is None else np.asarray(weights, dtype=np.float64)
    if outcome.shape != value.shape or w.shape != outcome.shape or outcome.ndim != 1:
        raise ValueError("outcome, value and weights must be 1-D and of one length")
    keep = w > 0
    if not keep.any():
        raise ValueError("weights must not all be zero")
    pairs, inverse = np.unique(np.stack([outcome[keep], value[keep]]), axis=1, return_inverse=True)
    joint = np.bincount(inverse.ravel(), w[keep])  # weight of each (outcome, value) pair
    _, group = np.unique(pairs[0], return_inverse=True)
    per_outcome = np.bincount(group.ravel(), joint)
    total = per_outcome.sum()
    # sum_o n_o H_o = sum_o n_o log n_o - sum_oc n_oc log n_oc
    h = (np.sum(per_outcome * np.log2(per_outcome)) - np.sum(joint * np.log2(joint))) / total
    if sampled:
        observed = np.bincount(group.ravel())
        h += np.sum(observed - 1) / (2 * total * math.log(2))
    return float(max(h, 0.0))


def binary_entropy_bits(p: ArrayLike) -> np.ndarray | float:
    """Entropy in bits of yes-or-no events of probabilities ``p`` (elementwise; 0 at 0 and 1).

    >>> binary_entropy_bits(0.5)
    1.0
    """
    p = np.asarray(p, dtype=np.float64)
    if np.any((p < 0) | (p > 1)) or not np.all(np.isfinite(p)):
        raise ValueError("probabilities must lie in [0, 1]")
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.where((p > 0) & (p < 1), -p * np.log2(p) - (1 - p) * np.log2(1 - p), 0.0)
    return float(h) if h.ndim == 0 else h


def entropy_shaping(
    entropy_before: Any, entropy_after: Any, *, scale: float = 1.0, gamma: float = 1.0, terminal: Any = False
) -> Any:
    """The potential-based shaping term for one step, with potential minus the entropy (bits).

    ``scale * (gamma * phi(s') - phi(s))`` with ``phi = -entropy`` and
    ``phi(s') = 0`` when ``s'`` is terminal. Numbers give a float; arrays (a
    batch of games, ``terminal`` one flag each) an array.
    """
    if np.ndim(entropy_before) == 0 and np.ndim(entropy_after) == 0 and np.ndim(terminal) == 0:
        potential_after = 0.0 if terminal else -entropy_after
        return scale * (gamma * potential_after + entropy_before)
    potential_after = np.where(terminal, 0.0, -np.asarray(entropy_after, dtype=np.float64))
    return scale * (gamma * potential_after + np.asarray(entropy_before, dtype=np.float64))


def check_shaping(scale: float, gamma: float) -> None:
    """Refuse an entropy shaping ``scale`` below 0 or a ``gamma`` outside [0, 1] with a ValueError naming it."""
    if not isinstance(scale, int | float) or isinstance(scale, bool) or not scale >= 0:
        raise ValueError(f"scale must be a number >= 0, got {scale!r}")
    if not isinstance(gamma, int | float) or isinstance(gamma, bool) or not 0 <= gamma <= 1:
        raise ValueError(f"gamma must be a number in [0, 1], got {gamma!r}")


#: What the entropy-shaped reward of a learner's seat pays at the last step of its game (the batched seats'
#: ``entropy_end``): ``"potential"`` (the default) the bits still unknown (the terminal potential is 0), so that the
#: shaping is potential-based and leaves the best policy as it is; ``"none"`` nothing for them, nor for what the end
#: of the game revealed, so that the learner is paid only for the bits it learned while the game went on (a reward
#: for proving the secret before leaving: not potential-based, it changes the best policy); ``"own"`` nothing at the
#: end either, and while the game goes on only the bits the learner's own move taught it: its entropy before the move
#: less its entropy when the turn passes from it (after the answer, a shown card included) or at its next decision if
#: the turn stays; the learner's last step in a game pays nothing. What the opponents' own moves reveal is not paid,
#: so an ask is paid for what its answer teaches (also not potential-based, and undiscounted).
ENTROPY_ENDS = ("potential", "none", "own")
#: The entropy reward's end when none is said (potential-based shaping).
DEFAULT_ENTROPY_END = "potential"
