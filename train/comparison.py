"""A trained single-player policy against the reference agents on the same secrets, and its table."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents import ISES, ISMCTS, Agent, EvaluationResult, RandomAgent, SB3Policy, evaluate
from deduction_envs.core.rules import DeductionRules
from deduction_envs.envs import env_rules
from deduction_envs.executor import Executor

__all__ = ["REFERENCES", "compare", "held_out_table", "reference_agents", "seen_by_imitation", "write_comparison"]


#: The reference agents of a comparison, by the names ``--references`` takes.
REFERENCES = ("ises", "ismcts", "random", "random_consistent")


def reference_agents(rules: DeductionRules, time_limit: float, names: Sequence[str] = REFERENCES) -> list[Agent]:
    """Exhaustive ISES, SO-ISMCTS, random play and, where queries name secrets, consistent random play (those of
    ``names``, in that order).

    Raises:
        ValueError: a name not in :data:`REFERENCES`.
    """
    unknown = [name for name in names if name not in REFERENCES]
    if unknown:
        raise ValueError(f"the reference agents are {', '.join(REFERENCES)}, got {', '.join(unknown)}")
    made = {"ises": ISES, "ismcts": lambda: ISMCTS(time_limit=time_limit), "random": RandomAgent,
            "random_consistent": lambda: RandomAgent(consistent=True)}  # fmt: skip
    return [made[name]() for name in REFERENCES
            if name in names and (name != "random_consistent" or rules.queries_name_secrets)]  # fmt: skip


def compare(
    policy: Any,
    env_id: str,
    env_kwargs: dict[str, Any],
    eval_secrets: int,
    time_limit: float,
    seed: int,
    action_mask: str = "all",
    references: bool | Sequence[str] = True,
    progress: bool | None = None,
    workers: int | Executor = 1,
) -> list[EvaluationResult]:
    """The trained policy (a model or an SB3Policy) and the :func:`reference_agents` on the same secrets.

    ``env_kwargs`` are the env's sizes (the reference agents play with the
    env's default options); ``action_mask`` is the mask a model was trained
    with (an SB3Policy brings its own). Without ``references``, the policy
    alone; a list of names: those of :data:`REFERENCES`. ``progress``: a bar per agent (None: on a terminal only).
    ``workers``: local processes or an executor (a Ray cluster) for the episodes.
    """
    rules = env_rules(env_id, **env_kwargs)
    agents: list[Agent] = (
        []
        if policy is None
        else [policy if isinstance(policy, Agent) else SB3Policy(policy, action_mask=action_mask)]
    )
    if references:
        agents += reference_agents(rules, time_limit, *([] if references is True else [references]))
    if rules.num_secrets <= eval_secrets:
        plan: dict[str, Any] = {"secrets": "all"}
    else:
        plan = {"secrets": "sample", "episodes": eval_secrets, "seed": seed}
    episodes = rules.num_secrets if plan["secrets"] == "all" else eval_secrets
    print(f"comparing {', '.join(a.name for a in agents)} on {episodes} secrets of {env_id}", flush=True)
    return [evaluate(agent, env_id, env_kwargs, progress=progress, workers=workers, **plan) for agent in agents]


def write_comparison(results: list[EvaluationResult], path: Path, title: str, seen: list[int] | None = None) -> str:
    """The table of ``results`` (written to ``path``, and returned). With ``seen``, the secrets an imitation's
    fit drew from (``imitation.json``'s ``seen_secrets``), a second table scores every agent on those and on
    the others apart (where the evaluation played every secret once, so that episode i is secret i)."""
    lines = [
        f"# {title}",
        "",
        "| agent | episodes | mean steps | 95% CI | worst | solved | decision ms (mean) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        ci = "exact" if r.exact else f"± {r.ci95:.2f}"
        lines.append(
            f"| {r.agent} | {r.episodes} | {r.mean_steps:.3f} | {ci} | {r.worst} | {100 * r.solve_rate:.1f}% "
            f"| {1e3 * r.mean_decision_time:.2f} |"
        )
    lines += ["", comparison_legend(results)]
    if seen is not None:
        lines += ["", *held_out_table(results, seen)]
    text = "\n".join(lines) + "\n"
    path.write_text(text)
    return text


def comparison_legend(results: list[EvaluationResult]) -> str:
    """What the table's labels mean, for the ones it uses."""
    notes = []
    if any(r.exact for r in results):
        notes.append(
            "*exact*: every secret was played once by an agent that plays each the same way every time, so the "
            "mean is the agent's true mean over the game's secrets (no sampling error to put an interval on)"
        )
    if not all(r.exact for r in results):
        notes.append("*± x*: the half-width of a 95% interval over the episodes (sampled secrets, or every secret "
                     "once by an agent that draws at random, whose mean varies from one play to the next)")
    names = {r.agent for r in results}
    if "random" in names:
        notes.append("*random*: a legal query drawn uniformly")
    if "random (consistent)" in names:
        notes.append("*random (consistent)*: a code drawn uniformly among those still possible (each could be the "
                     "secret): the baseline any learned policy should beat")  # fmt: skip
    notes.append("*solved*: the share of secrets found within the env's step limit (an unsolved one counts its "
                 "limit in the mean)")  # fmt: skip
    return "; ".join(notes) + "."


def seen_by_imitation(folder: Path) -> list[int] | None:
    """The secrets the imitation of the run in ``folder`` drew its episodes from (``imitation.json``'s
    ``seen_secrets``, written by ``--imitate-secrets``), or None."""
    path = Path(folder, "imitation.json")
    return json.loads(path.read_text()).get("seen_secrets") if path.exists() else None


def held_out_table(results: list[EvaluationResult], seen: list[int]) -> list[str]:
    """Markdown lines: each agent's mean steps and share solved on the ``seen`` secrets and on the rest."""
    exact = [r for r in results if r.exact]
    if not exact:
        return [
            "The secrets seen by the fit and the rest are scored apart only where every secret is played "
            "(--eval-secrets at least the game's number of secrets)."
        ]
    mask = np.zeros(exact[0].episodes, dtype=bool)
    mask[np.asarray(seen, dtype=np.int64)] = True
    lines = [
        f"Scored apart: the {mask.sum()} secrets the imitation's episodes were drawn from, and the "
        f"{(~mask).sum()} it never saw.",
        "",
        "| agent | mean steps, seen | solved, seen | mean steps, never seen | solved, never seen |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for r in exact:
        lines.append(
            f"| {r.agent} | {r.steps[mask].mean():.3f} | {r.solved[mask].mean():.1%} "
            f"| {r.steps[~mask].mean():.3f} | {r.solved[~mask].mean():.1%} |"
        )
    ises = next((r for r in exact[1:] if r.agent == "ISES"), None)
    if ises is not None and (~mask).any():
        lines += ["", _paired_line(exact[0], ises, ~mask)]
    return lines


def _paired_line(policy: EvaluationResult, ises: EvaluationResult, unseen: np.ndarray) -> str:
    """The policy against ISES secret by secret on the never-seen secrets: the mean difference in steps with a
    95% bootstrap interval over the secrets, and the two-sided Wilcoxon signed-rank test."""
    from scipy.stats import wilcoxon

    from train.stats import bootstrap_rows, format_p

    gaps = (policy.steps[unseen] - ises.steps[unseen]).astype(float)
    low, high = bootstrap_rows(list(gaps), lambda rows: float(np.mean(rows)), seed=0)
    test = f"Wilcoxon signed-rank p = {format_p(wilcoxon(gaps).pvalue)}" if gaps.any() else "no secret differs"
    return (
        f"On the never-seen secrets the policy takes {gaps.mean():+.3f} steps a secret against ISES "
        f"(95% bootstrap interval over the secrets [{low:+.3f}, {high:+.3f}]; {test}; more on "
        f"{int((gaps > 0).sum())}, fewer on {int((gaps < 0).sum())} of {gaps.size})."
    )
