"""The report's sorted ask histograms: where a player's own cards fall among its asks, by hand and on a quick run."""

from __future__ import annotations

import pytest

from train.experiments import ask_patterns


def test_own_places_by_hand():
    game = {"counts": [[5, 4, 3, 2, 1, 0]], "hands": [[0, 1]]}
    place, most, least = ask_patterns.own_places(game, 0)
    assert place == pytest.approx((0 + 0.2) / 2) and most and not least  # places 0 and 1 of 0..5
    game = {"counts": [[5, 4, 3, 2, 1, 0]], "hands": [[4, 5]]}
    assert ask_patterns.own_places(game, 0) == (pytest.approx(0.9), False, True)
    # A tie across the hand's boundary: no set of the hand's size is the most (or least) asked.
    game = {"counts": [[3, 3, 3, 0, 0, 0]], "hands": [[0, 1]]}
    place, most, least = ask_patterns.own_places(game, 0)
    assert place == pytest.approx(0.2) and not most and not least  # three cards share places 0, 1, 2
    assert ask_patterns.own_places({"counts": [[0, 0, 0]], "hands": [[1]]}, 0) is None  # it never asked
    lines = ask_patterns.histogram_lines({"counts": [[1, 3, 0]], "hands": [[2]]}, 0)
    assert lines == ["  1: ***", "  0: *", "  2:   (own card)"]
    assert ask_patterns.lineup(3) == ["exact", "interrogation-pattern", "scoreboard(no spoof)"]
    assert ask_patterns.lineup(6)[4:] == ["scoreboard", "scoreboard"]


def test_a_quick_run_counts_every_ask_of_every_seat(tmp_path):
    finished = ask_patterns.main(["--quick", "--output", str(tmp_path), "--no-progress"])
    text = (tmp_path / "generalized_clue_ask_patterns.md").read_text()
    assert "| exact | 4 |" in text and "(own card)" in text and finished.run.quick
    games = [game for part in finished.results.values() for game in part]
    assert len(games) == 4
    for game in games:  # every first turn of the scoreboards asks every card: each card counted at least once
        seat = game["names"].index("scoreboard(no spoof)")
        assert min(game["counts"][seat]) >= 1 and len(game["hands"][seat]) == 4
