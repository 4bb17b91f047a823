"""What differs between kinds of game when a policy trains: a task for each kind, named by the game's registry entry.

Training (:func:`train.training.train`, :func:`train.training.run`), the configuration's checks
(:meth:`train.config.RunConfig.check`), the seeds runner and the evaluation ask the run's :class:`Task` instead of
branching on the kind of game:

* :class:`train.tasks.secrets.SecretsTask`: a single-player game. The learner plays episodes of secrets (copies of
  the env, batched where the game has a batched env); it is compared with the reference agents on the same
  secrets.
* :class:`train.tasks.seats.SeatsTask`: a multiplayer game. The learner plays one seat against opponents drawn
  from a pool (reference agents, and with a league its own snapshots); it is measured against each evaluation
  opponent, seats rotated.

A game chooses its task in its registry entry (:attr:`deduction_envs.registry.Game.training_task`); a third kind
of training is one module with a class that keeps this protocol, named there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from deduction_envs import registry
from deduction_envs.core.rules import check_int

if TYPE_CHECKING:
    import numpy as np

    from agents import EvaluationResult
    from train.config import RunConfig
    from train.imitation import Demonstrations

__all__ = ["Task", "TrainingRun", "demonstrations", "task_class", "task_for"]


@dataclass
class TrainingRun:
    """What :func:`train.training.run` did: timesteps trained, seconds of training, and the evaluation (for a
    single-player game the comparison, the policy first; for a multiplayer one a row per opponent)."""

    timesteps: int
    seconds: float
    results: list[EvaluationResult] | list[Any]


class Task(Protocol):
    """One kind of game's part in a run; made with the run's :class:`~train.config.RunConfig`."""

    #: How a seed's learning curve reads the monitors: the column, the axis label and the episodes smoothed over.
    curve: tuple[str, str, int]

    def __init__(self, config: RunConfig) -> None: ...

    def check(self) -> None:
        """Fill in the game's defaults in the config (sizes, opponents, the evaluation's budget) and refuse
        what the game does not take, with a ValueError that names the option."""

    def env_options(self) -> dict[str, Any]:
        """The env's options this run sets besides its sizes."""

    def vec_env_refusal(self) -> str | None:
        """Why the run cannot step a batched env (None: it can)."""

    def make_envs(self, vec_env: str, gamma: float, append: bool) -> Any:
        """The run's SB3 vector env of ``n_envs`` monitored copies (``append``: add to the episode logs)."""

    def algorithm(self) -> Any:
        """The SB3 algorithm class the run trains (and resumes) with: the config's ``algo``'s, or a subclass of
        it that collects the game's rollouts its own way (self-play's)."""

    def policy(self) -> tuple[Any, dict[str, Any]]:
        """The SB3 policy (a class or a name) a new model starts with, and its extra ``policy_kwargs``."""

    def callbacks(self, envs: Any, model: Any) -> list[Any]:
        """SB3 callbacks the game's training needs beyond checkpoints and the clock (a league's), once the
        ``model`` is made and before it learns (the moment to hand self-play its policy)."""

    def saved_settings(self) -> dict[str, Any]:
        """What ``run.json`` records beyond the settings every run has."""

    def report(self, model: Any, seconds: float, references: bool = True) -> TrainingRun:
        """Plot the learning curve, evaluate the trained ``model`` and write ``comparison.md`` (``references``
        False: a single-player policy alone, for callers that measure the reference agents once)."""

    def references(self) -> tuple[Any, ...]:
        """The reference agents' figures on the evaluation every seed is scored on (none where the evaluation
        plays against them)."""

    # What needs no run: the class answers.
    @staticmethod
    def demonstrations(
        env: str,
        env_kwargs: dict[str, Any],
        expert: str,
        opponents: Any,
        games: int,
        seed: int,
        gamma: float,
        workers: Any,
        secrets: Any,
    ) -> Any:
        """``games`` of the reference agent ``expert`` deciding for the learner (see
        :func:`demonstrations`)."""

    @staticmethod
    def evaluate_saved(args: Any, parser: Any, workers: Any) -> list[Any]:
        """``python -m train.evaluate``'s measure of a saved model, its options parsed (``args``)."""

    @staticmethod
    def default_evaluation(run: dict[str, Any]) -> list[str]:
        """The ``train.evaluate`` arguments a kept model of the run (its ``run.json``) is measured by."""


def task_class(env: str) -> type[Task]:
    """The task class of the game ``env`` (an env id), from its registry entry.

    Raises:
        ValueError: the env is not registered.
    """
    ids = [g.env_id for g in registry.games()]
    if env not in ids:
        raise ValueError(f"env must be one of {', '.join(ids)}, got {env!r}")
    return registry.load(registry.game(env).training_task)


def task_for(config: RunConfig) -> Task:
    """The task of the config's game, made with the config.

    Raises:
        ValueError: the env is not registered.
    """
    return task_class(config.env)(config)


def demonstrations(
    env: str,
    env_kwargs: dict[str, Any],
    expert: str,
    opponents: list[str],
    games: int,
    seed: int = 0,
    gamma: float = 0.99,
    workers: Any = 1,
    secrets: np.ndarray | None = None,
) -> Demonstrations:
    """``games`` games of the reference agent ``expert``, over ``workers`` (local processes or an executor).

    In a multiplayer ``env`` it plays the learner's seat (drawn each game)
    against ``opponents`` (names, drawn per seat each game as in training);
    in a single-player env (a Gymnasium id; ``opponents`` must be empty) it
    plays episodes, ``expert`` one of :data:`SINGLE_PLAYER_EXPERTS`, each
    secret drawn from ``secrets`` (indices, e.g. :func:`seen_secrets`) if given.
    """
    check_int("games", games, low=1)
    return task_class(env).demonstrations(env, env_kwargs, expert, opponents, games, seed, gamma, workers, secrets)
