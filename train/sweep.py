"""A hyperparameter sweep of one training run: ``python -m train --sweep 20 --space learning_rate=1e-4..3e-3:log``.

Each trial is the command's run with some of its algorithm's hyperparameters drawn from a search space, trained
into ``OUTPUT/trial-<n>/`` as ``python -m train`` would (its model, checkpoints, episode log, curve and
``comparison.md``). The search is Optuna's (a TPE sampler; the first trials at random; trial n drawn with the seed
``(--seed, n)``, so that a resumed sweep draws what an uninterrupted one would),
kept in ``OUTPUT/sweep.journal``; the trials are jobs of the executor seam, as many at once as ``--workers`` (local
processes, or Ray tasks with ``--executor ray``), each drawn when a worker is free so that it learns from every
trial finished before it.

**The space**: ``--space NAME=SPEC`` on the command line, or a ``[sweep]`` table in the ``--config`` file
(``NAME = "SPEC"``; the command line wins for a name given in both). NAME is a keyword of the algorithm
(``learning_rate``, ``n_steps``, ``ent_coef``, ``gamma``...); SPEC is ``LOW..HIGH`` (integers if both are, else
real numbers), ``LOW..HIGH:log`` (drawn on a log scale), or ``A,B,C`` (one of these values). Every other
hyperparameter is the config file's.

**Early stopping**: every ``--checkpoint-every`` steps a trial reports its training curve's figure (the mean
queries of its last 100 episodes, or its win rate over the last 500 games) and the pruner may stop it there:
``--pruner asha`` (the default: asynchronous successive halving, Optuna's ``SuccessiveHalvingPruner``, which
keeps the best third at each rung of steps), ``median`` (stop a trial below the median of the others at the same
step) or ``none``. A stopped trial keeps its model and curve; only finished trials are evaluated.

**The objective**: a finished trial's evaluation as ``python -m train`` makes it: the policy's mean queries on the
evaluation secrets (lower is better) or its mean win rate over the evaluation opponents (higher is better).
Every trial trains from the same ``--seed`` and is scored on the same evaluation.

**Resume**: the same command again. Finished trials are kept (in the journal and their folders); a trial the
dead driver left running goes on from its last checkpoint, as the same trial: its earlier reports stay in the
study, so the pruner weighs the rest of its run against the other trials (not against its own first run).

Then ``OUTPUT/sweep.md`` (every trial: its hyperparameters, state, steps and figure; the best trial; the
command), ``sweep.png`` (every trial's curve, and the objective trial by trial) and ``best.toml`` (the best
hyperparameters as a ``--config`` file). On a cluster of several machines, put ``--output`` on a folder every
node shares: the trials write there and report through the journal.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from deduction_envs.executor import Executor, as_executor
from train.arguments import parse_space
from train.config import RunConfig
from train.options import PRUNERS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "PRUNERS",
    "SweepResult",
    "TrialResult",
    "parse_space",
    "plot_sweep",
    "run_sweep",
    "search_space",
    "trial_config",
    "write_sweep",
]

#: The journal of a sweep's study, in its output folder.
JOURNAL = "sweep.journal"
STUDY = "sweep"


def search_space(config: RunConfig) -> dict[str, Any]:
    """The run's search space: the ``[sweep]`` table of its config file, then ``--space`` (names in both: the
    command line's); each name checked to be a keyword of the run's algorithm.

    Raises:
        ValueError: nothing to search, a malformed item, or a name the algorithm does not take.
    """
    import inspect

    items: dict[str, Any] = {}
    table = tomllib.loads(config.hyperparameters_file.read_text()).get("sweep", {})
    if not isinstance(table, dict):
        raise ValueError(f"{config.hyperparameters_file}: [sweep] must be a table of NAME = \"SPEC\"")
    for name, spec in table.items():
        items.update([parse_space(f"{name}={spec}")])
    for text in config.space or ():
        items.update([parse_space(text)])
    if not items:
        raise ValueError("--sweep needs a search space: --space NAME=SPEC, or a [sweep] table in the --config file")
    algorithm = config.task().algorithm()
    accepted = set(inspect.signature(algorithm.__init__).parameters) - {"self", "policy", "env"}
    unknown = sorted(set(items) - accepted)
    if unknown:
        raise ValueError(f"--space: {algorithm.__name__} takes no {', '.join(unknown)} (it takes "
                         f"{', '.join(sorted(accepted))})")  # fmt: skip
    return items


@dataclasses.dataclass(frozen=True)
class TrialResult:
    """One trial: its number, hyperparameters, state (``complete``, ``pruned`` or ``failed``), the steps it
    trained, its objective (finished trials), its curve's reports (step, figure) and its minutes."""

    number: int
    params: dict[str, Any]
    state: str
    timesteps: int
    value: float | None
    reports: tuple[tuple[int, float], ...]
    minutes: float
    error: str = ""


@dataclasses.dataclass(frozen=True)
class SweepResult:
    trials: tuple[TrialResult, ...]
    direction: str  #: ``minimize`` (queries) or ``maximize`` (win rate)
    objective: str  #: what the value is

    @property
    def best(self) -> TrialResult | None:
        """The finished trial of the best objective (the first of equals), if any."""
        done = [t for t in self.trials if t.state == "complete"]
        if not done:
            return None
        sign = 1 if self.direction == "minimize" else -1
        return min(done, key=lambda t: (sign * t.value, t.number))  # type: ignore[operator]


def _objective(config: RunConfig) -> tuple[str, str, str, int]:
    """What a sweep of ``config`` optimises: (direction, the objective's name, the curve's column, the
    episodes the curve's figure is the mean of)."""
    column, _, most = config.task().curve
    if column == "l":
        return "minimize", "mean queries", column, most
    return "maximize", "mean win rate", column, most


def _pruner(name: str, config: RunConfig) -> Any:
    import optuna

    if name == "asha":
        return optuna.pruners.SuccessiveHalvingPruner(min_resource=config.checkpoint_every, reduction_factor=3)
    if name == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=4, n_warmup_steps=config.checkpoint_every)
    return optuna.pruners.NopPruner()


def _storage(output: Path) -> Any:
    """The journal of the sweep in ``output`` (a file every worker appends to, under a file lock)."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return JournalStorage(JournalFileBackend(str(output / JOURNAL)))


def _study(output: Path, direction: str, pruner: Any, seed: int, settings: str) -> Any:
    """The sweep's study in ``output`` (made, or loaded to resume), refusing one of other settings."""
    import optuna

    study = optuna.create_study(storage=_storage(output), study_name=STUDY, direction=direction,
                                sampler=_sampler(seed, 0), pruner=pruner, load_if_exists=True)  # fmt: skip
    kept = study.user_attrs.get("settings")
    if kept is None:
        study.set_user_attr("settings", settings)
    elif kept != settings:
        raise ValueError(f"{output} holds a sweep of other settings: give a new --output, or the command that "
                         f"started it:\n  {kept}")  # fmt: skip
    return study


def _sampler(seed: int, number: int) -> Any:
    """The sampler that draws trial ``number``: TPE seeded by ``(seed, number)``. One sampler for the whole sweep
    would draw trial n from where its generator stands, which a resumed sweep (a new sampler, seeded afresh)
    does not know: it drew the first trials' values again and never the ones an uninterrupted sweep tries."""
    import optuna

    return optuna.samplers.TPESampler(seed=int(np.random.SeedSequence([seed, number]).generate_state(1)[0]),
                                      constant_liar=True)  # fmt: skip


def _settings(config: RunConfig, space: dict[str, Any]) -> str:
    """What a sweep is, for telling a resumed sweep from another in the same folder: every option that changes
    a trial (not how many trials, where they run or the progress bars) and the space."""
    ignored = {"sweep", "workers", "executor", "ray_address", "ray_cpus", "ray_gpus", "ray_memory", "progress",
               "output", "pruner", "space"}  # fmt: skip
    fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.name not in ignored}
    return repr(sorted((k, str(v)) for k, v in fields.items())) + repr(sorted((k, repr(v)) for k, v in space.items()))


def trial_config(config: RunConfig, number: int, params: dict[str, Any]) -> RunConfig:
    """Trial ``number``'s run: ``config`` into ``OUTPUT/trial-<number>/`` with the algorithm's hyperparameters of
    its config file but ``params``, written there as ``hyperparameters.toml``."""
    import tomli_w

    folder = Path(config.output, f"trial-{number}")
    folder.mkdir(parents=True, exist_ok=True)
    raw = tomllib.loads(config.hyperparameters_file.read_text())
    settings = {**raw.get(config.algo, {}), **raw.get(config.env, {}).get(config.algo, {}), **params}
    path = folder / "hyperparameters.toml"
    path.write_text(tomli_w.dumps({config.algo: settings}))
    return dataclasses.replace(config, output=folder, config=path, sweep=None, space=None, pruner="asha", seeds=None,
                               workers=1, torch_threads=1, progress=False)  # fmt: skip


def _train_trial(job: tuple[int, dict[str, Any]], config: RunConfig, pruner_name: str, pruner: Any) -> TrialResult:
    """One trial: one job of :func:`run_sweep`. Reports its curve's figure every ``checkpoint_every`` steps to
    the study (which may stop it there), resumes from its last checkpoint if a killed driver left one, and if it
    ends unstopped is evaluated as ``python -m train`` would. A trial that raises is ``failed``, not the sweep."""
    import optuna
    import torch

    from train.seeds import from_last_checkpoint
    from train.training import train

    torch.set_num_threads(1)
    number, params = job
    start = time.perf_counter()
    direction, _, column, most = _objective(config)
    study = optuna.load_study(study_name=STUDY, storage=_storage(config.output),
                              pruner=pruner if pruner is not None else _pruner(pruner_name, config))  # fmt: skip
    trial = optuna.Trial(study, _trial_id(study, number))
    run_config = from_last_checkpoint(trial_config(config, number, params), config.timesteps, f"trial {number}")
    reports: list[tuple[int, float]] = []
    stopped = []

    def report(model: Any) -> bool:
        """At each checkpoint: the curve's figure to the study; False (stop) if the pruner says so."""
        from train.curves import read_monitors

        values = read_monitors(Path(run_config.output, "monitor"), column)
        if values.size:
            figure = float(np.mean(values[-most:]))
            trial.report(figure, int(model.num_timesteps))
            reports.append((int(model.num_timesteps), figure))
            if trial.should_prune():
                stopped.append(int(model.num_timesteps))
                return False
        return True

    def minutes() -> float:
        return (time.perf_counter() - start) / 60

    try:
        model, seconds = train(run_config, every=(config.checkpoint_every, report))
        steps = int(model.num_timesteps)
        if stopped:
            return TrialResult(number, params, "pruned", steps, None, tuple(reports), minutes())
        done = run_config.task().report(model, seconds, references=False)
    except Exception as error:  # a trial's hyperparameters may not train (batch larger than the rollout...)
        return TrialResult(number, params, "failed", 0, None, tuple(reports), minutes(),
                           f"{type(error).__name__}: {error}")  # fmt: skip
    from train.seeds import figures

    values = figures(done)
    value = values["mean steps"] if direction == "minimize" else float(np.mean(list(values.values())))
    return TrialResult(number, params, "complete", steps, float(value), tuple(reports), minutes())


def _trial_id(study: Any, number: int) -> int:
    return next(t._trial_id for t in study.get_trials(deepcopy=False) if t.number == number)


def run_sweep(
    config: RunConfig, workers: int | Executor = 1, pruner: Any = None, command: list[str] | None = None
) -> SweepResult:
    """Run ``config.sweep`` trials of ``config`` (at most ``workers`` at once, through the executor seam) with
    its search space (:func:`search_space`), then write ``sweep.md``, ``sweep.png`` and ``best.toml`` to its
    output. The same call after an interruption resumes the sweep.

    ``pruner``: an Optuna pruner in place of ``config.pruner``'s (for callers that want another). ``command``:
    the options of ``python -m train`` that ran it, for ``sweep.md`` (None: this process's).
    """
    import optuna
    from optuna.trial import TrialState

    if not config.sweep:
        raise ValueError("run_sweep needs config.sweep, the number of trials")
    config.check()
    space = search_space(config)
    output = Path(config.output).resolve()
    output.mkdir(parents=True, exist_ok=True)
    config = dataclasses.replace(config, output=output)
    direction, objective, _, _ = _objective(config)
    study = _study(output, direction, pruner or _pruner(config.pruner, config), config.seed, _settings(config, space))
    # Left running by a driver that died: the same trials go on (their reports and rungs stay theirs, so the
    # pruner judges the rest of the run against the other trials, not against its own first run).
    running = [(t.number, t.params) for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))]
    # Tried: every trial this sweep told its result (complete, pruned, or failed by its hyperparameters).
    kept = [t for t in study.get_trials(deepcopy=False) if "result" in t.user_attrs]
    left = max(0, config.sweep - len(kept) - len(running))
    executor = as_executor(workers)

    def jobs() -> Iterator[tuple[int, dict[str, Any]]]:
        yield from running
        for _ in range(left):
            study.sampler = _sampler(config.seed, len(study.get_trials(deepcopy=False)))  # the next trial's number
            trial = study.ask(space)
            yield trial.number, trial.params

    from tqdm.auto import tqdm

    with tqdm(total=config.sweep, initial=len(kept), desc="trials", disable=not config.progress) as bar:
        for _, result in executor.run(_train_trial, jobs(), (config, config.pruner, pruner), limit=executor.workers):
            optuna.Trial(study, _trial_id(study, result.number)).set_user_attr("result", dataclasses.asdict(result))
            if result.state == "complete":
                study.tell(result.number, result.value)
            else:
                study.tell(result.number, state=TrialState.PRUNED if result.state == "pruned" else TrialState.FAIL)
            bar.update()
    trials = tuple(_result(t) for t in study.get_trials(deepcopy=False) if "result" in t.user_attrs)
    result = SweepResult(trials, direction, objective)
    command = sys.argv[1:] if command is None else command
    print(write_sweep(result, config, space, output / "sweep.md", command))
    plot_sweep(result, config, output / "sweep.png")
    best = result.best
    if best is not None:
        (output / "best.toml").write_text((output / f"trial-{best.number}" / "hyperparameters.toml").read_text())
    return result


def _result(trial: Any) -> TrialResult:
    saved = dict(trial.user_attrs["result"])
    saved["reports"] = tuple(tuple(r) for r in saved["reports"])
    return TrialResult(**saved)


def _cell(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def write_sweep(result: SweepResult, config: RunConfig, space: dict[str, Any], path: Path, command: list[str]) -> str:
    """Every trial's hyperparameters, state, steps and objective, and the best, as markdown written to ``path``
    with the ``command`` (``python -m train``'s options) that ran it; returns the text."""
    names = list(space)
    better = "lower" if result.direction == "minimize" else "higher"
    lines = [
        f"# Sweep: {config.algo} on {config.env} {config.sizes or ''}".rstrip(),
        "",
        f"{len(result.trials)} trials of up to {config.timesteps:,} steps, seed {config.seed}; objective: the "
        f"{result.objective} of the trained policy's evaluation ({better} is better); pruner {config.pruner}.",
        "",
        "| trial | " + " | ".join(names) + f" | state | steps | {result.objective} | minutes |",
        "| ---: | " + " | ".join("---:" for _ in names) + " | --- | ---: | ---: | ---: |",
    ]
    for t in sorted(result.trials, key=lambda t: t.number):
        value = "" if t.value is None else f"{t.value:.3f}"
        state = t.state if not t.error else f"failed: {t.error[:80]}"
        lines.append(f"| {t.number} | " + " | ".join(_cell(t.params.get(n)) for n in names)
                     + f" | {state} | {t.timesteps:,} | {value} | {t.minutes:.1f} |")  # fmt: skip
    best = result.best
    lines += [""]
    if best is None:
        lines.append("No trial finished unstopped: no best.")
    else:
        chosen = ", ".join(f"{n} = {_cell(best.params[n])}" for n in names)
        lines.append(f"Best: trial {best.number} ({chosen}): {result.objective} {best.value:.3f}. Its "
                     "hyperparameters are best.toml (python -m train --config best.toml ...).")  # fmt: skip
    lines += ["", "The search space: " + "; ".join(f"{n}: {_describe(d)}" for n, d in space.items()) + ".",
              "", "Written by:", "", "```", "python -m train " + shlex.join(command), "```"]  # fmt: skip
    text = "\n".join(lines) + "\n"
    path.write_text(text)
    return text


def _describe(distribution: Any) -> str:
    if hasattr(distribution, "choices"):
        return "one of " + ", ".join(map(str, distribution.choices))
    scale = " (log scale)" if distribution.log else ""
    return f"{distribution.low:g} to {distribution.high:g}{scale}"


def plot_sweep(result: SweepResult, config: RunConfig, path: Path) -> bool:
    """Left: every trial's curve as it reported it (stopped trials dashed, the best in black); right: each
    finished trial's objective by trial number, and the best so far."""
    from train.plotting import panel_grid, save

    if not result.trials:
        return False
    _, axis_label, _ = config.task().curve
    figure, (curves, values) = panel_grid(2, width=5.6, height=3.8)
    best = result.best
    for t in result.trials:
        if not t.reports:
            continue
        steps, figures = zip(*t.reports, strict=True)
        style = {"color": "black", "linewidth": 2, "label": f"best (trial {t.number})"} if t is best else \
            {"linestyle": "--" if t.state == "pruned" else "-", "linewidth": 0.9, "alpha": 0.7}  # fmt: skip
        curves.plot(steps, figures, marker=".", markersize=5, **style)  # a trial stopped at its first report: a dot
    curves.set_xlabel("timesteps")
    curves.set_ylabel(axis_label)
    curves.set_title("every trial's curve (dashed: stopped early)")
    curves.grid(alpha=0.3)
    if best is not None:
        curves.legend(fontsize="small")
    done = sorted((t.number, t.value) for t in result.trials if t.value is not None)
    if done:
        numbers, objective = zip(*done, strict=True)
        values.plot(numbers, objective, "o", label="finished trial")
        running = np.minimum.accumulate(objective) if result.direction == "minimize" else \
            np.maximum.accumulate(objective)  # fmt: skip
        values.step(numbers, running, where="post", color="black", label="best so far")
        values.legend(fontsize="small")
    from matplotlib.ticker import MaxNLocator

    values.xaxis.set_major_locator(MaxNLocator(integer=True))
    values.set_xlabel("trial")
    values.set_ylabel(result.objective)
    values.set_title("objective by trial")
    values.grid(alpha=0.3)
    save(figure, path)
    return True

