"""The options of a training run, stated once: ``python -m train`` parses them and :class:`train.config.RunConfig`
checks a Python caller's values with them.

:func:`add_run_options` declares every option of ``python -m train``: its flag, type (the checks of
:mod:`train.arguments`), choices and help. Their defaults are :class:`~train.config.RunConfig`'s fields (the
command line reads them from there); the defaults that depend on the kind of game are here
(:data:`SEATS_DEFAULTS`, :data:`SECRETS_DEFAULTS`), read by the tasks. This module imports no trainer and no
command line: the library sits on it.
"""

from __future__ import annotations

import argparse
from typing import Any

from agents import ISES, Agent
from agents.sb3_policy import ALGORITHMS
from deduction_envs import registry
from deduction_envs.core.entropy import ENTROPY_ENDS
from deduction_envs.envs.deduction_env import ACTION_MASKS
from train import arguments

__all__ = [
    "DEFAULT_SIZES",
    "MARGINAL_WEIGHT",
    "PRUNERS",
    "SEATS_DEFAULTS",
    "SECRETS_DEFAULTS",
    "SINGLE_PLAYER_EXPERTS",
    "VEC_ENVS",
    "add_run_options",
    "run_parser",
]

#: The sizes a run of these envs trains at unless told otherwise (the quick start's small Mastermind).
DEFAULT_SIZES = {"Mastermind-v0": {"pegs": 3, "colors": 3}}
#: ``--policy marginals``: each marginal's initial weight in a query's score (the sum of its components'
#: marginals). With 0, one of two seeds on Mastermind 4x6 drifted to avoiding likely codes and never left
#: random play (results/training.md).
MARGINAL_WEIGHT = 1.0
#: The agents a single-player game's ``--imitate`` may name (:mod:`train.imitation`).
SINGLE_PLAYER_EXPERTS: dict[str, type[Agent]] = {"ises": ISES}
#: What ``--pruner`` may name: what stops a sweep's bad trials early (:mod:`train.sweep`).
PRUNERS = ("asha", "median", "none")
#: What ``--vec-env`` may name.
VEC_ENVS = ("auto", "batched", "dummy", "subproc")
#: The multiplayer games' defaults of the options only they take (None in a config: this): a league's threshold
#: and window, the evaluation's games against each opponent and its worker processes. ``opponents`` and
#: ``eval_opponents`` default to the game's registry entry.
SEATS_DEFAULTS: dict[str, Any] = {"league_threshold": 0.2, "league_window": 500, "eval_games": 400, "eval_workers": 1}
#: The single-player games' defaults of the options only they take: the comparison plays every secret up to
#: ``eval_secrets`` (else as many sampled), SO-ISMCTS with ``eval_time_limit`` seconds a decision.
SECRETS_DEFAULTS: dict[str, Any] = {"eval_secrets": 2000, "eval_time_limit": 0.1}


def run_parser(**kwargs: Any) -> argparse.ArgumentParser:
    """A parser of every option of a run (:func:`add_run_options`), without defaults; ``kwargs`` go to the
    parser (its ``prog``, ``description``)."""
    return add_run_options(arguments.Parser(**kwargs))


def add_run_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Declare the options of ``python -m train`` on ``parser`` (no defaults: see the module docstring)."""
    parser.add_argument("--env", choices=[g.env_id for g in registry.games()], help="env id (default %(default)s)")
    arguments.add_size_option(parser, none_if_unset=True)
    parser.add_argument("--algo", choices=ALGORITHMS, help="algorithm (default %(default)s)")
    parser.add_argument(
        "--policy",
        choices=("flat", "features", "marginals"),
        help="flat: one output per action (default); features: each action scored by its features (train.policies); "
        "marginals (single-player games): features, and each query also by the observation's marginals of its "
        "components (deduction_envs.core.rules.marginal_pointers)",
    )
    parser.add_argument(
        "--marginal-weight",
        type=arguments.number(0),
        metavar="W",
        help=f"--policy marginals: each marginal's initial weight in a query's score (default {MARGINAL_WEIGHT}; "
        "Bulls and Cows needs a sharper start: results/training.md)",
    )
    parser.add_argument(
        "--pointer-weights",
        type=arguments.numbers(-100, 100),
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
        help="environment steps to train (default %(default)s); 0: save and evaluate the policy a run starts from "
        "(the fit alone after --imitate, else the untrained policy)",
    )
    parser.add_argument(
        "--max-minutes",
        type=arguments.number(0, open_low=True),
        help="stop training after this many minutes",
    )
    parser.add_argument(
        "--n-envs", type=arguments.count(1), help="copies of the env stepped together (default %(default)s)"
    )
    parser.add_argument(
        "--vec-env",
        choices=VEC_ENVS,
        help="batched: one batched env (the default where the game has one); "
        "dummy: copies in one process (the other default); subproc: SubprocVecEnv",
    )
    parser.add_argument(
        "--torch-threads",
        type=arguments.count(1),
        help="torch threads in this process (default %(default)s: concurrent runs on shared cores do not collapse)",
    )
    parser.add_argument("--device", help="torch device (default %(default)s; e.g. cuda where it pays)")
    parser.add_argument("--seed", type=arguments.seed, help="seed of training and evaluation (default %(default)s)")
    parser.add_argument("--entropy-reward", type=arguments.number(0), metavar="SCALE", help="entropy reward scale")
    parser.add_argument(
        "--entropy-reward-end",
        choices=ENTROPY_ENDS,
        help="a multiplayer game on the batched seats: what the entropy reward pays at the game's end: potential "
        "(default) the bits still unknown, so the shaping leaves the best policy unchanged; none: nothing, so the "
        "learner is paid only for the bits it learned before the end (changes the best policy); own: nothing at "
        "the end, and before it only the bits the answer to the learner's own move taught it, not what the other "
        "seats' moves revealed (changes the best policy)",
    )
    parser.add_argument(
        "--action-mask",
        choices=ACTION_MASKS,
        help="the env's mask: all legal queries (default), consistent (only queries that could be the secret), "
        "unasked (legal queries not asked yet this episode)",
    )
    parser.add_argument(
        "--config",
        type=arguments.existing_file,
        help="hyperparameter TOML of a new run (default the shipped one)",
    )
    parser.add_argument("--output", type=arguments.output_folder, help="output folder (default runs/<env id>)")
    parser.add_argument("--resume", type=arguments.model_zip, help="a saved model to continue training")
    arguments.add_trust_model_option(parser)
    parser.add_argument("--checkpoint-every", type=arguments.count(1), help="timesteps between checkpoints")
    parser.add_argument(
        "--eval-secrets",
        type=arguments.count(1),
        help=f"play every secret up to this many ({SECRETS_DEFAULTS['eval_secrets']}), else sample",
    )
    parser.add_argument(
        "--eval-time-limit",
        type=arguments.seconds,
        help=f"SO-ISMCTS seconds a decision ({SECRETS_DEFAULTS['eval_time_limit']})",
    )
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="hide the progress bar")
    several = parser.add_argument_group(
        "several seeds, and where many jobs run (the seeds, --eval-workers' games, --imitate-workers' games)"
    )
    several.add_argument(
        "--seeds",
        type=arguments.seeds,
        metavar="S,S,...",
        help="one run per seed into OUTPUT/seed-S/, then seeds.md (each seed; their mean with a 95%% t interval, "
        "range and IQM) and seeds.png; --workers runs at a time",
    )
    several.add_argument(
        "--sweep",
        type=arguments.count(1),
        metavar="TRIALS",
        help="a hyperparameter sweep of this many trials into OUTPUT/trial-N/ (train.sweep), then sweep.md, "
        "sweep.png and best.toml; the same command again resumes it; --workers trials at a time",
    )
    several.add_argument(
        "--space",
        type=arguments.space_item,
        nargs="+",
        metavar="NAME=SPEC",
        help="--sweep: a hyperparameter of the algorithm and its range: LOW..HIGH, LOW..HIGH:log or A,B,C "
        "(learning_rate=1e-4..3e-3:log n_steps=64,128,256); also read from a [sweep] table of --config",
    )
    several.add_argument(
        "--pruner",
        choices=PRUNERS,
        help="--sweep: what stops bad trials at a checkpoint: asha (default; asynchronous successive halving), "
        "median (below the others' median at that step) or none",
    )
    arguments.add_executor_options(several, workers=None)
    seats = parser.add_argument_group("multiplayer envs (algo_v0, clue_v0, generalized_clue_v0)")
    seats.add_argument(
        "--opponents",
        type=arguments.names,
        metavar="NAME[,NAME...]",
        help="reference agents drawn for the other seats (default: the game's own, from the registry)",
    )
    seats.add_argument("--league", action="store_true", help="add frozen snapshots of the learner to the pool")
    seats.add_argument(
        "--league-threshold",
        type=arguments.number(-1, 1),
        help=f"mean reward that adds a snapshot (default {SEATS_DEFAULTS['league_threshold']}; 0 = parity)",
    )
    seats.add_argument(
        "--league-window",
        type=arguments.count(1),
        help=f"games the mean is over (default {SEATS_DEFAULTS['league_window']})",
    )
    seats.add_argument("--eval-opponents", type=arguments.names, metavar="NAME[,NAME...]", help="agents met at the end")
    seats.add_argument(
        "--eval-games", type=arguments.count(1), help=f"games against each (default {SEATS_DEFAULTS['eval_games']})"
    )
    seats.add_argument(
        "--eval-workers",
        type=arguments.count(1),
        help=f"processes for the evaluation (default {SEATS_DEFAULTS['eval_workers']})",
    )
    imitation = parser.add_argument_group("imitation, before reinforcement learning (train.imitation)")
    imitation.add_argument(
        "--imitate",
        metavar="NAME",
        help="first fit the new policy to this reference agent's play (in the learner's seat of a multiplayer env; "
        f"a single-player game's: {', '.join(SINGLE_PLAYER_EXPERTS)}); with --timesteps 0 the policy only imitates",
    )
    imitation.add_argument(
        "--imitate-games", type=arguments.count(1), help="games of the agent to imitate (default %(default)s)"
    )
    imitation.add_argument("--imitate-epochs", type=arguments.count(1), help="passes over them (default %(default)s)")
    imitation.add_argument(
        "--imitate-workers", type=arguments.count(1), help="processes playing them (default %(default)s)"
    )
    imitation.add_argument(
        "--imitate-learning-rate",
        type=arguments.number(0, open_low=True),
        metavar="LR",
        help="the fit's learning rate (default the algorithm's); PPO after it keeps the config's, so a config with "
        "a smaller rate fine-tunes the imitation without moving far from it",
    )
    imitation.add_argument(
        "--imitate-demos",
        type=arguments.existing_file,
        nargs="+",
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
        metavar="T",
        help="fit to the softmax of a search agent's root values (mean rewards) at temperature T, which says by "
        "how much each choice was better, instead of its choices alone (the agents of --imitate-soft)",
    )
    imitation.add_argument(
        "--imitate-secrets",
        type=arguments.number(0, 1, open_low=True),
        metavar="SHARE",
        help="single-player games: draw the imitated episodes' secrets from this seeded share of the secrets only; "
        "the evaluation then scores the policy on the seen and the never-seen secrets apart",
    )
    return parser
