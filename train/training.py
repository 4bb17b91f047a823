"""Train a stable-baselines3 / sb3-contrib policy on a deduction env and compare it with the reference agents.

    python -m train                                            # MaskablePPO on Mastermind 3x3
    python -m train --env TreasureHunt-v0 --timesteps 200000 --n-envs 2
    python -m train --env Mastermind-v0 --size pegs=4 --size colors=6 --entropy-reward 0.1
    python -m train --resume runs/Mastermind-v0/model.zip --timesteps 50000

Writes to ``--output`` (default ``runs/<env id>``): TensorBoard logs,
periodic checkpoints, the final model (``model.zip``, also on Ctrl-C), the
episode log of the env monitors, a learning-curve PNG and ``comparison.md``:
the trained policy against exhaustive ISES, SO-ISMCTS and random play on the
same secrets (every secret where the game has at most ``--eval-secrets``).
Hyperparameters come from ``train/configs/hyperparameters.toml``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import deduction_envs
from agents import ISES, ISMCTS, Agent, EvaluationResult, RandomAgent, SB3Policy, evaluate
from agents.sb3_policy import ALGORITHMS, algorithm_class
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
) -> Any:
    """``n_envs`` monitored copies of the env: in one process, or in subprocesses when ``n_envs > 1``.

    With ``entropy_reward``, each copy adds :class:`EntropyRewardWrapper` of
    that scale (and the learner's ``gamma``) outside the monitor, so the
    monitor logs the game's own reward and length.
    """
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    return make_vec_env(
        env_id,
        n_envs=n_envs,
        seed=seed,
        env_kwargs=env_kwargs,
        monitor_dir=str(monitor_dir),
        vec_env_cls=SubprocVecEnv if n_envs > 1 else DummyVecEnv,
        wrapper_class=None if entropy_reward is None else EntropyRewardWrapper,
        wrapper_kwargs=None if entropy_reward is None else {"scale": entropy_reward, "gamma": gamma},
    )


def train(args: argparse.Namespace, env_kwargs: dict[str, Any]) -> Any:
    """Train (or resume) and save; returns the model. Ctrl-C stops training and still saves."""
    from stable_baselines3.common.callbacks import CheckpointCallback

    output: Path = args.output
    algorithm = algorithm_class(args.algo)
    settings = hyperparameters(args.algo, args.env)
    gamma = settings.get("gamma", 0.99)
    envs = make_envs(args.env, env_kwargs, args.n_envs, args.seed, output / "monitor", args.entropy_reward, gamma)
    if args.resume is not None:
        model = algorithm.load(args.resume, env=envs, device="cpu", tensorboard_log=str(output / "tensorboard"))
    else:
        model = algorithm(
            "MultiInputPolicy",
            envs,
            seed=args.seed,
            device="cpu",
            verbose=0,
            tensorboard_log=str(output / "tensorboard"),
            **settings,
        )
    every = max(1, args.checkpoint_every // args.n_envs)  # counted in calls, one per step of all the envs
    checkpoints = CheckpointCallback(save_freq=every, save_path=str(output / "checkpoints"), name_prefix="model")
    start = time.perf_counter()
    try:
        model.learn(
            total_timesteps=args.timesteps,
            callback=checkpoints,
            progress_bar=args.progress,
            reset_num_timesteps=args.resume is None,
        )
    except KeyboardInterrupt:
        print("\nInterrupted: saving what was trained.")
    model.save(output / "model")
    envs.close()
    seconds = time.perf_counter() - start
    print(f"trained {model.num_timesteps} timesteps in {seconds:.1f} s; saved {output / 'model.zip'}")
    return model


def compare(
    policy: Any, env_id: str, env_kwargs: dict[str, Any], eval_secrets: int, time_limit: float, seed: int
) -> list[EvaluationResult]:
    """The trained policy (a model or an SB3Policy), exhaustive ISES, SO-ISMCTS and random play on the same secrets.

    ``env_kwargs`` are the env's sizes (the reference agents play with the env's default options).
    """
    rules = env_rules(env_id, **env_kwargs)
    policy = policy if isinstance(policy, SB3Policy) else SB3Policy(policy)
    agents: list[Agent] = [policy, ISES(), ISMCTS(time_limit=time_limit), RandomAgent()]
    if rules.num_secrets <= eval_secrets:
        plan: dict[str, Any] = {"secrets": "all"}
    else:
        plan = {"secrets": "sample", "episodes": eval_secrets, "seed": seed}
    return [evaluate(agent, env_id, env_kwargs, progress=False, **plan) for agent in agents]


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


def plot_learning_curve(monitor_dir: Path, path: Path, title: str) -> bool:
    """Episode length (queries) against timesteps from the monitor logs; False if there are no episodes yet."""
    from train.plotting import panel_grid, save

    # Each monitor file: a JSON comment line, then the columns r (return), l (length), t (seconds).
    files = sorted(monitor_dir.glob("*.monitor.csv"))
    tables = [np.genfromtxt(f, delimiter=",", skip_header=1, names=True, ndmin=1) for f in files]
    tables = [table for table in tables if table.size]
    if not tables:
        return False
    episodes = np.sort(np.concatenate(tables), order="t")
    lengths = episodes["l"].astype(float)
    steps = np.cumsum(lengths)
    window = max(1, min(100, lengths.size // 10))
    smooth = np.convolve(lengths, np.ones(window) / window, mode="valid")
    figure, (ax,) = panel_grid(1, width=6, height=3.6)
    ax.plot(steps, lengths, color="grey", alpha=0.3, linewidth=0.6, label="episode")
    ax.plot(steps[window - 1 :], smooth, color="tab:red", label=f"mean of {window}")
    ax.set_xlabel("timesteps")
    ax.set_ylabel("queries per episode")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    save(figure, path)
    return True


def main(argv: list[str] | None = None) -> list[EvaluationResult]:
    parser = argparse.ArgumentParser(
        prog="python -m train", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", default=DEFAULT_ENV, choices=deduction_envs.ENV_IDS, help="env id")
    parser.add_argument("--size", type=parse_size, action="append", default=None, metavar="NAME=N", help="game size")
    parser.add_argument("--algo", default="maskable_ppo", choices=ALGORITHMS, help="algorithm (default maskable_ppo)")
    parser.add_argument("--timesteps", type=int, default=50_000, help="environment steps to train (default 50000)")
    parser.add_argument("--n-envs", type=int, default=1, help="envs in parallel; > 1 uses SubprocVecEnv")
    parser.add_argument("--seed", type=int, default=0, help="seed of training and evaluation (default 0)")
    parser.add_argument("--entropy-reward", type=float, default=None, metavar="SCALE", help="entropy reward scale")
    parser.add_argument("--output", type=Path, default=None, help="output folder (default runs/<env id>)")
    parser.add_argument("--resume", type=Path, default=None, help="a saved model to continue training")
    parser.add_argument("--checkpoint-every", type=int, default=10_000, help="timesteps between checkpoints")
    parser.add_argument("--eval-secrets", type=int, default=2000, help="play every secret up to this many, else sample")
    parser.add_argument("--eval-time-limit", type=float, default=0.1, help="SO-ISMCTS seconds per decision")
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="hide the progress bar")
    args = parser.parse_args(argv)
    for name in ("timesteps", "n_envs", "checkpoint_every", "eval_secrets"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.resume is not None and not args.resume.exists():
        parser.error(f"--resume: no saved model at {args.resume}")
    sizes = dict(args.size) if args.size is not None else DEFAULT_SIZES.get(args.env, {})
    try:
        env_rules(args.env, **sizes)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    if args.entropy_reward is not None and not args.entropy_reward >= 0:
        parser.error(f"--entropy-reward must be a scale >= 0, got {args.entropy_reward}")
    args.output = args.output or Path("runs") / args.env
    args.output.mkdir(parents=True, exist_ok=True)

    model = train(args, sizes)
    label = f"{args.algo} on {args.env} {sizes or ''}".strip()
    plot_learning_curve(args.output / "monitor", args.output / "learning_curve.png", label)
    results = compare(model, args.env, sizes, args.eval_secrets, args.eval_time_limit, args.seed)
    print(write_comparison(results, args.output / "comparison.md", f"{label}, {model.num_timesteps} timesteps"))
    return results


if __name__ == "__main__":
    main()
