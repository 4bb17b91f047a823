"""The experiment runner: one command line for every experiment, seeded jobs, quick runs kept out of results/,
and a run interrupted part way resumed with ``--resume`` without replaying its finished jobs."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
from dataclasses import dataclass

import numpy as np
import pytest

from train import arguments
from train.experiments.runner import Experiment, Fold, Run, gather, run_experiment

#: Every experiment of train/experiments/ (each declares EXPERIMENT and runs through the runner).
EXPERIMENTS = ["algo_experiments", "analysis", "ask_patterns", "clue_board_experiments", "clue_experiments",
               "clue_walksat", "generalized_clue_experiments", "ises_lookahead", "ladder", "multiplayer_analysis",
               "paper_figure5", "report", "velma_ablations"]  # fmt: skip

PLAYED: list[int] = []  # the jobs the toy experiment played in this process, in order


@dataclass(frozen=True)
class Toy:
    jobs: int
    seed: int


def toy_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=arguments.count(1), default=6)


def toy_settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Toy:
    return Toy(2 if args.quick else args.jobs, args.seed)


def toy_play(job: int, settings: Toy) -> float:
    if str(job) == os.environ.get("TOY_FAIL_AT"):  # an interruption: not a setting, so not in the jobs' keys
        raise RuntimeError(f"interrupted at job {job}")
    PLAYED.append(job)
    return float(np.random.default_rng((settings.seed, job)).random())


def toy_write(settings: Toy, results: dict[int, float], run: Run) -> str:
    text = f"{run.command}\n" + "".join(f"{job} {value:.6f}\n" for job, value in results.items())
    (run.output / "toy.md").write_text(text)
    return text


TOY = Experiment("toy", "A toy experiment.", toy_options, toy_settings, lambda s: list(range(s.jobs)), toy_play,
                 toy_write, workers=1)  # fmt: skip


def test_an_interrupted_run_resumes_without_replaying_its_finished_jobs(tmp_path, monkeypatch):
    PLAYED.clear()
    monkeypatch.setenv("TOY_FAIL_AT", "4")
    with pytest.raises(RuntimeError, match="interrupted at job 4"):
        run_experiment(TOY, ["--output", str(tmp_path)])
    monkeypatch.delenv("TOY_FAIL_AT")
    assert PLAYED == [0, 1, 2, 3] and len(list((tmp_path / ".jobs" / "toy").iterdir())) == 4
    PLAYED.clear()
    resumed = run_experiment(TOY, ["--resume", "--output", str(tmp_path)])
    assert PLAYED == [4, 5]  # only the jobs the interrupted run had not finished
    assert not (tmp_path / ".jobs").exists()  # kept results go once the outputs are written
    PLAYED.clear()
    fresh = run_experiment(TOY, ["--output", str(tmp_path / "fresh")])
    assert PLAYED == list(range(6)) and fresh.results == resumed.results  # seeded: the same results either way
    tables = [(folder / "toy.md").read_text().splitlines()[1:] for folder in (tmp_path, tmp_path / "fresh")]
    assert tables[0] == tables[1]


def toy_fold_write(settings: Toy, tables: dict, run: Run) -> str:
    text = f"{run.command}\n{tables['jobs']} jobs, total {tables['total']:.6f}\n"
    (run.output / "toy.md").write_text(text)
    return text


def toy_add(tables: dict, job: int, value: float) -> dict:
    return {"jobs": tables["jobs"] + 1, "total": tables["total"] + value, "folded": tables["folded"] + [job]}


#: The toy experiment, folding its results as they arrive (saving its tables after every job).
TOY_FOLD = dataclasses.replace(TOY, write=toy_fold_write,
                               fold=Fold(lambda s: {"jobs": 0, "total": 0.0, "folded": []}, toy_add, save_every=0))


def test_a_folding_run_keeps_one_file_and_resumes_folding_each_job_once(tmp_path, monkeypatch):
    """The tables so far and the jobs in them are kept together in one file; after an interruption the rest of
    the jobs are played and folded, none twice, to the tables of an uninterrupted run."""
    PLAYED.clear()
    monkeypatch.setenv("TOY_FAIL_AT", "4")
    with pytest.raises(RuntimeError, match="interrupted at job 4"):
        run_experiment(TOY_FOLD, ["--output", str(tmp_path)])
    monkeypatch.delenv("TOY_FAIL_AT")
    assert [path.name for path in (tmp_path / ".jobs" / "toy").iterdir()] == ["folded.pickle"]
    PLAYED.clear()
    resumed = run_experiment(TOY_FOLD, ["--resume", "--output", str(tmp_path)])
    assert PLAYED == [4, 5] and sorted(resumed.results["folded"]) == list(range(6))
    fresh = run_experiment(TOY_FOLD, ["--output", str(tmp_path / "fresh")])
    assert resumed.results["jobs"] == 6 and resumed.results["total"] == pytest.approx(fresh.results["total"])
    assert not (tmp_path / ".jobs").exists()


def test_a_run_without_resume_starts_afresh(tmp_path, monkeypatch):
    monkeypatch.setenv("TOY_FAIL_AT", "2")
    with pytest.raises(RuntimeError):
        run_experiment(TOY, ["--output", str(tmp_path)])
    monkeypatch.delenv("TOY_FAIL_AT")
    PLAYED.clear()
    run_experiment(TOY, ["--output", str(tmp_path)])
    assert PLAYED == list(range(6))


def test_resume_with_nothing_to_resume_says_so_and_plays_nothing(tmp_path, capsys):
    """``--resume --output NEWDIR`` silently started a full run."""
    PLAYED.clear()
    with pytest.raises(SystemExit) as exit_:
        run_experiment(TOY, ["--resume", "--output", str(tmp_path / "new")])
    assert exit_.value.code == 2 and PLAYED == []
    assert f"error: nothing to resume: {tmp_path / 'new' / '.jobs' / 'toy'} holds no jobs" in capsys.readouterr().err
    run_experiment(TOY, ["--output", str(tmp_path / "done")])  # finished: its kept jobs are gone, nothing to resume
    with pytest.raises(SystemExit):
        run_experiment(TOY, ["--resume", "--output", str(tmp_path / "done")])


def test_the_command_recorded_regenerates_the_run(tmp_path):
    finished = run_experiment(TOY, ["--jobs", "3", "--seed", "7", "--output", str(tmp_path / "a b")])
    assert finished.run.command == f"python -m train.experiments.toy --jobs 3 --seed 7 --output '{tmp_path}/a b'"
    assert finished.results == {j: float(np.random.default_rng((7, j)).random()) for j in range(3)}


def test_quick_runs_go_to_runs_quick_and_never_to_results(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    finished = run_experiment(TOY, ["--quick"])
    assert finished.run.output.as_posix() == "runs/quick" and (tmp_path / "runs/quick/toy.md").exists()
    with pytest.raises(SystemExit) as exit_:
        run_experiment(TOY, ["--quick", "--output", "results"])
    assert exit_.value.code == 2 and "--quick runs never overwrite results/" in capsys.readouterr().err


def test_a_job_declared_twice_is_refused(tmp_path):
    twice = Experiment("twice", "", toy_options, toy_settings, lambda s: [0, 1, 0], toy_play, toy_write)
    with pytest.raises(ValueError, match="declared a job twice"):
        run_experiment(twice, ["--output", str(tmp_path)])


def test_gather_joins_a_tournaments_parts_in_game_order():
    parts = {("b", 2, 2): ["b2", "b3"], ("a", 0, 2): ["a0", "a1"], ("b", 0, 2): ["b0", "b1"], ("a", 2, 1): ["a2"]}
    assert gather(parts) == {("a",): ["a0", "a1", "a2"], ("b",): ["b0", "b1", "b2", "b3"]}


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_experiment_is_declared_for_the_runner(name):
    module = importlib.import_module(f"train.experiments.{name}")
    experiment = module.EXPERIMENT
    assert experiment.name == name and experiment.description == module.__doc__
    assert experiment.play.__module__ == module.__name__  # a module-level function: the workers can run it


@pytest.mark.parametrize(("name", "outputs"), [("algo_experiments", ["algo.md"]),
                                               ("clue_board_experiments", ["clue_board.md", "clue_board.png"]),
                                               ("clue_walksat", ["clue_walksat.md", "clue_walksat.png"]),
                                               ("generalized_clue_experiments", ["generalized_clue.md",
                                                                                 "generalized_clue.png"]),
                                               ("velma_ablations", ["velma_ablations.md",
                                                                    "velma_ablations.png"])])  # fmt: skip
def test_a_quick_run_writes_its_outputs_with_the_command_that_wrote_them(name, outputs, tmp_path):
    """The quick modes the other experiments' tests do not run already (analysis and Figure 5 run theirs)."""
    module = importlib.import_module(f"train.experiments.{name}")
    finished = module.main(["--quick", "--output", str(tmp_path), "--no-progress"])
    assert finished.run.quick and finished.results
    for output in outputs:
        assert (tmp_path / output).stat().st_size > 500
    assert f"python -m train.experiments.{name} --quick --output {tmp_path} --no-progress" in (
        tmp_path / outputs[0]).read_text()  # fmt: skip


def test_a_run_killed_with_sigkill_resumes_to_the_table_of_an_uninterrupted_run(tmp_path):
    """The driver killed outright (no handler runs) mid-way: the same command with --resume ends as a run that
    was never interrupted, from the jobs the first kept."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    from train.experiments import algo_experiments

    argv = ["--games", "2", "--duel-games", "1", "--ismcts-games", "1", "--search-games", "1", "--chunk", "1"]
    root = Path(__file__).resolve().parent.parent
    killed = tmp_path / "killed"
    command = [sys.executable, "-m", "train.experiments.algo_experiments", *argv, "--output", str(killed)]
    driver = subprocess.Popen([*command, "--no-progress"], cwd=root, stdout=subprocess.DEVNULL)
    store = killed / ".jobs" / "algo_experiments"
    deadline = time.monotonic() + 120
    while len(list(store.glob("*.pickle"))) < 3 and driver.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    driver.kill()
    driver.wait()
    kept = len(list(store.glob("*.pickle")))
    assert kept >= 3 and not (killed / "algo.md").exists(), "the run should have been killed part way"

    algo_experiments.main([*argv, "--output", str(killed), "--resume", "--no-progress"])
    algo_experiments.main([*argv, "--output", str(tmp_path / "whole"), "--no-progress"])
    tables = [(folder / "algo.md").read_text().split("\n", 3)[3] for folder in (killed, tmp_path / "whole")]
    assert tables[0] == tables[1]


def test_a_tournament_cell_stops_a_looping_game_at_the_cap_and_its_report_counts_it():
    from test_clue_agents import NeverAccuses

    from agents import ClueDeductionSheet, Logged
    from agents.multiplayer import TOURNAMENT_MAX_ACTIONS
    from deduction_envs.games.clue import ClueRules
    from train.experiments.clue_experiments import summarise
    from train.experiments.runner import match_summaries, truncated_line

    rules = ClueRules(3)
    looping = match_summaries(rules, [Logged(NeverAccuses()) for _ in range(3)], 1, 0, 0, summarise)
    assert looping[0]["truncated"] and not looping[0]["contender_won"] and looping[0]["winner_side"] is None
    ended = match_summaries(rules, [Logged(ClueDeductionSheet()) for _ in range(3)], 2, 0, 0, summarise)
    assert not any(game["truncated"] for game in ended)
    line = truncated_line({("looping",): looping, ("ended",): ended})
    assert f"cap of {TOURNAMENT_MAX_ACTIONS:,} actions" in line and line.endswith(": 1 of 3.")
