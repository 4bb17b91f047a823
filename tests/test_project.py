"""The README's and the documentation's promises that a fresh machine relies on: their commands and snippets
run (the snippets by the tests below, each found by a line of it), their options exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import deduction_envs

ROOT = Path(__file__).resolve().parent.parent


#: The hand-written documentation: the README and the site's Markdown pages (not the copies the build makes).
DOCUMENTS = [
    ROOT / "README.md",
    *sorted(
        path
        for path in (ROOT / "docs").rglob("*.md")
        if not {"_build", "results"} & set(path.relative_to(ROOT / "docs").parts) and path.name != "BENCHMARKS.md"
    ),
]


def blocks(language: str | None = None) -> list[tuple[str, str]]:
    """Every document's fenced code blocks (of ``language``, or every one), as (document, code)."""
    return [
        (path.relative_to(ROOT).as_posix(), code)
        for path in DOCUMENTS
        for lang, code in re.findall(r"```(\w*)\n(.+?)\n```", path.read_text(), flags=re.S)
        if language in (None, lang)
    ]


def block_with(marker: str) -> list[tuple[str, str]]:
    """The Python blocks that contain ``marker`` (at least one)."""
    found = [(name, code) for name, code in blocks("python") if marker in code]
    assert found, marker
    return found


def run(name: str, code: str, namespace: dict | None = None) -> dict:
    namespace = {} if namespace is None else namespace
    exec(compile(code, name, "exec"), namespace)
    return namespace


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


def test_the_main_job_is_training_with_its_defaults():
    main_job = quick_start_commands()[0]
    assert main_job.endswith("&& python -m train")  # no options: the defaults are the main job


def test_every_option_of_the_readme_training_commands_exists():
    from train.cli import build_parser

    text = "\n".join(code for _, code in blocks())
    commands = re.findall(r"^python -m train( .*)?$", text, flags=re.M)  # not train.evaluate and the like
    used = {flag for command in commands for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", command)}
    options = {flag for action in build_parser()._actions for flag in action.option_strings}
    assert len(commands) >= 3 and used <= options, used - options


def test_readme_lists_every_registered_env():
    readme = (ROOT / "README.md").read_text()
    for env_id in deduction_envs.ENV_IDS:
        assert f"`{env_id}`" in readme


def test_the_batched_env_examples_run(capsys):
    for name, example in block_with('gym.make_vec("Mastermind-v0", num_envs=256)'):
        namespace = run(name, example)
        assert namespace["obs"]["information_set"].shape == (256, 25)
        assert capsys.readouterr().out.startswith("(256, 25)")


def test_the_clue_knowledge_example_runs(capsys):
    for name, example in block_with("ClueKnowledge.cl"):
        assert run(name, example)["deals"].shape == (100, 21)
        assert "Wrench" in capsys.readouterr().out


def test_the_algo_examples_run():
    for name, example in block_with("algo_v0.env("):
        assert run(name, example)["env"].unwrapped.table.over  # a whole game to the end


def test_the_clue_examples_run(capsys):
    for name, example in block_with("from deduction_envs.envs import clue_v0"):
        namespace = run(name, example)  # a whole game to the end
        assert namespace["env"].unwrapped.table.over and "case" in capsys.readouterr().out
    for name, example in block_with("ClueEntropyAgent, play_match"):
        namespace = run(name, example)  # a short match of the entropy agent
        assert len(namespace["result"].games) == 8 and 0 <= float(capsys.readouterr().out) <= 1


def test_the_generalized_clue_example_runs():
    for name, example in block_with("generalized_clue_v0.env("):
        assert run(name, example)["env"].unwrapped.table.over  # a whole game to the end


def test_the_training_library_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # its output folder is relative
    ((name, example),) = block_with("from train import RunConfig, evaluate_model, run")
    found = run(name, example)
    done, seat = found["done"], found["seat"]
    assert done.timesteps >= 512 and (tmp_path / "runs" / "example" / "comparison.md").exists()
    assert [r.agent for r in done.results][1] == "ISES"
    assert [r.opponent for r in seat.results] == ["random"] and seat.results[0].games == 20


def test_results_hold_only_outputs():
    """Tables, figures and logs: no script, model or pickle (analysis code lives in train/experiments/)."""
    outputs = {".md", ".csv", ".json", ".png", ".txt"}
    others = [p.relative_to(ROOT) for p in (ROOT / "results").rglob("*") if p.is_file() and p.suffix not in outputs]
    assert not others, others


def test_every_option_of_the_readme_experiment_commands_exists():
    import importlib

    from train.experiments.runner import parser_for

    text = "\n".join(path.read_text() for path in DOCUMENTS)
    commands = re.findall(r"python -m train\.experiments\.(\w+)((?: [^`#\n]*)?)", text)
    assert len(commands) >= 8
    for name, arguments in commands:
        parser = parser_for(importlib.import_module(f"train.experiments.{name}").EXPERIMENT)
        options = {flag for action in parser._actions for flag in action.option_strings}
        used = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", arguments))
        assert used <= options, (name, used - options)


def test_the_gymnasium_and_evaluation_examples_run(tmp_path, monkeypatch, capsys):
    """A Gymnasium env, and an agent measured by ``evaluate`` (the docs' 500 episodes of sampled ISES at 0.1 s a
    decision, about four minutes, run here with 3 episodes)."""
    monkeypatch.chdir(tmp_path)
    for name, example in block_with('gym.make("Mastermind-v0", pegs=5'):
        run(name, example)
        *feedback, candidates, entropy = capsys.readouterr().out.split()  # the feedback's text, then two numbers
        assert feedback and int(candidates) > 0 and float(entropy) > 0
    for name, example in block_with("evaluate(ISES()"):
        run(name, example.replace("episodes=500", "episodes=3"))
        assert "ISES on Mastermind-v0: 4.415 steps (exact) over 1296 episodes, worst 6" in capsys.readouterr().out


def test_every_python_block_is_run_by_a_test():
    """Each Python block of the README and the docs is found by one of the tests above (by a line of it they
    look for), and every Gymnasium snippet registers the envs as Gymnasium asks (``gym.register_envs``)."""
    found_by = ('pegs=5, colors=8', "evaluate(ISES()", 'gym.make_vec("Mastermind-v0", num_envs=256)',
                "from train import RunConfig, evaluate_model, run", "algo_v0.env(", "clue_v0.env(",
                "ClueEntropyAgent, play_match", "generalized_clue_v0.env(", "ClueKnowledge.cl",
                "TextEnv(gym.make(", "TextAECEnv(envs.clue_v0.env(")  # fmt: skip
    for name, code in blocks("python"):
        assert any(marker in code for marker in found_by), (name, code[:200])
        if "gym.make" in code:
            assert "gym.register_envs(deduction_envs)" in code, (name, code[:200])


def test_the_readme_is_short_and_links_to_pages_that_exist():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme):
        assert (ROOT / target).exists(), target


def test_every_module_command_takes_the_options_it_is_given():
    """Every ``python -m MODULE --option`` of the README's and the docs' shell lines: the module exists and its
    ``--help`` names each option given (the training and experiment commands are checked against their parsers
    above)."""
    import subprocess
    import sys

    lines = [line for _, code in blocks() for line in code.splitlines()]
    lines += [command for path in DOCUMENTS for command in re.findall(r"`(python -m [^`]+)`", path.read_text())]
    used: dict[str, set[str]] = {}
    for line in lines:
        for module, arguments in re.findall(r"python -m ([\w.]+)((?: [^#|&\n]*)?)", line):
            if module == "pytest" or module == "train" or module.startswith("train.experiments."):
                continue
            own = arguments.split(" -- ")[0]  # after a lone --: another command's (train.kept_models keep's evaluation)
            used.setdefault(module, set()).update(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", own))
    assert {"train.evaluate", "train.tools.play", "train.tools.assistant"} <= set(used)
    helps = {module: subprocess.Popen([sys.executable, "-m", module, "--help"], cwd=ROOT, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True) for module in sorted(used)}  # fmt: skip
    for module, process in helps.items():  # all at once: each is mostly its imports, on one core
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, (module, err[-2000:])
        missing = {option for option in used[module] if option not in out}
        assert not missing, (module, missing)


def test_the_site_writes_a_page_for_every_env_and_its_media_are_the_scripts(tmp_path):
    """``docs/env_pages`` writes one page per registered env (and the single-player env's), each showing its
    picture and animation; ``scripts/docs_media`` draws the same frames as the committed GIF (Mastermind's)."""
    from PIL import Image, ImageSequence

    from deduction_envs import registry
    from docs.env_pages import write_pages
    from scripts import docs_media

    written = {path.stem: path.read_text() for path in write_pages(tmp_path)}
    assert set(written) == {game.env_id for game in registry.games()} | {"single_player"}
    for game in registry.games():
        assert f"/_static/envs/{game.env_id}.gif" in written[game.env_id]
        assert "Action space" in written[game.env_id] and "Sizes (defaults)" in written[game.env_id]
    _, animation = docs_media.write("Mastermind-v0", tmp_path)
    committed = ROOT / "docs" / "_static" / "envs" / "Mastermind-v0.gif"
    ours = [frame.convert("RGB").tobytes() for frame in ImageSequence.Iterator(Image.open(animation))]
    kept = [frame.convert("RGB").tobytes() for frame in ImageSequence.Iterator(Image.open(committed))]
    assert len(ours) > 2 and ours == kept


def _api_snippets() -> list:
    from docs.env_pages import docstring_snippets

    return [pytest.param(code, id=where) for where, code in docstring_snippets()]


@pytest.mark.parametrize("code", _api_snippets())
def test_every_python_snippet_of_the_api_reference_runs(code, tmp_path, monkeypatch):
    """The snippets the API reference shows from the docstrings (a training run's shortened to 256 steps: the
    rest of it, its evaluation included, as written)."""
    monkeypatch.chdir(tmp_path)  # a run writes into runs/
    namespace = run("docstring", code.replace("timesteps=20_000", "timesteps=256"))
    table = getattr(getattr(namespace.get("env"), "unwrapped", None), "table", None)
    assert table is None or table.over  # the multiplayer envs' snippets (on their pages too) play a whole game


def test_every_docstring_example_passes_and_every_module_is_in_the_api_reference(tmp_path):
    import doctest
    import importlib

    from docs.env_pages import api_modules, write_api_pages

    listed = "".join(path.read_text() for path in write_api_pages(tmp_path))
    tested = 0
    for name in api_modules():
        assert f".. automodule:: {name}\n" in listed, f"the API reference does not list {name}"
        module = importlib.import_module(name)
        result = doctest.testmod(module)
        assert result.failed == 0, name
        tested += result.attempted
    assert tested >= 10


def test_every_vf_eval_command_shown_runs_without_a_prime_account():
    """The first ``vf-eval`` command of the README and docs/llm.md failed on a fresh machine ("not authenticated
    with prime"): without ``--env.player.runtime.type subprocess`` verifiers runs its harness in Prime's sandboxes."""
    commands = []
    for page in DOCUMENTS:
        text = page.read_text().replace("\\\n", " ")
        commands += [line for line in text.splitlines() if line.strip().startswith("vf-eval ")]
    assert len(commands) >= 3
    assert all("--env.player.runtime.type subprocess" in command for command in commands), commands
    assert "outputs/" in (ROOT / ".gitignore").read_text().split()  # where vf-eval writes
