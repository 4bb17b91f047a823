"""Train on each single-player game at a small size, with and without the entropy reward, and tabulate.

    python -m train.experiments.report                       # all eight games, two processes
    python -m train.experiments.report --games TreasureHunt LowMiddleHigh --timesteps 400000
    python -m train.experiments.report --quick               # a smoke run: 1,024 steps, the smallest games
    python -m train.experiments.report --action-mask consistent --games Mastermind BullsAndCows Wordle

Each run is ``python -m train`` (MaskablePPO, the shipped hyperparameters, the
env's mask of all legal queries) with its output in ``--runs/<game>-<variant>``;
the reference agents (exhaustive ISES, SO-ISMCTS, random and consistent-random
play) are measured once per game on the same secrets: every secret, since
every size here has at most 2,000. Writes ``training_runs.md`` (the table),
``training_runs.csv`` and ``training_curves.png`` (queries per episode against
timesteps, one panel per game) to ``--output``; with ``--action-mask
consistent`` (the policy may only ask queries that could be the secret) the
runs and files carry a ``-consistent`` suffix.
"""

from __future__ import annotations

import argparse
import csv
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agents import EvaluationResult
from deduction_envs.envs import env_rules
from deduction_envs.games.wordle import load_words
from train import arguments, training
from train.comparison import compare
from train.config import RunConfig
from train.curves import read_monitors, smoothed
from train.experiments.runner import Experiment, Finished, Run, run_experiment
from train.plotting import panel_grid, save


def _wordle(answers: int) -> dict[str, Any]:
    """Wordle with the ``answers`` most frequent answer words, which are also its only guesses."""
    words = list(load_words(None, "wordle_answers.txt", "answers")[:answers])
    return {"answers": words, "guesses": words}


#: Per game: env id, size label, env kwargs and training timesteps.
GAMES: dict[str, tuple[str, str, dict[str, Any], int]] = {
    "Mastermind": ("Mastermind-v0", "3x3", {"pegs": 3, "colors": 3}, 300_000),
    "SimpleMastermind": ("SimpleMastermind-v0", "3x3", {"pegs": 3, "colors": 3}, 300_000),
    "BullsAndCows": ("BullsAndCows-v0", "3/6", {"digits": 3, "symbols": 6}, 300_000),
    "Wordle": ("Wordle-v0", "100 words", _wordle(100), 300_000),
    "FakeCoin": ("FakeCoin-v0", "6 coins", {"coins": 6}, 300_000),
    "TreasureHunt": ("TreasureHunt-v0", "4x4", {"width": 4, "height": 4}, 300_000),
    "LowMiddleHigh": ("LowMiddleHigh-v0", "81", {"n": 81}, 300_000),
    "BlackBox": ("BlackBox-v0", "4/2", {"size": 4, "atoms": 2}, 300_000),
}

#: The smallest games, for ``--quick``.
QUICK_GAMES = ("Mastermind", "TreasureHunt")

VARIANTS = ("plain", "entropy")

MASKS = {"all": "all legal queries", "consistent": "the queries that could be the secret"}


@dataclass(frozen=True)
class Settings:
    """What every job of a report shares."""

    runs: Path
    entropy_scale: float
    time_limit: float
    seed: int
    action_mask: str = "all"
    games: tuple[str, ...] = tuple(GAMES)
    timesteps: int | None = None  #: of every run (None: each game's own)

    def folder(self, game: str, variant: str) -> Path:
        suffix = "" if self.action_mask == "all" else f"-{self.action_mask}"
        return self.runs / f"{game}-{variant}{suffix}"


@dataclass(frozen=True)
class Job:
    """Train one (game, variant), or measure the reference agents of a game (variant ``"references"``)."""

    game: str
    variant: str
    timesteps: int


@dataclass(frozen=True)
class Row:
    """One line of the table: a trained policy or a reference agent on a game."""

    game: str
    size: str
    agent: str
    variant: str
    timesteps: int
    train_seconds: float
    mean_steps: float
    ci95: float
    worst: int
    solve_rate: float
    decision_ms: float


def _row(job: Job, result: EvaluationResult, timesteps: int = 0, seconds: float = 0.0) -> Row:
    return Row(
        job.game,
        GAMES[job.game][1],
        result.agent,
        job.variant,
        timesteps,
        seconds,
        result.mean_steps,
        0.0 if result.exact else result.ci95,
        result.worst,
        result.solve_rate,
        1e3 * result.mean_decision_time,
    )


def run_job(job: Job, settings: Settings) -> list[Row]:
    """One job, in a worker process with one torch thread (the workers share the cores)."""
    import torch

    torch.set_num_threads(1)
    env_id, _, env_kwargs, _ = GAMES[job.game]
    if job.variant == "references":
        results = compare(None, env_id, env_kwargs, 2000, settings.time_limit, settings.seed)
        return [_row(job, r) for r in results]
    config = RunConfig(
        env=env_id,
        sizes=env_kwargs,
        action_mask=settings.action_mask,
        timesteps=job.timesteps,
        seed=settings.seed,
        entropy_reward=settings.entropy_scale if job.variant == "entropy" else None,
        output=settings.folder(job.game, job.variant),
        eval_time_limit=settings.time_limit,
        progress=False,
    )
    done = training.run(config, references=False)
    return [_row(job, done.results[0], done.timesteps, done.seconds)]


def table_jobs(settings: Settings) -> list[Job]:
    """Per game, both variants, then the reference agents: the table's order."""
    return [
        Job(game, variant, 0 if variant == "references" else settings.timesteps or GAMES[game][3])
        for game in settings.games
        for variant in (*VARIANTS, "references")
    ]


def jobs(settings: Settings) -> list[Job]:
    """The jobs, longest first."""
    return sorted(table_jobs(settings), key=lambda j: -j.timesteps)


def table_rows(settings: Settings, results: dict[Job, list[Row]]) -> list[Row]:
    return [row for job in table_jobs(settings) for row in results[job]]


def write_table(rows: list[Row], path: Path, command: str, settings: Settings) -> str:
    """Per game: the trained policies (plain and entropy reward), then the reference agents."""
    lines = [
        "# Trained policies against the reference agents",
        "",
        f"Command: `{command}`. MaskablePPO with `train/configs/hyperparameters.toml` and the env's mask of "
        f"{MASKS[settings.action_mask]}; *entropy* adds the entropy reward (scale {settings.entropy_scale:g}). "
        "Every secret of each game is "
        f"played once by every agent (the policy deterministically), so the means are exact for these agents; "
        f"SO-ISMCTS gets {settings.time_limit:g} s per decision. Unsolved games count the steps of the env's limit.",
        "",
        "| game | size | agent | timesteps | train s | mean steps | worst | solved | decision ms |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        agent = f"**{r.agent} ({r.variant})**" if r.timesteps else r.agent
        trained = (f"{r.timesteps:,}", f"{r.train_seconds:.0f}") if r.timesteps else ("", "")
        lines.append(
            f"| {r.game} | {r.size} | {agent} | {trained[0]} | {trained[1]} | {r.mean_steps:.3f} | {r.worst} "
            f"| {100 * r.solve_rate:.1f}% | {r.decision_ms:.2f} |"
        )
    text = "\n".join(lines) + "\n"
    path.write_text(text)
    return text


def write_csv(rows: list[Row], path: Path) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(asdict(rows[0])))
        writer.writeheader()
        writer.writerows(asdict(r) for r in rows)


def plot_curves(rows: list[Row], settings: Settings, path: Path) -> None:
    """Queries per episode against timesteps, smoothed, one panel per game; ISES's mean as a dashed line."""
    games = list(dict.fromkeys(r.game for r in rows))
    figure, axes = panel_grid(len(games), width=4)
    for ax, game in zip(axes, games, strict=True):
        for variant, colour in zip(VARIANTS, ("tab:blue", "tab:orange"), strict=True):
            lengths = read_monitors(settings.folder(game, variant) / "monitor")
            if lengths.size:
                _, steps, smooth = smoothed(lengths, most=200, share=20)
                ax.plot(steps, smooth, color=colour, label=f"policy ({variant})")
        ises = [r.mean_steps for r in rows if r.game == game and r.agent == "ISES"]
        if ises:
            ax.axhline(ises[0], color="black", linestyle="--", linewidth=1, label="ISES (exact mean)")
        ax.set_title(f"{game} {GAMES[game][1]}")
        ax.set_xlabel("timesteps")
        ax.xaxis.set_major_formatter(lambda x, _: f"{x / 1000:g}k")
        ax.set_ylabel("queries per episode (training)")
        ax.grid(alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=3, frameon=False)
    save(figure, path, bottom=0.08)


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="+", default=None, choices=list(GAMES), metavar="GAME", help="games")
    parser.add_argument(
        "--timesteps", type=arguments.count(1), default=None, help="timesteps of every run (default: per game)"
    )
    parser.add_argument("--action-mask", default="all", choices=list(MASKS), help="the env's mask (default all)")
    parser.add_argument(
        "--entropy-scale",
        type=arguments.number(0, open_low=True),
        default=1.0,
        help="scale of the entropy reward (default 1)",
    )
    parser.add_argument("--eval-time-limit", type=arguments.seconds, default=0.1, help="SO-ISMCTS seconds per decision")
    parser.add_argument(
        "--runs", type=arguments.output_folder, default=Path("runs/report"), help="folder of the training runs"
    )


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    """Quick: 1,024 timesteps on two small games."""
    timesteps = 1024 if args.quick and args.timesteps is None else args.timesteps
    games = args.games or (list(QUICK_GAMES) if args.quick else list(GAMES))
    if args.action_mask == "consistent":
        lacking = [g for g in games if not env_rules(GAMES[g][0], **GAMES[g][2]).queries_name_secrets]
        if lacking:
            parser.error(f"--action-mask consistent needs queries that name secrets, which {lacking} lack")
    return Settings(
        args.runs, args.entropy_scale, args.eval_time_limit, args.seed, args.action_mask, tuple(games), timesteps
    )


def write(settings: Settings, results: dict[Job, list[Row]], run: Run) -> str:
    """``training_runs.md``, ``.csv`` and ``training_curves.png`` (``_consistent`` with that mask)."""
    rows = table_rows(settings, results)
    name = "training_runs" + ("" if settings.action_mask == "all" else f"_{settings.action_mask}")
    text = write_table(rows, run.output / f"{name}.md", run.command, settings)
    write_csv(rows, run.output / f"{name}.csv")
    curves = run.output / name.replace("runs", "curves")
    plot_curves(rows, settings, curves.with_suffix(".png"))
    return text + f"wrote {run.output / name}.md, .csv and {curves}.png"


EXPERIMENT = Experiment("report", __doc__, options, settings, jobs, run_job, write, job_name="training runs")


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
