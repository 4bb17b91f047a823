"""The evaluation harness: one loop that measures any agent on any single-player env.

The harness owns the env; the agent gets only the game's rules (public) and,
after each query, the feedback from ``info``. With ``secrets="all"`` every
secret of the game is played once, which gives exact figures with no
sampling noise.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import gymnasium as gym
import numpy as np

from agents.base import Agent
from deduction_envs import registry  # importing the package registers the envs
from deduction_envs.core.rules import check_int
from deduction_envs.envs.deduction_env import DeductionEnv
from deduction_envs.executor import Executor, as_executor, run_jobs

__all__ = ["EvaluationResult", "episode_plan", "evaluate", "play_episodes"]

_Z95 = statistics.NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class EvaluationResult:
    """Per-episode figures of one agent on one env, and their summary.

    ``steps`` counts the queries of each episode; an episode that was not
    solved within ``max_steps`` counts its ``max_steps`` queries. ``exact`` is
    true when every secret was played once by a deterministic agent
    (:attr:`~agents.base.Agent.deterministic`), in which case the mean is the
    game's exact figure and its confidence interval has zero width. An agent
    that draws at random has a spread even over every secret: its interval
    then comes from the spread of its episodes (conservative, as it counts
    the secrets' differences too).
    """

    agent: str
    env_id: str
    env_kwargs: dict[str, Any]
    steps: np.ndarray
    solved: np.ndarray
    decision_times: np.ndarray = field(repr=False)
    exact: bool

    @property
    def episodes(self) -> int:
        return int(self.steps.size)

    @property
    def mean_steps(self) -> float:
        return float(self.steps.mean())

    @property
    def ci95(self) -> float:
        """Half-width of the 95% confidence interval of the mean (normal approximation)."""
        if self.exact or self.episodes < 2:
            return 0.0
        return float(_Z95 * self.steps.std(ddof=1) / math.sqrt(self.episodes))

    @property
    def worst(self) -> int:
        return int(self.steps.max())

    @property
    def total_steps(self) -> int:
        return int(self.steps.sum())

    @property
    def solve_rate(self) -> float:
        return float(self.solved.mean())

    @property
    def mean_decision_time(self) -> float:
        """Mean seconds per call of ``agent.act()``."""
        return float(self.decision_times.mean())

    @property
    def p95_decision_time(self) -> float:
        return float(np.percentile(self.decision_times, 95))

    def summary(self) -> dict[str, Any]:
        """The headline figures as a flat dict (for tables)."""
        return {
            "agent": self.agent,
            "env": self.env_id,
            "episodes": self.episodes,
            "exact": self.exact,
            "mean_steps": self.mean_steps,
            "ci95": self.ci95,
            "worst": self.worst,
            "total_steps": self.total_steps,
            "solve_rate": self.solve_rate,
            "mean_decision_ms": 1e3 * self.mean_decision_time,
            "p95_decision_ms": 1e3 * self.p95_decision_time,
        }

    def __str__(self) -> str:
        ci = "exact" if self.exact else f"± {self.ci95:.3f}"
        return (
            f"{self.agent} on {self.env_id}{self.env_kwargs or ''}: {self.mean_steps:.3f} steps ({ci}) over "
            f"{self.episodes} episodes, worst {self.worst}, solved {100 * self.solve_rate:.1f}%, "
            f"decision {1e3 * self.mean_decision_time:.2f} ms mean / {1e3 * self.p95_decision_time:.2f} ms p95"
        )


def episode_plan(count: int, secrets: Literal["all", "sample"], seed: int) -> list[tuple[dict[str, Any], int]]:
    """The episodes of an evaluation: ``(reset arguments, agent seed)`` each, fixed by ``seed``.

    ``secrets="all"``: secret ``i`` for episode ``i`` (``count`` is the number of secrets); ``"sample"``: the env
    draws each episode's secret from its own seed. Any slice of the plan plays the same episodes whoever runs it.
    """
    env_seeds, agent_seeds = np.random.SeedSequence(seed).generate_state(2 * count, dtype=np.uint32).reshape(2, count)
    return [
        ({"options": {"secret": i}} if secrets == "all" else {"seed": int(env_seeds[i])}, int(agent_seeds[i]))
        for i in range(count)
    ]


def play_episodes(
    agent: Agent,
    env_id: str,
    env_kwargs: dict[str, Any],
    episodes: Sequence[tuple[dict[str, Any], int]],
    watch: Callable[[gym.Env], None] | None = None,
) -> tuple[list[int], list[bool], list[float]]:
    """Play each episode (reset arguments, agent seed): its steps, whether it was solved, and every decision's
    seconds. The one evaluation loop. ``watch(env)``, if given, is called after each reset and each step (to
    draw the episode, as the documentation's pictures do)."""
    env = gym.make(env_id, **env_kwargs)
    rules = cast(DeductionEnv, env.unwrapped).rules
    steps, solved, times = [], [], []
    for reset_kwargs, agent_seed in episodes:
        env.reset(**reset_kwargs)
        agent.reset(rules, seed=agent_seed)
        if watch is not None:
            watch(env)
        terminated = truncated = False
        count = 0
        while not (terminated or truncated):
            start = time.perf_counter()
            action = agent.act()
            times.append(time.perf_counter() - start)
            _, _, terminated, truncated, info = env.step(action)
            count += 1
            if watch is not None:
                watch(env)
            if not (terminated or truncated):
                agent.observe(action, info["feedback"])
        steps.append(count)
        solved.append(bool(terminated))
    env.close()
    return steps, solved, times


def _play_part(part: tuple[int, int], agent: Agent, env_id: str, env_kwargs: dict[str, Any], plan: tuple) -> tuple:
    """The episodes ``plan[start:stop]``: one job of :func:`evaluate`."""
    return play_episodes(agent, env_id, env_kwargs, plan[part[0] : part[1]])


def evaluate(
    agent: Agent,
    env_id: str,
    env_kwargs: dict[str, Any] | None = None,
    *,
    episodes: int | None = None,
    secrets: Literal["all", "sample"] = "all",
    seed: int = 0,
    workers: int | Executor = 1,
    progress: bool | None = None,
) -> EvaluationResult:
    """Measure ``agent`` on ``env_id``.

    Args:
        agent: any :class:`~agents.base.Agent`.
        env_id: a registered single-player env id, e.g. ``"Mastermind-v0"``.
        env_kwargs: sizes and options for ``gym.make``.
        episodes: with ``secrets="sample"``, how many episodes; with ``"all"``,
            None (every secret once).
        secrets: ``"all"`` plays every secret of the game once (exact
            figures for a deterministic agent); ``"sample"`` lets the env draw
            ``episodes`` secrets.
        seed: fixes the sampled secrets and the agent's randomness; results
            do not depend on ``workers``.
        workers: local processes to use, or an executor (a Ray cluster); the agent is pickled to each.
        progress: show a progress bar (None: only on a terminal).
    """
    env_kwargs = dict(env_kwargs or {})
    if secrets not in ("all", "sample"):
        raise ValueError(f"secrets must be 'all' or 'sample', got {secrets!r}")
    workers = as_executor(workers)
    if env_id not in gym.registry:
        ids = ", ".join(game.env_id for game in registry.games(multiplayer=False))
        raise ValueError(f"unknown env id {env_id!r}; deduction envs: {ids}")
    probe = gym.make(env_id, **env_kwargs)
    num_secrets = cast(DeductionEnv, probe.unwrapped).rules.num_secrets
    probe.close()
    if secrets == "all":
        if episodes is not None:
            raise ValueError("episodes goes with secrets='sample'; secrets='all' plays every secret once")
        count = num_secrets
    else:
        count = check_int("episodes", episodes, low=1)

    plan = episode_plan(count, secrets, seed)
    chunk = max(1, min(64, count // (8 * workers.workers)))
    parts = [(start, min(start + chunk, count)) for start in range(0, count, chunk)]
    name = getattr(agent, "name", type(agent).__name__)
    done = run_jobs(_play_part, parts, workers, f"{name} on {env_id}", agent, env_id, env_kwargs, tuple(plan),
                    progress=progress)  # fmt: skip
    results = [done[part] for part in parts]

    return EvaluationResult(
        agent=name,
        env_id=env_id,
        env_kwargs=env_kwargs,
        steps=np.array([s for part in results for s in part[0]]),
        solved=np.array([s for part in results for s in part[1]]),
        decision_times=np.array([t for part in results for t in part[2]]),
        exact=secrets == "all" and bool(getattr(agent, "deterministic", False)),
    )
