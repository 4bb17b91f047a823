import math

import numpy as np
import pytest

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
