"""ISES two queries ahead against the paper's greedy ISES, over every secret, beside the published figures.

    python -m train.experiments.ises_lookahead            # results/ises_lookahead.md
    python -m train.experiments.ises_lookahead --quick    # small sizes, seconds, to runs/quick/

Each agent plays every secret of the game once (:func:`agents.evaluation.play_episodes`, the one evaluation
loop): exhaustive ISES (greedy, the paper's) and ``ISES(lookahead=2, candidates=C)`` for each ``--candidates``
(see :mod:`agents.ises`). One job per game and agent, so that each job's decision memo serves its whole tree:
the decision times are those of one process building the tree as it plays (the first game pays for the root,
later games reuse the nodes already met), reported as the mean, 99th percentile and most, and the job's seconds.

Published references (mean queries over every secret): Mastermind 4 pegs of 6 colours, Neuwirth's entropy
strategy 4.415, Kooi's most parts 4.373, the optimum 4.3403 (Koyama & Lai); Bulls and Cows 4 digits of 10, the
optimum 5.2131.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from agents import ISES, EvaluationResult
from agents.evaluation import episode_plan, play_episodes
from deduction_envs.games import make_rules
from train import arguments
from train.experiments.runner import Experiment, Finished, Run, run_experiment

#: The games, their sizes and the published figures the results are set against.
GAMES: dict[str, tuple[dict[str, int], str]] = {
    "Mastermind-v0": ({"pegs": 4, "colors": 6}, "entropy 4.415 (Neuwirth), most parts 4.373 (Kooi), optimum 4.3403"),
    "BullsAndCows-v0": ({"digits": 4, "symbols": 10}, "optimum 5.2131; greedy ISES (this project's) 5.243"),
}
QUICK: dict[str, dict[str, int]] = {
    "Mastermind-v0": {"pegs": 3, "colors": 4},
    "BullsAndCows-v0": {"digits": 3, "symbols": 6},
}


@dataclass(frozen=True)
class Settings:
    games: tuple[str, ...]
    candidates: tuple[int, ...]
    quick: bool
    seed: int


def agent_for(candidates: int) -> ISES:
    """Greedy exhaustive ISES for 0 candidates, else two queries ahead over that many."""
    return ISES() if candidates == 0 else ISES(lookahead=2, candidates=candidates)


def sizes_of(game: str, settings: Settings) -> dict[str, int]:
    return QUICK[game] if settings.quick else GAMES[game][0]


def play(job: tuple[str, int], settings: Settings) -> dict:
    """Every secret of one game by one agent: ``job = (game, candidates)``."""
    game, candidates = job
    sizes = sizes_of(game, settings)
    plan = episode_plan(make_rules(game, **sizes).num_secrets, "all", settings.seed)
    if not settings.quick:  # compile the kernels on a small size first, outside the timings
        play_episodes(agent_for(candidates), game, QUICK[game], episode_plan(1, "all", settings.seed))
    start = time.perf_counter()
    steps, solved, times = play_episodes(agent_for(candidates), game, sizes, plan)
    return {"steps": steps, "solved": solved, "times": times, "seconds": time.perf_counter() - start}


def jobs(settings: Settings) -> list[tuple[str, int]]:
    return [(game, c) for game in settings.games for c in (0, *settings.candidates)]


def write(settings: Settings, results: dict[tuple[str, int], dict], run: Run) -> str:
    lines = [
        "# ISES two queries ahead, over every secret",
        "",
        f"Written by `{run.command}` in {run.minutes:.0f} minutes {run.where}. "
        "The design is in the docstring of `train/experiments/ises_lookahead.py`; the agent in `agents/ises.py`.",
        "",
        "Queries: mean over every secret (exact: every secret played once), and the most. Decisions: ms per "
        "decision while one process plays every secret in order, its memo of decisions filling as it goes (mean / 99th "
        "percentile / most); the job's seconds in all.",
        "",
    ]
    for game in settings.games:
        sizes = sizes_of(game, settings)
        size_text = ", ".join(f"{k}={v}" for k, v in sizes.items())
        lines += [f"## {game} ({size_text})", ""]
        if not settings.quick:
            lines += [f"Published: {GAMES[game][1]}.", ""]
        lines += [
            "| agent | secrets | queries, mean | most | solved | decisions ms (mean / p99 / most) | seconds |",
            "|---|---:|---|---:|---:|---|---:|",
        ]
        for candidates in (0, *settings.candidates):
            found = results[game, candidates]
            result = EvaluationResult(
                agent=agent_for(candidates).name,
                env_id=game,
                env_kwargs=sizes,
                steps=np.array(found["steps"]),
                solved=np.array(found["solved"]),
                decision_times=np.array(found["times"]),
                exact=True,
            )
            ms = 1e3 * result.decision_times
            lines.append(
                f"| {result.agent} | {result.episodes} | {result.mean_steps:.4f} | {result.worst} "
                f"| {result.solve_rate:.0%} | {ms.mean():.2f} / {np.percentile(ms, 99):.1f} / {ms.max():.0f} "
                f"| {found['seconds']:.0f} |"
            )
        lines.append("")
    text = "\n".join(lines) + "\n"
    (run.output / "ises_lookahead.md").write_text(text)
    return text


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES), help="the games (default both)")
    parser.add_argument(
        "--candidates",
        type=arguments.count(1),
        nargs="+",
        default=[5, 30],
        help="first queries the lookahead scores, one run each (default 5 and 30)",
    )


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    return Settings(tuple(args.games), tuple(args.candidates), args.quick, args.seed)


EXPERIMENT = Experiment("ises_lookahead", __doc__, options, settings, jobs, play, write, job_name="agents")


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
