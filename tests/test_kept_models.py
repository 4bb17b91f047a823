"""Kept models (train.kept_models): each reproduces the figure its manifest records, exactly."""

from __future__ import annotations

import hashlib
import json

import pytest

from train import cli
from train.kept_models import MODELS, check, figures_text, keep, load_manifest, main, remeasure

TINY = ["--env", "Mastermind-v0", "--size", "pegs=3", "--size", "colors=3", "--policy", "features"]
TINY += ["--imitate", "ises", "--imitate-games", "60", "--imitate-secrets", "0.5", "--timesteps", "0"]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    policy, *_ = cli.main([*TINY, "--eval-time-limit", "0.002", "--no-progress", "--output", str(out)])
    return out, policy


def test_a_kept_model_records_its_figures_and_check_reproduces_them(tiny_run, tmp_path, capsys):
    run, policy = tiny_run
    entry = keep(run, "tiny", "imitation of exhaustive ISES (static head), half the secrets", "python -m train ...",
                 folder=tmp_path)  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "tiny").iterdir()) == ["imitation.json", "model.zip", "run.json"]
    assert entry.evaluate == ["--no-references", "--eval-secrets", "27"] and entry.seed == 0
    # The figures are the training run's own evaluation: the same deterministic play on every secret.
    assert entry.figures["mean_steps"] == pytest.approx(policy.mean_steps, abs=1e-9)
    assert entry.figures["episodes"] == 27 and {"mean_steps_seen", "mean_steps_unseen"} <= set(entry.figures)
    assert entry.sha256 == hashlib.sha256((tmp_path / "tiny" / "model.zip").read_bytes()).hexdigest()
    assert json.loads((run / "run.json").read_text())["commit"] == entry.commit
    assert check(folder=tmp_path) == [f"tiny: same figures: {figures_text(entry.figures)}"]
    # A figure that the model does not reproduce, or a file that is not the recorded one, fails the check.
    manifest = tmp_path / "manifest.json"
    entries = json.loads(manifest.read_text())
    entries[0]["figures"]["mean_steps"] += 0.001
    manifest.write_text(json.dumps(entries))
    with pytest.raises(AssertionError, match="tiny: recorded"):
        check(folder=tmp_path)
    entries[0]["sha256"] = "0" * 64
    manifest.write_text(json.dumps(entries))
    with pytest.raises(AssertionError, match="not the file the manifest records"):
        check(folder=tmp_path)
    with pytest.raises(ValueError, match="no kept model named nothing"):
        check(["nothing"], folder=tmp_path)
    with pytest.raises(FileNotFoundError, match="holds no run"):
        keep(tmp_path / "missing", "x", "k", "c", folder=tmp_path)
    with pytest.raises(ValueError, match="folder name"):
        keep(run, "../x", "k", "c", folder=tmp_path)
    with pytest.raises(SystemExit):
        main(["keep", str(run), "x"])  # --kind and --command are required
    assert "--kind" in capsys.readouterr().err


def test_remeasure_records_new_figures_and_keeps_the_replaced_ones_with_the_reason(tiny_run, tmp_path, capsys):
    run, _ = tiny_run
    entry = keep(run, "tiny", "k", "python -m train ...", folder=tmp_path)
    manifest = tmp_path / "manifest.json"
    entries = json.loads(manifest.read_text())
    entries[0]["figures"]["mean_steps"] += 0.5  # as if measured against something that has since changed
    manifest.write_text(json.dumps(entries))
    (new,) = remeasure(["tiny"], "the opponent changed", folder=tmp_path)
    assert new.figures == entry.figures  # what the evaluation finds now
    (earlier,) = new.extra["earlier"]
    assert earlier["replaced"] == "the opponent changed" and earlier["figures"]["mean_steps"] == pytest.approx(
        entry.figures["mean_steps"] + 0.5)  # fmt: skip
    assert check(folder=tmp_path) == [f"tiny: same figures: {figures_text(entry.figures)}"]
    main(["remeasure", "tiny", "--why", "again", "--folder", str(tmp_path)])
    assert "tiny: the same figures" in capsys.readouterr().out
    assert len(load_manifest(tmp_path)[0].extra["earlier"]) == 1  # nothing replaced, nothing added
    for argv, message in [(["remeasure", "tiny", "--why", " "], "say why"),
                          (["remeasure", "nothing", "--why", "x"], "no kept model named 'nothing'"),
                          (["remeasure", "tiny"], "--why")]:  # fmt: skip
        with pytest.raises(SystemExit):
            main([*argv, "--folder", str(tmp_path)])
        assert message in capsys.readouterr().err


def test_a_kept_model_takes_its_own_evaluation_arguments(tiny_run, tmp_path):
    run, _ = tiny_run
    entry = keep(run, "sampled", "k", "python -m train ...", evaluation=["--no-references", "--eval-secrets", "10",
                 "--seed", "1"], folder=tmp_path)  # fmt: skip
    assert entry.evaluate[-1] == "1" and entry.figures["episodes"] == 10  # 10 sampled secrets of 27
    assert "mean_steps_unseen" not in entry.figures  # the halves are scored apart only over every secret
    assert check(folder=tmp_path) == [f"sampled: same figures: {figures_text(entry.figures)}"]


def test_keep_never_replaces_unasked_and_the_command_line_says_where_and_what(tiny_run, tmp_path, capsys):
    """``keep RUN NAME`` silently replaced a kept model (rc 0); ``keep models/X X`` ended in SameFileError;
    ``check NAME -- --bogus`` ignored the extra arguments; ``check`` printed nothing until every model was done;
    ``list`` had no command column and printed figures as Python dicts."""
    run, _ = tiny_run
    folder = tmp_path / "kept"
    main(["keep", str(run), "tiny", "--kind", "first", "--command", "python -m train A", "--folder", str(folder),
          "--", "--no-references", "--eval-secrets", "5"])  # fmt: skip
    assert f"kept {folder / 'tiny' / 'model.zip'}: " in capsys.readouterr().out
    for argv, message in [
        (["keep", str(run), "tiny"], "kept already: give another name, or --replace to replace it"),
        (["keep", str(folder / "tiny"), "tiny", "--replace"], "is the kept model 'tiny' itself"),
        (["check", "tiny", "--", "--bogus"], "check takes none, got ['--bogus']"),
        (["list", "--", "x"], "list takes none"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            main([*argv, "--kind", "second", "--command", "python -m train B", "--folder", str(folder)]
                 if argv[0] == "keep" else [*argv[:2], "--folder", str(folder), *argv[2:]])  # fmt: skip
        assert exit_.value.code == 2 and message in capsys.readouterr().err, argv
    assert [m.command for m in load_manifest(folder)] == ["python -m train A"]  # nothing replaced
    main(["keep", str(run), "tiny", "--kind", "second", "--command", "python -m train B", "--folder", str(folder),
          "--replace", "--", "--no-references", "--eval-secrets", "5"])  # fmt: skip
    assert [m.command for m in load_manifest(folder)] == ["python -m train B"]
    capsys.readouterr()
    main(["list", "--markdown", "--folder", str(folder)])
    table = capsys.readouterr().out
    assert "| model | what it is | env | figures | command | size |" in table
    assert "| tiny | second | Mastermind-v0 pegs=3 colors=3 | " in table and "`python -m train B`" in table
    assert "mean steps over 5 episodes" in table and "{" not in table  # figures in words, not a dict
    reported = []
    lines = check(folder=folder, report=reported.append)
    assert reported == lines and lines[0].startswith("tiny: same figures: ")  # each said as it is done
    with pytest.raises(SystemExit):
        main(["keep", "--help"])
    assert "the repository's" in capsys.readouterr().out


def test_figures_in_words():
    assert figures_text({"episodes": 1296, "mean_steps": 4.4761, "solved": 1.0, "worst": 6}) == (
        "4.4761 mean steps over 1,296 episodes, 100.0% solved, worst 6"
    )
    assert figures_text({"epsilon_greedy": {"games": 2000, "wins": 1103, "mean_rank": 1.4485}}) == (
        "vs epsilon_greedy: 1,103 of 2,000 won (55.1%), mean rank 1.4485"
    )


def test_the_repositorys_kept_models_are_whole_small_and_described():
    models = load_manifest()
    assert models, "models/manifest.json lists no model"
    for m in models:  # a few MB each (Low-Middle-High's: 5.35, its 2,352 one-hot history entries into two 256 MLPs)
        data = (MODELS / m.name / m.file).read_bytes()
        # at most 7 MB: Wordle's expert-iteration network is 6.6 MB, its policy head 10,000 guesses x 128 floats
        assert hashlib.sha256(data).hexdigest() == m.sha256 and len(data) == m.bytes <= 7_000_000, m.name
        assert m.kind and m.command.startswith("python -m train") and m.commit != "unknown", m.name
        assert (MODELS / m.name / "run.json").exists(), m.name


def test_the_smallest_kept_single_player_model_reproduces_its_figures_exactly():
    single = [m for m in load_manifest() if "mean_steps" in m.figures]
    assert single, "no single-player model is kept"
    smallest = min(single, key=lambda m: m.figures["episodes"] * m.figures["mean_steps"])
    assert check([smallest.name]) == [f"{smallest.name}: same figures: {figures_text(smallest.figures)}"]


def test_a_kept_clue_model_takes_a_seat_in_the_tournament_and_wins_there_what_its_evaluation_finds(tmp_path):
    """The Clue tournament seats a kept model (``model:NAME``) at its player count only, and on the same deals
    (game g seeded (seed, g), seats rotated) it wins exactly the games ``train.evaluate`` finds."""
    from train.evaluate import evaluate_model
    from train.experiments import clue_experiments
    from train.kept_models import seat_policy

    name = "clue-imitation-entropy"
    contender = f"model:{name}"
    assert contender in clue_experiments.kept_contenders()
    assert clue_experiments.cells(3, (contender,)) == []  # trained for 4 players
    argv = ["--games", "8", "--players", "3", "4", "--contenders", contender, "--opponents", "deduction-sheet"]
    finished = clue_experiments.main([*argv, "--workers", "1", "--seed", "5", "--output", str(tmp_path)])
    tally = finished.results[4, contender, "deduction-sheet"]
    (found,) = evaluate_model(MODELS / name / "model.zip", opponents=["deduction_sheet"], games=8, seed=5,
                              output=tmp_path / "evaluation")  # fmt: skip
    assert tally.games == found.games == 8
    assert tally.wins == found.wins
    assert f"| {contender} | deduction-sheet | 8 |" in (tmp_path / "clue.md").read_text()
    with pytest.raises(ValueError, match="no kept model named 'nothing'"):
        seat_policy("nothing")
    with pytest.raises(ValueError, match="single-player game"):
        seat_policy("wordle-ises")


def test_list_fits_a_terminal_and_the_full_table_is_asked_for(capsys):
    """``list`` printed 45 markdown rows over 1,000 characters wide."""
    main(["list"])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(load_manifest()) + 2 and max(map(len, lines)) <= 120
    assert lines[-1].startswith(f"{len(load_manifest())} models") and "--markdown" in lines[-1]
    main(["list", "--markdown"])
    table = capsys.readouterr().out
    assert table.startswith("| model | what it is |") and all(m.command in table for m in load_manifest())
