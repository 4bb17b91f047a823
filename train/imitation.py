"""Behaviour cloning: a reference agent's decisions in the learner's seat, and a policy fitted to them.

    python -m train --env clue_v0 --policy features --opponents deduction_sheet --imitate entropy

Before reinforcement learning, ``--imitate NAME`` plays ``--imitate-games``
games in which the reference agent ``NAME`` decides for the learner's seat of
the env's :class:`~deduction_envs.envs.single_seat.SingleSeatEnv` (its
``shadow``: it sees exactly the learner's events), against opponents drawn
as in training, and records each decision's observation, mask, action and
discounted return. The new model's policy is then fitted to them: the
masked log-likelihood of the agent's actions, and the value head to the
returns (so that PPO starts from a critic that knows what the imitated play
earns), over ``--imitate-epochs`` passes, a tenth of the games held out to
measure how often the policy's likeliest action is the agent's.

A policy so started is the agent's imitation, not something reinforcement
learning found on its own: the results say which.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.roster import seat_agent
from deduction_envs.core.rules import check_int
from deduction_envs.envs.single_seat import SingleSeatEnv
from train.parallel import run_jobs

__all__ = ["Demonstrations", "demonstrations", "fit", "plot_fit"]


@dataclass(frozen=True)
class Demonstrations:
    """An expert's decisions: ``observations[i]``, the legal ``masks[i]``, its ``actions[i]``, the discounted
    ``returns[i]`` from there on, and ``games[i]``, the game the decision was made in."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    games: np.ndarray

    def __len__(self) -> int:
        return int(self.actions.size)

    @staticmethod
    def join(parts: list[Demonstrations]) -> Demonstrations:
        """The decisions of ``parts`` in order."""
        return Demonstrations(*(np.concatenate([getattr(p, f) for p in parts]) for f in Demonstrations.__annotations__))

    def save(self, path: Path) -> None:
        """Write the decisions to ``path`` (a compressed ``.npz``)."""
        np.savez_compressed(path, **{f: getattr(self, f) for f in Demonstrations.__annotations__})

    @staticmethod
    def load(path: Path) -> Demonstrations:
        """Decisions written by :meth:`save`."""
        with np.load(path) as data:
            missing = set(Demonstrations.__annotations__) - set(data.files)
            if missing:
                raise ValueError(f"{path} holds no demonstrations (it lacks {', '.join(sorted(missing))})")
            return Demonstrations(*(data[f] for f in Demonstrations.__annotations__))


def _play(job: tuple[int, int], env: str, env_kwargs: dict, expert: str, opponents: list, seed: int, gamma: float):
    """Games ``[start, start + games)`` with ``expert`` deciding for the learner; episode ``g`` seeded ``(seed, g)``."""
    from train.multiplayer import OpponentPool, raw_env

    start, games = job
    view = SingleSeatEnv(
        raw_env(env, **env_kwargs), OpponentPool(env, opponents, env_kwargs), shadow=seat_agent(env, expert)
    )
    columns: dict[str, list] = {"observations": [], "masks": [], "actions": [], "returns": [], "games": []}
    for game in range(start, start + games):
        observation, _ = view.reset(seed=int(np.random.SeedSequence((seed, game)).generate_state(1)[0]))
        rewards = []
        while True:
            mask = view.action_masks()
            action = view.shadow_action()
            columns["observations"].append(observation)
            columns["masks"].append(mask)
            columns["actions"].append(action)
            columns["games"].append(game)
            observation, reward, terminated, truncated, _ = view.step(action)
            rewards.append(reward)
            if terminated or truncated:
                break
        returns, later = np.zeros(len(rewards)), 0.0
        for i in reversed(range(len(rewards))):  # the discounted return from each decision on
            later = returns[i] = rewards[i] + gamma * later
        columns["returns"].extend(returns)
    return Demonstrations(
        np.asarray(columns["observations"], dtype=np.float32),
        np.asarray(columns["masks"], dtype=bool),
        np.asarray(columns["actions"], dtype=np.int64),
        np.asarray(columns["returns"], dtype=np.float32),
        np.asarray(columns["games"], dtype=np.int64),
    )


def demonstrations(
    env: str,
    env_kwargs: dict[str, Any],
    expert: str,
    opponents: list[str],
    games: int,
    seed: int = 0,
    gamma: float = 0.99,
    workers: int = 1,
) -> Demonstrations:
    """``games`` games of the reference agent ``expert`` in the learner's seat of ``env`` (drawn each game)
    against ``opponents`` (names, drawn per seat each game as in training), over ``workers`` processes."""
    seat_agent(env, expert)  # an unknown name is refused here, before any worker starts
    check_int("games", games, low=1)
    check_int("workers", workers, low=1)
    size = max(1, -(-games // (8 * workers)))
    jobs = [(start, min(size, games - start)) for start in range(0, games, size)]
    desc = f"{expert}'s games in the learner's seat"
    parts = run_jobs(_play, jobs, workers, desc, env, dict(env_kwargs), expert, list(opponents), seed, gamma)
    return Demonstrations.join([parts[job] for job in jobs])


def fit(
    model: Any,
    demos: Demonstrations,
    epochs: int = 10,
    batch_size: int = 256,
    holdout: float = 0.1,
    seed: int = 0,
    learning_rate: float | None = None,
) -> dict[str, Any]:
    """Fit ``model``'s policy (a MaskablePPO or PPO model) to ``demos``: the masked log-likelihood of the
    expert's actions plus the value loss against the returns, with the model's own optimizer, at
    ``learning_rate`` (default the model's initial rate; the algorithm sets its own rate again at its first
    update, so PPO after the fit may learn more slowly than the fit). A ``holdout`` share of the games is kept
    out of the fit; returns, per epoch, the loss and how often the policy's likeliest legal action is the
    expert's, on the fitted and the held-out decisions."""
    import torch
    from tqdm import tqdm

    check_int("epochs", epochs, low=1)
    check_int("batch_size", batch_size, low=1)
    if not 0 <= holdout < 1:
        raise ValueError(f"holdout must be a share in [0, 1), got {holdout!r}")
    if len(demos) == 0:
        raise ValueError("no decisions to imitate")
    rate = model.lr_schedule(1.0) if learning_rate is None else learning_rate
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 < rate < float("inf"):
        raise ValueError(f"learning_rate must be a positive number, got {learning_rate!r}")
    policy = model.policy
    for group in policy.optimizer.param_groups:
        group["lr"] = float(rate)
    masked = hasattr(policy, "action_dist") and "Maskable" in type(policy.action_dist).__name__
    games = np.unique(demos.games)
    rng = np.random.default_rng(seed)
    held = rng.choice(games, round(holdout * games.size), replace=False)
    test = np.isin(demos.games, held)
    train = np.flatnonzero(~test)
    device = policy.device

    def tensors(index: np.ndarray) -> tuple:
        return (
            torch.as_tensor(demos.observations[index], device=device),
            torch.as_tensor(demos.actions[index], device=device),
            demos.masks[index],
            torch.as_tensor(demos.returns[index], device=device),
        )

    def masking(masks: np.ndarray) -> dict[str, np.ndarray]:  # a maskable policy takes them, PPO's does not
        return {"action_masks": masks} if masked else {}

    def agreement(index: np.ndarray) -> float:
        if index.size == 0:
            return float("nan")
        with torch.no_grad():
            observations, _, masks, _ = tensors(index)
            logits = policy.get_distribution(observations, **masking(masks)).distribution.logits.cpu().numpy()
        logits = np.where(masks, logits, -np.inf)  # the likeliest legal action, for a policy without masks too
        return float((logits.argmax(axis=1) == demos.actions[index]).mean())

    history = []
    for epoch in tqdm(range(epochs), desc="imitation epochs"):
        policy.set_training_mode(True)
        order = rng.permutation(train)
        losses = []
        for begin in range(0, order.size, batch_size):
            observations, actions, masks, returns = tensors(order[begin : begin + batch_size])
            values, log_prob, _ = policy.evaluate_actions(observations, actions, **masking(masks))
            loss = -log_prob.mean() + model.vf_coef * torch.nn.functional.mse_loss(values.flatten(), returns)
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            policy.optimizer.step()
            losses.append(loss.item())
        policy.set_training_mode(False)
        history.append(
            {
                "epoch": epoch + 1,
                "loss": float(np.mean(losses)),
                "agreement_fitted": agreement(train),
                "agreement_held_out": agreement(np.flatnonzero(test)),
            }
        )
    return {
        "decisions": len(demos),
        "games": int(games.size),
        "held_out_games": int(held.size),
        "learning_rate": float(rate),
        "epochs": history,
    }


def plot_fit(report: dict[str, Any], path: Path, title: str) -> None:
    """The fit by epoch (a :func:`fit` report): the loss, and how often the likeliest action is the expert's."""
    from train.plotting import panel_grid, save

    epochs = [e["epoch"] for e in report["epochs"]]
    figure, (loss, agreement) = panel_grid(2)
    loss.plot(epochs, [e["loss"] for e in report["epochs"]], marker=".")
    loss.set(xlabel="epoch", ylabel="loss (policy + value)", title=title)
    for key, label in (("agreement_fitted", "fitted games"), ("agreement_held_out", "held-out games")):
        agreement.plot(epochs, [e[key] for e in report["epochs"]], marker=".", label=label)
    agreement.set(xlabel="epoch", ylabel="likeliest action = the expert's", ylim=(0, 1))
    agreement.legend()
    save(figure, path)


def imitate(args: Any, env_kwargs: dict[str, Any], model: Any) -> None:
    """``python -m train --imitate``: collect the demonstrations (or read ``--imitate-demos``), fit ``model`` to
    them, write ``imitation.json`` and the demonstrations (``demonstrations.npz``)."""
    if getattr(args, "imitate_demos", None) is not None:
        demos = Demonstrations.load(args.imitate_demos)
        shapes = demos.observations.shape[1:], demos.masks.shape[1]
        if shapes != (model.observation_space.shape, model.action_space.n):
            raise ValueError(f"{args.imitate_demos} is of another env or size than this run's")
    else:
        demos = demonstrations(
            args.env,
            env_kwargs,
            args.imitate,
            args.opponents,
            args.imitate_games,
            args.seed,
            model.gamma,
            args.imitate_workers,
        )
        demos.save(Path(args.output, "demonstrations.npz"))
    report = fit(model, demos, args.imitate_epochs, seed=args.seed, learning_rate=args.imitate_learning_rate)
    report = {"expert": args.imitate, "opponents": args.opponents, **report}
    Path(args.output, "imitation.json").write_text(json.dumps(report, indent=1) + "\n")
    plot_fit(report, Path(args.output, "imitation.png"), f"{args.env}: imitating {args.imitate}")
    last = report["epochs"][-1]
    print(
        f"imitated {args.imitate}: {report['decisions']:,} decisions of {report['games']:,} games; the policy's "
        f"likeliest action is the agent's in {last['agreement_fitted']:.1%} of the fitted decisions, "
        f"{last['agreement_held_out']:.1%} of the held-out games' decisions",
        flush=True,
    )
