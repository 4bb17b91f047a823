"""Settings of the fuzz suite (``tests/test_fuzz*.py``, ``tests/test_worst_cases.py``).

Each property runs a number of hypothesis examples sized for CI (the suite takes about a minute); the longer
fuzz command, ``python -m benchmarks.fuzz``, multiplies them by ``DEDUCTION_ENVS_FUZZ_SCALE``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

#: How many times the CI's examples each property runs (set by ``python -m benchmarks.fuzz``).
SCALE = int(os.environ.get("DEDUCTION_ENVS_FUZZ_SCALE", "1"))


def fuzz_settings(examples: int) -> settings:
    """``examples`` hypothesis examples (times :data:`SCALE`), no deadline (tests time nothing)."""
    return settings(max_examples=examples * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
