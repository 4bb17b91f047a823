"""What a training run is: a typed configuration that ``python -m train`` parses into and Python callers build.

    from train.config import RunConfig
    from train.training import run

    done = run(RunConfig(env="Mastermind-v0", sizes={"pegs": 3, "colors": 3}, timesteps=20_000))
    done.results[0].mean_steps        # the trained policy, then the reference agents

The game's size parameters (``sizes``) and the options of the env a run trains on (``action_mask``,
``query_features``) are kept apart. Hyperparameters come from ``train/configs/hyperparameters.toml`` (or
``config``), per algorithm with per-env overrides.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "CONFIG",
    "DEFAULT_ENV",
    "DEFAULT_SIZES",
    "RUN_FILE",
    "LinearSchedule",
    "RunConfig",
    "hyperparameters",
    "run_settings",
]

CONFIG = Path(__file__).with_name("configs") / "hyperparameters.toml"
DEFAULT_ENV = "Mastermind-v0"
#: The sizes a run of these envs trains at unless told otherwise (the quick start's small Mastermind).
DEFAULT_SIZES = {"Mastermind-v0": {"pegs": 3, "colors": 3}}
#: The settings of a run, written next to its model so that a resumed run and train.evaluate can read them.
RUN_FILE = "run.json"


def hyperparameters(algo: str, env_id: str, path: Path = CONFIG) -> dict[str, Any]:
    """The algorithm's keyword arguments from the config file, with the env's overrides applied.

    A learning rate or clip range written ``"lin_<value>"`` (rl-baselines3-zoo's notation) decays linearly
    from ``value`` at the start of training to 0 at its end (:class:`LinearSchedule`).
    """
    config = tomllib.loads(Path(path).read_text())
    found = {**config.get(algo, {}), **config.get(env_id, {}).get(algo, {})}
    for key in ("learning_rate", "clip_range"):
        value = found.get(key)
        if isinstance(value, str):
            if not value.startswith("lin_"):
                raise ValueError(f"{path}: {key} must be a number or 'lin_<number>', got {value!r}")
            try:
                start = float(value.removeprefix("lin_"))
            except ValueError:
                raise ValueError(f"{path}: {key} must be a number or 'lin_<number>', got {value!r}") from None
            if not 0 < start < float("inf"):
                raise ValueError(f"{path}: {key} must start above 0, got {value!r}")
            found[key] = LinearSchedule(start)
    return found


@dataclass(frozen=True)
class LinearSchedule:
    """``start`` times the share of training still to come (SB3 calls it with ``progress_remaining``, 1 to 0)."""

    start: float

    def __call__(self, progress_remaining: float) -> float:
        return self.start * progress_remaining


def code_commit() -> str:
    """The commit of the code running now (``git rev-parse --short=10 HEAD``, with ``+changes`` if the work
    tree differs from it), or ``"unknown"`` outside a git checkout: run.json records it."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True, cwd=root)
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                                 text=True, cwd=root)  # fmt: skip
    except OSError:
        return "unknown"
    if head.returncode != 0:
        return "unknown"
    return head.stdout.strip() + ("+changes" if changed.stdout.strip() else "")


def run_settings(model: Path) -> dict[str, Any] | None:
    """The settings saved with the model at ``model`` (``model.zip``), or None for a model saved elsewhere."""
    path = Path(model).parent / RUN_FILE
    return json.loads(path.read_text()) if path.exists() else None


@dataclass
class RunConfig:
    """One training run: the game, the learner, the budget, the evaluation, and for multiplayer games the
    opponents; optionally an imitation of a reference agent first. The fields are ``python -m train``'s options
    (``--n-envs`` is ``n_envs``); ``python -m train --help`` says what each does.

    ``vec_env`` ``"auto"`` is the batched env where it plays the game, else copies in one process
    (:func:`train.training.vec_env_choice`). ``output`` defaults to ``runs/<env>``.
    """

    env: str = DEFAULT_ENV
    sizes: dict[str, Any] = field(default_factory=dict)
    action_mask: str = "all"
    query_features: bool = False
    algo: str = "maskable_ppo"
    policy: str = "flat"
    marginal_weight: float | None = None  #: ``--policy marginals``: the marginals' initial weight (None: 1.0)
    timesteps: int = 200_000
    max_minutes: float | None = None
    n_envs: int = 8
    vec_env: str = "auto"
    torch_threads: int = 1
    device: str = "cpu"
    seed: int = 0
    #: the evaluation's seed (None: ``seed``); :mod:`train.seeds` gives every seed the command's ``seed`` here, so
    #: all seeds are scored on the same sampled secrets and the same games
    eval_seed: int | None = None
    entropy_reward: float | None = None
    config: Path = CONFIG
    output: Path | None = None
    resume: Path | None = None
    checkpoint_every: int = 10_000
    eval_secrets: int = 2000
    eval_time_limit: float = 0.1
    progress: bool = True
    # Multiplayer games.
    opponents: list[str] | None = None
    league: bool = False
    league_threshold: float = 0.2
    league_window: int = 500
    eval_opponents: list[str] | None = None
    eval_games: int = 400
    eval_workers: int = 1
    # Where many jobs run (the evaluation's games, the demonstrations, the seeds): train.arguments.
    executor: str = "local"
    ray_address: str | None = None
    seeds: list[int] | None = None  #: one run per seed (train.seeds), ``workers`` at a time
    workers: int = 1
    # Imitation before reinforcement learning (train.imitation).
    imitate: str | None = None
    imitate_games: int = 500
    imitate_epochs: int = 10
    imitate_workers: int = 1
    imitate_learning_rate: float | None = None
    imitate_demos: list[Path] | None = None
    imitate_soft: bool = False
    imitate_values: float | None = None
    imitate_secrets: float | None = None  #: the share of secrets a single-player fit draws from (the rest unseen)

    @property
    def evaluation_seed(self) -> int:
        """The seed the evaluation draws its secrets and games from: ``eval_seed``, or else ``seed``."""
        return self.seed if self.eval_seed is None else self.eval_seed

    def __post_init__(self) -> None:
        self.sizes = dict(self.sizes)
        self.config = Path(self.config)
        self.output = Path("runs") / self.env if self.output is None else Path(self.output)

    def executor_for(self, workers: int) -> Any:
        """The run's executor (``executor``, ``ray_address``) with ``workers`` local processes."""
        from deduction_envs.core.executor import make_executor

        return make_executor(self.executor, workers, self.ray_address)

    @property
    def env_options(self) -> dict[str, Any]:
        """The options of a single-player env this run trains on (a multiplayer env has none here)."""
        from train.multiplayer import is_multiplayer

        if is_multiplayer(self.env):
            return {}
        return {"action_mask": self.action_mask, **({"query_features": True} if self.query_features else {})}

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """The env's keyword arguments: the sizes, then the options."""
        return {**self.sizes, **self.env_options}
