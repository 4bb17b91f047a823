"""Write the generated pages of the documentation site; find the code snippets of the docstrings the API
reference shows (the tests run them).

Run by ``docs/conf.py`` at every build (the pages are not kept in the repository): one page per registered
env (``docs/envs/<env id>.rst``) with its picture and animated episode (``python -m scripts.docs_media``), a
table of its spaces, sizes and reference agents, and the page its module already is (the game's rules for a
single-player env, the AEC env's docstring for a multiplayer one); ``docs/envs/single_player.rst``, the one
Gymnasium env under every single-player game (:class:`deduction_envs.envs.deduction_env.DeductionEnv`); and
the API reference's page of each package (``docs/api/<package>.rst``, every module of :func:`api_modules`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import textwrap
from pathlib import Path

import gymnasium as gym

import deduction_envs
from deduction_envs import registry

gym.register_envs(deduction_envs)

HERE = Path(__file__).resolve().parent
ENVS = HERE / "envs"
MEDIA = HERE / "_static" / "envs"


#: A paragraph that opens an RST construct of its own (a list, a field, a directive, a Google-style section).
_OPENS_CONSTRUCT = re.compile(
    r"(\* |- |\d+\. |\.\. |:|(Args|Arguments|Returns|Raises|Attributes|Yields|Example|Examples):$)"
)


def literal_blocks(lines: list[str]) -> list[str]:
    """``lines`` of a docstring with each indented block that follows a plain paragraph (an example command
    or snippet, as ``help()`` shows it) made an RST literal block: a ``::`` paragraph, which RST drops from
    the output, goes before it. Blocks already introduced by ``::`` and those inside a list, a field, a
    directive or a Google-style section are left as they are."""
    out: list[str] = []
    for i, line in enumerate(lines):
        if line == "" and i + 1 < len(lines) and lines[i + 1].startswith("    ") and out:
            paragraph = [text for text in out[len(out) - _paragraph_length(out) :] if text]
            if paragraph and not paragraph[0].startswith(" ") and not paragraph[-1].endswith("::"):
                if not _OPENS_CONSTRUCT.match(paragraph[0]):
                    out += ["", "::"]
        out.append(line)
    return out


def _paragraph_length(lines: list[str]) -> int:
    """How many of the last ``lines`` make their last paragraph."""
    count = 0
    for line in reversed(lines):
        if line == "" and count:
            break
        count += 1
    return count


def _title(text: str, underline: str = "=") -> str:
    return f"{text}\n{underline * len(text)}\n"


def markdown_headings(lines: list[str], rubric: bool = False) -> list[str]:
    """A docstring's Markdown headings (``## Arguments``, as Gymnasium's env docstrings) as RST: sections, or
    with ``rubric`` rubrics (a docstring autodoc shows may not open sections)."""
    out: list[str] = []
    for line in lines:
        heading = re.match(r"#{1,6} (.+)$", line)
        if heading is None:
            out.append(line)
        else:
            out += [f".. rubric:: {heading.group(1)}", ""] if rubric else _title(heading.group(1), "-").split("\n")
    return out


def _table(rows: list[tuple[str, str]]) -> str:
    lines = [".. list-table::", "   :stub-columns: 1", "   :widths: 1 4", ""]
    for name, value in rows:
        lines += [f"   * - {name}", f"     - {value}"]
    return "\n".join(lines) + "\n"


def _literal(value: object) -> str:
    return f"``{value}``"


def _media(env_id: str) -> str:
    gif, png = MEDIA / f"{env_id}.gif", MEDIA / f"{env_id}.png"
    if not (gif.exists() and png.exists()):
        raise FileNotFoundError(f"{gif} or {png} is missing: run python -m scripts.docs_media --env {env_id}")
    return (
        f".. figure:: /_static/envs/{env_id}.gif\n   :alt: an episode of {env_id}\n\n"
        f"   A seeded episode (``python -m scripts.docs_media --env {env_id}``); the end of it:\n\n"
        f".. image:: /_static/envs/{env_id}.png\n   :alt: the board of {env_id} at the episode's end\n"
    )


def _sizes(game: registry.Game) -> str:
    return ", ".join(_literal(f"{name}={value!r}") for name, value in game.default_sizes().items()) or "none"


def single_player_page(game: registry.Game) -> str:
    env = gym.make(game.env_id)
    rules = env.unwrapped.rules
    keys = ", ".join(_literal(k) for k in env.observation_space.spaces)
    rows = [
        ("Make", f"``gym.make({game.env_id!r})`` after ``gym.register_envs(deduction_envs)``"),
        ("Action space", f"{_literal(env.action_space)}: the queries"),
        ("Observation space", f"``Dict`` of {keys} (see :doc:`single_player`)"),
        ("Secrets", f"{rules.num_secrets:,} at the default sizes"),
        ("Sizes (defaults)", _sizes(game)),
        ("Batched", "``gym.make_vec`` plays it in one batched env" if game.batched else "N single envs"),
        ("Reference agents", "ISES (exhaustive and sampled), SO-ISMCTS, random (:doc:`../agents`)"),
        ("Rules", f":class:`{type(rules).__module__}.{type(rules).__name__}`"),
    ]
    env.close()
    module = importlib.import_module(type(rules).__module__)
    doc = "\n".join(literal_blocks(inspect.cleandoc(module.__doc__ or "").split("\n")))
    return "\n".join([_title(game.env_id), _media(game.env_id), _table(rows), _title("The game", "-"), doc, "",
                      _prompt(game), ""])  # fmt: skip


def multiplayer_page(game: registry.Game) -> str:
    module = game.env_module()
    env = module.raw_env()
    agent = env.possible_agents[0]
    rows = [
        ("Import", f"``from deduction_envs.envs import {game.env_id}``; ``{game.env_id}.env()``"),
        ("PettingZoo id", _literal(game.aec_id)),
        ("Agents", f"{_literal(env.possible_agents)} at the default sizes"),
        ("Action space", _literal(env.action_space(agent))),
        ("Observation space", f"``Dict`` of ``observation`` ({env.observation_size()} numbers) and ``action_mask``"),
        ("State space", f"{_literal(env.state_space.shape)}: every seat's observation (``env.state()``)"),
        ("Sizes (defaults)", _sizes(game)),
        ("Reference agents", ", ".join(_literal(name) for name in game.agents) + " (:doc:`../agents`)"),
    ]
    env.close()
    doc = inspect.cleandoc(module.__doc__ or "").split("\n", 1)[1].lstrip("\n")  # its first line is the title
    doc = "\n".join(literal_blocks(doc.split("\n")))
    return "\n".join([_title(game.env_id), _media(game.env_id), _table(rows), doc, "", _prompt(game), ""])


def _prompt(game: registry.Game) -> str:
    """The section showing what a language model playing ``game`` is given: the system prompt and the first
    observation of the text layer, at the default sizes (built from the code at each build)."""
    from deduction_envs.text import TextAECEnv, TextEnv

    if game.multiplayer:
        try:
            env = TextAECEnv(game.make_env())
        except TypeError:  # a game the text layer does not play (one registered elsewhere: a test's toy game)
            return ""
        env.reset(seed=0)
        prompt, first, whose = env.prompt("player_0"), env.observe("player_0"), "seat P0's, in a game seeded 0"
    else:
        text = TextEnv(gym.make(game.env_id))
        first, info = text.reset(seed=0)
        prompt, whose = info["prompt"], "the player's"
    return "\n".join([
        _title("For a language model", "-"),
        f"What the text layer (:mod:`deduction_envs.text`, :doc:`../llm`) gives {whose} at the default sizes: the "
        "rules as the system prompt, then the first observation (the user turn).",
        "",
        ".. code-block:: text",
        "",
        textwrap.indent(prompt, "   "),
        "",
        ".. code-block:: text",
        "",
        textwrap.indent(first, "   "),
        "",
    ])  # fmt: skip


def single_player_env_page() -> str:
    from deduction_envs.envs.deduction_env import DeductionEnv

    doc = markdown_headings(inspect.cleandoc(DeductionEnv.__doc__ or "").split("\n"))
    return "\n".join([_title("The single-player env"), *doc, ""])


def write_pages(out: Path = ENVS) -> list[Path]:
    """Write every env's page (and the single-player env's) into ``out``; return the paths written."""
    pages = {"single_player": single_player_env_page()}
    for game in registry.games():
        pages[game.env_id] = multiplayer_page(game) if game.multiplayer else single_player_page(game)
    return _write(out, pages)


def _write(out: Path, pages: dict[str, str]) -> list[Path]:
    """``out/<name>.rst`` for each page; unchanged pages keep their time (Sphinx does not rebuild them)."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in pages.items():
        path = out / f"{name}.rst"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        written.append(path)
    return written


#: The packages the API reference documents, with their page titles, and the subpackages it leaves out
#: (command-line programs).
API_PACKAGES = {
    "deduction_envs": "The envs, games and knowledge engines: ``deduction_envs``",
    "agents": "Reference agents: ``agents``",
    "train": "Training, evaluation and experiments: ``train``",
}
#: ``train.models``: an old name kept for one version. ``train.llm.verifiers_env``: importing verifiers inside a
#: Sphinx build fails in its ``renderers`` dependency (a pydantic schema error it does not raise elsewhere); the
#: module's docstring is shown in docs/llm.md instead.
API_SKIPPED = (".tools", ".experiments", "__main__", "train.models", "train.llm.verifiers_env")


def _package_modules(package: str) -> list[tuple[str, bool]]:
    """``package`` and its documented modules, each with whether it is a package."""
    found = pkgutil.walk_packages(importlib.import_module(package).__path__, package + ".")
    return [(package, True), *((m.name, m.ispkg) for m in found if not any(s in m.name for s in API_SKIPPED))]


def api_modules() -> list[str]:
    """Every module the API reference documents."""
    return [name for package in API_PACKAGES for name, _ in _package_modules(package)]


def write_api_pages(out: Path = HERE / "api") -> list[Path]:
    """The API reference's page of each package: every documented module by autodoc (a package by its
    docstring alone, since its members are its modules')."""
    pages = {}
    for package, title in API_PACKAGES.items():
        lines = [_title(title)]
        for name, is_package in _package_modules(package):
            lines += [f".. automodule:: {name}", *(["   :no-members:"] if is_package else []), ""]
        pages[package] = "\n".join(lines)
    return _write(out, pages)


def docstring_snippets() -> list[tuple[str, str]]:
    """The Python snippets of the API reference: each literal block of a documented module's, class's or
    function's docstring that parses as Python, as ``(where, code)``. (The other literal blocks are shell
    commands, formulas and diagrams.)"""
    snippets = []
    for name in api_modules():
        module = importlib.import_module(name)
        members = [obj for _, obj in inspect.getmembers(module, lambda o: inspect.isclass(o) or inspect.isfunction(o))]
        for obj in [module, *(o for o in members if getattr(o, "__module__", None) == name)]:
            lines = literal_blocks((inspect.getdoc(obj) or "").split("\n"))
            for i, line in enumerate(lines):
                if not line.endswith("::") or i + 2 >= len(lines) or lines[i + 1] or not lines[i + 2].startswith(" "):
                    continue
                block = []
                for text in lines[i + 2 :]:
                    if text and not text.startswith(" "):
                        break
                    block.append(text)
                code = textwrap.dedent("\n".join(block)).strip()
                if not code.startswith("python -m") and _parses(code):
                    snippets.append((f"{name}:{getattr(obj, '__qualname__', name)}", code))
    return snippets


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True
