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
from agents.sb3_policy import ALGORITHMS
from deduction_envs import registry
from deduction_envs.envs.deduction_env import ACTION_MASKS
from train import arguments
from train.config import DEFAULT_ENV, MARGINAL_WEIGHT, RunConfig
from train.imitation import SINGLE_PLAYER_EXPERTS
from train.training import run

__all__ = ["build_parser", "main", "parse_args"]


def build_parser() -> argparse.ArgumentParser:
    """The options of ``python -m train``."""
    parser = arguments.Parser(
        prog="python -m train", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", default=DEFAULT_ENV, choices=[g.env_id for g in registry.games()], help="env id")
    arguments.add_size_option(parser, none_if_unset=True)
    parser.add_argument("--algo", default="maskable_ppo", choices=ALGORITHMS, help="algorithm (default maskable_ppo)")
    parser.add_argument(
        "--policy",
        default="flat",
        choices=("flat", "features", "marginals"),
        help="flat: one output per action (default); features: each action scored by its features (train.policies); "
        "marginals (single-player games): features, and each query also by the observation's marginals of its "
        "components (deduction_envs.core.rules.marginal_pointers)",
    )
    parser.add_argument(
        "--marginal-weight",
        type=arguments.number(0),
        default=None,
        metavar="W",
        help=f"--policy marginals: each marginal's initial weight in a query's score (default {MARGINAL_WEIGHT}; "
        "Bulls and Cows needs a sharper start: results/training.md)",
    )
    parser.add_argument(
        "--pointer-weights",
        type=arguments.numbers(-100, 100),
        default=None,
        metavar="W,...",
        help="--policy features on a multiplayer game: the initial weight of each of the head's pointer columns, in "
        "order (the rest start at 0; the game's training env's observation_pointers says what each column reads: "
        "Generalized Clue's first is a card's case-file probability or fact); default: every one at 0",
    )
    parser.add_argument(
        "--query-features",
        action="store_true",
        help="observe every query's state-dependent features (could be the secret, expected gain, likeliest "
        "answer; DeductionEnv(query_features=True)), read per query by --policy features",
    )
    parser.add_argument(
        "--timesteps",
        type=arguments.count(0),
        default=200_000,
        help="environment steps to train (default 200000); 0: save and evaluate the policy a run starts from "
        "(the fit alone after --imitate, else the untrained policy)",
    )
    parser.add_argument(
        "--max-minutes",
        type=arguments.number(0, open_low=True),
        default=None,
        help="stop training after this many minutes",
    )
    parser.add_argument(
        "--n-envs", type=arguments.count(1), default=8, help="copies of the env stepped together (default 8)"
    )
    parser.add_argument(
        "--vec-env",
        default="auto",
        choices=("auto", "batched", "dummy", "subproc"),
        help="batched: one batched env (the default where the game has one); "
        "dummy: copies in one process (the other default); subproc: SubprocVecEnv",
    )
    parser.add_argument(
        "--torch-threads",
        type=arguments.count(1),
        default=1,
        help="torch threads in this process (default 1: concurrent runs on shared cores do not collapse)",
    )
    parser.add_argument("--device", default="cpu", help="torch device (default cpu; e.g. cuda where it pays)")
    parser.add_argument("--seed", type=arguments.seed, default=0, help="seed of training and evaluation (default 0)")
    parser.add_argument(
        "--entropy-reward", type=arguments.number(0), default=None, metavar="SCALE", help="entropy reward scale"
    )
    parser.add_argument(
        "--entropy-reward-end",
        choices=("potential", "none", "own"),
        default=None,
        help="a multiplayer game on the batched seats: what the entropy reward pays at the game's end: potential "
        "(default) the bits still unknown, so the shaping leaves the best policy unchanged; none: nothing, so the "
        "learner is paid only for the bits it learned before the end (changes the best policy); own: nothing at "
        "the end, and before it only the bits the answer to the learner's own move taught it, not what the other "
        "seats' moves revealed (changes the best policy)",
    )
    parser.add_argument(
        "--action-mask",
        default="all",
        choices=ACTION_MASKS,
        help="the env's mask: all legal queries (default), consistent (only queries that could be the secret), "
        "unasked (legal queries not asked yet this episode)",
    )
    parser.add_argument(
        "--config",
        type=arguments.existing_file,
        default=None,
        help="hyperparameter TOML of a new run (default the shipped one)",
    )
    parser.add_argument(
        "--output", type=arguments.output_folder, default=None, help="output folder (default runs/<env id>)"
    )
    parser.add_argument("--resume", type=arguments.model_zip, default=None, help="a saved model to continue training")
    arguments.add_trust_model_option(parser)
    parser.add_argument(
        "--checkpoint-every", type=arguments.count(1), default=10_000, help="timesteps between checkpoints"
    )
    parser.add_argument(
        "--eval-secrets",
        type=arguments.count(1),
        default=None,
        help="play every secret up to this many (2000), else sample",
    )
    parser.add_argument(
        "--eval-time-limit", type=arguments.seconds, default=None, help="SO-ISMCTS seconds a decision (0.1)"
    )
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="hide the progress bar")
    several = parser.add_argument_group(
        "several seeds, and where many jobs run (the seeds, --eval-workers' games, --imitate-workers' games)"
    )
    several.add_argument(
        "--seeds",
        type=arguments.seeds,
        default=None,
        metavar="S,S,...",
        help="one run per seed into OUTPUT/seed-S/, then seeds.md (each seed; their mean with a 95%% t interval, "
        "range and IQM) and seeds.png; --workers runs at a time",
    )
    several.add_argument(
        "--sweep",
        type=arguments.count(1),
        default=None,
        metavar="TRIALS",
        help="a hyperparameter sweep of this many trials into OUTPUT/trial-N/ (train.sweep), then sweep.md, "
        "sweep.png and best.toml; the same command again resumes it; --workers trials at a time",
    )
    several.add_argument(
        "--space",
        type=arguments.space_item,
        nargs="+",
        default=None,
        metavar="NAME=SPEC",
        help="--sweep: a hyperparameter of the algorithm and its range: LOW..HIGH, LOW..HIGH:log or A,B,C "
        "(learning_rate=1e-4..3e-3:log n_steps=64,128,256); also read from a [sweep] table of --config",
    )
    several.add_argument(
        "--pruner",
        choices=("asha", "median", "none"),
        default="asha",
        help="--sweep: what stops bad trials at a checkpoint: asha (default; asynchronous successive halving), "
        "median (below the others' median at that step) or none",
    )
    arguments.add_executor_options(several)
    seats = parser.add_argument_group("multiplayer envs (algo_v0, clue_v0, generalized_clue_v0)")
    seats.add_argument(
        "--opponents",
        type=arguments.names,
        default=None,
        metavar="NAME[,NAME...]",
        help="reference agents drawn for the other seats (default: epsilon_greedy, deduction_sheet, scoreboard)",
    )
    seats.add_argument("--league", action="store_true", help="add frozen snapshots of the learner to the pool")
    seats.add_argument(
        "--league-threshold",
        type=arguments.number(-1, 1),
        default=None,
        help="mean reward that adds a snapshot (default 0.2; 0 = parity)",
    )
    seats.add_argument(
        "--league-window", type=arguments.count(1), default=None, help="games the mean is over (default 500)"
    )
    seats.add_argument(
        "--eval-opponents", type=arguments.names, default=None, metavar="NAME[,NAME...]", help="agents met at the end"
    )
    seats.add_argument("--eval-games", type=arguments.count(1), default=None, help="games against each (default 400)")
    seats.add_argument(
        "--eval-workers", type=arguments.count(1), default=None, help="processes for the evaluation (default 1)"
    )
    imitation = parser.add_argument_group("imitation, before reinforcement learning (train.imitation)")
    imitation.add_argument(
        "--imitate",
        default=None,
        metavar="NAME",
        help="first fit the new policy to this reference agent's play (in the learner's seat of a multiplayer env; "
        f"a single-player game's: {', '.join(SINGLE_PLAYER_EXPERTS)}); with --timesteps 0 the policy only imitates",
    )
    imitation.add_argument(
        "--imitate-games", type=arguments.count(1), default=500, help="games of the agent to imitate (default 500)"
    )
    imitation.add_argument(
        "--imitate-epochs", type=arguments.count(1), default=10, help="passes over them (default 10)"
    )
    imitation.add_argument(
        "--imitate-workers", type=arguments.count(1), default=1, help="processes playing them (default 1)"
    )
    imitation.add_argument(
        "--imitate-learning-rate",
        type=arguments.number(0, open_low=True),
        default=None,
        metavar="LR",
        help="the fit's learning rate (default the algorithm's); PPO after it keeps the config's, so a config with "
        "a smaller rate fine-tunes the imitation without moving far from it",
    )
    imitation.add_argument(
        "--imitate-demos",
        type=arguments.existing_file,
        nargs="+",
        default=None,
        metavar="FILE",
        help="fit to the demonstrations earlier --imitate runs saved (their demonstrations.npz, all together) "
        "instead of new games",
    )
    imitation.add_argument(
        "--imitate-soft",
        action="store_true",
        help="fit to a search agent's root visit shares (how close each choice was) instead of its choices alone: "
        "a multiplayer env's SO-ISMCTS (ismcts, ismcts_greedy, ismcts_greedy_precise)",
    )
    imitation.add_argument(
        "--imitate-values",
        type=arguments.number(0, open_low=True),
        default=None,
        metavar="T",
        help="fit to the softmax of a search agent's root values (mean rewards) at temperature T, which says by "
        "how much each choice was better, instead of its choices alone (the agents of --imitate-soft)",
    )
    imitation.add_argument(
        "--imitate-secrets",
        type=arguments.number(0, 1, open_low=True),
        default=None,
        metavar="SHARE",
        help="single-player games: draw the imitated episodes' secrets from this seeded share of the secrets only; "
        "the evaluation then scores the policy on the seen and the never-seen secrets apart",
    )
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
