"""Train a stable-baselines3 / sb3-contrib policy on a deduction env and compare it with the reference agents.

    python -m train                                            # MaskablePPO on Mastermind 3x3
    python -m train --env TreasureHunt-v0 --timesteps 300000 --entropy-reward 1
    python -m train --env Mastermind-v0 --size pegs=4 --size colors=6 --action-mask consistent --max-minutes 20
    python -m train --resume runs/Mastermind-v0/model.zip --timesteps 50000
    python -m train --env LowMiddleHigh-v0 --policy features --imitate ises --timesteps 0   # ISES's play, fitted
    python -m train --env clue_v0 --size players=4 --opponents deduction_sheet,random   # one seat of a multiplayer env
    python -m train --seeds 0,1,2 --workers 2                  # three seeds, two at a time; seeds.md aggregates them

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

from agents import EvaluationResult
from agents.roster import seat_agent
from agents.sb3_policy import ALGORITHMS
from deduction_envs import registry
from deduction_envs.envs import env_rules
from deduction_envs.envs.deduction_env import ACTION_MASKS
from train import arguments
from train.config import CONFIG, DEFAULT_ENV, DEFAULT_SIZES, RunConfig, hyperparameters, run_settings
from train.imitation import SINGLE_PLAYER_EXPERTS
from train.multiplayer import check_opponents, default_sizes, is_multiplayer, multiplayer_envs, raw_env
from train.observations import marginal_pointers
from train.training import MARGINAL_WEIGHT, run, vec_env_choice

__all__ = ["build_parser", "main", "names", "parse_args"]


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
        "components (train.observations.marginal_pointers)",
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
        help="one run per seed into OUTPUT/seed-S/, then seeds.md (each seed, mean and IQM with 95%% bootstrap "
        "intervals) and seeds.png; --workers runs at a time",
    )
    arguments.add_executor_options(several)
    seats = parser.add_argument_group("multiplayer envs (algo_v0, clue_v0, generalized_clue_v0)")
    seats.add_argument(
        "--opponents",
        type=names,
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
        "--eval-opponents", type=names, default=None, metavar="NAME[,NAME...]", help="agents met at the end"
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


def names(text: str) -> list[str]:
    """A comma-separated list of names (``a,b``) as a list."""
    return [name.strip() for name in text.split(",") if name.strip()]


def parse_args(argv: list[str] | None = None) -> RunConfig:
    """The run the options describe, checked; a bad option exits with a one-line message (status 2)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # The ranges of single options are checked while parsing (train.arguments); what is left depends on several.
    # --timesteps 0: the policy a run starts from, saved and evaluated (after --imitate: the fit alone; else the
    # untrained policy, the baseline a run's figure is measured from).
    if args.timesteps < 1 and args.resume is not None:
        parser.error("--timesteps 0 with --resume trains nothing: give the steps to train")
    if args.seeds is not None and args.resume is not None:
        parser.error("--seeds starts new runs: it cannot be given with --resume")
    if args.seeds is None and args.workers != 1:
        parser.error("--workers is the number of seeds trained at a time: it goes with --seeds")
    arguments.executor(args, parser)  # a bad combination is refused now
    if args.resume is not None and args.config is not None:
        # SB3 loads a saved model with its own hyperparameters: a config given here would be silently ignored.
        parser.error("--config is for a new run: a resumed one keeps the hyperparameters it was saved with")
    args.config = args.config or CONFIG
    if is_multiplayer(args.env):
        sizes = _check_multiplayer(args, parser)
        rules = None
    else:
        if args.imitate is not None and args.imitate not in SINGLE_PLAYER_EXPERTS:
            parser.error(
                f"--imitate: a single-player game's experts are {', '.join(SINGLE_PLAYER_EXPERTS)}, "
                f"got {args.imitate!r}"
            )
        options = _search_target_options(args)
        if options and args.imitate is not None:
            parser.error(f"{options[0]} needs a search agent; a single-player game's experts do not search")
        envs = ", ".join(multiplayer_envs())
        for name in ("opponents", "eval_opponents", "eval_games", "eval_workers", "league_threshold", "league_window"):
            if getattr(args, name) is not None:
                parser.error(f"--{name.replace('_', '-')} is for the multiplayer envs ({envs})")
        if args.league:
            parser.error(f"--league is for the multiplayer envs ({envs})")
        sizes = dict(args.size) if args.size is not None else DEFAULT_SIZES.get(args.env, {})
        try:
            rules = env_rules(args.env, **sizes)
        except (TypeError, ValueError) as error:
            parser.error(str(error))
    _check_imitation(args, parser)
    try:
        hyperparameters(args.algo, args.env, args.config)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    if args.policy in ("features", "marginals"):
        if args.algo not in ("maskable_ppo", "ppo"):
            parser.error(f"--policy {args.policy} is for maskable_ppo and ppo, got {args.algo}")
    if args.policy == "marginals":
        if is_multiplayer(args.env):
            parser.error("--policy marginals is for the single-player games (a multiplayer env has its own pointers)")
        if args.query_features:
            parser.error("--policy marginals reads the marginals; --query-features gives other features: not both")
        try:
            marginal_pointers(rules)
        except ValueError as error:
            parser.error(f"--policy marginals: {error}")
    if args.marginal_weight is not None and args.policy != "marginals":
        parser.error("--marginal-weight is for --policy marginals")
    if args.query_features and is_multiplayer(args.env):
        parser.error("--query-features is for the single-player games")
    if rules is not None and args.action_mask == "consistent" and not rules.queries_name_secrets:
        parser.error(f"--action-mask consistent needs queries that name secrets, which {args.env} lacks")
    if args.resume is not None:
        _continue_run(args, sizes, parser)  # may set the run's entropy reward, which the batched env lacks
    # An option left out is None here, so that one the env does not take can be refused (above); the run's
    # defaults are RunConfig's.
    names = {f.name for f in dataclasses.fields(RunConfig)} - {"sizes"}
    given = {name: value for name, value in vars(args).items() if name in names and value is not None}
    config = RunConfig(sizes=sizes, **given)
    try:
        config.vec_env = vec_env_choice(config)
    except ValueError as error:
        parser.error(str(error))
    try:
        import torch

        device = torch.device(args.device)  # a malformed name is refused here, not after the envs are built
    except (RuntimeError, ValueError) as error:
        parser.error(f"--device: {error}")
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: this machine has no CUDA device (torch's CPU build, or no GPU)")
    return config


def _check_multiplayer(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, int]:
    """The checks of a multiplayer run; its sizes (the env's defaults, overridden by ``--size``)."""
    sizes = {**default_sizes(args.env), **dict(args.size or [])}
    try:
        raw_env(args.env, **sizes)
    except (TypeError, ValueError) as error:
        parser.error(f"{args.env}: {error}")
    if args.action_mask != "all":
        parser.error("--action-mask is for single-player games; multiplayer envs mask their legal actions")
    for name in ("eval_secrets", "eval_time_limit"):
        if getattr(args, name) is not None:
            parser.error(f"--{name.replace('_', '-')} is for the single-player games (their comparison)")
    if not args.league and (args.league_threshold is not None or args.league_window is not None):
        parser.error("--league-threshold and --league-window go with --league")
    if args.algo not in ("maskable_ppo", "ppo"):
        parser.error(f"multiplayer envs train with maskable_ppo or ppo, got {args.algo}")
    game = registry.game(args.env)
    args.opponents = args.opponents or [game.opponent]
    args.eval_opponents = args.eval_opponents or list(game.evaluation)
    for name in ("opponents", "eval_opponents"):
        try:
            check_opponents(args.env, getattr(args, name))
        except ValueError as error:
            parser.error(f"--{name.replace('_', '-')}: {error}")
    if args.imitate is not None:
        try:
            check_opponents(args.env, [args.imitate])
        except ValueError as error:
            parser.error(f"--imitate: {error}")
        searched = args.imitate_demos is not None or hasattr(seat_agent(args.env, args.imitate), "last_visits")
        options = _search_target_options(args)
        if options and not searched:
            parser.error(f"{options[0]} needs a search agent; {args.imitate} does not search (try ismcts)")
    return sizes


def _search_target_options(args: argparse.Namespace) -> list[str]:
    """The options given that fit a search agent's ratings of its options (``--imitate-soft``, ``--imitate-values``)."""
    given = {"--imitate-soft": args.imitate_soft, "--imitate-values": args.imitate_values is not None}
    return [option for option, on in given.items() if on]


def _check_imitation(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """The checks of the ``--imitate`` options that hold in every env."""
    if args.imitate is not None and args.resume is not None:
        parser.error("--imitate starts a new policy; it cannot be given with --resume")
    if args.imitate_learning_rate is not None:
        if args.imitate is None:
            parser.error("--imitate-learning-rate needs --imitate NAME")
    if args.imitate_soft and args.imitate is None:
        parser.error("--imitate-soft needs --imitate NAME")
    if args.imitate_values is not None:
        if args.imitate is None:
            parser.error("--imitate-values needs --imitate NAME")
        if args.imitate_soft:
            parser.error("--imitate-soft and --imitate-values are two kinds of targets: give one")
    if args.imitate_demos is not None:
        if args.imitate is None:
            parser.error("--imitate-demos needs --imitate NAME (the agent whose demonstrations they are)")
    if args.imitate_secrets is not None:
        if args.imitate is None:
            parser.error("--imitate-secrets needs --imitate NAME")
        if args.imitate_demos is not None:
            parser.error("--imitate-secrets draws new games' secrets; --imitate-demos reads games already played")
        if is_multiplayer(args.env):
            parser.error("--imitate-secrets is for the single-player games (a multiplayer game deals its cards)")


def _continue_run(args: argparse.Namespace, sizes: dict[str, int], parser: argparse.ArgumentParser) -> None:
    """A resumed run keeps the entropy reward it trained with, and must be the same game, size and mask."""
    saved = run_settings(args.resume)
    if saved is None:
        return
    given_settings = (
        ("env", args.env),
        ("sizes", sizes),
        ("action_mask", args.action_mask),
        ("algo", args.algo),
        ("policy", args.policy),
        ("query_features", args.query_features),
    )
    defaults = {"policy": "flat", "query_features": False}  # runs saved before these settings existed
    for name, given in given_settings:
        if saved.get(name, defaults.get(name)) != given:
            parser.error(
                f"--resume: the model was trained with {name} {saved.get(name, defaults.get(name))!r}, not {given!r}"
            )
    if args.entropy_reward is None and saved["entropy_reward"] is not None:
        args.entropy_reward = saved["entropy_reward"]
        print(f"resuming with the run's --entropy-reward {args.entropy_reward:g}")


def main(argv: list[str] | None = None) -> list[EvaluationResult]:
    """``python -m train``; returns the comparison (the trained policy first), or with ``--seeds`` the first
    seed's."""
    config = parse_args(argv)
    if config.seeds is not None:
        from train.seeds import run_seeds

        result = run_seeds(config, config.seeds, config.executor_for(config.workers))
        return result.runs[result.seeds[0]].results
    return run(config).results


if __name__ == "__main__":
    main()
