"""What a training run is: a typed configuration that ``python -m train`` parses into and Python callers build.

    from train import RunConfig, run

    done = run(RunConfig(env="Mastermind-v0", sizes={"pegs": 3, "colors": 3}, timesteps=20_000))
    done.results[0].mean_steps        # the trained policy, then the reference agents

The game's size parameters (``sizes``) and the options of the env a run trains on (``action_mask``,
``query_features``) are kept apart. Hyperparameters come from ``train/configs/hyperparameters.toml`` (or
``config``), per algorithm with per-env overrides.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.model_files import LinearSchedule
from deduction_envs.core.entropy import DEFAULT_ENTROPY_END
from train.options import DEFAULT_SIZES, MARGINAL_WEIGHT, run_parser
from train.run_files import RUN_FILE, run_settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "CONFIG",
    "DEFAULT_ENV",
    "DEFAULT_SIZES",
    "MARGINAL_WEIGHT",
    "RUN_FILE",
    "LinearSchedule",
    "RunConfig",
    "hyperparameters",
    "run_settings",
]

CONFIG = Path(__file__).with_name("configs") / "hyperparameters.toml"
DEFAULT_ENV = "Mastermind-v0"
#: The algorithms a feature head is written for.
FEATURE_ALGORITHMS = ("maskable_ppo", "ppo")


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


@dataclass
class RunConfig:
    """One training run: the game, the learner, the budget, the evaluation, and for multiplayer games the
    opponents; optionally an imitation of a reference agent first. The fields are ``python -m train``'s options
    (``--n-envs`` is ``n_envs``); ``python -m train --help`` says what each does.

    A field left None takes its game's default when the config is checked (:meth:`check`, which
    :func:`train.training.run` calls): ``sizes`` (Mastermind's quick-start 3x3, else the game's own sizes), the
    single-player comparison's ``eval_secrets`` (2000) and ``eval_time_limit`` (0.1 s), a multiplayer game's
    ``opponents`` and ``eval_opponents`` (its registry entry's), ``eval_games`` (400), ``eval_workers`` (1) and a
    league's ``league_threshold`` (0.2) and ``league_window`` (500). Set for a game of the other kind, such an
    option is refused, as on the command line. ``config`` None: ``train/configs/hyperparameters.toml``.

    ``vec_env`` ``"auto"`` is the batched env where it plays the game, else copies in one process (decided by
    :meth:`check`). ``output`` defaults to ``runs/<env>``.
    """

    env: str = DEFAULT_ENV
    sizes: dict[str, Any] | None = None
    action_mask: str = "all"
    query_features: bool = False
    algo: str = "maskable_ppo"
    policy: str = "flat"
    marginal_weight: float | None = None  #: ``--policy marginals``: the marginals' initial weight (None: 1.0)
    #: ``--policy features`` on a multiplayer game: the initial weight of each pointer column (None: all 0)
    pointer_weights: list[float] | None = None
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
    #: what the entropy-shaped reward pays at a multiplayer game's end on the batched seats (ENTROPY_ENDS)
    entropy_reward_end: str | None = None  #: None: DEFAULT_ENTROPY_END (a resumed run: the run's own)
    config: Path | None = None
    output: Path | None = None
    resume: Path | None = None
    #: load ``resume`` with SB3's own load, which runs code the file may hold (``--trust-model``; dangerous)
    trust_model: bool = False
    checkpoint_every: int = 10_000
    eval_secrets: int | None = None
    eval_time_limit: float | None = None
    progress: bool = True
    # Multiplayer games.
    opponents: list[str] | None = None
    league: bool = False
    league_threshold: float | None = None
    league_window: int | None = None
    eval_opponents: list[str] | None = None
    eval_games: int | None = None
    eval_workers: int | None = None
    # Where many jobs run (the evaluation's games, the demonstrations, the seeds): train.arguments.
    executor: str = "local"
    ray_address: str | None = None
    ray_cpus: float | None = None  #: what each Ray job asks (None: 1 CPU, no GPU, no memory reserved)
    ray_gpus: float | None = None
    ray_memory: float | None = None  #: GiB
    seeds: list[int] | None = None  #: one run per seed (train.seeds), ``workers`` at a time
    sweep: int | None = None  #: a hyperparameter sweep of this many trials (train.sweep), ``workers`` at a time
    space: list[str] | None = None  #: the sweep's search space, ``NAME=SPEC`` items (train.arguments.parse_space)
    pruner: str = "asha"  #: what stops a sweep's bad trials early (train.sweep.PRUNERS)
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
        # Values of the wrong type are kept as given: check() refuses them with the option's message.
        self.sizes = dict(self.sizes) if isinstance(self.sizes, dict) else self.sizes
        self.config = Path(self.config) if isinstance(self.config, str | os.PathLike) else self.config
        if self.output is None and isinstance(self.env, str):
            self.output = Path("runs") / self.env
        self.output = Path(self.output) if isinstance(self.output, str | os.PathLike) else self.output

    @property
    def hyperparameters_file(self) -> Path:
        """The hyperparameters' file: ``config``, else the project's."""
        return CONFIG if self.config is None else Path(self.config)

    @property
    def marginal_weight_or_default(self) -> float:
        return MARGINAL_WEIGHT if self.marginal_weight is None else self.marginal_weight

    def executor_for(self, workers: int) -> Any:
        """The run's executor (``executor``, ``ray_address``, the ``ray_*`` resources) with ``workers`` local
        processes."""
        from deduction_envs.executor import make_executor
        from train.arguments import ray_resources

        return make_executor(self.executor, workers, self.ray_address, **ray_resources(self))

    def task(self) -> Any:
        """The run's :class:`train.tasks.Task` (its game's kind, from the registry), made with this config."""
        from train.tasks import task_for

        return task_for(self)

    @property
    def env_options(self) -> dict[str, Any]:
        """The options of the env this run trains on (the mask and the query features of a single-player env)."""
        return self.task().env_options()

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """The env's keyword arguments: the sizes, then the options."""
        return {**(self.sizes or {}), **self.env_options}

    def search_target_options(self) -> list[str]:
        """The imitation options given that fit a search agent's ratings (``--imitate-soft``, ``--imitate-values``)."""
        given = {"--imitate-soft": self.imitate_soft, "--imitate-values": self.imitate_values is not None}
        return [option for option, on in given.items() if on]

    def check(self) -> RunConfig:
        """Fill in the defaults that depend on the game (see the class docstring) and refuse what does not fit,
        as the command line does (its messages name the options); returns the config. Checking twice changes
        nothing more.

        Raises:
            ValueError: the first thing that does not fit, named.
        """
        self._check_values()
        task = self.task()
        if self.seeds is not None and self.resume is not None:
            raise ValueError("--seeds starts new runs: it cannot be given with --resume")
        if self.seeds is None and self.sweep is None and self.workers != 1:
            raise ValueError("--workers is the number of seeds or trials trained at a time: it goes with --seeds "
                             "or --sweep")  # fmt: skip
        self._check_sweep()
        try:
            self.executor_for(1)
        except ImportError as error:
            raise ValueError(str(error)) from None
        if self.trust_model and self.resume is None:
            raise ValueError("--trust-model is for the model of --resume")
        if self.resume is not None and self.config is not None:
            # SB3 loads a saved model with its own hyperparameters: a config given here would be silently ignored.
            raise ValueError("--config is for a new run: a resumed one keeps the hyperparameters it was saved with")
        task.check()
        self._check_imitation()
        try:
            hyperparameters(self.algo, self.env, self.hyperparameters_file)
        except TypeError as error:
            raise ValueError(str(error)) from None
        if self.policy in ("features", "marginals") and self.algo not in FEATURE_ALGORITHMS:
            raise ValueError(f"--policy {self.policy} is for maskable_ppo and ppo, got {self.algo}")
        if self.marginal_weight is not None and self.policy != "marginals":
            raise ValueError("--marginal-weight is for --policy marginals")
        if self.pointer_weights is not None and self.policy != "features":
            raise ValueError("--pointer-weights is for --policy features")
        if self.resume is not None:
            self._check_resume()  # may set the run's entropy reward, which the batched env lacks
        self.vec_env = self._vec_env(task)
        self._check_entropy_end(task)
        self._check_device()
        return self

    def _check_values(self) -> None:
        """Each field as its option of ``python -m train`` takes it (the option's own check: a range, a file, a
        name among the choices; :mod:`train.options`), so that a Python caller is told what the command line
        would say."""
        import argparse

        for action in run_parser()._actions:
            name = action.dest
            if name not in self.__dataclass_fields__ or not action.option_strings:
                continue
            value, option = getattr(self, name), max(action.option_strings, key=len)
            if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
                if not isinstance(value, bool):
                    raise ValueError(f"{name} ({option}) must be True or False, got {value!r}")
                continue
            if value is None:
                if "None" not in str(self.__dataclass_fields__[name].type):
                    raise ValueError(f"{name} ({option}) must be given, got None")
                continue
            if action.choices is not None and value not in action.choices:
                accepted = ", ".join(map(str, action.choices))
                raise ValueError(f"{name} ({option}) must be one of {accepted}, got {value!r}")
            if action.type is None:
                if not isinstance(value, str):
                    raise ValueError(f"{name} ({option}) must be a string, got {value!r}")
                continue
            many = "list" in str(self.__dataclass_fields__[name].type)  # a field of several values (--seeds)
            if isinstance(value, list | tuple) and not many and action.nargs not in ("+", "*"):
                raise ValueError(f"{name} ({option}) takes one value, got {value!r}")
            if action.nargs in ("+", "*"):
                texts = [str(item) for item in value] if isinstance(value, list | tuple) else [str(value)]
            else:  # a list the option reads from one comma-separated text (--seeds, --opponents)
                texts = [",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)]
            for text in texts:
                try:
                    parsed = action.type(text)
                except argparse.ArgumentTypeError as error:
                    raise ValueError(f"{name} ({option}) {error}") from None
                if isinstance(value, str) and isinstance(parsed, int | float) and not isinstance(parsed, bool):
                    raise ValueError(f"{name} ({option}) must be a number, not text: got {value!r}")
        if self.sizes is not None and not (
            isinstance(self.sizes, dict) and all(isinstance(key, str) for key in self.sizes)
        ):
            raise ValueError(f"sizes must be a dict of size names to values, got {self.sizes!r}")
        if self.eval_seed is not None and (isinstance(self.eval_seed, bool) or not isinstance(self.eval_seed, int)
                                           or self.eval_seed < 0):  # fmt: skip
            raise ValueError(f"eval_seed must be an integer >= 0 or None, got {self.eval_seed!r}")

    def _check_sweep(self) -> None:
        """``--sweep`` starts new runs, one seed each; ``--space`` and ``--pruner`` go with it."""
        if self.sweep is None:
            given = [option for option, on in (("--space", self.space is not None),
                                               ("--pruner", self.pruner != "asha")) if on]  # fmt: skip
            if given:
                raise ValueError(f"{given[0]} goes with --sweep TRIALS")
            return
        for option, on in (("--seeds", self.seeds is not None), ("--resume", self.resume is not None)):
            if on:
                raise ValueError(f"--sweep trains new runs of one seed each: it cannot be given with {option}")

    def _check_imitation(self) -> None:
        """The checks of the ``--imitate`` options that hold in every game."""
        if self.imitate is None:
            given = [
                option
                for option, on in (
                    ("--imitate-learning-rate", self.imitate_learning_rate is not None),
                    ("--imitate-soft", self.imitate_soft),
                    ("--imitate-values", self.imitate_values is not None),
                    ("--imitate-demos", self.imitate_demos is not None),
                    ("--imitate-secrets", self.imitate_secrets is not None),
                )
                if on
            ]
            if given:
                what = " (the agent whose demonstrations they are)" if given[0] == "--imitate-demos" else ""
                raise ValueError(f"{given[0]} needs --imitate NAME{what}")
            return
        if self.resume is not None:
            raise ValueError("--imitate starts a new policy; it cannot be given with --resume")
        if self.imitate_soft and self.imitate_values is not None:
            raise ValueError("--imitate-soft and --imitate-values are two kinds of targets: give one")
        if self.imitate_secrets is not None and self.imitate_demos is not None:
            raise ValueError("--imitate-secrets draws new games' secrets; --imitate-demos reads games already played")

    def _check_resume(self) -> None:
        """A resumed run keeps the entropy reward it trained with, and must be the same game, size and mask."""
        saved = run_settings(Path(self.resume))  # type: ignore[arg-type]
        if saved is None:
            return
        defaults = {"policy": "flat", "query_features": False}  # runs saved before these settings existed
        for name in ("env", "sizes", "action_mask", "algo", "policy", "query_features"):
            was, given = saved.get(name, defaults.get(name)), getattr(self, name)
            if was != given:
                raise ValueError(f"--resume: the model was trained with {name} {was!r}, not {given!r}")
        if self.entropy_reward is None and saved.get("entropy_reward") is not None:
            self.entropy_reward = saved["entropy_reward"]
            print(f"resuming with the run's --entropy-reward {self.entropy_reward:g}")
        if self.entropy_reward_end is None and saved.get("entropy_reward_end") not in (None, DEFAULT_ENTROPY_END):
            self.entropy_reward_end = saved["entropy_reward_end"]
            print(f"resuming with the run's --entropy-reward-end {self.entropy_reward_end}")

    def _check_entropy_end(self, task: Any) -> None:
        """``--entropy-reward-end`` other than the default: only with the entropy reward, on the batched seats."""
        from train.tasks.seats import SeatsTask

        if self.entropy_reward_end in (None, DEFAULT_ENTROPY_END):
            return
        if self.entropy_reward is None:
            raise ValueError("--entropy-reward-end goes with --entropy-reward")
        if not isinstance(task, SeatsTask) or self.vec_env != "batched":
            raise ValueError("--entropy-reward-end is for a multiplayer game on the batched seats (--vec-env batched)")

    def _vec_env(self, task: Any) -> str:
        """The vector env the run steps: ``vec_env``, with ``"auto"`` the batched env where it plays the game,
        else copies in one process."""
        why = task.vec_env_refusal()
        if self.vec_env == "auto":
            return "dummy" if why else "batched"
        if self.vec_env == "batched" and why:
            raise ValueError(f"--vec-env batched: {why}; use --vec-env dummy")
        return self.vec_env

    def _check_device(self) -> None:
        import torch

        try:
            device = torch.device(self.device)  # a malformed name is refused here, not after the envs are built
        except (RuntimeError, ValueError) as error:
            raise ValueError(f"--device: {error}") from None
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError("--device cuda: this machine has no CUDA device (torch's CPU build, or no GPU)")
