"""The Algo article's Experiment 1 command on a tiny run."""

from __future__ import annotations

import pytest

from train.experiments import algo_experiments


def test_round_robin_writes_the_articles_table(tmp_path):
    argv = ["--games", "3", "--duel-games", "2", "--ismcts-games", "1", "--search-games", "1"]
    finished = algo_experiments.main([*argv, "--output", str(tmp_path / "a"), "--no-progress"])
    wins = algo_experiments.round_robin(finished.results)
    assert wins.shape == (4, 4) and ((0 <= wins) & (wins <= 3)).all()
    # Seeded by each game's place: the same tables in other parts over two processes.
    again = algo_experiments.main([*argv, "--chunk", "2", "--workers", "2", "--output", str(tmp_path / "b")])
    assert algo_experiments.round_robin(again.results).tolist() == wins.tolist()
    first, second = ((tmp_path / f).joinpath("algo.md").read_text().split("\n", 3)[3] for f in "ab")
    assert first == second  # every table equal (the command line, on line 3, differs)
    assert not (tmp_path / "a" / ".jobs").exists()  # the kept jobs are gone once the report is written
    report = (tmp_path / "a" / "algo.md").read_text()
    assert "| first \\ second | 0 | 0.1 | 0.5 | 1 | mean |" in report
    assert "(0.49)" in report  # the article's figure beside ours
    assert "## Experiment 2: max-entropy against epsilon-greedy(0.1)" in report and "u0 = " in report
    # The article's nats beside this project's former bits, on the same deals, with the test of their difference.
    experiment2 = report[report.index("## Experiment 2") : report.index("## Experiment 3")]
    assert "| max-entropy (nats, the article's) |" in experiment2 and "| max-entropy(bits) |" in experiment2
    assert "Fisher's exact test" in experiment2
    bits = algo_experiments.duels(finished.results, 2, "max-entropy(bits)")["epsilon-greedy(0.1)"]
    assert all(0 <= wins <= 2 for wins in bits)
    assert "| epsilon-greedy(0.1) | " in report and "| max-entropy | " in report  # Experiment 3
    experiment4 = report[report.index("## Experiment 4") :]
    assert "| ismcts_greedy moving first |" in experiment4 and experiment4.count("| max-entropy | ") == 1


def test_the_z_test_is_the_articles():
    u0, p_value = algo_experiments.z_test(54, 100)
    assert u0 == pytest.approx(0.8) and p_value == pytest.approx(0.2119, abs=1e-4)  # the article's u0 = 0.8 < 1.64


@pytest.mark.parametrize("option", ["--games", "--duel-games", "--ismcts-games", "--search-games"])
def test_bad_numbers_of_games_are_clear_errors(option, capsys):
    with pytest.raises(SystemExit):
        algo_experiments.main([option, "0"])
    assert f"argument {option}: must be an integer >= 1, got 0" in capsys.readouterr().err


def test_kept_models_take_seats_and_win_what_they_win_on_the_duels_deals(tmp_path):
    """Experiment 5 seats kept models (``model:NAME``) on the duels' deals: each model's wins are those of the
    model's seat policy played by hand on the same deals, and two seeds of a recipe get an interval over seeds."""
    from agents.multiplayer import play_game
    from deduction_envs.games.algo import AlgoRules
    from train.kept_models import seat_policy

    models = ["model:rl-algo2-seed-0", "model:rl-algo2-seed-1"]
    argv = ["--experiments", "5", "--models", *models, "--model-games", "2", "--seed", "4", "--chunk", "1"]
    finished = algo_experiments.main([*argv, "--output", str(tmp_path), "--no-progress"])
    rules = AlgoRules()
    for model in models:
        found = algo_experiments.duels(finished.results, 5, model)
        assert list(found) == list(algo_experiments.MODEL_OPPONENTS)
        for opponent, pair in found.items():
            by_hand = []
            for seat in (0, 1):
                won = 0
                for g in range(2):
                    agents = [seat_policy(model.removeprefix("model:")), algo_experiments.make_agent(opponent)]
                    won += play_game(rules, agents if seat == 0 else agents[::-1], seed=(4, 9, seat, g),
                                     first=0).winner == seat  # fmt: skip
                by_hand.append(won)
            assert pair == tuple(by_hand), (model, opponent)
    report = (tmp_path / "algo.md").read_text()
    assert "## Experiment 1" not in report and "## Experiment 5: the kept trained policies" in report
    assert "| rl-algo2-seed-1 | ismcts_greedy | " in report
    assert "| rl-algo2 | max-entropy | 2 | " in report  # the two seeds' mean with its t interval
    assert algo_experiments.recipe_of("model:rl-algo2-seed-12") == "rl-algo2"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--experiments", "5", "--models", "model:rl-algo2-seed-0", "model:rl-algo2-seed-0"], "named twice"),
        (["--models", "model:nothing"], "argument --models: invalid choice: 'model:nothing'"),
        (["--experiments", "6"], "argument --experiments: invalid choice: 6"),
    ],
)
def test_bad_experiment_5_arguments_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        algo_experiments.main(argv)
    assert message in capsys.readouterr().err
