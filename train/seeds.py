"""One run per seed, and what they say together: ``python -m train --seeds 0,1,2``.

Each seed is one job of the executor seam (a local process, or a Ray task with ``--executor ray``), trained with
one torch thread into ``OUTPUT/seed-<s>/`` as ``python -m train --seed s`` would (its model, curve and
``comparison.md`` of the trained policy alone). A seed's run is kept in ``OUTPUT/.jobs/`` when it ends, so the
same command after an interruption trains only the seeds that had not finished, and each of those resumes from
its last checkpoint (``OUTPUT/seed-<s>/checkpoints/``, every ``--checkpoint-every`` steps) for the steps it had
left, on this machine or another that sees the folder. Each seed's files are written
by the worker that trains it: on a cluster of several machines, put ``--output`` on a folder they all share.

Then ``OUTPUT/seeds.md``: each seed's figure (single-player games: the policy's mean steps and solve rate;
multiplayer: its win rate against each evaluation opponent) and, across seeds, the mean with its 95% Student t
interval, the range (lowest to highest seed) and the interquartile mean (IQM, the mean of the middle half; with
fewer than four seeds it trims nothing and is the mean). No bootstrap: over three seeds a percentile bootstrap
only gives back about their range, which the table shows as what it is. For a single-player
game, the reference agents (ISES, SO-ISMCTS, random) on the same secrets, played once for all the seeds (every
seed is scored on the same evaluation: the command's ``--seed`` draws it); and ``seeds.png``: the learning
curve of every seed and their mean.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from deduction_envs.executor import Executor, discard_store, run_jobs
from train.config import RunConfig
from train.curves import read_monitors, smoothed
from train.stats import t_interval
from train.training import TrainingRun, run

__all__ = ["SeedsResult", "aggregate", "from_last_checkpoint", "latest_checkpoint", "run_seeds", "write_seeds"]


@dataclasses.dataclass(frozen=True)
class Aggregate:
    """One figure across seeds: every seed's value, their mean with its 95% t interval (NaN with one seed), their
    range, and their interquartile mean."""

    name: str
    values: tuple[float, ...]
    mean: float
    mean_ci: tuple[float, float]
    range: tuple[float, float]
    iqm: float


@dataclasses.dataclass(frozen=True)
class SeedsResult:
    seeds: tuple[int, ...]
    runs: dict[int, TrainingRun]
    aggregates: tuple[Aggregate, ...]
    references: tuple = ()  #: single-player: the reference agents' results on the seeds' evaluation secrets


def _iqm(values: np.ndarray, axis: int = -1) -> np.ndarray:
    from scipy.stats import trim_mean

    return trim_mean(values, 0.25, axis=axis)


def aggregate(name: str, values: Sequence[float], share: bool = False) -> Aggregate:
    """The mean of ``values`` (one a seed) with its 95% Student t interval, their range and their IQM. ``share``:
    the values are shares (a solve rate, a win rate), and the interval is cut to [0, 1], where a share can be
    (with few seeds a t interval reaches past it)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0 or not np.isfinite(x).all():
        raise ValueError(f"{name}: need one finite value per seed, got {list(values)}")
    low, high = t_interval(x)
    if share and np.isfinite(low):
        low, high = max(low, 0.0), min(high, 1.0)
    return Aggregate(name, tuple(x.tolist()), float(x.mean()), (low, high), (float(x.min()), float(x.max())),
                     float(_iqm(x)))  # fmt: skip


def latest_checkpoint(folder: Path) -> tuple[Path, int] | None:
    """The whole checkpoint of most steps in a run's ``checkpoints`` folder (``model_<steps>_steps.zip``, as
    training saves them) and its steps, or None if there is none. A checkpoint cut off while it was written (the
    process killed then) is passed over."""
    from agents.sb3_policy import check_saved_model

    found = []
    for path in Path(folder).glob("model_*_steps.zip"):
        match = re.fullmatch(r"model_(\d+)_steps\.zip", path.name)
        if match:
            found.append((int(match[1]), path))
    for steps, path in sorted(found, reverse=True):
        try:
            check_saved_model(path)
        except (ValueError, OSError):
            continue
        return path, steps
    return None


def _train_seed(seed: int, config: RunConfig) -> TrainingRun:
    """One seed's run: one job of :func:`run_seeds` (one torch thread, no progress bar). A seed stopped before
    it ended (a killed driver, a lost node) resumes from its last checkpoint, on whatever node runs it again,
    for the steps it had left: a seed's folder on a shared ``--output`` is all it needs."""
    import torch

    torch.set_num_threads(1)
    seeded = dataclasses.replace(
        config,
        seed=seed,
        eval_seed=config.evaluation_seed,  # every seed scored on the same secrets and games
        output=Path(config.output, f"seed-{seed}"),  # absolute here: a Ray worker's working folder is not ours
        seeds=None,
        workers=1,
        torch_threads=1,
        progress=False,
    )
    return run(from_last_checkpoint(seeded, config.timesteps, f"seed {seed}"), references=False)


def from_last_checkpoint(config: RunConfig, timesteps: int, label: str) -> RunConfig:
    """``config`` (a run of ``timesteps`` into its ``output``) resumed from the last checkpoint in its output for
    the steps it has left (none, if it was stopped after its last checkpoint but before its model was saved: then
    it is only saved and evaluated), if a stopped run left one there; else ``config`` itself. ``label`` names the
    run in the line that says so."""
    checkpoint = latest_checkpoint(Path(config.output, "checkpoints"))
    if checkpoint is None:
        return config
    path, steps = checkpoint
    left = max(0, timesteps - steps)  # 0: the run was stopped after its last checkpoint, before it was saved
    print(f"{label}: resuming from {path.name}, {left} of {timesteps} steps left", flush=True)
    return dataclasses.replace(  # the model saved there has its hyperparameters and any imitation in it
        config, resume=path, timesteps=left, config=None, imitate=None, imitate_learning_rate=None,
        imitate_demos=None, imitate_soft=False, imitate_values=None, imitate_secrets=None,
    )  # fmt: skip


def figures(run_: TrainingRun) -> dict[str, float]:
    """A run's figures: the policy's mean steps and solve rate, or its win rate against each opponent (all but
    the mean steps are shares)."""
    first = run_.results[0]
    if hasattr(first, "mean_steps"):
        return {"mean steps": first.mean_steps, "solved": first.solve_rate}
    return {f"win rate vs {r.opponent}": r.win_rate for r in run_.results}


def run_seeds(config: RunConfig, seeds: Sequence[int], workers: int | Executor = 1) -> SeedsResult:
    """Train ``config`` once per seed through ``workers`` and write ``seeds.md`` and ``seeds.png``."""
    seeds = tuple(int(s) for s in seeds)
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct and at least one, got {list(seeds)}")
    config.check()
    output = Path(config.output).resolve()
    output.mkdir(parents=True, exist_ok=True)
    config = dataclasses.replace(config, output=output)
    store = output / ".jobs" / "seeds"
    runs = run_jobs(_train_seed, list(seeds), workers, "seeds", config, store=store)
    names = list(figures(runs[seeds[0]]))
    aggregates = tuple(aggregate(name, [figures(runs[s])[name] for s in seeds], share=name != "mean steps")
                       for name in names)  # fmt: skip
    result = SeedsResult(seeds, runs, aggregates, reference_results(config))
    print(write_seeds(result, config, output / "seeds.md"))
    plot_seeds(result, config, output / "seeds.png")
    discard_store(store)  # kept only while the run is unfinished
    return result


def reference_results(config: RunConfig) -> tuple:
    """The reference agents on the evaluation every seed was scored on: a single-player game's on its secrets
    (none for a multiplayer game, whose seeds are scored against the evaluation opponents themselves)."""
    return config.task().references()


def write_seeds(result: SeedsResult, config: RunConfig, path: Path) -> str:
    """The per-seed table and the aggregate table, as markdown written to ``path``; returns the text."""
    names = [a.name for a in result.aggregates]
    label = f"{config.algo} on {config.env} {config.sizes or ''}".strip()
    lines = [
        f"# {label}: {len(result.seeds)} seeds",
        "",
        "| seed | timesteps | minutes | " + " | ".join(names) + " |",
        "| ---: | ---: | ---: | " + " | ".join("---:" for _ in names) + " |",
    ]
    for seed in result.seeds:
        run_, values = result.runs[seed], figures(result.runs[seed])
        lines.append(
            f"| {seed} | {run_.timesteps} | {run_.seconds / 60:.1f} | "
            + " | ".join(f"{values[n]:.3f}" for n in names)
            + " |"
        )
    lines += ["", "| figure | mean | 95% t interval | range | IQM |", "| --- | ---: | ---: | ---: | ---: |"]
    for a in result.aggregates:
        ci = "one seed" if len(a.values) < 2 else f"[{a.mean_ci[0]:.3f}, {a.mean_ci[1]:.3f}]"
        lines.append(f"| {a.name} | {a.mean:.3f} | {ci} | {a.range[0]:.3f} to {a.range[1]:.3f} | {a.iqm:.3f} |")
    if result.references:
        lines += ["", "The reference agents on the same secrets:", "", "| agent | mean steps | solved | worst |",
                  "| --- | ---: | ---: | ---: |"]  # fmt: skip
        lines += [f"| {r.agent} | {r.mean_steps:.3f} | {r.solve_rate:.1%} | {r.worst} |" for r in result.references]
    lines += [
        "",
        f"Every seed is scored on the same evaluation (evaluation seed {config.evaluation_seed}: the same sampled "
        "secrets, the same games). Interval: Student t over the seeds' figures (n - 1 degrees of freedom); the IQM "
        "trims a quarter of the seeds at each end (none below four seeds).",
    ]
    text = "\n".join(lines) + "\n"
    path.write_text(text)
    return text


def plot_seeds(result: SeedsResult, config: RunConfig, path: Path) -> bool:
    """Every seed's learning curve (queries per episode, or win rate) and their mean on a common axis."""
    from train.plotting import panel_grid, save

    column, axis_label, most = config.task().curve
    curves: list[tuple[np.ndarray, np.ndarray]] = []
    figure, (ax,) = panel_grid(1, width=6.4, height=3.8)
    for seed in result.seeds:
        monitor = Path(config.output, f"seed-{seed}", "monitor")
        lengths = read_monitors(monitor)
        if not lengths.size:
            continue
        values = read_monitors(monitor, column)
        _, steps, smooth = smoothed(values, most=most, share=10, lengths=lengths)
        ax.plot(steps, smooth, linewidth=0.9, alpha=0.6, label=f"seed {seed}")
        curves.append((steps, smooth))
    if not curves:
        return False
    end = min(steps[-1] for steps, _ in curves)
    grid = np.linspace(max(steps[0] for steps, _ in curves), end, 200)
    mean = np.mean([np.interp(grid, steps, smooth) for steps, smooth in curves], axis=0)
    ax.plot(grid, mean, color="black", linewidth=2, label=f"mean of {len(curves)} seeds")
    ax.set_xlabel("timesteps")
    ax.set_ylabel(axis_label)
    ax.set_title(f"{config.algo} on {config.env} {config.sizes or ''}".strip())
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    save(figure, path)
    return True
