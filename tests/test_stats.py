"""The small statistics of the experiments' tables, against scipy and hand-worked cases."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from train.stats import chunks, format_p, interval, over_seeds, sign_test, t_interval


def test_the_sign_test_counts_the_pairs_where_exactly_one_won():
    first = [True, True, False, True, False, True, True]
    second = [True, False, False, False, True, False, True]
    only_first, only_second, p = sign_test(first, second)
    assert (only_first, only_second) == (3, 1)  # pairs 1, 3, 5 against pair 4; ties (0, 2, 6) left out
    assert p == pytest.approx(binomtest(3, 4).pvalue) and p == pytest.approx(0.625)  # 2 * (1 + 4) / 16
    assert sign_test([True, False], [True, False]) == (0, 0, 1.0)
    with pytest.raises(ValueError):
        sign_test([True], [True, False])  # games of the same deals only


def test_wilson_interval_chunks_and_p_values():
    low, high = interval(50, 100)
    assert low < 0.5 < high and high - 0.5 == pytest.approx(0.5 - low)
    assert chunks(45, 20) == [(0, 20), (20, 20), (40, 5)]
    assert format_p(0.04321) == "0.043" and format_p(3e-9) == "3.0e-09" and format_p(0.0) == "< 1e-300"


def test_the_t_interval_over_seeds_is_worked_by_hand_and_wider_than_the_range():
    # 1, 2, 3: mean 2, s = 1, t(0.975, 2) = 4.302653, half width 4.302653 / sqrt(3) = 2.484138.
    low, high = t_interval([1.0, 2.0, 3.0])
    assert (low, high) == pytest.approx((2 - 2.484138, 2 + 2.484138), abs=1e-6)
    assert np.isnan(t_interval([5.0])).all()  # one seed: no interval
    assert t_interval([4.0, 4.0]) == (4.0, 4.0)
    assert over_seeds([1.0, 2.0, 3.0]) == "2.000 [-0.484, 4.484] (range 1.000 to 3.000)"
    assert over_seeds([5.0]) == "5.000 (one seed)"
