"""The experiment of Meng & Lucas (2024), Figure 5: four agents on eight games at three sizes.

The agents are the paper's four: random, SO-ISMCTS with 0.1 s per decision,
exhaustive ISES and sampled ISES with 0.1 s per decision. Each plays the same
sampled secrets (``--trials`` per game and size) through
:func:`agents.evaluate`. The command writes a markdown table (mean steps, 95%
confidence interval, solve rate, mean decision time), the same figures as CSV,
and a PNG in the paper's layout: one panel per game, mean steps against game
size, one line per agent.

    python -m train.experiments.paper_figure5                      # 500 trials per cell
    python -m train.experiments.paper_figure5 --trials 100 --workers 2
    python -m train.experiments.paper_figure5 --quick              # 10 trials, smallest size
    python -m train.experiments.paper_figure5 --games FakeCoin TreasureHunt --output runs/fig5
    python -m train.experiments.paper_figure5 --resume             # after an interruption: the cells not done

Choices that differ from the paper are listed in the README ("The paper's
experiment").
"""

from __future__ import annotations

import argparse
import csv
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents import ISES, ISMCTS, Agent, RandomAgent
from agents.evaluation import EvaluationResult, episode_plan, play_episodes
from deduction_envs.games import make_rules
from deduction_envs.games.wordle import load_words
from train import arguments
from train.experiments.runner import Experiment, Finished, Run, run_experiment
from train.plotting import panel_grid, save


def _wordle(answers: int) -> tuple[str, dict[str, Any]]:
    """Wordle with the ``answers`` most frequent words of the default list as secrets."""
    words = load_words(None, "wordle_answers.txt", "answers")[:answers]
    return f"{answers}", {"answers": list(words)}


#: Per game: the env id, the x-axis label and three sizes (label, env kwargs) from easy to hard.
SIZES: dict[str, tuple[str, str, list[tuple[str, dict[str, Any]]]]] = {
    "Mastermind": (
        "Mastermind-v0",
        "pegs x colours",
        [("3x3", {"pegs": 3, "colors": 3}), ("4x6", {"pegs": 4, "colors": 6}), ("5x6", {"pegs": 5, "colors": 6})],
    ),
    "SimpleMastermind": (
        "SimpleMastermind-v0",
        "pegs x colours",
        [("3x3", {"pegs": 3, "colors": 3}), ("4x4", {"pegs": 4, "colors": 4}), ("4x6", {"pegs": 4, "colors": 6})],
    ),
    "BullsAndCows": (
        "BullsAndCows-v0",
        "digits of symbols",
        [
            ("3/6", {"digits": 3, "symbols": 6}),
            ("4/8", {"digits": 4, "symbols": 8}),
            ("4/10", {"digits": 4, "symbols": 10}),
        ],
    ),
    "Wordle": ("Wordle-v0", "answers (10,000 guesses)", [_wordle(100), _wordle(500), _wordle(2500)]),
    "FakeCoin": ("FakeCoin-v0", "coins", [("6", {"coins": 6}), ("9", {"coins": 9}), ("12", {"coins": 12})]),
    "TreasureHunt": (
        "TreasureHunt-v0",
        "grid",
        [
            ("4x4", {"width": 4, "height": 4}),
            ("8x8", {"width": 8, "height": 8}),
            ("16x16", {"width": 16, "height": 16}),
        ],
    ),
    "LowMiddleHigh": ("LowMiddleHigh-v0", "n", [("27", {"n": 27}), ("81", {"n": 81}), ("243", {"n": 243})]),
    "BlackBox": (
        "BlackBox-v0",
        "size / atoms",
        [("4/2", {"size": 4, "atoms": 2}), ("5/3", {"size": 5, "atoms": 3}), ("6/4", {"size": 6, "atoms": 4})],
    ),
}

AGENT_NAMES = ("random", "SO-ISMCTS", "ISES", "sampled ISES")
#: Agents beyond the paper's that ``--agents`` may add: ISES two queries ahead (:mod:`agents.ises`).
EXTRA_AGENTS = ("ISES (lookahead 2)",)

#: Most steps an episode may take, whatever the size: enough for consistent random play to finish every game
#: here but the largest Mastermind and Bulls and Cows (where it needs about 7), small enough to bound a cell.
STEP_CAP = 256


def make_agent(name: str, time_limit: float) -> Agent:
    """One of the paper's four agents, by its name in :data:`AGENT_NAMES`, or one of :data:`EXTRA_AGENTS`."""
    if name == "random":
        return RandomAgent(consistent=True)
    if name == "SO-ISMCTS":
        return ISMCTS(time_limit=time_limit)
    if name == "ISES":
        return ISES()
    if name == "sampled ISES":
        return ISES("sampled", time_limit=time_limit)
    if name == "ISES (lookahead 2)":
        return ISES(lookahead=2)
    raise ValueError(f"unknown agent {name!r}; choose from {AGENT_NAMES + EXTRA_AGENTS}")


def max_steps_for(game: str, env_kwargs: dict[str, Any]) -> int:
    """The episode limit of the experiment: the game's own limit, raised to let a random player finish."""
    rules = make_rules(game, **env_kwargs)
    return max(rules.default_max_steps, min(rules.num_secrets, STEP_CAP))


@dataclass(frozen=True)
class Cell:
    """One (game, size, agent) of the experiment."""

    game: str
    size: str
    agent: str


@dataclass(frozen=True)
class Settings:
    games: tuple[str, ...]
    trials: int  #: sampled secrets per game and size
    time_limit: float  #: seconds per decision of the sampled agents
    seed: int
    quick: bool  #: the smallest size of each game only
    agents: tuple[str, ...] = AGENT_NAMES


@dataclass(frozen=True)
class Part:
    """Trials ``start`` to ``stop`` of one cell: one job (a cell is split so that no job runs for long, a killed
    run loses little, and many workers share a slow cell)."""

    cell: Cell
    start: int
    stop: int


#: Trials per job.
PART_TRIALS = 50


@dataclass(frozen=True)
class CellResult:
    cell: Cell
    trials: int
    max_steps: int
    mean_steps: float
    ci95: float
    worst: int
    solve_rate: float
    mean_decision_ms: float
    seconds: float


def run_part(part: Part, settings: Settings) -> tuple[list[int], list[bool], list[float], float]:
    """Play trials ``part.start`` to ``part.stop`` of a cell's sampled secrets (the same secrets for every agent
    of a game and size): each trial's steps and whether it was solved, every decision's seconds, the part's
    seconds."""
    cell = part.cell
    env_id, _, sizes = SIZES[cell.game]
    env_kwargs = {**dict(sizes)[cell.size], "max_steps": max_steps_for(cell.game, dict(sizes)[cell.size])}
    plan = episode_plan(settings.trials, "sample", settings.seed)[part.start : part.stop]
    start = time.perf_counter()
    steps, solved, times = play_episodes(make_agent(cell.agent, settings.time_limit), env_id, env_kwargs, plan)
    return steps, solved, times, time.perf_counter() - start


def cell_result(cell: Cell, parts: list[tuple[list[int], list[bool], list[float], float]]) -> CellResult:
    """A cell's figures from its parts, in trial order."""
    env_id, _, sizes = SIZES[cell.game]
    env_kwargs = dict(sizes)[cell.size]
    result = EvaluationResult(
        agent=cell.agent,
        env_id=env_id,
        env_kwargs=env_kwargs,
        steps=np.array([s for part in parts for s in part[0]]),
        solved=np.array([s for part in parts for s in part[1]]),
        decision_times=np.array([t for part in parts for t in part[2]]),
        exact=False,
    )
    return CellResult(
        cell=cell,
        trials=result.episodes,
        max_steps=max_steps_for(cell.game, env_kwargs),
        mean_steps=result.mean_steps,
        ci95=result.ci95,
        worst=result.worst,
        solve_rate=result.solve_rate,
        mean_decision_ms=1e3 * result.mean_decision_time,
        seconds=sum(part[3] for part in parts),
    )


def cells(settings: Settings) -> list[Cell]:
    """Every cell of the experiment, in table order."""
    return [
        Cell(game, size, agent)
        for game in settings.games
        for size, _ in (SIZES[game][2][:1] if settings.quick else SIZES[game][2])
        for agent in settings.agents
    ]


def jobs(settings: Settings) -> list[Part]:
    """The cells' parts, largest sizes and searching agents first, so that the slowest parts do not start last."""
    order = sorted(
        cells(settings), key=lambda c: (-[s for s, _ in SIZES[c.game][2]].index(c.size), c.agent == "random")
    )
    bounds = [(start, min(start + PART_TRIALS, settings.trials)) for start in range(0, settings.trials, PART_TRIALS)]
    return [Part(cell, start, stop) for cell in order for start, stop in bounds]


def write_table(results: list[CellResult], path: Path, command: str, time_limit: float) -> None:
    """The markdown table: one row per game and size, one column group per agent."""
    trials = {r.trials for r in results}
    agents = list(dict.fromkeys(r.cell.agent for r in results))
    lines = [
        "# Figure 5 of Meng & Lucas (2024), reproduced",
        "",
        f"Command: `{command}`. {', '.join(map(str, sorted(trials)))} sampled secrets per game and size, the same "
        f"secrets for every agent; SO-ISMCTS and sampled ISES get {time_limit:g} s per decision. Each cell: mean "
        "steps ± the half-width of its 95% confidence interval; below it, the share of games solved within the "
        "step limit and the mean decision time. An unsolved game counts the steps of the limit.",
        "",
        "| game | size | limit | " + " | ".join(agents) + " |",
        "| --- | --- | ---: | " + " | ".join("---:" for _ in agents) + " |",
    ]
    rows: dict[tuple[str, str], dict[str, CellResult]] = {}
    for r in results:
        rows.setdefault((r.cell.game, r.cell.size), {})[r.cell.agent] = r
    for (game, size), by_agent in rows.items():
        cells = []
        for agent in agents:
            r = by_agent[agent]
            solved = "" if r.solve_rate == 1 else f"solved {100 * r.solve_rate:.0f}%, "
            cells.append(f"{r.mean_steps:.2f} ± {r.ci95:.2f}<br>{solved}{_milliseconds(r.mean_decision_ms)}")
        limit = next(iter(by_agent.values())).max_steps
        lines.append(f"| {game} | {size} | {limit} | " + " | ".join(cells) + " |")
    total = sum(r.seconds for r in results)
    lines += ["", f"Total compute: {total / 60:.1f} min over all cells (summed over workers)."]
    path.write_text("\n".join(lines) + "\n")


def _milliseconds(value: float) -> str:
    return f"{value:.2f} ms" if value < 10 else f"{value:.0f} ms"


def write_csv(results: list[CellResult], path: Path) -> None:
    """The same figures, one row per cell, unrounded."""
    rows = [{**asdict(r.cell), **{k: v for k, v in asdict(r).items() if k != "cell"}} for r in results]
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot(results: list[CellResult], path: Path) -> None:
    """One panel per game (two rows of four, as in the paper), mean steps with 95% CI against size."""
    games = list(dict.fromkeys(r.cell.game for r in results))
    figure, axes = panel_grid(len(games), width=4)
    agents = list(dict.fromkeys(r.cell.agent for r in results))
    markers = dict(zip((*AGENT_NAMES, *EXTRA_AGENTS), "osD^v", strict=True))
    for ax, game in zip(axes, games, strict=True):
        sizes = [size for size, _ in SIZES[game][2] if any(r.cell == Cell(game, size, agents[0]) for r in results)]
        for i, agent in enumerate(agents):
            points = [next(r for r in results if r.cell == Cell(game, size, agent)) for size in sizes]
            ax.errorbar(
                [x + 0.04 * (i - 1.5) for x in range(len(sizes))],  # side by side, so the error bars stay apart
                [p.mean_steps for p in points],
                yerr=[p.ci95 for p in points],
                marker=markers[agent],
                capsize=3,
                label=agent,
            )
        ax.set_xticks(range(len(sizes)), sizes)
        ax.set_title(game)
        ax.set_xlabel(SIZES[game][1])
        ax.set_ylabel("mean steps")
        if max(r.mean_steps for r in results if r.cell.game == game) > 30:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=len(agents), frameon=False)
    save(figure, path, bottom=0.06)


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trials", type=arguments.count(1), default=None, help="sampled secrets per game and size (default 500)"
    )
    parser.add_argument("--games", nargs="+", default=list(SIZES), choices=list(SIZES), metavar="GAME", help="games")
    parser.add_argument(
        "--time-limit", type=arguments.seconds, default=0.1, help="seconds per decision of the sampled agents"
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        default=list(AGENT_NAMES),
        choices=[*AGENT_NAMES, *EXTRA_AGENTS],
        metavar="AGENT",
        help=f"the agents (default the paper's four; also: {', '.join(EXTRA_AGENTS)})",
    )


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    trials = args.trials if args.trials is not None else 10 if args.quick else 500  # quick: 10, the smallest size
    return Settings(tuple(args.games), trials, args.time_limit, args.seed, args.quick, tuple(args.agents))


def write(settings: Settings, results: dict[Cell, CellResult], run: Run) -> str:
    """``paper_figure5.md``, ``.csv`` and ``.png``."""
    by_cell: dict[Cell, list] = {}
    for part in sorted(results, key=lambda part: part.start):
        by_cell.setdefault(part.cell, []).append(results[part])
    ordered = [cell_result(cell, by_cell[cell]) for cell in cells(settings)]
    write_table(ordered, run.output / "paper_figure5.md", run.command, settings.time_limit)
    write_csv(ordered, run.output / "paper_figure5.csv")
    plot(ordered, run.output / "paper_figure5.png")
    return (run.output / "paper_figure5.md").read_text() + f"wrote {run.output / 'paper_figure5.md'}, .csv and .png"


EXPERIMENT = Experiment("paper_figure5", __doc__, options, settings, jobs, run_part, write, workers=1, job_name="parts")


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
