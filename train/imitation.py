"""Behaviour cloning: a reference agent's decisions, and a policy fitted to them.

    python -m train --env clue_v0 --policy features --opponents deduction_sheet --imitate entropy
    python -m train --env Mastermind-v0 --size pegs=4 --size colors=6 --policy features --imitate ises

Before reinforcement learning, ``--imitate NAME`` plays ``--imitate-games``
games of the reference agent ``NAME`` and records each decision's
observation (the training env's own, so a single-player run's options, such
as ``--query-features``, apply), mask, action and discounted return. In a
multiplayer env the agent decides for the learner's seat of the env's
:class:`~deduction_envs.envs.single_seat.SingleSeatEnv` (its ``shadow``: it
sees exactly the learner's events), against opponents drawn as in training;
in a single-player game it plays episodes of the env (secrets drawn by the
seed), the experts being :data:`SINGLE_PLAYER_EXPERTS` (exhaustive ISES).
The new model's policy is then fitted to them: the masked log-likelihood of
the agent's actions, and the value head to the returns (so that PPO starts
from a critic that knows what the imitated play earns), over
``--imitate-epochs`` passes, a tenth of the games held out to measure how
often the policy's likeliest action is the agent's. With ``--imitate-soft``
the fit takes a search agent's root visit shares (``SOISMCTS.last_visits``)
for targets instead of its choices alone, and with ``--imitate-values T``
the softmax of its root values (``SOISMCTS.last_values``) at temperature T.
With ``--imitate-secrets F`` (single-player games) every episode's secret is
drawn from a seeded share F of the secrets (:func:`seen_secrets`), so that
the evaluation can score the policy apart on the secrets the fit never saw.

A policy so started is the agent's imitation, not something reinforcement
learning found on its own: the results say which.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.roster import seat_agent
from deduction_envs.core.rules import check_int
from deduction_envs.envs.single_seat import SingleSeatEnv
from deduction_envs.executor import as_executor, run_jobs
from train.options import SINGLE_PLAYER_EXPERTS

if TYPE_CHECKING:
    from train.config import RunConfig
    from train.tasks import Task

__all__ = ["SINGLE_PLAYER_EXPERTS", "Demonstrations", "fit", "imitate", "plot_fit", "seen_secrets"]


#: Observations: one array (a Box) or one array per key (a Dict, as the single-player envs'), decisions first.
Observations = np.ndarray | dict[str, np.ndarray]


def _rows(observations: Observations, index: Any) -> Observations:
    """The decisions ``index`` of ``observations``."""
    if isinstance(observations, dict):
        return {key: value[index] for key, value in observations.items()}
    return observations[index]


def _stack(observations: list) -> Observations:
    """One array (or one per key) of the observations of a list of decisions."""
    if observations and isinstance(observations[0], dict):
        return {key: np.asarray([o[key] for o in observations]) for key in observations[0]}
    return np.asarray(observations, dtype=np.float32)


def _shapes(observations: Observations) -> Any:
    """The shape of one decision's observation (per key for a Dict)."""
    if isinstance(observations, dict):
        return {key: value.shape[1:] for key, value in observations.items()}
    return observations.shape[1:]


def _discounted(rewards: list[float], gamma: float) -> np.ndarray:
    """The discounted return from each step of an episode on."""
    returns, later = np.zeros(len(rewards)), 0.0
    for i in reversed(range(len(rewards))):
        later = returns[i] = rewards[i] + gamma * later
    return returns


@dataclass(frozen=True)
class Demonstrations:
    """An expert's decisions: ``observations[i]``, the legal ``masks[i]``, its ``actions[i]``, the discounted
    ``returns[i]`` from there on, and ``games[i]``, the game the decision was made in. ``observations`` is
    one array, or a dict of arrays for an env with Dict observations. For a search expert (one with
    ``last_visits``, as :class:`~agents.SOISMCTS`), ``targets[i]`` is its decision as a distribution over
    the actions: the root's visit shares where it searched, its action where it did not; and ``values[i]``
    the root's mean reward by action, NaN for the actions it did not search (a row of NaN where it did not
    search at all). Both are None for other experts."""

    observations: Observations
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    games: np.ndarray
    targets: np.ndarray | None = None
    values: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.actions.size)

    @staticmethod
    def join(parts: list[Demonstrations]) -> Demonstrations:
        """The decisions of ``parts`` in order."""
        columns = {}
        for name in Demonstrations.__annotations__:
            values = [getattr(p, name) for p in parts]
            if any(v is None for v in values):  # targets and values: kept only if every part has them
                columns[name] = None
            elif isinstance(values[0], dict):
                columns[name] = {key: np.concatenate([v[key] for v in values]) for key in values[0]}
            else:
                columns[name] = np.concatenate(values)
        return Demonstrations(**columns)

    def save(self, path: Path) -> None:
        """Write the decisions to ``path`` (a compressed ``.npz``; a Dict observation's keys as
        ``observations/KEY``)."""
        arrays = {f: getattr(self, f) for f in Demonstrations.__annotations__ if f != "observations"}
        arrays = {f: value for f, value in arrays.items() if value is not None}
        if isinstance(self.observations, dict):
            arrays |= {f"observations/{key}": value for key, value in self.observations.items()}
        else:
            arrays["observations"] = self.observations
        np.savez_compressed(path, **arrays)

    @staticmethod
    def load(path: Path) -> Demonstrations:
        """Decisions written by :meth:`save`."""
        with np.load(path) as data:
            keys = {name.split("/", 1)[1] for name in data.files if name.startswith("observations/")}
            optional = {f.name for f in fields(Demonstrations) if f.default is None}  # a search's columns
            optional |= {"observations"} if keys else set()
            missing = set(Demonstrations.__annotations__) - set(data.files) - optional
            if missing:
                raise ValueError(f"{path} holds no demonstrations (it lacks {', '.join(sorted(missing))})")
            columns = {f: data[f] for f in Demonstrations.__annotations__ if f != "observations" and f in data.files}
            observations = {key: data[f"observations/{key}"] for key in sorted(keys)} if keys else data["observations"]
            return Demonstrations(observations=observations, **columns)


def _play(job: tuple[int, int], env: str, env_kwargs: dict, expert: str, opponents: list, seed: int, gamma: float):
    """Games ``[start, start + games)`` with ``expert`` deciding for the learner; episode ``g`` seeded ``(seed, g)``."""
    from train.multiplayer import OpponentPool, raw_env

    start, games = job
    view = SingleSeatEnv(
        raw_env(env, **env_kwargs), OpponentPool(env, opponents, env_kwargs), shadow=seat_agent(env, expert)
    )
    columns: dict[str, list] = {"observations": [], "masks": [], "actions": [], "returns": [], "games": []}
    if hasattr(view.shadow, "last_visits"):  # a search: how it rated the options, besides what it chose
        columns["targets"], columns["values"] = [], []
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
            if "targets" in columns:
                columns["targets"].append(_target(view.shadow.last_visits, action, mask.size))
                columns["values"].append(_values(view.shadow.last_values, mask.size))
            observation, reward, terminated, truncated, _ = view.step(action)
            rewards.append(reward)
            if terminated or truncated:
                break
        columns["returns"].extend(_discounted(rewards, gamma))
    return _demonstrations(columns)


def _target(visits: dict[int, int], action: int, actions: int) -> np.ndarray:
    """A search's decision as a distribution over the ``actions``: its root ``visits`` shared out, or all on
    ``action`` when it did not search (one option)."""
    target = np.zeros(actions, dtype=np.float32)
    if visits:
        target[list(visits)] = list(visits.values())
        target /= target.sum()
    else:
        target[action] = 1.0
    return target


def _values(values: dict[int, float], actions: int) -> np.ndarray:
    """A search's root ``values`` by action as a row over the ``actions``, NaN where it has none."""
    row = np.full(actions, np.nan, dtype=np.float32)
    row[list(values)] = list(values.values())
    return row


def value_targets(demos: Demonstrations, temperature: float) -> np.ndarray:
    """Each decision of a search expert as the softmax of its root values at ``temperature`` over the options
    it searched (a gap of one temperature between two options gives them e : 1), or all on its action where
    it did not search: soft targets that say by how much a choice was better, not only which."""
    if demos.values is None:
        raise ValueError("value targets need demonstrations of a search agent (one with root values, as SO-ISMCTS)")
    if isinstance(temperature, bool) or not isinstance(temperature, int | float) or not 0 < temperature < np.inf:
        raise ValueError(f"temperature must be a positive number, got {temperature!r}")
    searched = np.isfinite(demos.values)
    scaled = np.where(searched, demos.values / temperature, -np.inf)
    best = np.max(scaled, axis=1, keepdims=True)
    weights = np.exp(scaled - np.where(np.isfinite(best), best, 0.0))
    targets = np.zeros_like(demos.values, dtype=np.float32)
    some = searched.any(axis=1)
    targets[some] = weights[some] / weights[some].sum(axis=1, keepdims=True)
    targets[np.flatnonzero(~some), demos.actions[~some]] = 1.0
    return targets


def _demonstrations(columns: dict[str, list]) -> Demonstrations:
    """The decisions recorded in ``columns`` (lists, one entry a decision; ``targets`` and ``values`` if the
    expert searched)."""
    return Demonstrations(
        _stack(columns["observations"]),
        np.asarray(columns["masks"], dtype=bool),
        np.asarray(columns["actions"], dtype=np.int64),
        np.asarray(columns["returns"], dtype=np.float32),
        np.asarray(columns["games"], dtype=np.int64),
        np.asarray(columns["targets"], dtype=np.float32) if "targets" in columns else None,
        np.asarray(columns["values"], dtype=np.float32) if "values" in columns else None,
    )


def seen_secrets(num_secrets: int, share: float, seed: int) -> np.ndarray:
    """The secrets (sorted indices) a fit on ``share`` of a game's ``num_secrets`` secrets draws its episodes
    from: the first ``floor(share * num_secrets)`` (at least one) of a permutation seeded by ``seed``."""
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
        raise ValueError(f"the share of secrets must be a number in (0, 1], got {share!r}")
    check_int("num_secrets", num_secrets, low=1)
    order = np.random.default_rng(np.random.SeedSequence((seed, num_secrets))).permutation(num_secrets)
    return np.sort(order[: max(1, int(share * num_secrets))])


def _play_alone(
    job: tuple[int, int], env_id: str, env_kwargs: dict, expert: str, seed: int, gamma: float, secrets: Any = None
):
    """Episodes ``[start, start + games)`` of a single-player env with ``expert`` deciding; episode ``g``'s
    secret drawn by the seed ``(seed, g)``, from ``secrets`` (indices) if given, else by the env."""
    import gymnasium as gym

    start, games = job
    env = gym.make(env_id, **env_kwargs)
    agent = SINGLE_PLAYER_EXPERTS[expert]()
    columns: dict[str, list] = {"observations": [], "masks": [], "actions": [], "returns": [], "games": []}
    for game in range(start, start + games):
        episode_seed = int(np.random.SeedSequence((seed, game)).generate_state(1)[0])
        options = None if secrets is None else {"secret": int(np.random.default_rng(episode_seed).choice(secrets))}
        observation, _ = env.reset(seed=episode_seed, options=options)
        agent.reset(env.unwrapped.rules, seed=episode_seed)
        rewards = []
        while True:
            action = agent.act()
            columns["observations"].append(observation)
            columns["masks"].append(env.unwrapped.action_masks())
            columns["actions"].append(action)
            columns["games"].append(game)
            observation, reward, terminated, truncated, info = env.step(action)
            rewards.append(float(reward))
            if terminated or truncated:
                break
            agent.observe(action, info["feedback"])
        columns["returns"].extend(_discounted(rewards, gamma))
    env.close()
    return _demonstrations(columns)


def _jobs(games: int, workers: Any) -> tuple[list[tuple[int, int]], Any]:
    """The chunks ``(start, games)`` a demonstration's games are played in, and the executor."""
    workers = as_executor(workers)
    size = max(1, -(-games // (8 * workers.workers)))
    return [(start, min(size, games - start)) for start in range(0, games, size)], workers


def seat_demonstrations(
    env: str, env_kwargs: dict, expert: str, opponents: Any, games: int, seed: int, gamma: float, workers: Any
) -> Demonstrations:
    """A multiplayer game's demonstrations: ``expert`` in the learner's seat (drawn each game) against
    ``opponents`` (names, drawn per seat each game as in training)."""
    seat_agent(env, expert)  # an unknown name is refused here, before any worker starts
    jobs, workers = _jobs(games, workers)
    desc = f"{expert}'s games in the learner's seat"
    parts = run_jobs(_play, jobs, workers, desc, env, dict(env_kwargs), expert, list(opponents), seed, gamma)
    return Demonstrations.join([parts[job] for job in jobs])


def episode_demonstrations(
    env: str, env_kwargs: dict, expert: str, games: int, seed: int, gamma: float, workers: Any, secrets: Any = None
) -> Demonstrations:
    """A single-player game's demonstrations: episodes of ``expert`` (one of :data:`SINGLE_PLAYER_EXPERTS`), each
    secret drawn from ``secrets`` (indices) if given."""
    if expert not in SINGLE_PLAYER_EXPERTS:
        raise ValueError(f"a single-player game's experts are {', '.join(SINGLE_PLAYER_EXPERTS)}, got {expert!r}")
    if secrets is not None:
        import gymnasium as gym

        num_secrets = gym.make(env, **env_kwargs).unwrapped.rules.num_secrets
        secrets = np.asarray(secrets)
        if secrets.ndim != 1 or secrets.size == 0 or not np.issubdtype(secrets.dtype, np.integer):
            raise ValueError(f"secrets must be a non-empty list of secret indices, got {secrets!r}")
        if secrets.min() < 0 or secrets.max() >= num_secrets:
            raise ValueError(f"secrets must be indices in [0, {num_secrets - 1}], got {secrets.min()}..{secrets.max()}")
    jobs, workers = _jobs(games, workers)
    parts = run_jobs(_play_alone, jobs, workers, f"{expert}'s games", env, dict(env_kwargs), expert, seed, gamma,
                     secrets)  # fmt: skip
    return Demonstrations.join([parts[job] for job in jobs])


def fit(
    model: Any,
    demos: Demonstrations,
    epochs: int = 10,
    batch_size: int = 256,
    holdout: float = 0.1,
    seed: int = 0,
    learning_rate: float | None = None,
    soft: bool = False,
    temperature: float | None = None,
) -> dict[str, Any]:
    """Fit ``model``'s policy (a MaskablePPO or PPO model) to ``demos``: the masked log-likelihood of the
    expert's actions (with ``soft``, the cross-entropy to its ``targets``, a search's visit shares, which say
    how close its choice was; with a ``temperature``, to the softmax of its root values, :func:`value_targets`,
    which say by how much) plus the value loss against the returns, with the model's own optimizer, at
    ``learning_rate`` (default the model's initial rate; the algorithm sets its own rate again at its first
    update, so PPO after the fit may learn more slowly than the fit). A ``holdout`` share of the games is kept
    out of the fit; returns, per epoch, the loss and how often the policy's likeliest legal action is the
    expert's, on the fitted and the held-out decisions."""
    import torch
    from stable_baselines3.common.utils import obs_as_tensor
    from tqdm import tqdm

    check_int("epochs", epochs, low=1)
    check_int("batch_size", batch_size, low=1)
    if not 0 <= holdout < 1:
        raise ValueError(f"holdout must be a share in [0, 1), got {holdout!r}")
    if len(demos) == 0:
        raise ValueError("no decisions to imitate")
    if soft and temperature is not None:
        raise ValueError("fit to the visit shares (soft) or to the values (temperature), not both")
    if soft and demos.targets is None:
        raise ValueError("soft targets need demonstrations of a search agent (one with visit counts, as SO-ISMCTS)")
    targets = value_targets(demos, temperature) if temperature is not None else demos.targets if soft else None
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
            obs_as_tensor(_rows(demos.observations, index), device),
            torch.as_tensor(demos.actions[index], device=device),
            demos.masks[index],
            torch.as_tensor(demos.returns[index], device=device),
        )

    def policy_loss(observations: Any, actions: Any, masks: np.ndarray, index: np.ndarray) -> tuple:
        """The imitation loss of a batch, and the value head's estimates."""
        if targets is None:
            values, log_prob, _ = policy.evaluate_actions(observations, actions, **masking(masks))
            return -log_prob.mean(), values
        log_probs = policy.get_distribution(observations, **masking(masks)).distribution.logits  # normalised
        wanted = torch.as_tensor(targets[index], device=device)
        log_probs = torch.where(wanted > 0, log_probs, 0.0)  # an illegal action's -1e8 times 0 stays out
        return -(wanted * log_probs).sum(dim=1).mean(), policy.predict_values(observations)

    def masking(masks: np.ndarray) -> dict[str, np.ndarray]:  # a maskable policy takes them, PPO's does not
        return {"action_masks": masks} if masked else {}

    def agreement(index: np.ndarray) -> float:
        if index.size == 0:
            return float("nan")
        agree = 0
        for begin in range(0, index.size, 4096):  # in chunks: a decision's logits are one per action
            chunk = index[begin : begin + 4096]
            with torch.no_grad():
                observations, _, masks, _ = tensors(chunk)
                logits = policy.get_distribution(observations, **masking(masks)).distribution.logits.cpu().numpy()
            logits = np.where(masks, logits, -np.inf)  # the likeliest legal action, for a policy without masks too
            agree += int((logits.argmax(axis=1) == demos.actions[chunk]).sum())
        return agree / index.size

    history = []
    bar = tqdm(range(epochs), desc="imitation epochs")
    for epoch in bar:
        policy.set_training_mode(True)
        order = rng.permutation(train)
        losses = []
        for begin in range(0, order.size, batch_size):
            batch = order[begin : begin + batch_size]
            observations, actions, masks, returns = tensors(batch)
            imitation, values = policy_loss(observations, actions, masks, batch)
            loss = imitation + model.vf_coef * torch.nn.functional.mse_loss(values.flatten(), returns)
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
        bar.set_postfix(loss=f"{history[-1]['loss']:.3f}", agreement=f"{history[-1]['agreement_fitted']:.1%}")
    return {
        "decisions": len(demos),
        "games": int(games.size),
        "held_out_games": int(held.size),
        "learning_rate": float(rate),
        "targets": "actions" if targets is None else "visit shares" if soft else f"root values at {temperature:g}",
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


def _load(paths: list[Path], model: Any) -> Demonstrations:
    """The demonstrations saved at ``paths``, joined (each file's games numbered after the last file's),
    checked to be of ``model``'s env and size."""
    space = model.observation_space
    wanted = {k: v.shape for k, v in space.spaces.items()} if hasattr(space, "spaces") else space.shape
    parts: list[Demonstrations] = []
    for path in paths:
        part = Demonstrations.load(path)
        if (_shapes(part.observations), part.masks.shape[1]) != (wanted, model.action_space.n):
            raise ValueError(f"{path} is of another env or size than this run's")
        first = int(parts[-1].games.max()) + 1 if parts else 0
        parts.append(replace(part, games=part.games - part.games.min() + first))
    return Demonstrations.join(parts)


def imitate(config: RunConfig, model: Any, task: Task) -> dict[str, Any]:
    """``python -m train --imitate``: collect the demonstrations (or read ``--imitate-demos``), fit ``model`` to
    them, write ``imitation.json`` and the demonstrations (``demonstrations.npz``); returns the fit's report."""
    seen = None
    if config.imitate_secrets is not None:
        from deduction_envs.envs import env_rules

        seen = seen_secrets(env_rules(config.env, **config.sizes).num_secrets, config.imitate_secrets, config.seed)
    if config.imitate_demos is not None:
        demos = _load(config.imitate_demos, model)
    else:
        demos = task.demonstrations(
            config.env,
            config.env_kwargs,
            config.imitate,
            config.opponents or [],
            config.imitate_games,
            config.seed,
            model.gamma,
            config.executor_for(config.imitate_workers),
            seen,
        )
        demos.save(Path(config.output, "demonstrations.npz"))
    report = fit(
        model,
        demos,
        config.imitate_epochs,
        seed=config.seed,
        learning_rate=config.imitate_learning_rate,
        soft=config.imitate_soft,
        temperature=config.imitate_values,
    )
    report = {"expert": config.imitate, **({"opponents": config.opponents} if config.opponents else {}), **report}
    if seen is not None:  # the secrets the fit drew from: the evaluation scores the others apart
        report["seen_secrets"] = seen.tolist()
    Path(config.output, "imitation.json").write_text(json.dumps(report, indent=1) + "\n")
    plot_fit(report, Path(config.output, "imitation.png"), f"{config.env}: imitating {config.imitate}")
    last = report["epochs"][-1]
    print(
        f"imitated {config.imitate}: {report['decisions']:,} decisions of {report['games']:,} games; the policy's "
        f"likeliest action is the agent's in {last['agreement_fitted']:.1%} of the fitted decisions, "
        f"{last['agreement_held_out']:.1%} of the held-out games' decisions",
        flush=True,
    )
    return report
