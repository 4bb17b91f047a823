"""Checked argument types for the command lines: a bad value is a one-line argparse error before any work.

argparse calls an option's ``type`` on its text while parsing, and turns an
:class:`argparse.ArgumentTypeError` into ``prog: error: argument --games: ...``
and exit status 2. Every numeric or path option of the project's command lines
uses one of these, so that ``--eval-time-limit -1`` or ``--output /proc/x`` is
refused at once, not after minutes of training (``tests/test_fuzz_cli.py``
checks each command line).
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

__all__ = [
    "Parser",
    "add_executor_options",
    "add_size_option",
    "count",
    "executor",
    "existing_file",
    "file_to_write",
    "model_zip",
    "names",
    "number",
    "output_folder",
    "parse_size",
    "port",
    "seconds",
    "seed",
    "seeds",
    "space_item",
]


def plain_text(text: str) -> str:
    """``text`` without the Sphinx markup of the docstrings it comes from, as a terminal shows it
    (:func:`deduction_envs.text.plain_text`): ``:class:`~train.config.RunConfig``` -> ``RunConfig``,
    ````--output```` -> ``--output``."""
    from deduction_envs.text import plain_text as plain

    return plain(text)


class Parser(argparse.ArgumentParser):
    """The command lines' parser: help in plain text (docstrings lose their Sphinx markup), and an error in
    two lines (the error, and where the options are listed) instead of the whole usage before it.

    ``raise_errors``: an error is a ValueError with its message instead (a Python caller of the command's
    ``main``, who gets the command line's checks without its exit)."""

    def __init__(self, *args: Any, raise_errors: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self.raise_errors = raise_errors

    def format_help(self) -> str:
        return plain_text(super().format_help())

    def error(self, message: str) -> NoReturn:
        if self.raise_errors:
            raise ValueError(message)
        self.exit(2, f"{self.prog}: error: {message}\n({self.prog} --help lists the options)\n")


def _named(function: Callable, name: str) -> Callable:
    function.__name__ = name  # argparse names the type in some messages (and the tests find the checked types)
    function.checked = True
    return function


def count(low: int = 1, high: int | None = None) -> Callable[[str], int]:
    """An integer in ``[low, high]`` (``high`` None: no upper bound)."""
    accepted = f">= {low}" if high is None else f"in [{low}, {high}]"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer {accepted}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be an integer {accepted}, got {value}")
        return value

    return _named(parse, "count")


def number(low: float = 0.0, high: float = math.inf, *, open_low: bool = False) -> Callable[[str], float]:
    """A finite number in ``[low, high]`` (``(low, high]`` with ``open_low``); never NaN or infinite."""
    accepted = (
        f"{'(' if open_low else '['}{low:g}, {high:g}]" if high < math.inf else f"{'>' if open_low else '>='} {low:g}"
    )

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number {accepted}, got {text!r}") from None
        if not math.isfinite(value) or value < low or (open_low and value == low) or value > high:
            raise argparse.ArgumentTypeError(f"must be a finite number {accepted}, got {text}")
        return value

    return _named(parse, "number")


def numbers(low: float = -math.inf, high: float = math.inf) -> Callable[[str], list[float]]:
    """One or more comma-separated finite numbers in ``[low, high]``: ``"5,0,0"``."""
    one = number(low, high)

    def parse(text: str) -> list[float]:
        parts = text.split(",")
        if not text.strip() or any(not part.strip() for part in parts):
            raise argparse.ArgumentTypeError(f"must be comma-separated numbers, got {text!r}")
        return [one(part) for part in parts]

    return _named(parse, "numbers")


#: A time budget in seconds: positive and finite.
seconds = _named(number(0.0, open_low=True), "seconds")
#: A seed: numpy's seeds are integers >= 0.
seed = _named(count(0), "seed")
#: A TCP port.
port = _named(count(1, 65535), "port")


def host(text: str) -> str:
    """An address to listen on: an IP address (``127.0.0.1``, ``0.0.0.0``, ``::1``) or a host name."""
    import ipaddress

    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        label = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
        if re.fullmatch(rf"(?=.{{1,253}}$){label}(\.{label})*", text):
            return text
    raise argparse.ArgumentTypeError(f"a host is an IP address (127.0.0.1, 0.0.0.0) or a host name, got {text!r}")


def existing_file(text: str) -> Path:
    """A path to a file that exists and can be read."""
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no file at {text}" if not path.exists() else f"{text} is not a file")
    try:
        with path.open("rb"):
            pass
    except OSError as error:
        raise argparse.ArgumentTypeError(f"cannot read {text}: {error.strerror}") from None
    return path


def model_zip(text: str) -> Path:
    """A saved model: a zip file as stable-baselines3 saves them, with its settings and weights, or a
    ``model.pt`` of :mod:`train.expert_iteration`."""
    from agents.sb3_policy import check_saved_model

    path = existing_file(text)
    try:
        if path.suffix == ".pt":
            from agents.set_policy import load_network

            load_network(path)
            return path
        return check_saved_model(path)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def output_folder(text: str) -> Path:
    """A folder that exists or can be made: checked by making the missing part and removing it again."""
    path = Path(text)
    if path.exists():
        if not path.is_dir():
            raise argparse.ArgumentTypeError(f"{text} exists and is not a folder")
        return path
    missing = [path]
    while not missing[-1].parent.exists() and missing[-1].parent != missing[-1]:
        missing.append(missing[-1].parent)
    try:
        path.mkdir(parents=True)
    except FileExistsError:  # another process (a run, a test on another worker) made it since the check above
        if path.is_dir():
            return path
        raise argparse.ArgumentTypeError(f"{text} exists and is not a folder") from None
    except OSError as error:
        raise argparse.ArgumentTypeError(f"cannot make the folder {text}: {error.strerror or error}") from None
    for folder in missing:  # deepest first: leave the disk as it was; the run makes it again
        try:
            folder.rmdir()
        except OSError:  # another process has put something there meanwhile: its folder now too
            break
    return path


def file_to_write(text: str) -> Path:
    """A file to write: not a folder, in a folder that exists or can be made (see :func:`output_folder`)."""
    path = Path(text)
    if path.is_dir() or not path.name:
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    output_folder(str(path.parent))
    return path


def parse_size(text: str) -> tuple[str, int | bool]:
    """``"pegs=5"`` -> ``("pegs", 5)``, ``"board=true"`` -> ``("board", True)``, for ``--size``."""
    name, sep, value = text.partition("=")
    if sep and name and value.lower() in ("true", "false"):
        return name, value.lower() == "true"
    if not sep or not name or not value.lstrip("-").isdigit():
        raise argparse.ArgumentTypeError(
            f"a size is NAME=INTEGER or NAME=true/false, e.g. pegs=5 or board=true; got {text!r}"
        )
    return name, int(value)


def add_size_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup, none_if_unset: bool = False) -> None:
    """``--size NAME=N`` (repeatable): an env's size or option, an integer or true/false (:func:`parse_size`);
    a list of ``(name, value)``, empty if not given (None with ``none_if_unset``)."""
    parser.add_argument(
        "--size",
        type=parse_size,
        action="append",
        default=None if none_if_unset else [],
        metavar="NAME=N",
        help="an env size or option, repeatable: pegs=5, players=3, board=true",
    )


def add_trust_model_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--trust-model``: load a saved model with stable-baselines3's own load (:func:`~agents.model_files.load_model`),
    which runs code the file may hold."""
    parser.add_argument(
        "--trust-model",
        action="store_true",
        help="DANGEROUS: load the model with stable-baselines3's own load, which runs any code the file holds. "
        "Without it a model is read as plain data and one that holds more is refused. Only for a file you trust",
    )


host = _named(host, "host")
existing_file = _named(existing_file, "existing_file")
file_to_write = _named(file_to_write, "file_to_write")
model_zip = _named(model_zip, "model_zip")
output_folder = _named(output_folder, "output_folder")


def parse_space(text: str) -> tuple[str, Any]:
    """One ``NAME=SPEC`` item of a sweep's search space (:mod:`train.sweep`) as (name, Optuna distribution).

    Raises:
        ValueError: the item is not ``NAME=SPEC``, or SPEC is no range or list of values.
    """
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    name, equals, spec = str(text).partition("=")
    name, spec = name.strip(), spec.strip()
    if not equals or not name.isidentifier() or not spec:
        raise ValueError(f"a search space item is NAME=SPEC (learning_rate=1e-4..3e-3:log), got {text!r}")
    if ".." in spec:
        bounds, _, scale = spec.partition(":")
        if scale not in ("", "log"):
            raise ValueError(f"{name}: a range ends in ':log' or nothing, got {spec!r}")
        low_text, _, high_text = bounds.partition("..")
        try:
            low, high = _number(low_text), _number(high_text)
        except ValueError:
            raise ValueError(f"{name}: a range is LOW..HIGH of two numbers, got {spec!r}") from None
        if not low < high:
            raise ValueError(f"{name}: a range's LOW must be below its HIGH, got {spec!r}")
        if scale and low <= 0:
            raise ValueError(f"{name}: a log scale needs LOW above 0, got {spec!r}")
        if isinstance(low, int) and isinstance(high, int):
            return name, IntDistribution(low, high, log=bool(scale))
        return name, FloatDistribution(float(low), float(high), log=bool(scale))
    values = [_value(item) for item in spec.split(",")]
    if len(values) < 2 or len(set(map(repr, values))) != len(values):
        raise ValueError(f"{name}: a list of values is A,B,... of at least two distinct values, got {spec!r}")
    return name, CategoricalDistribution(values)


def _number(text: str) -> int | float:
    """An integer if the text is one, else a finite real number."""
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(text) from None
        return value


def _value(text: str) -> Any:
    """One value of a list: a number, true or false, else the text."""
    text = text.strip()
    if not text:
        raise ValueError("a list of values has no empty value")
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return _number(text)
    except ValueError:
        return text


def space_item(text: str) -> str:
    """One ``NAME=SPEC`` item of a sweep's search space (:func:`parse_space`), checked."""
    try:
        parse_space(text)
    except ImportError as error:
        raise argparse.ArgumentTypeError(f"a sweep needs {error.name}: pip install \"deduction-envs[train]\"") from None
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text.strip()


space_item = _named(space_item, "space_item")


def names(text: str) -> list[str]:
    """A comma-separated list of names (``a,b``) as a list."""
    return [name.strip() for name in text.split(",") if name.strip()]


def seeds(text: str) -> list[int]:
    """Distinct seeds, comma-separated: ``0,1,2``."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    values = [seed(part) for part in parts]
    if not values or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"give distinct seeds separated by commas, such as 0,1,2; got {text!r}")
    return values


_named(seeds, "seeds")


def add_executor_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup, workers: int | None = 1) -> None:
    """``--workers``, ``--executor local|ray``, ``--ray-address`` and what each job asks of a Ray cluster
    (``--ray-cpus``, ``--ray-gpus``, ``--ray-memory``): where a command's many jobs run. ``workers`` None: the
    two with a default (``--workers``, ``--executor``) declare none, for a parser whose caller sets them (the run
    options, whose defaults are :class:`train.config.RunConfig`'s)."""
    from deduction_envs.executor import EXECUTORS

    parser.add_argument(
        "--workers",
        type=count(1),
        default=workers,
        help="worker processes of the local executor, or CPUs of a Ray started here (default %(default)s)",
    )
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default=None if workers is None else "local",
        help="local: a process pool on this machine (default); ray: a Ray cluster (pip install deduction-envs[ray])",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="HOST:PORT",
        help="the Ray cluster to join (default: RAY_ADDRESS if set, else a Ray started on this machine)",
    )
    parser.add_argument(
        "--ray-cpus",
        type=number(0),
        default=None,
        metavar="N",
        help="CPUs each job asks of the Ray cluster, fractions allowed (default 1)",
    )
    parser.add_argument(
        "--ray-gpus", type=number(0), default=None, metavar="N", help="GPUs each job asks of the cluster (default 0)"
    )
    parser.add_argument(
        "--ray-memory",
        type=number(0, open_low=True),
        default=None,
        metavar="GIB",
        help="memory (GiB) Ray reserves for each job, which then runs only where it is free (default: none)",
    )


def ray_resources(options: Any) -> dict[str, Any]:
    """What each job asks of a Ray cluster, from ``--ray-cpus``, ``--ray-gpus`` and ``--ray-memory`` (GiB) as
    parsed (or a config's fields of those names): keywords of :func:`deduction_envs.executor.make_executor`,
    those not given left out."""
    given = {"cpus": options.ray_cpus, "gpus": options.ray_gpus, "memory": options.ray_memory}
    if given["memory"] is not None:
        given["memory"] = max(1, round(given["memory"] * 2**30))
    return {name: value for name, value in given.items() if value is not None}


def executor(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Any:
    """The executor of :func:`add_executor_options`' options (a bad combination is a parser error)."""
    from deduction_envs.executor import RayExecutor, make_executor

    try:
        chosen = make_executor(args.executor, args.workers, args.ray_address, **ray_resources(args))
        if isinstance(chosen, RayExecutor):
            chosen.check_address()  # a cluster that is not there is said now, within a bounded time
        return chosen
    except (ValueError, ImportError, ConnectionError) as error:
        parser.error(str(error))


def refuse(parser: argparse.ArgumentParser, model: Path, error: Exception) -> NoReturn:
    """Exit with ``error``, saying what the model was trained on when its run settings are at hand."""
    from train.run_files import run_settings

    saved = run_settings(model) if model.exists() else None
    trained = f" (it was trained on {saved['env']} {saved['sizes'] or ''})".rstrip() if saved else ""
    parser.error(f"{error}{trained}")


def output_file(args: argparse.Namespace) -> Path:
    """Where the table goes: ``evaluation-seed{seed}.md`` in ``--output``, else in the model's folder (made if
    missing); never the ``comparison.md`` that training wrote."""
    output = args.output or args.model.parent
    output.mkdir(parents=True, exist_ok=True)
    return output / f"evaluation-seed{args.seed}.md"
