"""The Algo article's Experiment 1 command on a tiny run."""

from __future__ import annotations

import pytest

from train import algo_experiments


def test_round_robin_writes_the_articles_table(tmp_path):
    wins = algo_experiments.main(["--games", "3", "--output", str(tmp_path)])
    assert wins.shape == (4, 4) and ((0 <= wins) & (wins <= 3)).all()
    assert wins.tolist() == algo_experiments.round_robin(3).tolist()  # seeded: the same games again
    report = (tmp_path / "algo.md").read_text()
    assert "| first \\ second | 0 | 0.1 | 0.5 | 1 | mean |" in report
    assert "(0.49)" in report  # the article's figure beside ours


def test_bad_games_is_a_clear_error(capsys):
    with pytest.raises(SystemExit):
        algo_experiments.main(["--games", "0"])
    assert "--games must be at least 1" in capsys.readouterr().err
