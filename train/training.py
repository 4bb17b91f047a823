"""Train a stable-baselines3 / sb3-contrib policy on a deduction env and compare it with the reference agents.

    python -m train                                            # MaskablePPO on Mastermind 3x3
    python -m train --env TreasureHunt-v0 --timesteps 300000 --entropy-reward 1
    python -m train --env Mastermind-v0 --size pegs=4 --size colors=6 --action-mask consistent --max-minutes 20
    python -m train --resume runs/Mastermind-v0/model.zip --timesteps 50000
    python -m train --env LowMiddleHigh-v0 --policy features --imitate ises --timesteps 0   # ISES's play, fitted
    python -m train --env clue_v0 --size players=4 --opponents deduction_sheet,random   # one seat of a multiplayer env

Ctrl-C (or SIGTERM) stops training and saves what was trained.

Writes to ``--output`` (default ``runs/<env id>``): TensorBoard logs,
periodic checkpoints, the final model (``model.zip``, also on Ctrl-C), the
episode log of the env monitors, a learning-curve PNG and ``comparison.md``:
the trained policy against exhaustive ISES, SO-ISMCTS and random play on the
same secrets (every secret where the game has at most ``--eval-secrets``).
Hyperparameters come from ``train/configs/hyperparameters.toml`` (or
``--config``); ``results/training.md`` says how they were found.

With ``--env algo_v0``, ``clue_v0`` or ``generalized_clue_v0`` the policy
learns one seat against the reference agents named by ``--opponents`` (and,
with ``--league``, frozen snapshots of itself), and ``comparison.md`` is its
win rate and mean rank against each ``--eval-opponents`` agent, seats
rotated: see :mod:`train.multiplayer`.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import TqdmExperimentalWarning

from agents import ISES, ISMCTS, Agent, EvaluationResult, RandomAgent, SB3Policy, evaluate
from agents.roster import seat_agent
from agents.sb3_policy import ALGORITHMS, algorithm_class
from deduction_envs import registry
from deduction_envs.core.rules import DeductionRules
from deduction_envs.envs import env_rules
from deduction_envs.envs.batched_env import batch_refusal
from deduction_envs.envs.observation import QUERY_FEATURES
from deduction_envs.wrappers import EntropyRewardWrapper
from train import arguments
from train.demo import parse_size
from train.imitation import SINGLE_PLAYER_EXPERTS
from train.multiplayer import (
    check_opponents,
    default_sizes,
    evaluate_seat_policy,
    is_multiplayer,
    league_callback,
    make_seat_envs,
    multiplayer_envs,
    raw_env,
    read_league,
    write_seat_evaluation,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG = Path(__file__).with_name("configs") / "hyperparameters.toml"
DEFAULT_ENV = "Mastermind-v0"
DEFAULT_SIZES = {"Mastermind-v0": {"pegs": 3, "colors": 3}}
#: Keyword arguments of a single-player env that are options of a run, not sizes of the game.
ENV_OPTIONS = ("action_mask", "query_features")
#: The opponents of a multiplayer run without --opponents.


def hyperparameters(algo: str, env_id: str, path: Path = CONFIG) -> dict[str, Any]:
    """The algorithm's keyword arguments from the config file, with the env's overrides applied."""
    config = tomllib.loads(path.read_text())
    return {**config.get(algo, {}), **config.get(env_id, {}).get(algo, {})}


def make_envs(
    env_id: str,
    env_kwargs: dict[str, Any],
    n_envs: int,
    seed: int,
    monitor_dir: Path,
    entropy_reward: float | None = None,
    gamma: float = 1.0,
    append: bool = False,
    vec_env: str = "dummy",
) -> Any:
    """``n_envs`` monitored copies of the env: ``vec_env`` ``"batched"`` one batched env
    (:func:`train.vec_env.batched_vec_env`, the same games as ``"dummy"``, stepped at once), ``"dummy"``
    copies stepped in one process, ``"subproc"`` each in its own.

    One process batches the policy's forward passes over the copies at no
    cost of communication, which is faster for all but costly env steps
    (measured in ``BENCHMARKS.md``); each subprocess env computes its own
    action masks, as sb3-contrib requires.

    With ``entropy_reward``, each copy adds :class:`EntropyRewardWrapper` of
    that scale (and the learner's ``gamma``) outside the monitor, so the
    monitor logs the game's own reward and length. With ``append`` (a resumed
    run) the monitors add to the episode logs instead of replacing them.
    """
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if vec_env == "batched":
        from train.vec_env import batched_vec_env

        return batched_vec_env(env_id, n_envs, seed, str(monitor_dir), append, entropy_reward, gamma, **env_kwargs)
    return make_vec_env(
        f"deduction_envs:{env_id}",  # the prefix imports the package, registering the envs in a fresh subprocess
        n_envs=n_envs,
        seed=seed,
        env_kwargs=env_kwargs,
        monitor_dir=str(monitor_dir),
        monitor_kwargs={"override_existing": not append},
        vec_env_cls=SubprocVecEnv if vec_env == "subproc" else DummyVecEnv,
        wrapper_class=None if entropy_reward is None else EntropyRewardWrapper,
        wrapper_kwargs=None if entropy_reward is None else {"scale": entropy_reward, "gamma": gamma},
    )


def stop_when(done: Callable[[], bool]) -> Any:
    """An SB3 callback that stops training at the first step after ``done()`` turns true."""
    from stable_baselines3.common.callbacks import BaseCallback

    class StopWhen(BaseCallback):
        def _on_step(self) -> bool:
            return not done()

    return StopWhen()


def wall_clock_limit(deadline: float) -> Any:
    """An SB3 callback that stops training once ``time.perf_counter()`` passes ``deadline``."""
    return stop_when(lambda: time.perf_counter() >= deadline)


def train(args: argparse.Namespace, env_kwargs: dict[str, Any]) -> tuple[Any, float]:
    """Train (or resume) and save; returns the model and the seconds trained. Ctrl-C stops and still saves.

    ``args`` are the parsed options of ``python -m train``; ``env_kwargs`` the
    env's keyword arguments (sizes and, for Wordle, word lists).
    """
    import torch
    from stable_baselines3.common.callbacks import CheckpointCallback

    torch.set_num_threads(getattr(args, "torch_threads", 1))
    device = getattr(args, "device", "cpu")
    output: Path = args.output
    algorithm = algorithm_class(args.algo)
    settings = hyperparameters(args.algo, args.env, args.config)
    gamma = settings.get("gamma", 0.99)
    monitor = output / "monitor"
    multiplayer = is_multiplayer(args.env)
    # A resumed run adds to its episode logs; one resumed into a new --output starts them, with their header.
    append = args.resume is not None and any(monitor.glob("*monitor.csv"))
    snapshots = read_league(output) if multiplayer and args.resume is not None else []
    if multiplayer:
        envs = make_seat_envs(
            args.env,
            env_kwargs,
            args.opponents,
            args.n_envs,
            args.seed,
            monitor,
            snapshots,
            append=append,
            subprocesses=args.vec_env == "subproc",
            torch_threads=getattr(args, "torch_threads", 1),
            entropy_reward=args.entropy_reward,
            gamma=gamma,
            algo=args.algo,
        )
    else:
        env_kwargs = {**env_kwargs, "action_mask": args.action_mask}
        if getattr(args, "query_features", False):
            env_kwargs["query_features"] = True
        envs = make_envs(
            args.env,
            env_kwargs,
            args.n_envs,
            args.seed,
            monitor,
            args.entropy_reward,
            gamma,
            append=append,
            vec_env=args.vec_env,
        )
    imitation = None  # the fit's report, if the policy was first fitted to an agent's play
    if args.resume is not None:
        model = algorithm.load(args.resume, env=envs, device=device, tensorboard_log=str(output / "tensorboard"))
    else:
        policy: Any = "MlpPolicy" if multiplayer else "MultiInputPolicy"
        settings = dict(settings)
        policy_kwargs = dict(settings.pop("policy_kwargs", {}))
        if getattr(args, "policy", "flat") == "features":
            from train.policies import policy_for

            sizes = {k: v for k, v in env_kwargs.items() if k not in ENV_OPTIONS}
            game = raw_env(args.env, **sizes) if multiplayer else None  # its rules, and its observation's pointers
            features = (game.rules if multiplayer else env_rules(args.env, **sizes)).action_features()
            pointers = game.observation_pointers() if hasattr(game, "observation_pointers") else None
            query = len(QUERY_FEATURES) if env_kwargs.get("query_features") else 0
            policy, extra = policy_for(args.algo, features, not multiplayer, pointers, query)
            policy_kwargs.update(extra)
        if policy_kwargs:
            settings["policy_kwargs"] = policy_kwargs
        model = algorithm(
            policy,
            envs,
            seed=args.seed,
            device=device,
            verbose=0,
            tensorboard_log=str(output / "tensorboard"),
            **settings,
        )
        if getattr(args, "imitate", None) is not None:
            from train.imitation import imitate

            imitation = imitate(args, env_kwargs, model)
    # On-policy algorithms train in whole rollouts: ask for whole ones, so the bar ends at 100%, not past it.
    rollout = getattr(model, "n_steps", 1) * args.n_envs
    timesteps = -(-args.timesteps // rollout) * rollout
    if timesteps != args.timesteps:
        print(f"training {timesteps:,} timesteps: whole rollouts of {rollout:,} ({args.timesteps:,} asked)", flush=True)
    every = max(1, args.checkpoint_every // args.n_envs)  # counted in calls, one per step of all the envs
    checkpoints = CheckpointCallback(save_freq=every, save_path=str(output / "checkpoints"), name_prefix="model")
    start = time.perf_counter()
    callbacks = [checkpoints]
    if multiplayer and args.league:
        callbacks.append(league_callback(envs, output, args.league_threshold, args.league_window, snapshots))
    if args.max_minutes is not None:
        callbacks.append(wall_clock_limit(start + 60 * args.max_minutes))
    # A scheduler's SIGTERM stops training at the next step and saves, as Ctrl-C does. A flag, not an exception
    # raised wherever the signal lands (in a numba compile, say), which code in between could swallow or break on.
    terminated = threading.Event()
    callbacks.append(stop_when(terminated.is_set))
    main_thread = threading.current_thread() is threading.main_thread()  # signal handlers live there only
    previous = signal.signal(signal.SIGTERM, lambda *_: terminated.set()) if main_thread else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TqdmExperimentalWarning)  # SB3's bar is tqdm.rich, marked experimental
            model.learn(
                total_timesteps=timesteps,
                callback=callbacks,
                progress_bar=args.progress,
                reset_num_timesteps=args.resume is None,
            )
    except KeyboardInterrupt:
        terminated.set()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if terminated.is_set():
        print("\nInterrupted: saving what was trained.")
    model.save(output / "model")
    (output / RUN_FILE).write_text(
        json.dumps(
            {
                "env": args.env,
                "sizes": {k: v for k, v in env_kwargs.items() if k not in ENV_OPTIONS},
                "algo": args.algo,
                "policy": getattr(args, "policy", "flat"),
                "action_mask": args.action_mask,
                "query_features": bool(getattr(args, "query_features", False)),
                "entropy_reward": args.entropy_reward,
                "timesteps": int(model.num_timesteps),
                **(_imitation_settings(args, imitation) if imitation is not None else {}),
                **({"opponents": args.opponents, "league": args.league} if multiplayer else {}),
            },
            indent=1,
        )
        + "\n"
    )
    envs.close()
    seconds = time.perf_counter() - start
    print(f"trained {model.num_timesteps} timesteps in {seconds:.1f} s; saved {output / 'model.zip'}", flush=True)
    return model, seconds


def _imitation_settings(args: argparse.Namespace, report: dict[str, Any]) -> dict[str, Any]:
    """What ``run.json`` records of the fit a run started with: the agent, what was fitted (its actions, a
    search's visit shares or its root values at a temperature) and the demonstrations read, if any."""
    demos = getattr(args, "imitate_demos", None)
    return {
        "imitated": args.imitate,
        "imitation_targets": report["targets"],
        **({"imitation_demonstrations": [str(path) for path in demos]} if demos else {}),
    }


def reference_agents(rules: DeductionRules, time_limit: float) -> list[Agent]:
    """Exhaustive ISES, SO-ISMCTS, random play and, where queries name secrets, consistent random play."""
    agents: list[Agent] = [ISES(), ISMCTS(time_limit=time_limit), RandomAgent()]
    if rules.queries_name_secrets:
        agents.append(RandomAgent(consistent=True))
    return agents


def compare(
    policy: Any,
    env_id: str,
    env_kwargs: dict[str, Any],
    eval_secrets: int,
    time_limit: float,
    seed: int,
    action_mask: str = "all",
    references: bool = True,
    progress: bool | None = None,
) -> list[EvaluationResult]:
    """The trained policy (a model or an SB3Policy) and the :func:`reference_agents` on the same secrets.

    ``env_kwargs`` are the env's sizes (the reference agents play with the
    env's default options); ``action_mask`` is the mask a model was trained
    with (an SB3Policy brings its own). Without ``references``, the policy
    alone. ``progress``: a bar per agent (None: on a terminal only).
    """
    rules = env_rules(env_id, **env_kwargs)
    agents: list[Agent] = (
        []
        if policy is None
        else [policy if isinstance(policy, SB3Policy) else SB3Policy(policy, action_mask=action_mask)]
    )
    if references:
        agents += reference_agents(rules, time_limit)
    if rules.num_secrets <= eval_secrets:
        plan: dict[str, Any] = {"secrets": "all"}
    else:
        plan = {"secrets": "sample", "episodes": eval_secrets, "seed": seed}
    episodes = rules.num_secrets if plan["secrets"] == "all" else eval_secrets
    print(f"comparing {', '.join(a.name for a in agents)} on {episodes} secrets of {env_id}", flush=True)
    return [evaluate(agent, env_id, env_kwargs, progress=progress, **plan) for agent in agents]


def write_comparison(results: list[EvaluationResult], path: Path, title: str) -> str:
    lines = [
        f"# {title}",
        "",
        "| agent | episodes | mean steps | 95% CI | worst | solved | decision ms (mean) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        ci = "exact" if r.exact else f"± {r.ci95:.2f}"
        lines.append(
            f"| {r.agent} | {r.episodes} | {r.mean_steps:.3f} | {ci} | {r.worst} | {100 * r.solve_rate:.1f}% "
            f"| {1e3 * r.mean_decision_time:.2f} |"
        )
    text = "\n".join(lines) + "\n"
    path.write_text(text)
    return text


def read_monitors(monitor_dir: Path, column: str = "l") -> np.ndarray:
    """One column of every monitor log in ``monitor_dir`` (default ``l``, the episode lengths), by episode in the
    order they were played.

    Each log is a JSON comment line, then the columns r (return), l (length)
    and t (seconds since its monitor started). A resumed run appends to a log
    with its clock restarted, so the episodes sort by (segment, t), a segment
    starting wherever t goes back.
    """
    keys, lengths = [], []
    for file in sorted(monitor_dir.glob("*.monitor.csv")):
        table = np.genfromtxt(file, delimiter=",", skip_header=1, names=True, ndmin=1)
        if table.size:
            t = table["t"].astype(float)
            keys.append(np.stack([np.concatenate([[0], np.cumsum(np.diff(t) < 0)]), t], axis=1))
            lengths.append(table[column].astype(float))
    if not lengths:
        return np.zeros(0)
    key = np.concatenate(keys)
    return np.concatenate(lengths)[np.lexsort((key[:, 1], key[:, 0]))]


def smoothed(
    values: np.ndarray, most: int, share: int, lengths: np.ndarray | None = None
) -> tuple[int, np.ndarray, np.ndarray]:
    """A moving mean of per-episode ``values`` over ``min(most, episodes // share)`` episodes (at least 1).

    Returns the window, the timesteps at which each mean ends (by the
    episodes' ``lengths``, default the values themselves) and the means.
    """
    window = max(1, min(most, values.size // share))
    smooth = np.convolve(values, np.ones(window) / window, mode="valid")
    steps = np.cumsum(values if lengths is None else lengths)
    return window, steps[window - 1 :], smooth


def plot_learning_curve(monitor_dir: Path, path: Path, title: str) -> bool:
    """Episode length (queries) against timesteps from the monitor logs; False if there are no episodes yet."""
    from train.plotting import panel_grid, save

    lengths = read_monitors(monitor_dir)
    if not lengths.size:
        return False
    window, steps, smooth = smoothed(lengths, most=100, share=10)
    figure, (ax,) = panel_grid(1, width=6, height=3.6)
    ax.plot(np.cumsum(lengths), lengths, color="grey", alpha=0.3, linewidth=0.6, label="episode")
    ax.plot(steps, smooth, color="tab:red", label=f"mean of {window}")
    ax.set_xlabel("timesteps")
    ax.set_ylabel("queries per episode")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    save(figure, path)
    return True


def plot_seat_curve(monitor_dir: Path, path: Path, title: str, players: int) -> bool:
    """A multiplayer learner's win rate and mean rank against timesteps (moving means over games, parity
    marked); False if there are no games yet."""
    from train.plotting import panel_grid, save

    lengths = read_monitors(monitor_dir)
    if not lengths.size:
        return False
    figure, axes = panel_grid(2, width=5, height=3.4)
    for ax, column, label, parity in zip(
        np.ravel(axes),
        ("won", "rank"),
        ("win rate", "mean rank (1 = first)"),
        (1 / players, (players + 1) / 2),
        strict=True,
    ):
        window, steps, smooth = smoothed(read_monitors(monitor_dir, column), most=500, share=10, lengths=lengths)
        ax.plot(steps, smooth, color="tab:red", label=f"mean of {window} games")
        ax.axhline(parity, color="grey", linestyle="--", linewidth=1, label="parity")
        ax.set_xlabel("timesteps")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend()
    figure.suptitle(title)
    save(figure, path)
    return True


@dataclass
class TrainingRun:
    """What :func:`run` did: timesteps trained, seconds of training, and the comparison (the policy first)."""

    timesteps: int
    seconds: float
    results: list[EvaluationResult]


def build_parser() -> argparse.ArgumentParser:
    """The options of ``python -m train``."""
    parser = argparse.ArgumentParser(
        prog="python -m train", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", default=DEFAULT_ENV, choices=[g.env_id for g in registry.games()], help="env id")
    parser.add_argument("--size", type=parse_size, action="append", default=None, metavar="NAME=N", help="game size")
    parser.add_argument("--algo", default="maskable_ppo", choices=ALGORITHMS, help="algorithm (default maskable_ppo)")
    parser.add_argument(
        "--policy",
        default="flat",
        choices=("flat", "features"),
        help="flat: one output per action (default); features: each action scored by its features (train.policies)",
    )
    parser.add_argument(
        "--query-features",
        action="store_true",
        help="observe every query's state-dependent features (could be the secret, expected gain, likeliest "
        "answer; DeductionEnv(query_features=True)), read per query by --policy features",
    )
    parser.add_argument(
        "--timesteps", type=arguments.count(0), default=200_000, help="environment steps to train (default 200000)"
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
        "--action-mask", default="all", choices=("all", "consistent"), help="the env's mask (default all legal queries)"
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
        "--eval-secrets", type=arguments.count(1), default=2000, help="play every secret up to this many, else sample"
    )
    parser.add_argument("--eval-time-limit", type=arguments.seconds, default=0.1, help="SO-ISMCTS seconds per decision")
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="hide the progress bar")
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
        default=0.2,
        help="mean reward that adds a snapshot (default 0.2; 0 = parity)",
    )
    seats.add_argument(
        "--league-window", type=arguments.count(1), default=500, help="games the mean is over (default 500)"
    )
    seats.add_argument(
        "--eval-opponents", type=names, default=None, metavar="NAME[,NAME...]", help="agents met at the end"
    )
    seats.add_argument("--eval-games", type=arguments.count(1), default=400, help="games against each (default 400)")
    seats.add_argument(
        "--eval-workers", type=arguments.count(1), default=1, help="processes for the evaluation (default 1)"
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
    return parser


def names(text: str) -> list[str]:
    """A comma-separated list of names (``a,b``) as a list."""
    return [name.strip() for name in text.split(",") if name.strip()]


def parse_args(argv: list[str] | None = None) -> tuple[argparse.Namespace, dict[str, int]]:
    """Parsed and checked options, and the env's sizes; a bad option exits with a clear message."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # The ranges of single options are checked while parsing (train.arguments); what is left depends on several.
    if args.timesteps < 1 and args.imitate is None:  # --imitate alone: a policy that only imitates
        parser.error(f"--timesteps must be at least 1 (0 only with --imitate), got {args.timesteps}")
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
        for name in ("opponents", "eval_opponents"):
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
    if args.policy == "features":
        if args.algo not in ("maskable_ppo", "ppo"):
            parser.error(f"--policy features is for maskable_ppo and ppo, got {args.algo}")
    if args.query_features and is_multiplayer(args.env):
        parser.error("--query-features is for the single-player games")
    if rules is not None and args.action_mask == "consistent" and not rules.queries_name_secrets:
        parser.error(f"--action-mask consistent needs queries that name secrets, which {args.env} lacks")
    if args.resume is not None:
        _continue_run(args, sizes, parser)  # may set the run's entropy reward, which the batched env lacks
    args.vec_env = _vec_env(args, rules, parser)
    args.output = args.output or Path("runs") / args.env
    try:
        import torch

        device = torch.device(args.device)  # a malformed name is refused here, not after the envs are built
    except (RuntimeError, ValueError) as error:
        parser.error(f"--device: {error}")
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: this machine has no CUDA device (torch's CPU build, or no GPU)")
    return args, sizes


def _vec_env(args: argparse.Namespace, rules: Any, parser: argparse.ArgumentParser) -> str:
    """The vector env to train on: ``--vec-env``, with ``auto`` the batched env where it plays the game, else
    copies in one process."""
    why = "the multiplayer envs have none" if rules is None else batch_refusal(rules)
    if not why and args.query_features:
        why = "it has no query features"
    if args.vec_env == "auto":
        return "dummy" if why else "batched"
    if args.vec_env == "batched" and why:
        parser.error(f"--vec-env batched: {why}; use --vec-env dummy")
    return args.vec_env


def _check_multiplayer(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, int]:
    """The checks of a multiplayer run; its sizes (the env's defaults, overridden by ``--size``)."""
    sizes = {**default_sizes(args.env), **dict(args.size or [])}
    try:
        raw_env(args.env, **sizes)
    except (TypeError, ValueError) as error:
        parser.error(f"{args.env}: {error}")
    if args.action_mask != "all":
        parser.error("--action-mask consistent is for single-player games; multiplayer envs mask legal actions")
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


#: The settings of a run, written next to its model so that --resume and train.evaluate can read them.
RUN_FILE = "run.json"


def run_settings(model: Path) -> dict[str, Any] | None:
    """The settings saved with the model at ``model`` (``model.zip``), or None for a model saved elsewhere."""
    path = Path(model).parent / RUN_FILE
    return json.loads(path.read_text()) if path.exists() else None


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


def run(args: argparse.Namespace, env_kwargs: dict[str, Any], references: bool = True) -> TrainingRun:
    """Train, plot the learning curve, compare with the reference agents and write ``comparison.md``.

    Without ``references`` only the trained policy is evaluated (for callers
    that measure the reference agents once for several policies).
    """
    args.output.mkdir(parents=True, exist_ok=True)
    model, seconds = train(args, env_kwargs)
    if is_multiplayer(args.env):
        return _run_seat(args, env_kwargs, model, seconds)
    sizes = {k: v for k, v in env_kwargs.items() if isinstance(v, int)}
    label = f"{args.algo} on {args.env} {sizes or ''}".strip()
    plot_learning_curve(args.output / "monitor", args.output / "learning_curve.png", label)
    results = compare(
        model,
        args.env,
        env_kwargs,
        args.eval_secrets,
        args.eval_time_limit,
        args.seed,
        args.action_mask,
        references,
        progress=None if args.progress else False,  # --no-progress hides every bar
    )
    print(write_comparison(results, args.output / "comparison.md", f"{label}, {model.num_timesteps} timesteps"))
    return TrainingRun(model.num_timesteps, seconds, results)


def _run_seat(args: argparse.Namespace, env_kwargs: dict[str, Any], model: Any, seconds: float) -> TrainingRun:
    """A multiplayer run's curves and its evaluation against the reference agents."""
    players = raw_env(args.env, **env_kwargs).rules.players
    label = f"{args.algo} on {args.env} {env_kwargs} against {','.join(args.opponents)}"
    plot_seat_curve(args.output / "monitor", args.output / "learning_curve.png", label, players)
    results = evaluate_seat_policy(
        args.output / "model.zip",
        args.env,
        env_kwargs,
        args.eval_opponents,
        args.eval_games,
        args.seed,
        args.algo,
        args.eval_workers,
    )
    title = f"{label}, {model.num_timesteps} timesteps"
    print(write_seat_evaluation(results, args.output / "comparison.md", title))
    return TrainingRun(model.num_timesteps, seconds, results)


def main(argv: list[str] | None = None) -> list[EvaluationResult]:
    """``python -m train``; returns the comparison (the trained policy first)."""
    args, sizes = parse_args(argv)
    return run(args, sizes).results


if __name__ == "__main__":
    main()
