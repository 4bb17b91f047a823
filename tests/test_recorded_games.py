"""Recorded multiplayer games replay exactly: the same actions, observations and outcomes.

The records in ``tests/data`` were written by ``python -m scripts.record_games``;
a change that alters one of these games shows here (and, if meant, in review,
with the records written again).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recorded_games import GAMES, record

DATA = Path(__file__).resolve().parent / "data"


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game", sorted(GAMES))
def test_recorded_games_replay_exactly(game):
    recorded = json.loads((DATA / f"{game}_games.json").read_text())
    replayed = json.loads(json.dumps(record(game)))  # the same JSON types as the file
    for kind in recorded:
        for old, new in zip(recorded[kind], replayed[kind], strict=True):
            assert new == old, f"{game} {kind} seed {old['seed']} differs from its record"
