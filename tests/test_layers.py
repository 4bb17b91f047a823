"""The layers of DESIGN.md: each imports only the layers below it (read from the source, every import)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: From the bottom up; a module may import its own layer and those before it. The registry names the layers
#: above it by strings (imported on use), so it sits just above core.
LAYERS = [
    "deduction_envs.core",
    "deduction_envs.executor",  # the executor seam: a home of its own, over the core's argument checks
    "deduction_envs.registry",
    "deduction_envs.games",
    "deduction_envs.reasoning",
    "deduction_envs.envs",
    "deduction_envs.wrappers",
    "deduction_envs.text",  # the games as text (DESIGN.md, "Language models"): over the envs, under the agents
    "agents",
    "train",
    "deduction_verifiers",  # the verifiers environment's top-level name: train.llm.verifiers_env
]


def layer_of(module: str) -> int:
    """The module's layer; -1 outside the project. The package's own ``__init__`` registers every env: the top of
    the package."""
    if module == "deduction_envs":
        return LAYERS.index("deduction_envs.wrappers")
    matches = [i for i, layer in enumerate(LAYERS) if module == layer or module.startswith(layer + ".")]
    return matches[-1] if matches else -1


def imports(path: Path) -> list[str]:
    """Every module ``path`` imports, at the top or inside a function."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found += [f"{node.module}.{alias.name}" for alias in node.names]  # a submodule, or a name in one
    return found


TOPS = ("deduction_envs", "agents", "train", "deduction_verifiers")
SOURCES = [p for top in TOPS for p in sorted((ROOT / top).rglob("*.py"))]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_module_imports_only_its_own_layer_and_those_below(path):
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    own = layer_of(module)
    above = sorted({name for name in imports(path) if layer_of(name) > own})
    assert not above, f"{module} (layer {LAYERS[own]}) imports a layer above it: {above}"


def private_imports(path: Path) -> list[str]:
    """The project's private names (``_name``) that ``path`` imports from another module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level and node.module.split(".")[0] in TOPS:
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_") and a.name[1] != "_"]
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_another_modules_private_names(path):
    """A kernel or constant shared across modules is public (named without ``_``), so a seam is visible."""
    assert not private_imports(path), f"{path.relative_to(ROOT)} imports private names: {private_imports(path)}"


def test_the_private_import_check_sees_a_private_import(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("from deduction_envs.games.clue import CluePhase\n"
                       "from deduction_envs.envs.clue import (\n    ClueObserver,\n    _secret_helper,\n)\n")
    assert private_imports(planted) == ["deduction_envs.envs.clue._secret_helper"]
