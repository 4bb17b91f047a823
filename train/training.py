"""Training on stable-baselines3 / sb3-contrib: a run's envs, its learning loop, its outputs.

    from train.config import RunConfig
    from train.training import run

    done = run(RunConfig(env="Mastermind-v0", sizes={"pegs": 3, "colors": 3}, timesteps=20_000))

:func:`train` trains (or resumes) the run a :class:`~train.config.RunConfig` describes and saves it in its
``output``: TensorBoard logs, periodic checkpoints, the final model (``model.zip``, also on Ctrl-C or SIGTERM),
the episode log of the env monitors and ``run.json``. :func:`run` adds the learning-curve PNG and
``comparison.md``: the trained policy against exhaustive ISES, SO-ISMCTS and random play on the same secrets
(:mod:`train.comparison`), or for a multiplayer game its win rate and mean rank against each evaluation
opponent, seats rotated (:mod:`train.multiplayer`). The command line is :mod:`train.cli`.
"""

from __future__ import annotations

import json
import signal
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import TqdmExperimentalWarning

from agents import EvaluationResult
from agents.sb3_policy import algorithm_class, load_model
from deduction_envs.envs import env_rules
from deduction_envs.envs.batched_env import batch_refusal
from deduction_envs.envs.observation import QUERY_FEATURES
from deduction_envs.wrappers import EntropyRewardWrapper
from train.comparison import compare, seen_by_imitation, write_comparison
from train.config import RUN_FILE, RunConfig, code_commit, hyperparameters
from train.curves import plot_learning_curve, plot_seat_curve
from train.multiplayer import (
    evaluate_seat_policy,
    is_multiplayer,
    league_callback,
    make_seat_envs,
    raw_env,
    read_league,
    write_seat_evaluation,
)

#: ``--policy marginals``: each marginal's initial weight in a query's score (the sum of its components'
#: marginals). With 0, one of two seeds on Mastermind 4x6 drifted to avoiding likely codes and never left
#: random play (results/training.md).
MARGINAL_WEIGHT = 1.0

__all__ = ["MARGINAL_WEIGHT", "TrainingRun", "make_envs", "run", "train", "vec_env_choice"]


def vec_env_choice(config: RunConfig) -> str:
    """The vector env a run steps: its ``vec_env``, with ``"auto"`` the batched env where it plays the game,
    else copies in one process.

    Raises:
        ValueError: ``"batched"`` for a game (or an option) the batched env does not play.
    """
    why = (
        "the multiplayer envs have none"
        if is_multiplayer(config.env)
        else batch_refusal(env_rules(config.env, **config.sizes))
    )
    if not why and config.query_features:
        why = "it has no query features"
    if config.vec_env == "auto":
        return "dummy" if why else "batched"
    if config.vec_env == "batched" and why:
        raise ValueError(f"--vec-env batched: {why}; use --vec-env dummy")
    return config.vec_env


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


def train(config: RunConfig) -> tuple[Any, float]:
    """Train (or resume) the run ``config`` describes and save it in ``config.output``; returns the model and
    the seconds trained. Ctrl-C (or SIGTERM) stops training and still saves."""
    import torch
    from stable_baselines3.common.callbacks import CheckpointCallback

    args = config
    torch.set_num_threads(args.torch_threads)
    device = args.device
    output: Path = args.output
    vec_env = vec_env_choice(args)
    algorithm = algorithm_class(args.algo)
    settings = hyperparameters(args.algo, args.env, args.config)
    gamma = settings.get("gamma", 0.99)
    monitor = output / "monitor"
    multiplayer = is_multiplayer(args.env)
    # A resumed run adds to its episode logs; one resumed into a new --output starts them, with their header.
    append = args.resume is not None and any(monitor.glob("*monitor.csv"))
    snapshots = read_league(output) if multiplayer and args.resume is not None else []
    env_kwargs = args.env_kwargs
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
            subprocesses=vec_env == "subproc",
            torch_threads=args.torch_threads,
            entropy_reward=args.entropy_reward,
            gamma=gamma,
            algo=args.algo,
        )
    else:
        envs = make_envs(
            args.env,
            env_kwargs,
            args.n_envs,
            args.seed,
            monitor,
            args.entropy_reward,
            gamma,
            append=append,
            vec_env=vec_env,
        )
    imitation = None  # the fit's report, if the policy was first fitted to an agent's play
    if args.resume is not None:
        model = load_model(args.resume, args.algo, env=envs, device=device, tensorboard_log=str(output / "tensorboard"))
    else:
        from train.policies import flat_policy

        policy: Any = flat_policy(args.algo, dict_observations=not multiplayer)
        settings = dict(settings)
        policy_kwargs = dict(settings.pop("policy_kwargs", {}))
        if args.policy in ("features", "marginals"):
            from train.observations import marginal_pointers, observation_pointers
            from train.policies import policy_for

            sizes = args.sizes
            game = raw_env(args.env, **sizes) if multiplayer else None  # its rules, and its observation's pointers
            rules = game.rules if multiplayer else env_rules(args.env, **sizes)
            pointers, key, weight = observation_pointers(game), None, 0.0
            if args.policy == "marginals":  # each query also scored by the marginals of its components
                weight = MARGINAL_WEIGHT if args.marginal_weight is None else args.marginal_weight
                pointers, key = marginal_pointers(rules), "information_set"
            query = len(QUERY_FEATURES) if args.query_features else 0
            features = rules.action_features()
            policy, extra = policy_for(args.algo, features, not multiplayer, pointers, query, key, weight)
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
        if args.imitate is not None:
            from train.imitation import imitate

            imitation = imitate(args, model)
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
    # torch checks every distribution's parameters when it is built (twice per masked distribution, which
    # sb3-contrib re-initialises with the mask): 6% of a MaskablePPO run on Mastermind 4x6 (BENCHMARKS.md).
    # The policies build them from finite logits, so while training the check can only cost.
    checking = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(False)
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
        torch.distributions.Distribution.set_default_validate_args(checking)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if terminated.is_set():
        print("\nInterrupted: saving what was trained.")
    model.save(output / "model")
    (output / RUN_FILE).write_text(
        json.dumps(
            {
                "env": args.env,
                "sizes": args.sizes,
                "algo": args.algo,
                "policy": args.policy,
                **({"marginal_weight": model.policy.pointer_weight} if args.policy == "marginals" else {}),
                "action_mask": args.action_mask,
                "query_features": args.query_features,
                "entropy_reward": args.entropy_reward,
                "timesteps": int(model.num_timesteps),
                "seed": args.seed,
                "eval_seed": args.evaluation_seed,
                "commit": code_commit(),
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


def _imitation_settings(args: RunConfig, report: dict[str, Any]) -> dict[str, Any]:
    """What ``run.json`` records of the fit a run started with: the agent, what was fitted (its actions, a
    search's visit shares or its root values at a temperature) and the demonstrations read, if any."""
    demos = args.imitate_demos
    return {
        "imitated": args.imitate,
        "imitation_targets": report["targets"],
        **({"imitation_demonstrations": [str(path) for path in demos]} if demos else {}),
    }


@dataclass
class TrainingRun:
    """What :func:`run` did: timesteps trained, seconds of training, and the comparison (the policy first)."""

    timesteps: int
    seconds: float
    results: list[EvaluationResult]


def run(config: RunConfig, references: bool = True) -> TrainingRun:
    """Train, plot the learning curve, compare with the reference agents and write ``comparison.md``.

    Without ``references`` only the trained policy is evaluated (for callers
    that measure the reference agents once for several policies).
    """
    args = config
    args.output.mkdir(parents=True, exist_ok=True)
    model, seconds = train(args)
    if is_multiplayer(args.env):
        return _run_seat(args, model, seconds)
    label = f"{args.algo} on {args.env} {args.sizes or ''}".strip()
    plot_learning_curve(args.output / "monitor", args.output / "learning_curve.png", label)
    results = compare(
        model,
        args.env,
        args.sizes,
        args.eval_secrets,
        args.eval_time_limit,
        args.evaluation_seed,
        args.action_mask,
        references,
        progress=None if args.progress else False,  # --no-progress hides every bar
    )
    title = f"{label}, {model.num_timesteps} timesteps"
    print(write_comparison(results, args.output / "comparison.md", title, seen_by_imitation(args.output)))
    print(written(args.output))
    return TrainingRun(model.num_timesteps, seconds, results)


#: What a run's folder holds, in the order :func:`written` lists it.
RUN_FILES = {
    "model.zip": "the trained policy (python -m train.evaluate --model, SB3Policy.load)",
    RUN_FILE: "the run's settings (--resume and train.evaluate read them)",
    "comparison.md": "the table above",
    "learning_curve.png": "the learning curve",
    "imitation.json": "the fit to a reference agent's play",
    "checkpoints": "the model every so many steps",
    "monitor": "each training episode's return and length (the curve's data)",
    "tensorboard": "TensorBoard logs: tensorboard --logdir {folder}/tensorboard",
}


def written(output: Path) -> str:
    """What a run wrote to ``output``, a line a file, for the end of the command's output."""
    lines = [f"wrote to {output}/:"]
    for name, what in RUN_FILES.items():
        if (output / name).exists():
            lines.append(f"  {name + ('/' if (output / name).is_dir() else ''):<20} {what.format(folder=output)}")
    return "\n".join(lines)


def _run_seat(args: RunConfig, model: Any, seconds: float) -> TrainingRun:
    """A multiplayer run's curves and its evaluation against the reference agents."""
    env_kwargs = args.sizes
    players = raw_env(args.env, **env_kwargs).rules.players
    label = f"{args.algo} on {args.env} {env_kwargs} against {','.join(args.opponents)}"
    plot_seat_curve(args.output / "monitor", args.output / "learning_curve.png", label, players)
    results = evaluate_seat_policy(
        args.output / "model.zip",
        args.env,
        env_kwargs,
        args.eval_opponents,
        args.eval_games,
        args.evaluation_seed,
        args.algo,
        args.executor_for(args.eval_workers),
    )
    title = f"{label}, {model.num_timesteps} timesteps"
    print(write_seat_evaluation(results, args.output / "comparison.md", title))
    print(written(args.output))
    return TrainingRun(model.num_timesteps, seconds, results)
