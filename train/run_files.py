"""What a run leaves beside its model: its settings (``run.json``) and the commit of the code that made it.

Read by the library, the tasks and the command lines alike, so it sits at the bottom of ``train/``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["RUN_FILE", "code_commit", "run_settings"]

#: The settings of a run, written next to its model so that a resumed run and train.evaluate can read them.
RUN_FILE = "run.json"


def code_commit() -> str:
    """The commit of the code running now (``git rev-parse --short=10 HEAD``, with ``+changes`` if the work
    tree differs from it), or ``"unknown"`` outside a git checkout: run.json records it."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True, cwd=root)
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                                 text=True, cwd=root)  # fmt: skip
    except OSError:
        return "unknown"
    if head.returncode != 0:
        return "unknown"
    return head.stdout.strip() + ("+changes" if changed.stdout.strip() else "")


def run_settings(model: Path) -> dict[str, Any] | None:
    """The settings saved with the model at ``model`` (``model.zip``), or None for a model saved elsewhere."""
    path = Path(model).parent / RUN_FILE
    return json.loads(path.read_text()) if path.exists() else None
