"""The playthroughs in ``tests/data/playthroughs`` replay to the same text, step by step.

Written by ``python -m scripts.record_playthroughs``; on a difference the test names the first line that
differs, and a meant change is recorded again so that the review diff shows it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deduction_envs import registry
from deduction_envs.envs.playthrough import playthrough, playthroughs

DATA = Path(__file__).resolve().parent / "data" / "playthroughs"
DECLARED = list(playthroughs())


@pytest.mark.parametrize(("name", "env_id", "kwargs", "seed"), DECLARED, ids=[d[0] for d in DECLARED])
def test_each_playthrough_replays_to_its_text(name, env_id, kwargs, seed):
    recorded = (DATA / name).read_text().splitlines()
    replayed = playthrough(env_id, kwargs, seed).splitlines()
    for number, (old, new) in enumerate(zip(recorded, replayed, strict=False), start=1):
        assert new == old, f"{name}, line {number} differs from the record:\n  was: {old}\n  now: {new}"
    assert len(replayed) == len(recorded), f"{name}: {len(replayed)} lines replayed, {len(recorded)} recorded"


def test_every_multiplayer_game_has_a_playthrough_and_every_file_is_declared():
    assert {env_id for _, env_id, _, _ in DECLARED} == {g.env_id for g in registry.games(multiplayer=True)}
    assert sorted(p.name for p in DATA.glob("*.txt")) == sorted(name for name, *_ in DECLARED)
