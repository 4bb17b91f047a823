"""The Figure 5 experiment command, on a small run."""

from __future__ import annotations

import csv

import pytest

from train.experiments import paper_figure5


def test_quick_run_writes_the_table_the_csv_and_the_figure(tmp_path, capsys):
    argv = ["--quick", "--games", "FakeCoin", "LowMiddleHigh", "--time-limit", "0.005", "--output", str(tmp_path)]
    paper_figure5.main(argv)
    rows = list(csv.DictReader((tmp_path / "paper_figure5.csv").open()))
    assert [(r["game"], r["size"], r["agent"]) for r in rows] == [
        (game, size, agent)
        for game, size in (("FakeCoin", "6"), ("LowMiddleHigh", "27"))
        for agent in paper_figure5.AGENT_NAMES
    ]
    assert all(int(r["trials"]) == 10 for r in rows)
    by_cell = {(r["game"], r["agent"]): r for r in rows}
    # Exhaustive ISES splits 27 numbers into thirds: 3 queries for every secret.
    assert float(by_cell["LowMiddleHigh", "ISES"]["mean_steps"]) == 3.0
    assert float(by_cell["LowMiddleHigh", "ISES"]["ci95"]) == 0.0
    # Fake Coin with 6 coins: 12 secrets, so no strategy can always finish in 2 weighings, and ISES needs 3.
    assert int(by_cell["FakeCoin", "ISES"]["worst"]) == 3

    table = (tmp_path / "paper_figure5.md").read_text()
    assert "| LowMiddleHigh | 27 | 27 | " in table and "3.00 ± 0.00" in table
    assert table in capsys.readouterr().out
    png = (tmp_path / "paper_figure5.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--trials", "0"], "argument --trials: must be an integer >= 1, got 0"),
        (["--workers", "0"], "argument --workers: must be an integer >= 1, got 0"),
        (["--time-limit", "0"], "argument --time-limit: must be a finite number > 0, got 0"),
        (["--games", "Chess"], "invalid choice: 'Chess'"),
    ],
)
def test_bad_arguments_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        paper_figure5.main(argv)
    assert message in capsys.readouterr().err


def test_every_size_is_a_valid_game_and_sizes_grow():
    for game, (_, _, sizes) in paper_figure5.SIZES.items():
        counts = [paper_figure5.make_rules(game, **kwargs).num_secrets for _, kwargs in sizes]
        assert len(counts) == 3 and counts == sorted(counts) and len(set(counts)) == 3, game


def test_a_cell_split_into_parts_plays_the_trials_evaluate_plays():
    """Parts of PART_TRIALS trials (jobs of any worker, in any order) give the trials of one evaluate() call."""
    from agents import evaluate

    settings = paper_figure5.Settings(("LowMiddleHigh",), 120, 0.005, 7, False)
    cell = paper_figure5.Cell("LowMiddleHigh", "81", "random")
    parts = [part for part in paper_figure5.jobs(settings) if part.cell == cell]
    assert [(p.start, p.stop) for p in parts] == [(0, 50), (50, 100), (100, 120)]
    played = [paper_figure5.run_part(part, settings) for part in reversed(parts)][::-1]
    env_kwargs = {"n": 81, "max_steps": 81}
    whole = evaluate(paper_figure5.make_agent("random", 0.005), "LowMiddleHigh-v0", env_kwargs,
                     secrets="sample", episodes=120, seed=7, progress=False)  # fmt: skip
    assert [s for part in played for s in part[0]] == whole.steps.tolist()
    assert paper_figure5.cell_result(cell, played).mean_steps == whole.mean_steps
