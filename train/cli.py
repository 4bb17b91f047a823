"""Train a stable-baselines3 / sb3-contrib policy on a deduction env and compare it with the reference agents.

    python -m train                                            # MaskablePPO on Mastermind 3x3
    python -m train --env TreasureHunt-v0 --timesteps 300000 --entropy-reward 1
    python -m train --env Mastermind-v0 --size pegs=4 --size colors=6 --action-mask consistent --max-minutes 20
    python -m train --resume runs/Mastermind-v0/model.zip --timesteps 50000
    python -m train --env LowMiddleHigh-v0 --policy features --imitate ises --timesteps 0   # ISES's play, fitted
    python -m train --env clue_v0 --size players=4 --opponents deduction_sheet,random   # one seat of a multiplayer env
    python -m train --seeds 0,1,2 --workers 2                  # three seeds, two at a time; seeds.md aggregates them
    python -m train --sweep 12 --space learning_rate=1e-4..3e-3:log n_steps=64,128,256 --workers 2   # a sweep

Ctrl-C (or SIGTERM) stops training and saves what was trained.

Writes to ``--output`` (default ``runs/<env id>``): TensorBoard logs,
periodic checkpoints, the final model (``model.zip``, also on Ctrl-C), the
episode log of the env monitors, a learning-curve PNG and ``comparison.md``:
the trained policy against exhaustive ISES, SO-ISMCTS and random play on the
same secrets (every secret where the game has at most ``--eval-secrets``).
Hyperparameters come from ``train/configs/hyperparameters.toml`` (or
``--config``); ``results/training.md`` says how they were found. The library
under it: :class:`train.config.RunConfig` (what this parses into) and
:func:`train.training.run`.

With ``--env algo_v0``, ``clue_v0`` or ``generalized_clue_v0`` the policy
learns one seat against the reference agents named by ``--opponents`` (and,
with ``--league``, frozen snapshots of itself), and ``comparison.md`` is its
win rate and mean rank against each ``--eval-opponents`` agent, seats
rotated: see :mod:`train.multiplayer`.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from agents import EvaluationResult
from train import arguments
from train.config import RunConfig
from train.options import run_parser
from train.training import run

__all__ = ["build_parser", "main", "parse_args"]


def build_parser() -> argparse.ArgumentParser:
    """The options of ``python -m train`` (:mod:`train.options`), with :class:`RunConfig`'s defaults."""
    parser = run_parser(
        prog="python -m train", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.set_defaults(**{field.name: field.default for field in dataclasses.fields(RunConfig)})
    return parser


def parse_args(argv: list[str] | None = None) -> RunConfig:
    """The run the options describe, checked (:meth:`RunConfig.check`: the same defaults and refusals as for a
    Python caller); a bad option exits with a one-line message (status 2)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # The ranges of single options are checked while parsing (train.arguments); the rest, which depends on the
    # game and on several options, by the config. An option left out is None here: the config's default, or its
    # game's.
    arguments.executor(args, parser)  # a bad combination, or a cluster that does not answer, is refused now
    names = {f.name for f in dataclasses.fields(RunConfig)} - {"sizes"}
    given = {name: value for name, value in vars(args).items() if name in names and value is not None}
    config = RunConfig(sizes=None if args.size is None else dict(args.size), **given)
    try:
        return config.check()
    except ValueError as error:
        parser.error(str(error))


def main(argv: list[str] | None = None) -> list[EvaluationResult]:
    """``python -m train``; returns the comparison (the trained policy first), with ``--seeds`` the first
    seed's, with ``--sweep`` nothing (its table is ``sweep.md``)."""
    from train.training import FolderInUse

    config = parse_args(argv)
    try:
        if config.sweep is not None:
            from train.sweep import run_sweep

            run_sweep(config, config.executor_for(config.workers), command=sys.argv[1:] if argv is None else argv)
            return []
        if config.seeds is not None:
            from train.seeds import run_seeds

            result = run_seeds(config, config.seeds, config.executor_for(config.workers))
            return result.runs[result.seeds[0]].results
        return run(config).results
    except FolderInUse as error:  # another process trains into the same folder: a message, not a traceback
        sys.exit(f"python -m train: error: {error}")


if __name__ == "__main__":
    main()
