import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs.core import entropy_bits, sampled_entropy_bits, uniform_entropy_bits


def test_hand_worked_entropies():
    assert entropy_bits([1, 1, 1, 1]) == pytest.approx(2.0)
    assert entropy_bits([0.5, 0.25, 0.25]) == pytest.approx(1.5)
    assert entropy_bits([3, 0, 0]) == 0.0
    assert uniform_entropy_bits(1296) == pytest.approx(math.log2(1296))
    assert uniform_entropy_bits(1) == 0.0


def test_counts_and_probabilities_agree_and_batches_reduce_along_axis():
    counts = np.array([[1, 3, 4], [2, 2, 0]])
    batch = entropy_bits(counts)
    assert batch.shape == (2,)
    assert batch[0] == pytest.approx(entropy_bits(counts[0] / counts[0].sum()))
    assert batch[1] == pytest.approx(1.0)


@pytest.mark.parametrize("weights", [[], [0, 0], [1, -1], [1, np.nan]])
def test_bad_weights_are_rejected(weights):
    with pytest.raises(ValueError, match="weight"):
        entropy_bits(weights)


def test_uniform_entropy_needs_a_non_empty_set():
    with pytest.raises(ValueError, match="count must be >= 1"):
        uniform_entropy_bits(0)


def test_the_sampled_estimate_corrects_most_of_the_plug_in_bias():
    """Uniform over 64 outcomes (6 bits), 300 draws: the plug-in estimate is low; Miller-Madow is far closer."""
    rng = np.random.default_rng(0)
    plug_in, corrected = [], []
    for _ in range(200):
        counts = np.bincount(rng.integers(64, size=300), minlength=64)
        plug_in.append(entropy_bits(counts))
        corrected.append(sampled_entropy_bits(counts / 300, samples=300))
    assert 6 - np.mean(plug_in) > 0.1  # biased low by about (64 - 1) / (2 * 300 * ln 2) = 0.15 bits
    assert abs(6 - np.mean(corrected)) < 0.3 * (6 - np.mean(plug_in))
    with pytest.raises(ValueError, match="samples must be >= 1"):
        sampled_entropy_bits([1.0], samples=0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_conditional_entropy_from_a_table_and_from_draws_agree(seed, sampled):
    from deduction_envs.core.entropy import conditional_entropy_bits, grouped_conditional_entropy_bits

    rng = np.random.default_rng(seed)
    outcome, value = rng.integers(0, 4, 300), rng.integers(0, 9, 300)
    weights = None if sampled else rng.random(300)  # Miller-Madow counts draws: whole weights
    table = np.zeros((4, 9))
    np.add.at(table, (outcome, value), 1.0 if weights is None else weights)
    dense = conditional_entropy_bits(table, sampled=sampled)
    assert grouped_conditional_entropy_bits(outcome, value, weights, sampled=sampled) == pytest.approx(dense)
    # By hand: the expected entropy of the value given the outcome (plug-in).
    p = table / table.sum()
    by_hand = sum(p[o].sum() * entropy_bits(table[o]) for o in range(4) if table[o].sum() > 0)
    if not sampled:
        assert dense == pytest.approx(by_hand)
    assert 0 <= conditional_entropy_bits(table) <= entropy_bits(table.sum(axis=0)) + 1e-12  # knowing never hurts
