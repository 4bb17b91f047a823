"""Training on stable-baselines3 / sb3-contrib: a run's envs, its learning loop, its outputs.

    from train import RunConfig, run

    done = run(RunConfig(env="Mastermind-v0", sizes={"pegs": 3, "colors": 3}, timesteps=20_000))

:func:`train` trains (or resumes) the run a :class:`~train.config.RunConfig` describes and saves it in its
``output``: TensorBoard logs, periodic checkpoints, the final model (``model.zip``, also on Ctrl-C or SIGTERM),
the episode log of the env monitors and ``run.json``. A checkpoint (``checkpoints/model_<steps>_steps.zip``) is the
policy after it learned from the steps its name says (written between rollouts, once the last one was learned
from), with the seconds trained so far beside it (``model_<steps>_steps.json``): a run resumed from it
(:func:`train.seeds.from_last_checkpoint`) ends with the same steps and updates as one never stopped. While it
trains, a run holds its output folder (``.lock``): a second process training into it is refused. :func:`run` adds
the learning-curve PNG and ``comparison.md``: the trained policy against exhaustive ISES, SO-ISMCTS and random
play on the same secrets (:mod:`train.comparison`), or for a multiplayer game its win rate and mean rank against
each evaluation opponent, seats rotated (:mod:`train.multiplayer`). The command line is :mod:`train.cli`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tqdm import TqdmExperimentalWarning

from agents.sb3_policy import load_model
from train.config import RunConfig, hyperparameters
from train.run_files import RUN_FILE, code_commit
from train.tasks import Task, TrainingRun
from train.tasks.secrets import make_envs

__all__ = [
    "FolderInUse",
    "TrainingRun",
    "after_learning",
    "checkpoint_seconds",
    "make_envs",
    "run",
    "save_model",
    "train",
]


def stop_when(done: Callable[[], bool]) -> Any:
    """An SB3 callback that stops training at the first step after ``done()`` turns true."""
    from stable_baselines3.common.callbacks import BaseCallback

    class StopWhen(BaseCallback):
        def _on_step(self) -> bool:
            return not done()

    return StopWhen()


def after_learning(steps: int, function: Callable[[Any], bool]) -> Any:
    """An SB3 callback that calls ``function(model)`` each time the steps the model has learned from pass a multiple
    of ``steps``: between rollouts, once the rollout that passed it was learned from (at the start of the next
    rollout, or at the end of training), so that the model it is given is the policy after those steps. If
    ``function`` returns False, training stops at the next step (that rollout is not learned from). The callback's
    ``trained`` is the steps learned from so far (a run stopped within a rollout has collected more)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class AfterLearning(BaseCallback):
        trained: int | None = None

        def _on_training_start(self) -> None:
            self.trained = self.model.num_timesteps
            self.next = (self.model.num_timesteps // steps + 1) * steps
            self.collected = self.stop = False

        def _on_rollout_start(self) -> None:
            self._learned()

        def _on_rollout_end(self) -> None:
            self.collected = True  # whole, so learned from next (a rollout stopped part-way never ends)

        def _on_training_end(self) -> None:
            if self.collected:  # training ended after learning from its last rollout, not within one
                self._learned()

        def _learned(self) -> None:
            self.collected = False
            self.trained = int(self.model.num_timesteps)
            if self.trained >= self.next:
                self.next = (self.trained // steps + 1) * steps
                self.stop = not function(self.model)

        def _on_step(self) -> bool:
            return not self.stop

    return AfterLearning()


def wall_clock_limit(deadline: float) -> Any:
    """An SB3 callback that stops training once ``time.perf_counter()`` passes ``deadline``."""
    return stop_when(lambda: time.perf_counter() >= deadline)


def save_model(model: Any, path: Path) -> None:
    """``model.save(path)`` (``path`` ends in ``.zip``) written whole or not at all: to a scratch file first,
    then renamed (a process killed while saving leaves no cut-off model under the name)."""
    scratch = path.with_name(f"{path.name}.{os.getpid()}.partial")
    model.save(scratch)
    os.replace(scratch, path)


def checkpoint_seconds(path: Path) -> float:
    """The seconds of training behind the model at ``path``: a checkpoint's (the ``.json`` beside it) or a run's
    (``run.json``'s ``seconds``); 0 if neither says."""
    path = Path(path)
    for settings in (path.with_suffix(".json"), path.parent / RUN_FILE):
        try:
            seconds = json.loads(settings.read_text()).get("seconds")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(seconds, int | float) and seconds >= 0:
            return float(seconds)
    return 0.0


def save_checkpoint(model: Any, folder: Path, seconds: float) -> None:
    """The model as ``folder/model_<steps>_steps.zip`` and the ``seconds`` trained so far beside it
    (``model_<steps>_steps.json``)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"model_{model.num_timesteps}_steps.zip"
    path.with_suffix(".json").write_text(json.dumps({"timesteps": model.num_timesteps, "seconds": round(seconds, 3)})
                                         + "\n")  # fmt: skip
    save_model(model, path)


class FolderInUse(RuntimeError):
    """Another process is training into the run's output folder."""


@contextlib.contextmanager
def holding(folder: Path) -> Iterator[None]:
    """Within: this process holds ``folder/.lock`` (an exclusive ``flock``, let go when the process ends however
    it ends).

    Raises:
        FolderInUse: another process holds it (it trains into the same folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "another process"
            raise FolderInUse(f"{folder} is being trained into by {holder}: two runs never write one folder; "
                               "wait for it to end, or give another --output") from None  # fmt: skip
        lock.seek(0)
        lock.truncate()
        lock.write(f"process {os.getpid()}\n")
        lock.flush()
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def train(config: RunConfig, every: tuple[int, Callable[[Any], bool]] | None = None) -> tuple[Any, float]:
    """Train (or resume) the run ``config`` describes (checked first) and save it in ``config.output``; returns
    the model and the seconds trained. Ctrl-C (or SIGTERM) stops training and still saves.

    ``every``: ``(steps, function)``: ``function(model)`` is called every ``steps`` timesteps while training (after
    the rollout that passed them was learned from: :func:`after_learning`), and training stops there (and saves) if
    it returns False (a sweep's report to its pruner).
    """
    import torch

    config.check()
    with holding(config.output):
        return _train(config, every, torch)


def _train(config: RunConfig, every: tuple[int, Callable[[Any], bool]] | None, torch: Any) -> tuple[Any, float]:
    torch.set_num_threads(config.torch_threads)
    task = config.task()
    envs, model, imitation = _set_up(config, task)
    start = time.perf_counter()
    before = 0.0 if config.resume is None else checkpoint_seconds(config.resume)
    folder = config.output / "checkpoints"
    # SB3's CheckpointCallback saves within a rollout, before it is learned from: resumed from there, a run learned
    # less than its checkpoint's name says. These are saved once the rollout is learned from.
    checkpoints = after_learning(config.checkpoint_every, lambda model: save_checkpoint(
        model, folder, before + time.perf_counter() - start) or True)  # fmt: skip
    callbacks = [checkpoints, *task.callbacks(envs, model)]
    if every is not None:
        callbacks.append(after_learning(*every))
    _learn(config, model, callbacks, start)
    if checkpoints.trained is not None and checkpoints.trained < model.num_timesteps:
        model.num_timesteps = checkpoints.trained  # stopped within a rollout: its steps were not learned from
    seconds = before + time.perf_counter() - start
    save_model(model, config.output / "model.zip")
    settings = {
        "env": config.env,
        "sizes": config.sizes,
        "algo": config.algo,
        "policy": config.policy,
        **({"marginal_weight": model.policy.pointer_weight} if config.policy == "marginals" else {}),
        "action_mask": config.action_mask,
        "query_features": config.query_features,
        "entropy_reward": config.entropy_reward,
        "timesteps": int(model.num_timesteps),
        "seconds": round(seconds, 3),
        "seed": config.seed,
        "eval_seed": config.evaluation_seed,
        "commit": code_commit(),
        **(_imitation_settings(config, imitation) if imitation is not None else {}),
        **task.saved_settings(),
    }
    (config.output / RUN_FILE).write_text(json.dumps(settings, indent=1) + "\n")
    envs.close()
    saved = config.output / "model.zip"
    print(f"trained {model.num_timesteps} timesteps in {seconds:.1f} s; saved {saved}", flush=True)
    return model, seconds


def _set_up(config: RunConfig, task: Task) -> tuple[Any, Any, dict[str, Any] | None]:
    """The run's envs and model (new, resumed, or first fitted to a reference agent's play), and the fit's
    report if there was one."""
    settings = hyperparameters(config.algo, config.env, config.hyperparameters_file)
    monitor, tensorboard = config.output / "monitor", str(config.output / "tensorboard")
    # A resumed run adds to its episode logs; one resumed into a new --output starts them, with their header.
    append = config.resume is not None and any(monitor.glob("*monitor.csv"))
    envs = task.make_envs(config.vec_env, settings.get("gamma", 0.99), append)
    if config.resume is not None:
        return envs, load_model(config.resume, config.algo, algorithm=task.algorithm(), env=envs,
                                device=config.device, tensorboard_log=tensorboard,
                                trust_model=config.trust_model), None  # fmt: skip
    policy, extra = task.policy()
    policy_kwargs = {**settings.pop("policy_kwargs", {}), **extra}
    if policy_kwargs:
        settings["policy_kwargs"] = policy_kwargs
    model = task.algorithm()(
        policy, envs, seed=config.seed, device=config.device, verbose=0, tensorboard_log=tensorboard, **settings
    )
    if config.imitate is None:
        return envs, model, None
    from train.imitation import imitate

    return envs, model, imitate(config, model, task)


@contextlib.contextmanager
def unchecked_distributions() -> Iterator[None]:
    """Within: torch does not check a distribution's parameters when it is built. It does by default (twice per
    masked distribution, which sb3-contrib re-initialises with the mask): 6% of a MaskablePPO run on Mastermind
    4x6 (BENCHMARKS.md). The policies build them from finite logits, so while training the check can only cost."""
    import torch

    checking = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(False)
    try:
        yield
    finally:
        torch.distributions.Distribution.set_default_validate_args(checking)


def _learn(config: RunConfig, model: Any, callbacks: list[Any], start: float) -> None:
    """Learn for the run's steps (whole rollouts) with ``callbacks`` and the clock's limit; Ctrl-C or SIGTERM stops
    at the next step."""
    # On-policy algorithms train in whole rollouts: ask for whole ones, so the bar ends at 100%, not past it.
    rollout = getattr(model, "n_steps", 1) * config.n_envs
    timesteps = -(-config.timesteps // rollout) * rollout
    if timesteps != config.timesteps:
        asked = f"({config.timesteps:,} asked)"
        print(f"training {timesteps:,} timesteps: whole rollouts of {rollout:,} {asked}", flush=True)
    callbacks = list(callbacks)
    if config.max_minutes is not None:
        callbacks.append(wall_clock_limit(start + 60 * config.max_minutes))
    # A scheduler's SIGTERM stops training at the next step and saves, as Ctrl-C does. A flag, not an exception
    # raised wherever the signal lands (in a numba compile, say), which code in between could swallow or break on.
    terminated = threading.Event()
    callbacks.append(stop_when(terminated.is_set))
    main_thread = threading.current_thread() is threading.main_thread()  # signal handlers live there only
    previous = signal.signal(signal.SIGTERM, lambda *_: terminated.set()) if main_thread else None
    try:
        with warnings.catch_warnings(), unchecked_distributions():
            warnings.simplefilter("ignore", TqdmExperimentalWarning)  # SB3's bar is tqdm.rich, marked experimental
            model.learn(total_timesteps=timesteps, callback=callbacks, progress_bar=config.progress,
                        reset_num_timesteps=config.resume is None)  # fmt: skip
    except KeyboardInterrupt:
        terminated.set()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if terminated.is_set():
        print("\nInterrupted: saving what was trained.")


def _imitation_settings(config: RunConfig, report: dict[str, Any]) -> dict[str, Any]:
    """What ``run.json`` records of the fit a run started with: the agent, what was fitted (its actions, a
    search's visit shares or its root values at a temperature) and the demonstrations read, if any."""
    demos = config.imitate_demos
    return {
        "imitated": config.imitate,
        "imitation_targets": report["targets"],
        **({"imitation_demonstrations": [str(path) for path in demos]} if demos else {}),
    }


def run(config: RunConfig, references: bool = True) -> TrainingRun:
    """Train, then plot the learning curve, evaluate the policy (a single-player game: against the reference
    agents on the same secrets; a multiplayer one: against each evaluation opponent, seats rotated), write
    ``comparison.md`` and list what the run wrote.

    Without ``references`` a single-player policy is evaluated alone (for callers that measure the reference
    agents once for several policies).
    """
    model, seconds = train(config)  # checks the config first
    done = config.task().report(model, seconds, references)
    print(written(config.output))
    return done


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
