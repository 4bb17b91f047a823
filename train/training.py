"""Train a stable-baselines3 / sb3-contrib policy on a deduction env and compare it with the reference agents.

    python -m train                                            # MaskablePPO on Mastermind 3x3
    python -m train --env TreasureHunt-v0 --timesteps 300000 --entropy-reward 1
    python -m train --env Mastermind-v0 --size pegs=4 --size colors=6 --action-mask consistent --max-minutes 20
    python -m train --resume runs/Mastermind-v0/model.zip --timesteps 50000

Ctrl-C (or SIGTERM) stops training and saves what was trained.

Writes to ``--output`` (default ``runs/<env id>``): TensorBoard logs,
periodic checkpoints, the final model (``model.zip``, also on Ctrl-C), the
episode log of the env monitors, a learning-curve PNG and ``comparison.md``:
the trained policy against exhaustive ISES, SO-ISMCTS and random play on the
same secrets (every secret where the game has at most ``--eval-secrets``).
Hyperparameters come from ``train/configs/hyperparameters.toml`` (or
``--config``); ``results/training.md`` says how they were found.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import TqdmExperimentalWarning

import deduction_envs
from agents import ISES, ISMCTS, Agent, EvaluationResult, RandomAgent, SB3Policy, evaluate
from agents.sb3_policy import ALGORITHMS, algorithm_class
from deduction_envs.core.rules import DeductionRules
from deduction_envs.envs import env_rules
from deduction_envs.wrappers import EntropyRewardWrapper
from train.demo import parse_size

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG = Path(__file__).with_name("configs") / "hyperparameters.toml"
DEFAULT_ENV = "Mastermind-v0"
DEFAULT_SIZES = {"Mastermind-v0": {"pegs": 3, "colors": 3}}


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
    subprocesses: bool = False,
) -> Any:
    """``n_envs`` monitored copies of the env, stepped in one process or each in its own (``subprocesses``).

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

    return make_vec_env(
        f"deduction_envs:{env_id}",  # the prefix imports the package, registering the envs in a fresh subprocess
        n_envs=n_envs,
        seed=seed,
        env_kwargs=env_kwargs,
        monitor_dir=str(monitor_dir),
        monitor_kwargs={"override_existing": not append},
        vec_env_cls=SubprocVecEnv if subprocesses else DummyVecEnv,
        wrapper_class=None if entropy_reward is None else EntropyRewardWrapper,
        wrapper_kwargs=None if entropy_reward is None else {"scale": entropy_reward, "gamma": gamma},
    )


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def wall_clock_limit(deadline: float) -> Any:
    """An SB3 callback that stops training once ``time.perf_counter()`` passes ``deadline``."""
    from stable_baselines3.common.callbacks import BaseCallback

    class WallClockLimit(BaseCallback):
        def _on_step(self) -> bool:
            return time.perf_counter() < deadline

    return WallClockLimit()


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
    env_kwargs = {**env_kwargs, "action_mask": args.action_mask}
    monitor = output / "monitor"
    envs = make_envs(
        args.env,
        env_kwargs,
        args.n_envs,
        args.seed,
        monitor,
        args.entropy_reward,
        gamma,
        append=args.resume is not None,
        subprocesses=args.vec_env == "subproc",
    )
    if args.resume is not None:
        model = algorithm.load(args.resume, env=envs, device=device, tensorboard_log=str(output / "tensorboard"))
    else:
        model = algorithm(
            "MultiInputPolicy",
            envs,
            seed=args.seed,
            device=device,
            verbose=0,
            tensorboard_log=str(output / "tensorboard"),
            **settings,
        )
    # On-policy algorithms train in whole rollouts: ask for whole ones, so the bar ends at 100%, not past it.
    rollout = getattr(model, "n_steps", 1) * args.n_envs
    timesteps = -(-args.timesteps // rollout) * rollout
    if timesteps != args.timesteps:
        print(f"training {timesteps:,} timesteps: whole rollouts of {rollout:,} ({args.timesteps:,} asked)", flush=True)
    every = max(1, args.checkpoint_every // args.n_envs)  # counted in calls, one per step of all the envs
    checkpoints = CheckpointCallback(save_freq=every, save_path=str(output / "checkpoints"), name_prefix="model")
    start = time.perf_counter()
    callbacks = [checkpoints]
    if args.max_minutes is not None:
        callbacks.append(wall_clock_limit(start + 60 * args.max_minutes))
    main_thread = threading.current_thread() is threading.main_thread()  # signal handlers live there only
    previous = signal.signal(signal.SIGTERM, _interrupt) if main_thread else None  # a scheduler's stop saves too
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
        print("\nInterrupted: saving what was trained.")
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    model.save(output / "model")
    (output / RUN_FILE).write_text(
        json.dumps(
            {
                "env": args.env,
                "sizes": {k: v for k, v in env_kwargs.items() if k != "action_mask"},
                "algo": args.algo,
                "action_mask": args.action_mask,
                "entropy_reward": args.entropy_reward,
                "timesteps": int(model.num_timesteps),
            },
            indent=1,
        )
        + "\n"
    )
    envs.close()
    seconds = time.perf_counter() - start
    print(f"trained {model.num_timesteps} timesteps in {seconds:.1f} s; saved {output / 'model.zip'}", flush=True)
    return model, seconds


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


def read_monitors(monitor_dir: Path) -> np.ndarray:
    """The episode lengths of every monitor log in ``monitor_dir``, in the order they were played.

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
            lengths.append(table["l"].astype(float))
    if not lengths:
        return np.zeros(0)
    key = np.concatenate(keys)
    return np.concatenate(lengths)[np.lexsort((key[:, 1], key[:, 0]))]


def smoothed(lengths: np.ndarray, most: int, share: int) -> tuple[int, np.ndarray, np.ndarray]:
    """A moving mean of episode lengths over ``min(most, episodes // share)`` episodes (at least 1).

    Returns the window, the timesteps at which each mean ends and the means.
    """
    window = max(1, min(most, lengths.size // share))
    smooth = np.convolve(lengths, np.ones(window) / window, mode="valid")
    return window, np.cumsum(lengths)[window - 1 :], smooth


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
    parser.add_argument("--env", default=DEFAULT_ENV, choices=deduction_envs.ENV_IDS, help="env id")
    parser.add_argument("--size", type=parse_size, action="append", default=None, metavar="NAME=N", help="game size")
    parser.add_argument("--algo", default="maskable_ppo", choices=ALGORITHMS, help="algorithm (default maskable_ppo)")
    parser.add_argument("--timesteps", type=int, default=200_000, help="environment steps to train (default 200000)")
    parser.add_argument("--max-minutes", type=float, default=None, help="stop training after this many minutes")
    parser.add_argument("--n-envs", type=int, default=8, help="copies of the env stepped together (default 8)")
    parser.add_argument(
        "--vec-env", default="dummy", choices=("dummy", "subproc"), help="one process (default) or SubprocVecEnv"
    )
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="torch threads in this process (default 1: concurrent runs on shared cores do not collapse)",
    )
    parser.add_argument("--device", default="cpu", help="torch device (default cpu; e.g. cuda where it pays)")
    parser.add_argument("--seed", type=int, default=0, help="seed of training and evaluation (default 0)")
    parser.add_argument("--entropy-reward", type=float, default=None, metavar="SCALE", help="entropy reward scale")
    parser.add_argument(
        "--action-mask", default="all", choices=("all", "consistent"), help="the env's mask (default all legal queries)"
    )
    parser.add_argument("--config", type=Path, default=CONFIG, help="hyperparameter TOML (default the shipped one)")
    parser.add_argument("--output", type=Path, default=None, help="output folder (default runs/<env id>)")
    parser.add_argument("--resume", type=Path, default=None, help="a saved model to continue training")
    parser.add_argument("--checkpoint-every", type=int, default=10_000, help="timesteps between checkpoints")
    parser.add_argument("--eval-secrets", type=int, default=2000, help="play every secret up to this many, else sample")
    parser.add_argument("--eval-time-limit", type=float, default=0.1, help="SO-ISMCTS seconds per decision")
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="hide the progress bar")
    return parser


def parse_args(argv: list[str] | None = None) -> tuple[argparse.Namespace, dict[str, int]]:
    """Parsed and checked options, and the env's sizes; a bad option exits with a clear message."""
    parser = build_parser()
    args = parser.parse_args(argv)
    for name in ("timesteps", "n_envs", "checkpoint_every", "eval_secrets", "torch_threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    for name in ("resume", "config"):
        path = getattr(args, name)
        if path is not None and not path.exists():
            parser.error(f"--{name}: no {'saved model' if name == 'resume' else 'file'} at {path}")
    sizes = dict(args.size) if args.size is not None else DEFAULT_SIZES.get(args.env, {})
    try:
        rules = env_rules(args.env, **sizes)
        hyperparameters(args.algo, args.env, args.config)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    if args.action_mask == "consistent" and not rules.queries_name_secrets:
        parser.error(f"--action-mask consistent needs queries that name secrets, which {args.env} lacks")
    if args.max_minutes is not None and not args.max_minutes > 0:
        parser.error(f"--max-minutes must be positive, got {args.max_minutes}")
    if args.entropy_reward is not None and not args.entropy_reward >= 0:
        parser.error(f"--entropy-reward must be a scale >= 0, got {args.entropy_reward}")
    args.output = args.output or Path("runs") / args.env
    if args.resume is not None:
        _continue_run(args, sizes, parser)
    try:
        import torch

        device = torch.device(args.device)  # a malformed name is refused here, not after the envs are built
    except (RuntimeError, ValueError) as error:
        parser.error(f"--device: {error}")
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: this machine has no CUDA device (torch's CPU build, or no GPU)")
    return args, sizes


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
    for name, given in (("env", args.env), ("sizes", sizes), ("action_mask", args.action_mask), ("algo", args.algo)):
        if saved[name] != given:
            parser.error(f"--resume: the model was trained with {name} {saved[name]!r}, not {given!r}")
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


def main(argv: list[str] | None = None) -> list[EvaluationResult]:
    """``python -m train``; returns the comparison (the trained policy first)."""
    args, sizes = parse_args(argv)
    return run(args, sizes).results


if __name__ == "__main__":
    main()
