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


def test_the_main_job_is_training_with_its_defaults():
    main_job = quick_start_commands()[0]
    assert main_job.endswith("&& python -m train")  # no options: the defaults are the main job


def test_every_option_of_the_readme_training_commands_exists():
    from train.cli import build_parser

    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^python -m train( .*)?$", readme, flags=re.M)  # not train.evaluate and the like
    used = {flag for command in commands for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", command)}
    options = {flag for action in build_parser()._actions for flag in action.option_strings}
    assert len(commands) >= 3 and used <= options, used - options


def test_readme_lists_every_registered_env():
    readme = (ROOT / "README.md").read_text()
    for env_id in deduction_envs.ENV_IDS:
        assert f"`{env_id}`" in readme


def test_the_readme_batched_env_example_runs(capsys):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### Many games at once: the batched env", 1)[1].split("\n## ", 1)[0]
    (example,) = re.findall(r"```python\n(.+?)\n```", section, flags=re.S)
    namespace: dict = {}
    exec(compile(example, "README.md", "exec"), namespace)
    assert namespace["obs"]["information_set"].shape == (256, 25)
    assert capsys.readouterr().out.startswith("(256, 25)")


def test_the_readme_clue_knowledge_example_runs(capsys):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## The Clue knowledge engine", 1)[1].split("\n## ", 1)[0]
    (example,) = re.findall(r"```python\n(.+?)\n```", section, flags=re.S)
    namespace: dict = {}
    exec(compile(example, "README.md", "exec"), namespace)
    assert namespace["deals"].shape == (100, 21)
    assert "Wrench" in capsys.readouterr().out


def test_the_readme_algo_example_runs():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Algo: the first multiplayer env", 1)[1].split("\n## ", 1)[0]
    (example,) = re.findall(r"```python\n(.+?)\n```", section, flags=re.S)
    exec(compile(example, "README.md", "exec"), {})  # a whole game to the end


def test_the_readme_clue_examples_run(capsys):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Clue: `clue_v0`", 1)[1].split("\n## ", 1)[0]
    env_example, agents_example = re.findall(r"```python\n(.+?)\n```", section, flags=re.S)
    namespace: dict = {}
    exec(compile(env_example, "README.md", "exec"), namespace)  # a whole game to the end
    assert namespace["env"].unwrapped.table.over and "case" in capsys.readouterr().out
    exec(compile(agents_example, "README.md", "exec"), namespace)  # a short match of the entropy agent
    assert len(namespace["result"].games) == 8 and 0 <= float(capsys.readouterr().out) <= 1


def test_the_readme_generalized_clue_example_runs():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Generalized Clue: `generalized_clue_v0`", 1)[1].split("\n## ", 1)[0]
    (example,) = re.findall(r"```python\n(.+?)\n```", section, flags=re.S)
    namespace: dict = {}
    exec(compile(example, "README.md", "exec"), namespace)  # a whole game to the end
    assert namespace["env"].unwrapped.table.over


def test_the_readme_training_library_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # its output folder is relative
    readme = (ROOT / "README.md").read_text()
    section = readme.split("The same from Python, with no command line", 1)[1].split("\n### ", 1)[0]
    (example,) = re.findall(r"```python\n(.+?)\n```", section, flags=re.S)
    namespace: dict = {}
    exec(compile(example, "README.md", "exec"), namespace)
    assert namespace["done"].timesteps >= 512 and (tmp_path / "runs" / "example" / "comparison.md").exists()
    assert [r.agent for r in namespace["done"].results][1] == "ISES"


def test_results_hold_only_outputs():
    """Tables, figures and logs: no script, model or pickle (analysis code lives in train/experiments/)."""
    outputs = {".md", ".csv", ".json", ".png", ".txt"}
    others = [p.relative_to(ROOT) for p in (ROOT / "results").rglob("*") if p.is_file() and p.suffix not in outputs]
    assert not others, others


def test_every_option_of_the_readme_experiment_commands_exists():
    import importlib

    from train.experiments.runner import parser_for

    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"python -m train\.experiments\.(\w+)((?: [^`#\n]*)?)", readme)
    assert len(commands) >= 8
    for name, arguments in commands:
        parser = parser_for(importlib.import_module(f"train.experiments.{name}").EXPERIMENT)
        options = {flag for action in parser._actions for flag in action.option_strings}
        used = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", arguments))
        assert used <= options, (name, used - options)


def readme_blocks(language: str | None = None) -> list[str]:
    """The README's fenced code blocks (of ``language``, or every one)."""
    readme = (ROOT / "README.md").read_text()
    return [code for lang, code in re.findall(r"```(\w*)\n(.+?)\n```", readme, flags=re.S) if language in (None, lang)]


def test_the_readme_gymnasium_and_evaluation_examples_run(tmp_path, monkeypatch, capsys):
    """The two Python blocks no other test runs: a Gymnasium env, and an agent measured by ``evaluate`` (its last
    line, 500 episodes of sampled ISES at 0.1 s a decision, about four minutes, runs here with 3 episodes)."""
    monkeypatch.chdir(tmp_path)
    gym_example = next(code for code in readme_blocks("python") if 'gym.make("Mastermind-v0", pegs=5' in code)
    exec(compile(gym_example, "README.md", "exec"), {})
    *feedback, candidates, entropy = capsys.readouterr().out.split()  # the feedback's text, then two numbers
    assert feedback and int(candidates) > 0 and float(entropy) > 0
    evaluation = next(code for code in readme_blocks("python") if "evaluate(ISES()" in code)
    assert "episodes=500" in evaluation
    exec(compile(evaluation.replace("episodes=500", "episodes=3"), "README.md", "exec"), {})
    assert "ISES on Mastermind-v0: 4.415 steps (exact) over 1296 episodes, worst 6" in capsys.readouterr().out


def test_every_python_block_of_the_readme_is_run_by_a_test():
    """Each Python block is found by one of the tests above (by a line of it they look for)."""
    found_by = ('pegs=5, colors=8', "evaluate(ISES()", 'gym.make_vec("Mastermind-v0", num_envs=256)',
                "from train.config import RunConfig", "algo_v0.env(", "clue_v0.env(", "ClueEntropyAgent, play_match",
                "generalized_clue_v0.env(", "ClueKnowledge.cl")  # fmt: skip
    for code in readme_blocks("python"):
        assert any(marker in code for marker in found_by), code[:200]


def test_every_module_command_of_the_readme_takes_the_options_it_is_given():
    """Every ``python -m MODULE --option`` of the README's shell lines: the module exists and its ``--help`` names
    each option given (the training and experiment commands are checked against their parsers above)."""
    import subprocess
    import sys

    lines = [line for code in readme_blocks() for line in code.splitlines()]
    lines += re.findall(r"`(python -m [^`]+)`", (ROOT / "README.md").read_text())
    used: dict[str, set[str]] = {}
    for line in lines:
        for module, arguments in re.findall(r"python -m ([\w.]+)((?: [^#|&\n]*)?)", line):
            if module == "pytest" or module == "train" or module.startswith("train.experiments."):
                continue
            used.setdefault(module, set()).update(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", arguments))
    assert {"train.evaluate", "train.tools.play", "train.tools.assistant"} <= set(used)
    for module, options in sorted(used.items()):
        shown = subprocess.run(
            [sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert shown.returncode == 0, (module, shown.stderr[-2000:])
        missing = {option for option in options if option not in shown.stdout}
        assert not missing, (module, missing)
