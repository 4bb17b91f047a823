"""The recorded games replay to the same text, step by step: the playthroughs in ``tests/data/playthroughs``
(random legal actions, every seat's observation) and the matches between reference agents in
``tests/data/matches``.

Written by ``python -m scripts.record_playthroughs``; on a difference the test names the first line that
differs, and a meant change is recorded again so that the review diff shows it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.matches import match, matches
from deduction_envs import registry
from deduction_envs.envs.playthrough import playthrough, playthroughs

DATA = Path(__file__).resolve().parent / "data"
DECLARED = list(playthroughs())
MATCHES = list(matches())


def same_text(path: Path, replayed: str) -> None:
    recorded, replayed_lines = path.read_text().splitlines(), replayed.splitlines()
    for number, (old, new) in enumerate(zip(recorded, replayed_lines, strict=False), start=1):
        assert new == old, f"{path.name}, line {number} differs from the record:\n  was: {old}\n  now: {new}"
    assert len(replayed_lines) == len(recorded), f"{path.name}: {len(replayed_lines)} lines, {len(recorded)} recorded"


@pytest.mark.parametrize(("name", "env_id", "kwargs", "seed"), DECLARED, ids=[d[0] for d in DECLARED])
def test_each_playthrough_replays_to_its_text(name, env_id, kwargs, seed):
    same_text(DATA / "playthroughs" / name, playthrough(env_id, kwargs, seed))


@pytest.mark.parametrize(("name", "env_id", "kwargs", "names", "seed"), MATCHES, ids=[m[0] for m in MATCHES])
def test_each_match_between_reference_agents_replays_to_its_text(name, env_id, kwargs, names, seed):
    same_text(DATA / "matches" / name, match(env_id, kwargs, names, seed))


def test_every_multiplayer_game_has_recorded_games_and_every_file_is_declared():
    multiplayer = {g.env_id for g in registry.games(multiplayer=True)}
    assert {env_id for _, env_id, *_ in DECLARED} == multiplayer == {env_id for _, env_id, *_ in MATCHES}
    for folder, declared in (("playthroughs", DECLARED), ("matches", MATCHES)):
        assert sorted(p.name for p in (DATA / folder).glob("*.txt")) == sorted(name for name, *_ in declared)


def test_a_match_is_written_one_decision_a_line_with_its_seat_agent_and_meaning():
    text = (DATA / "matches" / "clue_v0-0.txt").read_text().splitlines()
    assert text[0] == '# clue_v0 {"players": 3}, seed 1: entropy, deduction_sheet, random'
    assert text[2].startswith("   0 seat 0 (entropy): ") and "(suggest " in text[2]
    assert text[-1].startswith("won by ") and "rewards [" in text[-1]
