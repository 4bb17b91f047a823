"""Expert iteration over seeds (issue 63): kept networks of one game played on every secret, beside the ladder.

    python -m train.experiments.expert_iteration_seeds --models ei-mastermind-4x6-seed-0 ei-mastermind-4x6-seed-1 \\
        ei-mastermind-4x6-seed-2 --output results/expert_iteration/mastermind_4x6

Each kept network (``models/NAME/model.pt``, :mod:`train.expert_iteration`) plays every secret through the env
(:func:`agents.evaluation.play_episodes`, the one evaluation loop; deterministic, one forward pass a query), and
the reference agents play the same secrets in the same run: random consistent play, the marginals rule, Knuth and
ISES (ISES two queries ahead on the games where it takes minutes, not Wordle). ``table.md``: every seed's mean
over every secret (exact: no sampling error within a seed), the most, the share solved within the step limit,
the mean over seeds with a 95% t interval, and a one-sided t test of the seeds' means against each deterministic
rung; ``curves.png``: each seed's exact mean after every iteration (its ``curve.csv``) with the rungs drawn
across.
"""

from __future__ import annotations

import argparse
import csv
import shlex
import sys
from pathlib import Path

import numpy as np
from scipy.stats import ttest_1samp

from agents import ISES, Knuth, MarginalRule, RandomAgent
from agents.evaluation import episode_plan, play_episodes
from agents.set_policy import SetPolicyAgent, load_network
from deduction_envs.games import make_rules
from train import arguments, plotting
from train.kept_models import MODELS, kept_model
from train.stats import over_seeds

#: The rungs played beside the networks, weakest first (name, agent, deterministic).
RUNGS = (
    ("random consistent", lambda: RandomAgent(consistent=True), False),
    ("marginals rule", MarginalRule, True),
    ("Knuth", Knuth, True),
    ("ISES", ISES, True),
    ("ISES two ahead", lambda: ISES(lookahead=2, candidates=5), True),
)
#: Games where a rung is left out (minutes to hours on this machine).
SKIP = {"Wordle-v0": ("ISES two ahead",)}


def _play(agent, env: str, sizes: dict) -> tuple[np.ndarray, np.ndarray]:
    plan = episode_plan(make_rules(env, **sizes).num_secrets, "all", 0)
    steps, solved, _ = play_episodes(agent, env, sizes, plan)
    return np.array(steps), np.array(solved)


def main(argv: list[str] | None = None) -> str:
    """Evaluate, write ``table.md`` and ``curves.png`` into ``--output``; return the table."""
    parser = argparse.ArgumentParser(prog="python -m train.experiments.expert_iteration_seeds",
                                     description=__doc__.split("\n")[0])  # fmt: skip
    parser.add_argument("--models", nargs="+", required=True, help="kept expert-iteration models, one per seed")
    parser.add_argument("--folder", type=Path, default=MODELS, help="the kept models' folder (default models/)")
    parser.add_argument("--output", type=arguments.output_folder, required=True)
    args = parser.parse_args(argv)
    try:
        entries = [kept_model(name, args.folder) for name in args.models]
    except ValueError as error:
        parser.error(str(error))
    if any(entry.file != "model.pt" for entry in entries):
        parser.error("every --models entry must be an expert-iteration network (model.pt)")
    games = {(entry.env, tuple(sorted(entry.sizes.items()))) for entry in entries}
    if len(games) != 1:
        parser.error(f"the models must be of one game at one size, got {sorted(games)}")
    env, sizes = entries[0].env, dict(entries[0].sizes)
    rows, means, curves = [], [], []
    for entry in entries:
        network, settings = load_network(Path(args.folder, entry.name, "model.pt"))
        steps, solved = _play(SetPolicyAgent(network), env, sizes)
        means.append(float(steps.mean()))
        rows.append(f"| {entry.name} | {settings['seed']} | **{steps.mean():.4f}** | {steps.max()} "
                    f"| {solved.mean():.1%} | {settings['iterations']} |")  # fmt: skip
        with open(Path(args.folder, entry.name, "curve.csv")) as file:
            curves.append([(int(r["iteration"]), float(r["mean"])) for r in csv.DictReader(file)])
    rungs = []
    for name, make, exact in RUNGS:
        if name in SKIP.get(env, ()):
            continue
        steps, solved = _play(make(), env, sizes)
        rungs.append((name, float(steps.mean()), int(steps.max()), float(solved.mean()), exact))
    size_text = ", ".join(f"{k}={v}" for k, v in sizes.items()) or "the shipped answers"
    command = shlex.join(["python", "-m", "train.experiments.expert_iteration_seeds", *(argv or sys.argv[1:])])
    lines = [
        f"# Expert iteration on {env} ({size_text}), over seeds",
        "",
        f"Written by `{command}`. Every figure is the mean queries over every secret, played once through the env "
        "(deterministic: exact, no sampling error within a seed); unsolved secrets count the step limit.",
        "",
        f"Kind: {entries[0].kind}",
        "",
        "| model | seed | queries, mean | most | solved | iterations |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        *rows,
        "",
        f"Over the {len(means)} seeds: **{over_seeds(means)}** (t interval).",
        "",
        "| rung (same secrets, same run) | queries, mean | most | solved | seeds' means below it (one-sided t test) |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for name, mean, most, solved, exact in rungs:
        test = "(random: one draw)" if not exact else "(one seed: no test)"
        if exact and len(means) > 1:
            below = sum(m < mean for m in means)
            p = ttest_1samp(means, mean, alternative="less").pvalue
            test = f"{below} of {len(means)}, p = {p:.2g}"
        lines.append(f"| {name} | {mean:.4f} | {most} | {solved:.1%} | {test} |")
    text = "\n".join(lines) + "\n"
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "table.md").write_text(text)
    _plot(curves, [e.name for e in entries], rungs, env, args.output / "curves.png")
    print(text)
    return text


def _plot(curves: list, names: list[str], rungs: list, env: str, path: Path) -> None:
    """Each seed's curve and the rungs across: the whole run, and a close view of the rungs at the end."""
    figure, axes = plotting.panel_grid(2, width=6.0, height=4.4)
    finals = [curve[-1][1] for curve in curves]
    close = (min([r[1] for r in rungs] + finals) - 0.05, rungs[0][1] + 0.08)  # up to random consistent
    for ax, limits, title in ((axes[0], None, "the whole run"), (axes[1], close, "close to the rungs")):
        for curve, name in zip(curves, names, strict=True):
            ax.plot([i for i, _ in curve], [m for _, m in curve], label=name)
        for (name, mean, *_), style in zip(rungs, ["--", "-.", ":", (0, (5, 1)), (0, (1, 3))], strict=False):
            ax.axhline(mean, color="dimgrey", linestyle=style, linewidth=1, label=f"{name} {mean:.3f}")
        if limits is not None:
            ax.set_ylim(*limits)
        ax.set_xlabel("iteration")
        ax.set_ylabel("mean queries over every secret (exact)")
        ax.set_title(title, fontsize=10)
    axes[1].legend(fontsize=7, loc="upper right")
    figure.suptitle(plotting.fitted_title(figure, f"Expert iteration on {env}: the greedy network after each "
                                          "iteration, every seed"))  # fmt: skip
    plotting.save(figure, path)


if __name__ == "__main__":
    main()
