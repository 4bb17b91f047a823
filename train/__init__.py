"""Training, evaluation, experiments and tools for people: the top floor, a library first and command lines second.

    from train import RunConfig, evaluate_model, run

    done = run(RunConfig(env="Mastermind-v0", sizes={"pegs": 3, "colors": 3}, timesteps=20_000))
    done.results[0]                  # the trained policy; then ISES, SO-ISMCTS and random play on the same secrets
    again = evaluate_model("runs/Mastermind-v0/model.zip", references=False)  # the saved policy, every secret
    seat = run(RunConfig(env="algo_v0", timesteps=20_000, eval_opponents=["random"], eval_games=40))
    seat.results[0].win_rate         # against random players, seats rotated

A :class:`RunConfig` is what ``python -m train`` parses into; :func:`run` checks it (the command line's defaults
and errors), trains, evaluates and writes the run's folder; :func:`evaluate_model` measures a saved model as
``python -m train.evaluate`` does (``train.evaluate`` is that command's module, hence the longer name). What
differs between kinds of game is a task (:mod:`train.tasks`) named by the game's registry entry. The names are
imported on first use, so the command lines that need no torch do not load it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RunConfig", "Task", "TrainingRun", "evaluate_model", "run", "task_for", "train"]

_HOMES = {
    "RunConfig": "train.config",
    "Task": "train.tasks",
    "TrainingRun": "train.tasks",
    "task_for": "train.tasks",
    "evaluate_model": "train.evaluate",
    "run": "train.training",
    "train": "train.training",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'train' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_HOMES[name]), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
