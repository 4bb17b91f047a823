"""Trained seat policies measured as seeds of one recipe: every seed's figure, an interval over the seeds, the
learning curves, and trivial agents on the same games (issue 62: reinforcement learning alone in the multiplayer
games).

    python -m train.experiments.rl_alone --models rl-clue4-seed-0 rl-clue4-seed-1 rl-clue4-seed-2 \\
        --opponents deduction_sheet entropy --games 2000 200 --output results/multiplayer_training/rl_clue4
    python -m train.experiments.rl_alone --models rl-clue4-seed-0 --quick     # a look, in runs/quick/

Each model is a kept one (``models/NAME``, ``python -m train.kept_models``), all of one game and size: the
seeds of one training recipe. Each plays ``--games`` games against ``players - 1`` copies of each opponent (a
reference agent of the game), seats rotated, game g seeded ``(--seed, g)``: the games ``python -m
train.evaluate`` plays with the same seed, so a kept model's row here is its manifest's figure when the games
are the same. The ``--baselines`` (reference agents, default ``random``) sit where the policy sits, on the same
games: what a trivial agent reaches.

``rl_alone.md``: per opponent, every seed's wins, win rate (95% Wilson interval, one-sided binomial test above
the fair share 1/players) and mean rank (95% t interval, one-sided t-test below parity); over the seeds, the mean
of the seeds' win rates and mean ranks with a 95% t interval over seeds (and their range), then the baselines.
``rl_alone.png``: every seed's learning curve (win rate and mean rank against timesteps, from the
``curve.csv`` each kept model keeps of its run's episodes), the fair share and parity marked.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from train.experiments.runner import Experiment, Finished, Run, run_experiment
from train.stats import over_seeds

AGENT = "agent:"  #: a baseline's contender name is ``agent:NAME``; a kept model's is its name


@dataclass(frozen=True)
class Settings:
    models: tuple[str, ...]  #: kept models: the seeds
    opponents: tuple[str, ...]
    games: tuple[int, ...]  #: per opponent, a multiple of the players
    baselines: tuple[str, ...]
    seed: int
    env: str
    sizes: tuple[tuple[str, Any], ...]
    players: int

    @property
    def contenders(self) -> tuple[str, ...]:
        return (*self.models, *(AGENT + name for name in self.baselines))


def options(parser: argparse.ArgumentParser) -> None:
    from train import arguments

    parser.add_argument("--models", nargs="+", required=True, metavar="NAME", help="kept models of one game and size")
    parser.add_argument("--opponents", nargs="+", required=True, metavar="AGENT",
                        help="reference agents met, each in every other seat, or a mixed table NAME+NAME+... (those "
                        "agents in that order after the policy's seat)")  # fmt: skip
    parser.add_argument(
        "--games",
        nargs="+",
        type=arguments.count(1),
        default=[400],
        help="games against each opponent: one number, or one per opponent (default 400; rounded up to a "
        "multiple of the players)",
    )
    parser.add_argument(
        "--baselines",
        nargs="*",
        default=["random"],
        metavar="AGENT",
        help="reference agents seated where the policy sits, on the same games (default random)",
    )


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    from train.kept_models import kept_model
    from train.multiplayer import check_opponents, is_multiplayer, raw_env

    try:
        entries = [kept_model(name) for name in args.models]
    except ValueError as error:
        parser.error(str(error))
    if len(set(args.models)) != len(args.models):
        parser.error("--models: each model once")
    games = [e for e in entries if (e.env, e.sizes) != (entries[0].env, entries[0].sizes)]
    if games:
        parser.error(f"--models must be of one game and size: {args.models[0]} plays {entries[0].env} "
                     f"{entries[0].sizes}, {games[0].name} {games[0].env} {games[0].sizes}")  # fmt: skip
    env, sizes = entries[0].env, entries[0].sizes
    if not is_multiplayer(env):
        parser.error(f"{args.models[0]} plays {env}, a single-player game: this measures seat policies")
    try:
        check_opponents(env, [*args.opponents, *args.baselines])
    except ValueError as error:
        parser.error(str(error))
    if len(args.games) not in (1, len(args.opponents)):
        parser.error(f"--games: one number, or one per opponent ({len(args.opponents)}), got {len(args.games)}")
    players = raw_env(env, **sizes).rules.players
    counts = [-(-n // players) * players for n in (args.games * len(args.opponents))[: len(args.opponents)]]
    if args.quick:  # one rotation of the seats a cell
        counts = [players] * len(counts)
    return Settings(tuple(args.models), tuple(args.opponents), tuple(counts), tuple(args.baselines), args.seed, env,
                    tuple(sizes.items()), players)  # fmt: skip


def jobs(settings: Settings) -> list[tuple[str, str, int, int]]:
    """(contender, opponent, start, games): parts of at most about 100 games, whole rotations of the seats."""
    from train.stats import chunks

    size = max(settings.players, 100 // settings.players * settings.players)
    return [
        (contender, opponent, start, n)
        for contender in settings.contenders
        for opponent, games in zip(settings.opponents, settings.games, strict=True)
        for start, n in chunks(games, size)
    ]


def play(job: tuple[str, str, int, int], settings: Settings) -> list:
    """One part: the contender (a kept model, or a baseline agent) against copies of the opponent."""
    import torch

    from train.kept_models import seat_policy
    from train.multiplayer import raw_env, seat_agent, seat_games, table_agents

    torch.set_num_threads(1)  # one per worker: the workers share the cores
    contender, opponent, start, games = job
    rules = raw_env(settings.env, **dict(settings.sizes)).rules
    if contender.startswith(AGENT):
        agent = seat_agent(settings.env, contender.removeprefix(AGENT))
    else:
        agent = seat_policy(contender)
    others = table_agents(settings.env, opponent, settings.players - 1)
    return seat_games(rules, agent, others, games, settings.seed, start)


def evaluations(settings: Settings, results: dict[tuple, list]) -> dict[tuple[str, str], Any]:
    """Each (contender, opponent) cell's :class:`~train.multiplayer.SeatEvaluation`."""
    from train.multiplayer import seat_evaluation

    cells: dict[tuple[str, str], list] = {}
    for job in sorted(results, key=lambda job: (job[0], job[1], job[2])):
        cells.setdefault((job[0], job[1]), []).extend(results[job])
    return {cell: seat_evaluation(cell[1], played, settings.players) for cell, played in cells.items()}


def report(settings: Settings, found: dict[tuple[str, str], Any], run: Run) -> str:
    """The markdown of ``rl_alone.md``."""
    from train.kept_models import MODELS, kept_model
    from train.run_files import run_settings
    from train.stats import format_p

    players, fair, parity = settings.players, 1 / settings.players, (settings.players + 1) / 2
    sizes = " ".join(f"{k}={v}" for k, v in settings.sizes if v is not None)
    lines = [
        f"# Trained seat policies, {len(settings.models)} seeds: {settings.env} {sizes}",
        "",
        f"Written by `{run.command}` in {run.minutes:.0f} minutes {run.where}. Each policy (deterministic: its "
        f"likeliest legal action) in one seat and copies of one opponent in the other {players - 1}, seats rotated, "
        f"game g seeded ({settings.seed}, g): the same games for every seed and baseline. Win rate with its 95% "
        f"Wilson interval and the one-sided binomial test above the fair share {fair:.3f}; mean rank (1 = first, "
        f"tied seats sharing their places) with its 95% t interval and the one-sided t-test below parity "
        f"{parity:.1f}. Over seeds: the mean of the seeds' figures with a 95% t interval over the seeds.",
        "",
        "![Learning curves](rl_alone.png)",
        "",
        "| seed | model | what it is | timesteps | trained at |",
        "| ---: | --- | --- | ---: | --- |",
    ]
    for name in settings.models:
        entry = kept_model(name)
        steps = (run_settings(MODELS / name / "model.zip") or {}).get("timesteps", "?")
        lines.append(f"| {entry.seed} | `models/{name}` | {entry.kind} | {steps:,} | {entry.commit} |")
    for opponent, games in zip(settings.opponents, settings.games, strict=True):
        lines += [
            "",
            f"## Against {players - 1} {opponent} agents ({games:,} games a row)" if "+" not in opponent else
            f"## Against a mixed table: {', '.join(opponent.split('+'))} ({games:,} games a row)",
            "",
            "| policy | wins | win rate [95% CI] | p (> fair share) | mean rank [95% CI] | p (< parity) | unfinished |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        rows = [(name, found[name, opponent]) for name in settings.models]
        rows += [(AGENT + b, found[AGENT + b, opponent]) for b in settings.baselines]
        for name, e in rows:
            label = (
                f"{name.removeprefix(AGENT)} (baseline)" if name.startswith(AGENT) else f"seed {kept_model(name).seed}"
            )
            lines.append(
                f"| {label} | {e.wins:,} | {e.win_rate:.3f} [{e.win_ci[0]:.3f}, {e.win_ci[1]:.3f}] | "
                f"{format_p(e.p_win)} | {e.mean_rank:.3f} [{e.rank_ci[0]:.3f}, {e.rank_ci[1]:.3f}] | "
                f"{format_p(e.p_rank)} | {e.truncated} |"
            )
            if name == settings.models[-1]:
                seeds = [found[m, opponent] for m in settings.models]
                lines.append(
                    f"| **over {len(seeds)} seeds** | | {over_seeds([e.win_rate for e in seeds])} | | "
                    f"{over_seeds([e.mean_rank for e in seeds])} | | |"
                )
    return "\n".join(lines) + "\n"


def plot(settings: Settings, path: Path) -> bool:
    """Every seed's learning curve from its kept ``curve.csv``: win rate and mean rank against timesteps."""
    import matplotlib

    matplotlib.use("Agg")
    from train.curves import plot_curves, read_curve
    from train.kept_models import CURVE, MODELS, kept_model

    curves = {
        f"seed {kept_model(name).seed}": read_curve(MODELS / name / CURVE)
        for name in settings.models
        if (MODELS / name / CURVE).exists()
    }
    sizes = " ".join(f"{k}={v}" for k, v in settings.sizes if v is not None)
    return plot_curves(curves, path, f"{settings.env} {sizes}: every seed's training games", settings.players)


def write(settings: Settings, results: dict[tuple, list], run: Run) -> str:
    """``rl_alone.md`` and ``rl_alone.png``."""
    text = report(settings, evaluations(settings, results), run)
    (run.output / "rl_alone.md").write_text(text)
    plot(settings, run.output / "rl_alone.png")
    return text


EXPERIMENT = Experiment("rl_alone", __doc__, options, settings, jobs, play, write, job_name="parts")


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
