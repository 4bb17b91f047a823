"""The reference ladder of the single-player games (issue 63): every secret played by each reference agent.

    python -m train.experiments.ladder --workers 2      # results/ladder.md
    python -m train.experiments.ladder --quick          # small sizes, seconds, to runs/quick/

The rungs a trained policy is set against, measured on this machine rather than quoted: random play, random play
among the secrets still possible, the marginals rule (:class:`agents.MarginalRule`: the scoring rule a marginals
head starts from, untrained; on Wordle the positional letter-frequency rule), Knuth's minimax
(:class:`agents.Knuth`, 1976), the paper's greedy ISES and ISES two queries ahead (:class:`agents.ISES`,
``lookahead=2``, five candidates), on Mastermind 4x6, Wordle (the shipped 2,500 answers), Bulls and Cows 4 of 10 and
Low-Middle-High 81. Each agent plays every secret once (:func:`agents.evaluation.play_episodes`, the one evaluation
loop; the random agents' seeds fixed per episode by ``--seed``), one job per game and agent. ``--skip GAME:AGENT``
leaves a cell out (by default ISES two queries ahead on Wordle, hours on this machine).

``ladder.md``: per game, each agent's mean queries over every secret (exact, no interval: every secret is played
once; the random agents' figures are one draw of their seeds, with a 95% t interval over the secrets; an episode
not solved within the env's step limit counts the limit), the most, the share solved within the step limit,
decision times, and the published figures beside them.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agents import ISES, Agent, EvaluationResult, Knuth, MarginalRule, RandomAgent
from agents.evaluation import episode_plan, play_episodes
from deduction_envs.games import make_rules
from train.experiments.runner import Experiment, Finished, Run, run_experiment

#: The games, their sizes, and the published figures beside them (mean queries over every secret).
GAMES: dict[str, tuple[dict[str, int], str]] = {
    "Mastermind-v0": (
        {"pegs": 4, "colors": 6},
        "Knuth 4.476 (5,801 / 1,296); entropy 4.415 (Neuwirth); the optimum 4.3403 (Koyama & Lai)",
    ),
    "Wordle-v0": ({}, "nothing for this answer list; this project's ISES plays 3.437 in results/training.md"),
    "BullsAndCows-v0": ({"digits": 4, "symbols": 10}, "the optimum 5.2131"),
    "LowMiddleHigh-v0": ({"n": 81}, "nothing"),
}
QUICK: dict[str, dict[str, int]] = {
    "Mastermind-v0": {"pegs": 3, "colors": 4},
    "BullsAndCows-v0": {"digits": 3, "symbols": 6},
    "LowMiddleHigh-v0": {"n": 20},
}
#: The agents, in the ladder's order (weakest first).
AGENTS: dict[str, Callable[[], Agent]] = {
    "random": RandomAgent,
    "random consistent": lambda: RandomAgent(consistent=True),
    "marginals rule": MarginalRule,
    "Knuth": Knuth,
    "ISES": ISES,
    "ISES two ahead": lambda: ISES(lookahead=2, candidates=5),
}
SKIPPED = ("Wordle-v0:ISES two ahead",)


@dataclass(frozen=True)
class Settings:
    games: tuple[str, ...]
    agents: tuple[str, ...]
    skip: tuple[str, ...]
    quick: bool
    seed: int


def sizes_of(game: str, settings: Settings) -> dict[str, int]:
    return QUICK[game] if settings.quick else GAMES[game][0]


def jobs(settings: Settings) -> list[tuple[str, str]]:
    return [(g, a) for g in settings.games for a in settings.agents if f"{g}:{a}" not in settings.skip]


def play(job: tuple[str, str], settings: Settings) -> dict:
    """Every secret of one game by one agent."""
    game, agent = job
    sizes = sizes_of(game, settings)
    plan = episode_plan(make_rules(game.removesuffix("-v0"), **sizes).num_secrets, "all", settings.seed)
    start = time.perf_counter()
    steps, solved, times = play_episodes(AGENTS[agent](), game, sizes, plan)
    return {"steps": steps, "solved": solved, "times": times, "seconds": time.perf_counter() - start}


def write(settings: Settings, results: dict[tuple[str, str], dict], run: Run) -> str:
    lines = [
        "# The reference ladder of the single-player games, over every secret",
        "",
        f"Written by `{run.command}` in {run.minutes:.0f} minutes {run.where}. "
        "The design is in the docstring of `train/experiments/ladder.py`.",
        "",
        "Queries: the mean over every secret, each played once (exact for the deterministic agents; the random "
        "agents' one draw of seeds, with a 95% t interval over the secrets), and the most; an episode not solved "
        "within the env's step limit counts that limit (so random play's mean is about the limit). Solved: within "
        "the step limit. Decisions: ms per decision, mean / 99th percentile, in a process whose decision memo fills as "
        "it plays; the job's seconds in all.",
        "",
    ]
    for game in settings.games:
        sizes = sizes_of(game, settings)
        size_text = ", ".join(f"{k}={v}" for k, v in sizes.items()) or "the shipped answers"
        lines += [f"## {game} ({size_text})", ""]
        if not settings.quick:
            lines += [f"Published: {GAMES[game][1]}.", ""]
        lines += ["| agent | secrets | queries, mean | most | solved | decisions ms | seconds |",
                  "|---|---:|---|---:|---:|---|---:|"]  # fmt: skip
        for agent in settings.agents:
            found = results.get((game, agent))
            if found is None:
                lines.append(f"| {agent} | not played (`--skip`) | | | | | |")
                continue
            result = EvaluationResult(agent=agent, env_id=game, env_kwargs=sizes, steps=np.array(found["steps"]),
                                      solved=np.array(found["solved"]), decision_times=np.array(found["times"]),
                                      exact=not agent.startswith("random"))  # fmt: skip
            mean = f"{result.mean_steps:.4f}" + ("" if result.exact else f" ± {result.ci95:.3f}")
            ms = 1e3 * result.decision_times
            lines.append(
                f"| {agent} | {result.episodes} | {mean} | {result.worst} | {result.solve_rate:.1%} "
                f"| {ms.mean():.2f} / {np.percentile(ms, 99):.1f} | {found['seconds']:.0f} |"
            )
        lines.append("")
    text = "\n".join(lines) + "\n"
    (run.output / "ladder.md").write_text(text)
    return text


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES), help="the games (default all)")
    parser.add_argument(
        "--agents", nargs="+", default=list(AGENTS), choices=list(AGENTS), help="the rungs (default all)"
    )
    parser.add_argument(
        "--skip",
        nargs="*",
        default=list(SKIPPED),
        metavar="GAME:AGENT",
        help=f"cells not played (default {' '.join(SKIPPED)}; none: --skip)",
    )


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    cells = {f"{g}:{a}" for g in GAMES for a in AGENTS}
    unknown = [cell for cell in args.skip if cell not in cells]
    if unknown:
        parser.error(f"--skip takes GAME:AGENT cells (e.g. {SKIPPED[0]!r}), got {unknown}")
    games = tuple(g for g in args.games if not (args.quick and g not in QUICK))  # Wordle has no small size
    return Settings(games, tuple(args.agents), tuple(args.skip), args.quick, args.seed)


EXPERIMENT = Experiment("ladder", __doc__, options, settings, jobs, play, write, job_name="cells")


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
