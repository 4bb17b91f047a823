"""What the expert-iteration networks owe to their one learned input "the query names a secret still possible".

    python -m train.experiments.expert_iteration_ablation --models ei-bc410-seed-0 ei-bc410-seed-1 ei-bc410-seed-2 \\
        ei-mastermind-4x6-seed-0 ei-mastermind-4x6-seed-1 ei-mastermind-4x6-seed-2 \\
        --output results/expert_iteration/possible_ablation

Each kept network (``models/NAME/model.pt``) is evaluated exactly over every secret as its kept figure is
(:func:`train.expert_iteration.tree_evaluation`, the greedy policy, never a query twice), then again with the
policy head's weight on that input (learned from 0) set to 0 after training, everything else as trained.
``table.md``: per network, the weight, both means and the share solved within the step limit, and per game the
mean over seeds of each with a 95% t interval.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

import gymnasium as gym
import torch

import deduction_envs
from deduction_envs.games import make_rules
from train import arguments
from train.expert_iteration import feedback_table, load_network, tree_evaluation
from train.kept_models import MODELS
from train.stats import t_interval


def ablated(path: Path) -> tuple[str, float, dict, dict]:
    """The network at ``path``: its game, its weight on the input, and its exact evaluation with and without it."""
    network, settings = load_network(path)
    rules = make_rules(settings["env"], **settings["sizes"])
    table = feedback_table(rules)
    steps = int(gym.make(settings["env"], **settings["sizes"]).unwrapped.max_steps)  # type: ignore[attr-defined]
    whole = tree_evaluation(network, rules, table, steps)
    with torch.no_grad():
        weight = float(network.possible)
        network.possible.zero_()
    return settings["env"], weight, whole, tree_evaluation(network, rules, table, steps)


def main(argv: list[str] | None = None) -> str:
    """Evaluate, write ``table.md`` into ``--output``; return it."""
    parser = argparse.ArgumentParser(prog="python -m train.experiments.expert_iteration_ablation",
                                     description=__doc__.split("\n")[0])  # fmt: skip
    parser.add_argument("--models", nargs="+", required=True, help="kept expert-iteration models")
    parser.add_argument("--folder", type=Path, default=MODELS, help="the kept models' folder (default models/)")
    parser.add_argument("--output", type=arguments.output_folder, required=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    gym.register_envs(deduction_envs)
    lines = ["| network | game | weight | mean queries | solved | zeroed: mean queries | solved |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
    by_game: dict[str, list[tuple[float, float]]] = {}
    for name in args.models:
        game, weight, whole, zeroed = ablated(Path(args.folder, name, "model.pt"))
        by_game.setdefault(game, []).append((whole["mean"], zeroed["mean"]))
        lines.append(f"| {name} | {game} | {weight:.3f} | {whole['mean']:.4f} | {whole['solved']:.1%} | "
                     f"{zeroed['mean']:.4f} | {zeroed['solved']:.1%} |")  # fmt: skip
        print(lines[-1], flush=True)
    lines += ["", "| game | seeds | mean queries | zeroed |", "| --- | ---: | ---: | ---: |"]
    for game, pairs in by_game.items():
        cells = []
        for values in zip(*pairs, strict=True):
            low, high = t_interval(values)
            interval = f" [{low:.3f}, {high:.3f}]" if len(values) > 1 else ""
            cells.append(f"{sum(values) / len(values):.4f}{interval}")
        lines.append(f"| {game} | {len(pairs)} | {cells[0]} | {cells[1]} |")
    command = shlex.join(["python", "-m", "train.experiments.expert_iteration_ablation", *sys.argv[1:]]
                         if argv is None else ["python", "-m", "train.experiments.expert_iteration_ablation", *argv])
    text = "\n".join([
        "# Expert iteration without its input \"the query names a secret still possible\"", "",
        "Every secret, the greedy network (deterministic, one forward pass a query), before and after the policy "
        "head's weight on that input (started at 0, learned) is set to 0; unsolved secrets count the step limit. "
        "Intervals: 95% Student t over the seeds.", "", *lines, "", f"Written by `{command}`.", "",
    ])  # fmt: skip
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "table.md").write_text(text)
    print(f"written to {args.output / 'table.md'}")
    return text


if __name__ == "__main__":
    main()
