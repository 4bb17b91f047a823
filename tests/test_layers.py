"""The layers of DESIGN.md: each imports only the layers below it (read from the source, every import)."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TRAIN_RUNS = ("train.config", "train.training", "train.seeds", "train.sweep")
TRAIN_COMMAND_LINES = ("train.cli", "train.__main__", "train.evaluate", "train.kept_models", "train.models",
                       "train.cluster", "train.llm", "train.experiments")  # fmt: skip
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
    # train/ in floors of its own: the library (every module not named below: the option schema, policies, envs,
    # imitation, curves...), the tasks (what differs between kinds of game), the runs (the config, which checks
    # itself through its task, and the loops that train), the command lines, and the tools for people.
    "train",
    "train.tasks",
    *TRAIN_RUNS,
    *TRAIN_COMMAND_LINES,
    "train.tools",
    "deduction_verifiers",  # the verifiers environment's top-level name: train.llm.verifiers_env
]


def layer_of(module: str) -> int:
    """The module's layer; -1 outside the project. The package's own ``__init__`` registers every env: the top of
    the package."""
    if module == "deduction_envs":
        return LAYERS.index("deduction_envs.wrappers")
    if module == "train":  # the package's names, each imported from its home on first use: the top of train/
        return LAYERS.index("train.tools")
    matches = [i for i, layer in enumerate(LAYERS) if module == layer or module.startswith(layer + ".")]
    return max(matches, key=lambda i: len(LAYERS[i])) if matches else -1  # the most specific layer


def runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """The nodes of ``tree`` outside ``if TYPE_CHECKING:`` blocks (an import there only names a type)."""
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    return [node for node in ast.walk(tree) if id(node) not in typing_only]


def imports(path: Path) -> list[str]:
    """Every module ``path`` imports when it runs, at the top or inside a function (lazy imports included; the
    imports that only name types, under ``TYPE_CHECKING``, excluded)."""
    found = []
    for node in runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found += [f"{node.module}.{alias.name}" for alias in node.names]  # a submodule, or a name in one
    return found


TOPS = ("deduction_envs", "agents", "train", "deduction_verifiers")
SOURCES = [p for top in TOPS for p in sorted((ROOT / top).rglob("*.py"))]


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_module_imports_only_its_own_layer_and_those_below(path):
    module = module_name(path)
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


def test_no_modules_import_each_other_in_a_circle():
    """The project's modules, joined by what each imports when it runs (lazy imports included), form no circle:
    within a layer too, each module sits on the ones it imports."""
    modules = {module_name(path): path for path in SOURCES}
    graph = {}
    for module, path in modules.items():
        # ``from pkg.mod import name`` imports pkg.mod; ``from pkg import mod``, pkg.mod (pkg's own __init__ runs
        # for any of its modules: not an edge)
        named = {name if name in modules else name.rpartition(".")[0] for name in imports(path)}
        graph[module] = {name for name in named if name in modules and name != module}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        pytest.fail(f"modules import each other in a circle: {' -> '.join(error.args[1])}")


def test_the_layer_checks_see_a_lazy_import_of_the_command_line_and_ignore_a_type_only_one(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from train.config import RunConfig\n"
                       "def check():\n    from train.cli import build_parser\n")
    assert imports(planted) == ["typing.TYPE_CHECKING", "train.cli.build_parser"]
    assert layer_of("train.cli.build_parser") > layer_of("train.config") > layer_of("train.tasks.seats")
    assert layer_of("train.tasks.seats") > layer_of("train.options") == layer_of("train.arguments")
