"""Fuzzing the command lines: every bad value is a one-line error and exit status 2 before any work starts.

Each command line's parser is taken as its ``main`` builds it (``parse_args`` is intercepted, so nothing runs).
Every numeric or path option must use a checked type of :mod:`train.arguments`; every value such a type
refuses must then end ``main`` at once with ``prog: error: argument --option: ...`` and status 2, however
long the command would otherwise run.
"""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path
from unittest import mock

import pytest

from train import arguments

COMMANDS = [
    "train.cli",
    "train.evaluate",
    "train.tools.play",
    "train.tools.demo",
    "train.experiments.analysis",
    "train.experiments.algo_experiments",
    "train.experiments.clue_experiments",
    "train.experiments.clue_board_experiments",
    "train.experiments.velma_ablations",
    "train.experiments.generalized_clue_experiments",
    "train.experiments.paper_figure5",
    "train.experiments.report",
    "train.tools.assistant.__main__",
]
#: Text a checked type is given; each one it refuses must stop the command.
NONSENSE = ["-1", "0", "1.5", "x", "", "nan", "inf", "-inf", "1e400", "99999999999999999999", "/proc/x/y", "none.zip"]
#: Types that are not numbers or paths (names, sizes, choices of words).
UNCHECKED_OK = {"parse_size", "names", "str"}


class Parsed(Exception):
    """Raised in place of parsing: carries the parser ``main`` built."""


def parser_of(command: str) -> argparse.ArgumentParser:
    def intercept(self, args=None, namespace=None):
        raise Parsed(self)

    module = importlib.import_module(command)
    with mock.patch.object(argparse.ArgumentParser, "parse_args", intercept), pytest.raises(Parsed) as parsed:
        module.main([])
    return parsed.value.args[0]


def options(command: str) -> list[argparse.Action]:
    return [a for a in parser_of(command)._actions if a.option_strings and a.type is not None]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_numeric_or_path_option_has_a_checked_type(command):
    for action in options(command):
        name = getattr(action.type, "__name__", repr(action.type))
        assert getattr(action.type, "checked", False) or name in UNCHECKED_OK, (
            f"{command} {action.option_strings[-1]}: type {name} is not checked (use train.arguments)"
        )


@pytest.mark.parametrize("command", COMMANDS)
def test_every_value_a_checked_type_refuses_stops_the_command_in_one_line(command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(command)
    tried = 0
    for action in options(command):
        if not getattr(action.type, "checked", False):
            continue
        option = action.option_strings[-1]
        for text in NONSENSE:
            try:
                action.type(text)
                continue  # a value this option takes: running it would start work
            except argparse.ArgumentTypeError:
                pass
            argv = [option, *[text] * (action.nargs if isinstance(action.nargs, int) else 1)]
            with pytest.raises(SystemExit) as exit_:
                module.main(argv)
            err = capsys.readouterr().err.strip().splitlines()
            assert exit_.value.code == 2 and f"error: argument {option}: " in err[0] and len(err) == 2, (command, err)
            tried += 1
    assert tried or not any(getattr(a.type, "checked", False) for a in options(command))
    assert list(tmp_path.iterdir()) == []  # nothing written, no folder made


@pytest.mark.parametrize("command", [*COMMANDS, "train.kept_models"])
def test_help_is_plain_text_and_an_error_is_two_lines(command, capsys):
    """``python -m train --help`` showed Sphinx markup (````--output````, ``:class:``); each argparse error printed
    the whole usage (30 lines for ``python -m train``) before the one line that matters."""
    module = importlib.import_module(command)
    with pytest.raises(SystemExit) as exit_:
        module.main(["--help"])
    help_text = capsys.readouterr().out
    assert exit_.value.code == 0 and help_text.startswith("usage: ")
    assert "``" not in help_text and not re.search(r":(class|func|meth|mod|data|attr|doc):`", help_text)
    with pytest.raises(SystemExit) as exit_:
        module.main(["--no-such-option"])
    prog = "python -m train.kept_models" if command == "train.kept_models" else parser_of(command).prog
    err = capsys.readouterr().err.splitlines()
    assert exit_.value.code == 2 and len(err) == 2, err
    assert err[0].startswith(f"{prog}: error: ") and err[1] == f"({prog} --help lists the options)"


def test_sphinx_markup_becomes_plain_text():
    assert arguments.plain_text(
        "see :class:`train.config.RunConfig`, :func:`~train.training.run`, ``--output``, :doc:`the page <x/y>`"
    ) == "see train.config.RunConfig, run, --output, the page"


def test_the_checked_types_accept_and_refuse_what_they_say(tmp_path):
    assert arguments.count(1)("3") == 3 and arguments.count(0, 5)("0") == 0
    for bad in ("0", "-1", "1.5", "x"):
        with pytest.raises(argparse.ArgumentTypeError, match="must be an integer >= 1"):
            arguments.count(1)(bad)
    assert arguments.seconds("0.25") == 0.25 and arguments.number(-1, 1)("-1") == -1.0
    for bad in ("0", "-0.1", "nan", "inf", "1e400", "x"):
        with pytest.raises(argparse.ArgumentTypeError, match="number > 0"):
            arguments.seconds(bad)
    with pytest.raises(argparse.ArgumentTypeError, match=r"must be a finite number \[-1, 1\], got 2"):
        arguments.number(-1, 1)("2")
    with pytest.raises(argparse.ArgumentTypeError, match="must be an integer >= 0, got -1"):
        arguments.seed("-1")
    with pytest.raises(argparse.ArgumentTypeError, match=r"must be an integer in \[1, 65535\], got 0"):
        arguments.port("0")
    (tmp_path / "file").write_text("x")
    with pytest.raises(argparse.ArgumentTypeError, match="is not a model as stable-baselines3"):
        arguments.model_zip(str(tmp_path / "file"))
    with pytest.raises(argparse.ArgumentTypeError, match="no file at"):
        arguments.existing_file(str(tmp_path / "none"))
    with pytest.raises(argparse.ArgumentTypeError, match="exists and is not a folder"):
        arguments.output_folder(str(tmp_path / "file"))
    assert arguments.output_folder(str(tmp_path / "a" / "b")) == tmp_path / "a" / "b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # the folder was checked, not left behind
    assert arguments.output_folder(str(tmp_path)) == Path(tmp_path)


def test_a_folder_another_process_makes_during_the_check_is_taken_as_it_is(tmp_path, monkeypatch):
    """Two runs (or two test workers) checking one missing default folder at once: the one whose ``mkdir`` finds
    it made by the other takes it (the race CI met with ``runs/Mastermind-v0``) and removes nothing of it."""
    target, mkdir = tmp_path / "runs" / "game", Path.mkdir

    def made_meanwhile(self, *args, **kwargs):
        if self == target:
            mkdir(self, parents=True)  # the other process, just before us
            (self / "theirs").write_text("x")
            raise FileExistsError(17, "File exists")
        return mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", made_meanwhile)
    assert arguments.output_folder(str(target)) == target
    assert (target / "theirs").exists()


@pytest.mark.parametrize(
    ("command", "argv", "message"),
    [
        ("train.cli", ["--env", "Mastermind-v0", "--eval-games", "5"], "--eval-games is for the multiplayer envs"),
        ("train.cli", ["--env", "Mastermind-v0", "--league-window", "5"], "--league-window is for the multiplayer"),
        ("train.cli", ["--env", "algo_v0", "--eval-secrets", "5"], "--eval-secrets is for the single-player games"),
        ("train.cli", ["--env", "algo_v0", "--eval-time-limit", "1"], "--eval-time-limit is for the single-player"),
        ("train.cli", ["--env", "algo_v0", "--league-window", "5"], "--league-window go with --league"),
        (
            "train.tools.play",
            ["algo", "--size", "pegs=3"],
            "--size is for the single-player games; algo takes --players",
        ),
        ("train.tools.play", ["Mastermind-v0", "--players", "3"], "--opponent and --players are for algo and clue"),
        ("train.tools.play", ["Wordle-v0", "--opponent", "random"], "Wordle-v0 is played alone"),
    ],
)
def test_an_option_the_chosen_game_does_not_take_is_refused_not_ignored(command, argv, message, capsys):
    """Options that cannot apply used to be ignored, and the command ran and exited 0 (issue 41)."""
    with pytest.raises(SystemExit) as exit_:
        importlib.import_module(command).main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_train_evaluate_refuses_options_its_env_does_not_take(tmp_path, capsys):
    model = tmp_path / "model.zip"
    import zipfile

    with zipfile.ZipFile(model, "w") as archive:
        archive.writestr("data", "{}")
        archive.writestr("policy.pth", b"")
    for argv, message in [
        (["--env", "Mastermind-v0", "--games", "5"], "--games is for the multiplayer envs"),
        (["--env", "Mastermind-v0", "--panel"], "--panel is for the multiplayer envs"),
        (["--env", "Mastermind-v0", "--ray-address", "h:1"], "--ray-address goes with --executor ray"),
        (["--env", "Mastermind-v0", "--executor", "dask"], "invalid choice: 'dask'"),
        (["--env", "clue_v0", "--eval-secrets", "5"], "are for the single-player games"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            importlib.import_module("train.evaluate").main(["--model", str(model), *argv])
        assert exit_.value.code == 2 and message in capsys.readouterr().err, argv


@pytest.mark.parametrize(
    "command",
    ["train.experiments.analysis", "train.experiments.paper_figure5", "train.experiments.report",
     "train.experiments.clue_experiments", "train.experiments.generalized_clue_experiments"],
)  # fmt: skip
def test_a_quick_run_is_refused_an_output_of_results(command, capsys, tmp_path, monkeypatch):
    """Quick or test runs never overwrite results/ (three experiments let --quick --output results through)."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        importlib.import_module(command).main(["--quick", "--output", "results"])
    assert exit_.value.code == 2 and "--quick runs never overwrite results/" in capsys.readouterr().err
