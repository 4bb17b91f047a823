"""The README's promises that a fresh machine relies on."""

from __future__ import annotations

import re
from pathlib import Path

import deduction_envs

ROOT = Path(__file__).resolve().parent.parent


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```(?:bash|sh)\n(.+?)\n```", section, flags=re.S)


def test_quick_start_is_two_commands_and_ci_runs_the_test_one_verbatim():
    commands = quick_start_commands()
    assert len(commands) == 2
    assert "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines()


def test_readme_lists_every_registered_env():
    readme = (ROOT / "README.md").read_text()
    for env_id in deduction_envs.ENV_IDS:
        assert f"`{env_id}`" in readme
