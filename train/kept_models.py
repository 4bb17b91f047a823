"""Trained models kept in the repository (``models/``): each with what it is, how it was made and what it reaches.

Its command line::

    python -m train.kept_models list [--markdown]             # the kept models, a line each (--markdown: all)
    python -m train.kept_models check [NAME ...]              # re-evaluate each and compare with its recorded figure
    python -m train.kept_models remeasure NAME ... --why "the scoreboard's spoof changed"   # record new figures
    python -m train.kept_models keep runs/mm-half mastermind-4x6-ises-half \\
        --kind "imitation of exhaustive ISES (static head), fitted on half the secrets" \\
        --command "python -m train --env Mastermind-v0 ... --output runs/mm-half" [--commit SHA] [-- EVAL ARGS]

Every command reads and writes the repository's ``models/`` folder (wherever it is run from), or the one
``--folder`` names. ``keep`` never replaces a kept model unless told to (``--replace``).

``keep`` copies a run's ``model.zip`` (without the optimizer's state: Adam's
moments are twice the weights, evaluation never reads them, and a run resumed
from a kept model starts them afresh; compressed, which SB3 does not do),
``run.json``, (for an imitation) ``imitation.json`` and (for a run that trained)
its learning curve in 100 spans of its steps (``curve.csv``, :func:`train.curves.write_curve`) into
``models/NAME/``, evaluates the copy with
``python -m train.evaluate`` (deterministic play; by default the policy alone
over every secret of a single-player game, or the evaluation's default
opponents and games of a multiplayer one; arguments after ``--`` replace
those) and records in ``models/manifest.json``: the kind of policy (RL alone,
imitation of which agent, which extra inputs), the training command, its seed
and commit, the evaluation command and the figures it printed, the file's size
and SHA-256. ``check`` runs each recorded evaluation again and fails unless
every figure is the same: a kept model reproduces its figure exactly.
``remeasure`` is for when what a model is measured against changes (a reference agent is mended): it runs the
recorded evaluation again, records what it finds as the figures, and keeps the figures it replaces in the
entry's ``extra["earlier"]`` with the reason, the date and the commit measured at; the model is untouched.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agents.model_files import file_sha256
from train import arguments
from train.curves import write_curve
from train.manifest import MANIFEST, MODELS, KeptModel, kept_model, load_manifest
from train.run_files import RUN_FILE, code_commit, run_settings

__all__ = [
    "MANIFEST",
    "MODELS",
    "SEAT_PREFIX",
    "KeptModel",
    "check",
    "figures_of",
    "figures_text",
    "keep",
    "kept_model",
    "kept_seat_agent",
    "load_manifest",
    "remeasure",
    "seat_names",
    "seat_policy",
]

#: The files of a run that a kept model keeps (the others: checkpoints, logs, demonstrations, are the run's).
KEPT_FILES = ("model.zip", RUN_FILE, "imitation.json")
#: The prefix of a kept model's name where a tournament names its agents: ``model:rl-clue4-seed-0`` is the kept
#: model ``rl-clue4-seed-0`` in a seat (:func:`seat_names`, :func:`kept_seat_agent`).
SEAT_PREFIX = "model:"
#: The learning curve a kept model keeps from its run's episode logs (:func:`train.curves.write_curve`).
CURVE = "curve.csv"


def seat_policy(name: str, folder: Path = MODELS) -> Any:
    """The kept multiplayer model ``name`` as a seat agent (:class:`~agents.sb3_policy.SB3SeatPolicy`, playing
    its likeliest legal action) on the game and sizes it was trained on, as ``python -m train.evaluate`` seats
    it; ValueError if there is no such model or it is a single-player one."""
    from agents.sb3_policy import SB3SeatPolicy
    from train.multiplayer import is_multiplayer, raw_env

    entry = kept_model(name, folder)
    if not is_multiplayer(entry.env):
        raise ValueError(f"the kept model {name!r} plays {entry.env}, a single-player game: it takes no seat")
    settings = run_settings(Path(folder, name, "model.zip")) or {}
    return SB3SeatPolicy.load(Path(folder, name, "model.zip"), raw_env(entry.env, **entry.sizes),
                              settings.get("algo", "maskable_ppo"), sha256=entry.sha256)  # fmt: skip


def seat_names(env: str, rules: Any = None, folder: Path = MODELS) -> tuple[str, ...]:
    """The kept models of the multiplayer game ``env`` as a tournament names its agents (``model:NAME``); with
    ``rules``, only those trained on them (the rules their env and sizes make equal ``rules``)."""
    from train.multiplayer import raw_env

    return tuple(
        f"{SEAT_PREFIX}{m.name}"
        for m in load_manifest(folder)
        if m.env == env and (rules is None or raw_env(m.env, **m.sizes).rules == rules)
    )


def kept_seat_agent(seat_name: str, folder: Path = MODELS) -> Any:
    """The kept model a tournament names ``model:NAME`` as a seat agent (:func:`seat_policy`), named so, playing
    with one torch thread (a tournament's workers share the cores); ValueError if the name lacks the prefix."""
    if not seat_name.startswith(SEAT_PREFIX):
        raise ValueError(f"a kept model's seat is named {SEAT_PREFIX}NAME, got {seat_name!r}")
    import torch

    torch.set_num_threads(1)
    agent = seat_policy(seat_name.removeprefix(SEAT_PREFIX), folder)
    agent.name = seat_name
    return agent


def _write_manifest(models: list[KeptModel], folder: Path) -> None:
    entries = [asdict(m) for m in sorted(models, key=lambda m: m.name)]
    Path(folder, MANIFEST).write_text(json.dumps(entries, indent=1) + "\n")


def figures_of(results: list[Any], seen: list[int] | None = None) -> dict[str, Any]:
    """The figures of an evaluation: for a single-player policy (the first result), the episodes, mean steps,
    share solved and worst case (and, for an imitation of some secrets, the mean steps on the ``seen`` secrets
    and on the rest); for a seat policy, per opponent the games, wins and mean rank."""
    import numpy as np

    first = results[0]
    if hasattr(first, "steps"):
        found = {
            "episodes": int(first.episodes),
            "mean_steps": round(float(first.mean_steps), 9),
            "solved": round(float(first.solve_rate), 9),
            "worst": int(first.worst),
        }
        if seen is not None and first.exact:
            mask = np.zeros(first.episodes, dtype=bool)
            mask[np.asarray(seen, dtype=np.int64)] = True
            found["mean_steps_seen"] = round(float(first.steps[mask].mean()), 9)
            found["mean_steps_unseen"] = round(float(first.steps[~mask].mean()), 9)
            found["solved_unseen"] = round(float(first.solved[~mask].mean()), 9)
        return found
    return {
        r.opponent: {"games": int(r.games), "wins": int(r.wins), "mean_rank": round(float(r.mean_rank), 9)}
        for r in results
    }


def _evaluate(model: Path, arguments: list[str]) -> dict[str, Any]:
    """Run ``python -m train.evaluate --model model ARGUMENTS`` in this process (tables to a scratch folder)
    and return its :func:`figures_of`."""
    from train import evaluate
    from train.comparison import seen_by_imitation

    arguments = list(arguments)
    if "--backend" not in arguments and _multiplayer(model, arguments):  # the figures were the Python agents'
        arguments += ["--backend", "python"]
    with tempfile.TemporaryDirectory() as scratch:
        results = evaluate.main(["--model", str(model), *arguments, "--output", scratch])
    return figures_of(results, seen_by_imitation(model.parent))


def _multiplayer(model: Path, arguments: list[str]) -> bool:
    """Whether the model plays a multiplayer game (``--env`` in ``arguments``, else its run's)."""
    from deduction_envs import registry
    from train.run_files import run_settings

    env = arguments[arguments.index("--env") + 1] if "--env" in arguments else (run_settings(model) or {}).get("env")
    try:
        return env is not None and registry.game(env).multiplayer
    except ValueError:
        return False


def default_evaluation(run: dict[str, Any]) -> list[str]:
    """The evaluation a kept model is measured by unless told otherwise: a single-player policy alone over
    every secret, a seat policy against the evaluation's default opponents and number of games."""
    from train.tasks import task_class

    return task_class(run["env"]).default_evaluation(run)


def _save_without_optimizer_state(source: Path, target: Path, algo: str) -> None:
    """Save the model at ``source`` to ``target`` with a fresh optimizer (the same weights and settings)."""
    from agents.sb3_policy import load_model

    model = load_model(source, algo)
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.lr_schedule(1.0), **policy.optimizer_kwargs)
    model.save(target)
    # SB3 stores its archive uncompressed; the feature heads' one-hot matrices (saved twice: in the policy's
    # arguments and as a buffer) deflate to almost nothing (Wordle's 12.8 MB to 0.7). Fixed dates: the same bytes.
    with zipfile.ZipFile(target) as archive:
        members = [(info.filename, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in members:
            archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)


def keep(
    run: Path,
    name: str,
    kind: str,
    command: str,
    commit: str | None = None,
    evaluation: list[str] | None = None,
    notes: str = "",
    folder: Path = MODELS,
    replace: bool = False,
) -> KeptModel:
    """Copy the run in ``run`` into ``folder/name``, evaluate it and record it in the manifest.

    Raises:
        FileNotFoundError: ``run`` holds no run. ValueError: ``name`` is no folder name, or is kept already (and
            ``replace`` is not set), or is the run's own folder.
    """
    run = Path(run)
    file = "model.pt" if (run / "model.pt").exists() and not (run / "model.zip").exists() else "model.zip"
    settings = run_settings(run / file)
    if settings is None or not (run / file).exists():
        raise FileNotFoundError(f"{run} holds no run of python -m train (model.zip and {RUN_FILE}) nor of "
                                "python -m train.expert_iteration (model.pt and run.json)")  # fmt: skip
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f"a kept model's name is a folder name, got {name!r}")
    target = Path(folder, name)
    if target.resolve() == run.resolve():
        raise ValueError(f"{run} is the kept model {name!r} itself: keep a run's output folder (python -m train's)")
    if not replace and (target.exists() or any(m.name == name for m in load_manifest(folder))):
        raise ValueError(f"{target} is kept already: give another name, or --replace to replace it")
    # Made in a scratch folder beside it and moved in place once evaluated: a failed keep leaves nothing behind.
    Path(folder).mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=folder))
    try:
        entry = _keep_into(scratch, run, name, file, settings, kind, command, commit, evaluation, notes)
        if target.exists():
            shutil.rmtree(target)
        scratch.rename(target)
        target.chmod(0o755)  # mkdtemp's folder is the owner's alone
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    models = [m for m in load_manifest(folder) if m.name != name]
    _write_manifest([*models, entry], folder)
    return entry


def _keep_into(target: Path, run: Path, name: str, file: str, settings: dict[str, Any], kind: str, command: str,
               commit: str | None, evaluation: list[str] | None, notes: str) -> KeptModel:  # fmt: skip
    """:func:`keep`'s copy of ``run`` into ``target``, evaluated there; its manifest entry."""
    for kept in KEPT_FILES[1:]:
        if (run / kept).exists():
            shutil.copy2(run / kept, target / kept)
    if file == "model.zip":
        _save_without_optimizer_state(run / file, target / file, settings.get("algo", "maskable_ppo"))
    else:  # an expert-iteration network: its weights and settings alone, and its curve of exact evaluations
        shutil.copy2(run / file, target / file)
        shutil.copy2(run / CURVE, target / CURVE)
    if (run / "monitor").is_dir():
        write_curve(run / "monitor", target / CURVE)  # the learning curve, without the run's episode logs
    evaluation = default_evaluation(settings) if evaluation is None else list(evaluation)
    entry = KeptModel(
        name=name,
        kind=kind,
        env=settings["env"],
        sizes=settings.get("sizes", {}),
        command=command,
        seed=int(settings.get("seed", 0)),
        commit=commit or settings.get("commit") or code_commit(),
        evaluate=evaluation,
        figures=_evaluate(target / file, evaluation),
        bytes=(target / file).stat().st_size,
        sha256=file_sha256(target / file),
        notes=notes,
        file=file,
    )
    return entry


def check(
    names: list[str] | None = None, folder: Path = MODELS, report: Callable[[str], None] | None = None
) -> list[str]:
    """Re-evaluate the kept models (``names``, default all); returns one line per model (each also given to
    ``report`` as soon as that model is done), and raises ``AssertionError`` naming each whose file or figures
    differ from the manifest."""
    models = load_manifest(folder)
    unknown = set(names or []) - {m.name for m in models}
    if unknown:
        raise ValueError(f"no kept model named {', '.join(sorted(unknown))} (see python -m train.kept_models list)")
    lines, wrong = [], []
    for entry in models:
        if names and entry.name not in names:
            continue
        path = Path(folder, entry.name, entry.file)
        if file_sha256(path) != entry.sha256:
            line = f"{entry.name}: {entry.file} is not the file the manifest records"
            wrong.append(line)
        else:
            found = _evaluate(path, entry.evaluate)
            same = found == entry.figures
            line = f"{entry.name}: {'same figures' if same else 'DIFFERENT figures'}: {figures_text(found)}"
            if not same:
                wrong.append(f"{entry.name}: recorded {figures_text(entry.figures)}; evaluated {figures_text(found)}")
        lines.append(line)
        if report is not None:
            report(line)
    if wrong:
        raise AssertionError("\n".join(wrong))
    return lines


def remeasure(names: list[str], why: str, folder: Path = MODELS, report: Callable[[str], None] | None = None
              ) -> list[KeptModel]:  # fmt: skip
    """Run the recorded evaluation of each kept model in ``names`` again and record what it finds as its figures,
    keeping the figures replaced (with ``why``, the date and the commit) in ``extra["earlier"]``: for when what
    the model is measured against has changed. The manifest is written after each model. Returns the new entries.

    Raises:
        ValueError: no names, an empty ``why``, or a name not kept. AssertionError: a model's file is not the one
            the manifest records (nothing of that model is changed).
    """
    import datetime

    if not names:
        raise ValueError("name the kept models to re-measure")
    if not why.strip():
        raise ValueError("say why the figures are re-measured (--why)")
    for name in names:
        kept_model(name, folder)  # a clear error for a name not kept, before anything is evaluated
    done = []
    for name in names:
        entry = kept_model(name, folder)
        path = Path(folder, entry.name, entry.file)
        if file_sha256(path) != entry.sha256:
            raise AssertionError(f"{entry.name}: {entry.file} is not the file the manifest records")
        found = _evaluate(path, entry.evaluate)
        changed = found != entry.figures
        if changed:
            earlier = {"figures": entry.figures, "replaced": why.strip(), "on": datetime.date.today().isoformat(),
                       "commit": code_commit()}  # fmt: skip
            entry.extra = {**entry.extra, "earlier": [*entry.extra.get("earlier", []), earlier]}
            entry.figures = found
            _write_manifest([*(m for m in load_manifest(folder) if m.name != name), entry], folder)
        line = f"{name}: {'new' if changed else 'the same'} figures: {figures_text(found)}"
        if report is not None:
            report(line)
        done.append(entry)
    return done


def figures_text(figures: dict[str, Any]) -> str:
    """An evaluation's :func:`figures_of` in words: "4.48 mean steps over 1,296 episodes, 100% solved, worst
    6", or per opponent "vs epsilon_greedy: 1,103 of 2,000 won (55.2%), mean rank 1.4485"."""
    if "episodes" in figures:
        text = (
            f"{figures['mean_steps']:.4f} mean steps over {figures['episodes']:,} episodes, "
            f"{100 * figures['solved']:.1f}% solved, worst {figures['worst']}"
        )
        if "mean_steps_seen" in figures:
            text += (
                f" (secrets fitted on: {figures['mean_steps_seen']:.4f}; the others: "
                f"{figures['mean_steps_unseen']:.4f}, {100 * figures['solved_unseen']:.1f}% solved)"
            )
        return text
    return "; ".join(
        f"vs {opponent}: {f['wins']:,} of {f['games']:,} won ({100 * f['wins'] / f['games']:.1f}%), "
        f"mean rank {f['mean_rank']:.4f}"
        for opponent, f in figures.items()
    )


def _short_table(models: list[KeptModel]) -> str:
    """The kept models for a terminal: one line each (name, game, size, figure), under 120 characters."""
    total = sum(m.bytes for m in models)
    lines = [f"{'model':<30} {'env':<21} {'MB':>5}  figure"]
    for m in models:
        f = m.figures
        if "episodes" in f:
            figure = f"{f['mean_steps']:.4f} queries, {f['solved']:.1%} solved ({f['episodes']:,} secrets)"
        else:
            figure = ", ".join(f"{r['wins'] / r['games']:.1%} won vs {opponent}" for opponent, r in f.items())
        line = f"{m.name:<30} {m.env:<21} {m.bytes / 1e6:>5.2f}  {figure}"
        lines.append(line if len(line) <= 119 else line[:116] + "...")
    lines.append(f"{len(models)} models, {total / 1e6:.2f} MB in all; --markdown: what each is, its command and every "
                 "figure")  # fmt: skip
    return "\n".join(lines)


def _table(models: list[KeptModel]) -> str:
    lines = ["| model | what it is | env | figures | command | size |", "| --- | --- | --- | --- | --- | ---: |"]
    for m in models:
        sizes = " ".join(f"{key}={value}" for key, value in m.sizes.items() if value is not None)
        lines.append(
            f"| {m.name} | {m.kind} | {m.env} {sizes} | {figures_text(m.figures)} | `{m.command}` | "
            f"{m.bytes / 1e6:.2f} MB |"
        )
    total = sum(m.bytes for m in models)
    return "\n".join(lines) + f"\n\n{len(models)} models, {total / 1e6:.2f} MB in all"


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(
        prog="python -m train.kept_models", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="what", required=True)
    listing = commands.add_parser("list", help="the kept models")
    listing.add_argument("--markdown", action="store_true", help="the full table in markdown (what each model is, "
                         "its command, every figure)")  # fmt: skip
    checking = commands.add_parser("check", help="re-evaluate kept models against their recorded figures")
    checking.add_argument("names", nargs="*", help="models to check (default all)")
    keeping = commands.add_parser("keep", help="keep a run's model (see above)")
    measuring = commands.add_parser("remeasure", help="re-evaluate kept models and record what they reach now")
    measuring.add_argument("names", nargs="+", help="models to re-measure")
    measuring.add_argument("--why", required=True, help="what changed in what they are measured against")
    for command in (listing, checking, keeping, measuring):
        command.add_argument(
            "--folder",
            type=Path,
            default=MODELS,
            help=f"the folder of kept models and their manifest (default: the repository's, {MODELS})",
        )
    keeping.add_argument("run", type=Path, help="the run's output folder")
    keeping.add_argument("name", help="the kept model's folder name")
    keeping.add_argument("--kind", required=True, help="what the policy is (RL alone, imitation of which agent...)")
    keeping.add_argument("--command", required=True, help="the command that trained it")
    keeping.add_argument("--commit", default=None, help="the commit it was trained on (default: run.json's, HEAD)")
    keeping.add_argument("--notes", default="", help="anything a reader should know")
    keeping.add_argument("--replace", action="store_true", help="replace a model kept under that name")
    raw = sys.argv[1:] if argv is None else list(argv)
    cut = raw.index("--") if "--" in raw else len(raw)  # after "--": the evaluation's own arguments
    evaluation = raw[cut + 1 :] if cut < len(raw) else None
    args = parser.parse_args(raw[:cut])
    if evaluation is not None and args.what != "keep":
        parser.error(f"arguments after -- are keep's evaluation arguments; {args.what} takes none, got {evaluation}")
    if args.what == "list":
        models = load_manifest(args.folder)
        print(_table(models) if args.markdown else _short_table(models))
    elif args.what == "check":
        try:
            check(args.names or None, args.folder, report=lambda line: print(line, flush=True))
        except (AssertionError, ValueError) as error:
            parser.exit(1, f"{error}\n")
    elif args.what == "remeasure":
        try:
            remeasure(args.names, args.why, args.folder, report=lambda line: print(line, flush=True))
        except ValueError as error:
            parser.error(str(error))
        except AssertionError as error:
            parser.exit(1, f"{error}\n")
    else:
        try:
            entry = keep(args.run, args.name, args.kind, args.command, args.commit, evaluation, args.notes,
                         args.folder, args.replace)  # fmt: skip
        except (FileNotFoundError, ValueError) as error:
            parser.error(str(error))
        print(f"kept {Path(args.folder, entry.name, entry.file)}: {figures_text(entry.figures)} "
              f"({entry.bytes / 1e6:.2f} MB)")  # fmt: skip


if __name__ == "__main__":
    main()
