"""Settings of the fuzz suite (``tests/test_fuzz*.py``, ``tests/test_worst_cases.py``), and the replay the Clue
leak tests compare two deals with (:func:`seat_observations`).

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


def seat_observations(env, rules, actions, observer: int, rng=None):
    """Every observation of seat ``observer`` (``env.encode`` of its knowledge) as ``actions`` are replayed on a
    new table of ``rules`` (a fixed deal): the deal's observation first. The leak tests compare two deals so."""
    import numpy as np

    from deduction_envs import registry
    from deduction_envs.core.multiplayer import Table

    knowledge = [registry.new_knowledge(rules, p) for p in range(rules.players)]
    table = Table(rules, np.random.default_rng(0) if rng is None else rng, [k.update for k in knowledge])
    seen = [env.encode(knowledge[observer])]
    for action in actions:
        table.step(action)
        seen.append(env.encode(knowledge[observer]))
    return np.array(seen)
