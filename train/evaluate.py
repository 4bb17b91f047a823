"""Measure a saved model against exhaustive ISES, SO-ISMCTS and random play on the same secrets, or, for a
multiplayer env, against each reference agent with seats rotated.

    python -m train.evaluate --model runs/Mastermind-v0/model.zip --env Mastermind-v0 --size pegs=3 --size colors=3
    python -m train.evaluate --model runs/clue_v0/model.zip --env clue_v0 --size players=4 \
        --opponents deduction_sheet,entropy --games 1000 --workers 2

Prints the comparison table of ``python -m train`` (mean steps with a 95%
confidence interval, worst case, solve rate and decision time, over every
secret where the game has at most ``--eval-secrets`` of them and over the
same sample otherwise) and writes it to ``evaluation-seed{seed}.md`` next to
the model, or in ``--output``: never over the end-of-training
``comparison.md`` or another seed's table.
For ``algo_v0``, ``clue_v0`` and ``generalized_clue_v0``: the policy in one
seat and copies of each ``--opponents`` agent in the others, game g seeded
(seed, g), seats rotated; wins (a count), win rate and mean rank with 95%
intervals and the tests against parity
(:func:`train.multiplayer.evaluate_seat_policy`). Against agents that all have
compiled twins at the model's sizes, the games are played on the batched game
(``--backend auto``, the default; ``python`` plays every opponent on the AEC rules).
``--panel`` plays the game's evaluation panel instead (:func:`train.multiplayer.panel_tables`: a table of each
panel agent and every mixed table of them) and ends the table with the worst case over it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from agents import EvaluationResult
from agents.sb3_policy import ALGORITHMS
from deduction_envs import registry
from deduction_envs.envs.deduction_env import ACTION_MASKS
from train import arguments
from train.arguments import names
from train.run_files import run_settings


def evaluate_model(
    model: str | Path,
    env: str | None = None,
    sizes: dict[str, Any] | None = None,
    *,
    algo: str = "maskable_ppo",
    action_mask: str = "all",
    eval_secrets: int | None = None,
    eval_time_limit: float | None = None,
    seed: int = 0,
    references: bool = True,
    opponents: list[str] | None = None,
    games: int | None = None,
    workers: int = 1,
    output: str | Path | None = None,
    trust_model: bool = False,
    backend: str = "auto",
    panel: bool = False,
) -> list[Any]:
    """``python -m train.evaluate`` from Python: the saved ``model`` measured as the command line measures it,
    with its defaults and checks (``env`` None: the run's, from the ``run.json`` beside the model). Returns the
    evaluation (a single-player policy first, then the reference agents unless ``references`` is False; for a
    multiplayer seat, a row per opponent) and writes ``evaluation-seed{seed}.md`` beside the model (or in
    ``output``).

    Raises:
        ValueError: what the command line would refuse, with its message.
    """
    argv = ["--model", str(model), "--algo", algo, "--action-mask", action_mask, "--seed", str(seed)]
    argv += ["--workers", str(workers)]
    argv += [] if env is None else ["--env", env]
    argv += [arg for name, value in (sizes or {}).items() for arg in ("--size", f"{name}={value}")]
    for option, value in (("--eval-secrets", eval_secrets), ("--eval-time-limit", eval_time_limit),
                          ("--games", games), ("--output", output)):  # fmt: skip
        argv += [] if value is None else [option, str(value)]
    argv += [] if references else ["--no-references"]
    argv += ["--trust-model"] if trust_model else []
    argv += ["--backend", backend]
    argv += [] if opponents is None else ["--opponents", ",".join(opponents)]
    argv += ["--panel"] if panel else []
    return main(argv, raise_errors=True)


def main(argv: list[str] | None = None, raise_errors: bool = False) -> list[EvaluationResult]:
    """``python -m train.evaluate``; ``raise_errors``: a refused option is a ValueError, not an exit."""
    parser = arguments.Parser(
        prog="python -m train.evaluate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        raise_errors=raise_errors,
    )
    parser.add_argument(
        "--model", type=arguments.model_zip, required=True, help="a model saved by python -m train (model.zip)"
    )
    parser.add_argument("--algo", default="maskable_ppo", choices=ALGORITHMS, help="its algorithm")
    arguments.add_trust_model_option(parser)
    parser.add_argument(
        "--env",
        default=None,
        choices=[g.env_id for g in registry.games()],
        help="env id it was trained on (default: the run.json beside the model, with its sizes and mask)",
    )
    arguments.add_size_option(parser)
    parser.add_argument("--action-mask", default="all", choices=ACTION_MASKS, help="the mask it trained with")
    parser.add_argument(
        "--eval-secrets", type=arguments.count(1), default=None, help="play every secret up to this many, else sample"
    )
    parser.add_argument(
        "--eval-time-limit", type=arguments.seconds, default=None, help="SO-ISMCTS seconds a decision (0.1)"
    )
    parser.add_argument("--seed", type=arguments.seed, default=0, help="seed of sampled secrets (default 0)")
    parser.add_argument(
        "--no-references", action="store_true", help="single-player games: the policy alone, not the reference agents"
    )
    parser.add_argument(
        "--references",
        type=names,
        default=None,
        metavar="NAME[,NAME...]",
        help="single-player games: the reference agents beside it (default all: ises, ismcts, random, "
        "random_consistent; SO-ISMCTS thinks --eval-time-limit a decision, the slow one)",
    )
    parser.add_argument(
        "--output",
        type=arguments.output_folder,
        default=None,
        help="folder for evaluation-seed{SEED}.md (default: the model's)",
    )
    seats = parser.add_argument_group("multiplayer envs")
    seats.add_argument("--opponents", type=names, default=None, metavar="NAME[,NAME...]",
                       help="reference agents, or mixed tables of them (NAME+NAME+...)")  # fmt: skip
    seats.add_argument("--panel", action="store_true",
                       help="the game's evaluation panel instead: a table of each panel agent and every mixed table "
                            "of them, and the worst case over the tables")  # fmt: skip
    seats.add_argument(
        "--games", type=arguments.count(1), default=None, help="games against each opponent (default 400)"
    )
    seats.add_argument("--backend", default="auto", choices=("auto", "python", "batched"),
                       help="auto (default): an opponent whose agents all have compiled twins plays on the batched "
                            "game (fast; its own deals), the others as python: the Python agents on the AEC rules, "
                            "game g seeded (seed, g)")  # fmt: skip
    arguments.add_executor_options(parser.add_argument_group("where the games run"))
    args = parser.parse_args(argv)
    _check_if_kept(args.model, parser)
    workers = arguments.executor(args, parser)
    if args.env is None:
        _settings_of_run(args, parser)
    from train.tasks import task_class

    return task_class(args.env).evaluate_saved(args, parser, workers)


def _settings_of_run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Without ``--env``: the env, sizes, algorithm and mask of the run that saved the model (its ``run.json``),
    where the options do not give them."""
    saved = run_settings(args.model)
    if saved is None:
        parser.error(f"--env is needed: no run.json beside {args.model} says what it was trained on")
    args.env = saved["env"]
    args.size = args.size or list(saved.get("sizes", {}).items())
    if args.algo == parser.get_default("algo"):
        args.algo = saved.get("algo", args.algo)
    if args.action_mask == parser.get_default("action_mask"):
        args.action_mask = saved.get("action_mask", args.action_mask)


def _check_if_kept(model: Path, parser: argparse.ArgumentParser) -> None:
    """A kept model's file (``models/NAME/model.zip``) must be the one its manifest records."""
    from agents.model_files import file_sha256
    from train.manifest import kept_digest

    digest = kept_digest(model)
    if digest is not None and file_sha256(model) != digest:
        parser.error(f"{model} has changed since it was kept: its SHA-256 is not the one models/manifest.json "
                     "records (a damaged or replaced file)")  # fmt: skip


if __name__ == "__main__":
    main()
