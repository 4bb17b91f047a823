import math

import numpy as np
import pytest

from deduction_envs.core import entropy_bits, uniform_entropy_bits


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
