"""The kept models' manifest (``models/manifest.json``): one entry a model, with its file's SHA-256.

The library part of :mod:`train.kept_models` (which keeps, checks and lists models): what a load of a kept model
reads to check that its file is the one kept.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["MANIFEST", "MODELS", "KeptModel", "kept_digest", "kept_model", "load_manifest"]

#: The folder of kept models, and their manifest.
MODELS = Path(__file__).resolve().parent.parent / "models"
MANIFEST = "manifest.json"

@dataclass
class KeptModel:
    """One entry of the manifest."""

    name: str
    kind: str  #: what the policy is: RL alone, imitation of which agent, with which extra inputs
    env: str
    sizes: dict[str, Any]
    command: str  #: the training command that wrote the run (on ``commit``)
    seed: int
    commit: str
    evaluate: list[str]  #: the arguments of ``python -m train.evaluate`` after ``--model``
    figures: dict[str, Any]  #: what that evaluation printed (see :func:`figures_of`)
    bytes: int
    sha256: str
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    #: the model's file: ``model.zip`` (stable-baselines3) or ``model.pt`` (:mod:`train.expert_iteration`)
    file: str = "model.zip"

    @property
    def model(self) -> str:
        """The model's path, relative to the repository."""
        return f"models/{self.name}/{self.file}"

    @property
    def evaluate_command(self) -> str:
        return shlex.join(["python", "-m", "train.evaluate", "--model", self.model, *self.evaluate])


def load_manifest(folder: Path = MODELS) -> list[KeptModel]:
    """The kept models of ``folder``'s manifest (none if it has no manifest)."""
    path = Path(folder, MANIFEST)
    if not path.exists():
        return []
    return [KeptModel(**entry) for entry in json.loads(path.read_text())]


def kept_model(name: str, folder: Path = MODELS) -> KeptModel:
    """The manifest's entry of the kept model ``name``; ValueError naming the kept ones if there is none."""
    models = {m.name: m for m in load_manifest(folder)}
    if name not in models:
        raise ValueError(f"no kept model named {name!r} in {folder}; kept: {', '.join(sorted(models)) or 'none'}")
    return models[name]


def kept_digest(path: str | Path) -> str | None:
    """The SHA-256 the manifest records for the file at ``path`` if it is a kept model's file (in the repository's
    ``models/`` or another folder with a manifest), else None: a load of a kept model checks it."""
    path = Path(path).resolve()
    for entry in load_manifest(path.parent.parent):
        if entry.name == path.parent.name and entry.file == path.name:
            return entry.sha256
    return None
