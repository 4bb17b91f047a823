"""The entropy analysis of deduction games (Meng & Lucas 2024, Figures 3 and 4).

    python -m train.experiments.analysis                  # every game at two sizes -> results/
    python -m train.experiments.analysis --quick          # small sizes and few secrets, seconds
    python -m train.experiments.analysis --workers 2      # the games over two processes (the same tables)

Importable functions:

* :func:`first_action_classes`: the expected information gain of every first
  query, exact over all secrets, grouped into classes of queries that split
  the secrets alike (in Mastermind these are the colour patterns AAAA, AAAB,
  AABB, AABC and ABCD). The paper's Figure 3.
* :func:`entropy_trajectories`: the entropy left after each query when an
  agent (exhaustive ISES by default) plays many secrets. The paper's Figure 4.
* :func:`spatial_depth` and :func:`temporal_uncertainty`: the two numbers the
  paper's argument about what makes a deduction game interesting comes down
  to; see their docstrings and the README.

The multiplayer games' entropy analysis (the paper's closing future work: what
one's own actions teach oneself against what they teach the opponents) is its
own command, ``python -m train.experiments.multiplayer_analysis``
(:mod:`train.experiments.multiplayer_analysis`).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from tqdm.auto import tqdm

from agents import Agent
from deduction_envs.core.information_set import make_information_set
from deduction_envs.core.rules import DeductionRules
from deduction_envs.games import make_rules
from deduction_envs.games.codes import CodeGame
from train import arguments
from train.experiments.paper_figure5 import AGENT_NAMES, SIZES, make_agent
from train.experiments.runner import Experiment, Finished, Run, run_experiment
from train.plotting import panel_grid, save


@dataclass(frozen=True)
class ActionClass:
    """First queries that split the secrets alike, so gain the same information."""

    label: str
    actions: np.ndarray
    gain: float  # expected information gain in bits, the same for every query of the class


def first_action_classes(rules: DeductionRules) -> list[ActionClass]:
    """Every legal first query's expected information gain, grouped by how it splits the secrets.

    Two queries are in one class when the probabilities of their feedback
    values, sorted, are equal: symmetric queries (Mastermind's ABCD and CDEF)
    always are. Classes are sorted by gain, largest first.
    """
    knowledge = make_information_set(rules)
    legal = rules.legal_actions(knowledge)
    actions = np.arange(rules.num_actions) if legal is None else np.flatnonzero(legal)
    probability, entropy = knowledge.feedback_outcomes(actions)
    gains = knowledge.entropy() - (probability * entropy).sum(axis=1)
    shapes = np.round(-np.sort(-probability, axis=1), 12)
    _, first, inverse = np.unique(shapes, axis=0, return_index=True, return_inverse=True)
    classes = [
        ActionClass(_class_label(rules, int(actions[i])), actions[inverse.ravel() == k], float(gains[i]))
        for k, i in enumerate(first)
    ]
    return sorted(classes, key=lambda c: (-c.gain, c.label))


def _class_label(rules: DeductionRules, action: int) -> str:
    """Code games: the colour pattern (AABC); other games: a representative query."""
    if isinstance(rules, CodeGame):
        counts = sorted(np.bincount(rules.codes[action]).tolist(), reverse=True)
        return "".join(chr(ord("A") + i) * n for i, n in enumerate(c for c in counts if c))
    return rules.format_action(action)


def spatial_depth(classes: list[ActionClass]) -> float:
    """How unequal the first queries are: the standard deviation (bits) of their expected gain.

    Zero when every first query is worth the same (Simple Mastermind), large
    when the choice matters (Mastermind's AAAA against ABCD).
    """
    gains = np.concatenate([np.full(c.actions.size, c.gain) for c in classes])
    return float(gains.std())


def entropy_trajectories(
    agent: Agent, env_id: str, env_kwargs: dict[str, Any] | None = None, *, secrets: int | None = None, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Entropy (bits) of the information set before each query, one row per game, and each game's queries.

    Plays every secret (or ``secrets`` sampled ones) and returns a
    ``(games, longest + 1)`` array: column 0 is the initial entropy, column
    ``t`` the entropy after ``t`` queries; a game that has ended keeps its last
    value (0 once the secret is known). The second array holds the number of
    queries of each game.
    """
    env = gym.make(env_id, **(env_kwargs or {}))
    rules = env.unwrapped.rules
    rng = np.random.default_rng(seed)
    if secrets is None or secrets >= rules.num_secrets:
        chosen = np.arange(rules.num_secrets)
    else:
        chosen = rng.choice(rules.num_secrets, size=secrets, replace=False)
    traces = []
    for secret in tqdm(chosen, desc=f"{agent.name} on {env_id}", unit="game", leave=False):
        _, info = env.reset(options={"secret": int(secret)})
        agent.reset(rules, seed=int(rng.integers(2**32)))
        trace = [info["entropy"]]
        terminated = truncated = False
        while not (terminated or truncated):
            action = agent.act()
            _, _, terminated, truncated, info = env.step(action)
            trace.append(0.0 if terminated and info.get("secret_known", True) else info["entropy"])
            if not (terminated or truncated):
                agent.observe(action, info["feedback"])
        traces.append(trace)
    longest = max(map(len, traces))
    return np.array([t + [t[-1]] * (longest - len(t)) for t in traces]), np.array([len(t) - 1 for t in traces])


def temporal_uncertainty(trajectories: np.ndarray) -> float:
    """How uncertain the outcome stays: the largest standard deviation (bits), over steps, of the entropy left.

    Zero when the policy's progress is the same for every secret (binary
    search in Treasure Hunt), large when the same query leaves one player
    done and another far from it (Mastermind).
    """
    return float(trajectories.std(axis=0).max())


# ---------------------------------------------------------------------- command
#: Two sizes per game for the table: the smallest and the middle size of the Figure 5 experiment.
ANALYSIS_SIZES = {game: [sizes[0], sizes[1]] for game, (_, _, sizes) in SIZES.items()}


@dataclass(frozen=True)
class GameAnalysis:
    game: str
    env_id: str
    size: str
    classes: list[ActionClass]
    trajectories: np.ndarray
    steps: np.ndarray
    seconds: float

    @property
    def spatial_depth(self) -> float:
        return spatial_depth(self.classes)

    @property
    def temporal_uncertainty(self) -> float:
        return temporal_uncertainty(self.trajectories)


@dataclass(frozen=True)
class Settings:
    games: tuple[str, ...]
    secrets: int  #: most secrets per trajectory plot
    agent: str  #: the agent of the trajectories
    seed: int
    sizes: int  #: sizes per game (of :data:`ANALYSIS_SIZES`)


def analyse(job: tuple[str, str], settings: Settings) -> GameAnalysis:
    """One game at one size: ``job = (game, size)``."""
    game, size = job
    env_id, env_kwargs = SIZES[game][0], dict(ANALYSIS_SIZES[game])[size]
    start = time.perf_counter()
    classes = first_action_classes(make_rules(game, **env_kwargs))
    # Let the agent play as long as it needs: the analysis is of the policy, not of the step limit.
    kwargs = {**env_kwargs, "max_steps": 64}
    agent = make_agent(settings.agent, 0.1)
    trajectories, steps = entropy_trajectories(agent, env_id, kwargs, secrets=settings.secrets, seed=settings.seed)
    return GameAnalysis(game, env_id, size, classes, trajectories, steps, time.perf_counter() - start)


def write_table(results: list[GameAnalysis], path: Path, command: str, secrets: int, agent: str = "ISES") -> None:
    lines = [
        "# The entropy analysis of the eight games",
        "",
        f"Command: `{command}`. Spatial depth: the standard deviation of the expected information gain over all "
        "legal first queries (exact). Temporal uncertainty: the largest standard deviation, over steps, of the "
        f"entropy left while {agent} plays every secret (at most {secrets} sampled secrets). See "
        "docs/analysis.md for how to read them; figures: `game_analysis_first_actions.png` (Figure 3), "
        "`game_analysis_trajectories.png` (Figure 4, the larger size of each game).",
        "",
        "| game | size | secrets (bits) | first queries | classes | gain: best / worst (bits) | spatial depth "
        f"| {agent} mean steps | temporal uncertainty |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        n = r.steps.size
        steps = r.steps.mean()
        queries = sum(c.actions.size for c in r.classes)
        bits = r.trajectories[0, 0]
        lines.append(
            f"| {r.game} | {r.size} | {round(2**bits)} ({bits:.2f}) | {queries} | {len(r.classes)} | "
            f"{r.classes[0].gain:.3f} / {r.classes[-1].gain:.3f} | {r.spatial_depth:.3f} | "
            f"{steps:.2f} ({n} games) | {r.temporal_uncertainty:.3f} |"
        )
    path.write_text("\n".join(lines) + "\n")


def plot_first_actions(results: list[GameAnalysis], path: Path, most: int = 12) -> None:
    """Figure 3: one panel per game, a bar per class of first query (the ``most`` best and the worst)."""
    figure, axes = panel_grid(len(results), height=3.4)
    for ax, r in zip(axes, results, strict=True):
        shown = r.classes if len(r.classes) <= most else [*r.classes[: most - 1], r.classes[-1]]
        ax.bar(range(len(shown)), [c.gain for c in shown], color="tab:blue")
        ax.set_xticks(range(len(shown)), [c.label for c in shown], rotation=60, ha="right", fontsize=7)
        hidden = len(r.classes) - len(shown)
        ax.set_title(f"{r.game} {r.size}" + (f" ({hidden} classes not shown)" if hidden else ""), fontsize=9)
        ax.set_ylabel("expected gain (bits)")
        ax.grid(axis="y", alpha=0.3)
    save(figure, path)


def plot_trajectories(results: list[GameAnalysis], path: Path, traces: int = 30) -> None:
    """Figure 4: entropy left against queries made; mean, min-max band and some individual games."""
    figure, axes = panel_grid(len(results), height=3.2)
    for ax, r in zip(axes, results, strict=True):
        t = np.arange(r.trajectories.shape[1])
        for trace in r.trajectories[:traces]:
            ax.plot(t, trace, color="grey", alpha=0.25, linewidth=0.8)
        ax.fill_between(t, r.trajectories.min(0), r.trajectories.max(0), alpha=0.2, label="min-max")
        ax.plot(t, r.trajectories.mean(0), color="tab:red", linewidth=2, label="mean")
        ax.set_title(f"{r.game} {r.size}", fontsize=9)
        ax.set_xlabel("queries")
        ax.set_ylabel("entropy left (bits)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    save(figure, path)


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="+", default=list(SIZES), choices=list(SIZES), metavar="GAME", help="games")
    parser.add_argument(
        "--secrets", type=arguments.count(1), default=300, help="most secrets per trajectory plot (default 300)"
    )
    parser.add_argument("--agent", default="ISES", choices=AGENT_NAMES, help="agent of the trajectories (ISES)")


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    if args.quick:  # the smallest size only, at most 30 secrets
        return Settings(tuple(args.games), min(args.secrets, 30), args.agent, args.seed, 1)
    return Settings(tuple(args.games), args.secrets, args.agent, args.seed, 2)


def jobs(settings: Settings) -> list[tuple[str, str]]:
    return [(game, size) for game in settings.games for size, _ in ANALYSIS_SIZES[game][: settings.sizes]]


def write(settings: Settings, results: dict[tuple[str, str], GameAnalysis], run: Run) -> str:
    """``game_analysis.md`` and the two figures, which show one size per game: the larger one analysed."""
    analysed = list(results.values())
    write_table(analysed, run.output / "game_analysis.md", run.command, settings.secrets, settings.agent)
    shown = list({r.game: r for r in analysed}.values())
    plot_first_actions(shown, run.output / "game_analysis_first_actions.png")
    plot_trajectories(shown, run.output / "game_analysis_trajectories.png")
    return (run.output / "game_analysis.md").read_text()


EXPERIMENT = Experiment("analysis", __doc__, options, settings, jobs, analyse, write, workers=1, job_name="games")


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
