"""A trained stable-baselines3 / sb3-contrib model as an agent of the reference-agent contract.

:class:`SB3Policy` rebuilds, from its own information set and history, the
observation the model was trained on (with the env's own
:class:`~deduction_envs.envs.observation.ObservationEncoder`), so the model
plays through :func:`agents.evaluate` and the paper's experiment like any
other agent, never seeing an env or a secret. Masks are always applied:
MaskablePPO gets them directly; for other models the most probable (PPO,
A2C) or highest-valued (DQN) legal query is taken.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np

from agents.base import Agent
from agents.model_files import ALGORITHMS, algorithm_class, check_saved_model, load_model
from agents.multiplayer import SeatAgent
from deduction_envs.core.rules import DeductionRules
from deduction_envs.envs.deduction_env import ACTION_MASKS, unasked
from deduction_envs.envs.observation import QUERY_KEY, ObservationEncoder

__all__ = [
    "ALGORITHMS",
    "SB3Policy",
    "SB3SeatPolicy",
    "algorithm_class",
    "check_saved_model",
    "load_model",
    "masked_probabilities",
    "sample_actions",
]


class SB3Policy(Agent):
    """A trained SB3 model as an :class:`~agents.base.Agent`.

    Args:
        model: a model object (``MaskablePPO``, ``PPO``, ``A2C``, ``DQN``);
            :meth:`load` reads one saved with ``model.save``.
        deterministic: take the model's most likely action (default) rather
            than sampling from its policy (sampling: MaskablePPO only).
        action_mask: ``"all"`` (the legal queries), ``"consistent"`` (also
            only queries that could be the secret) or ``"unasked"`` (also only
            queries not yet asked), as the env's option of the same name; use
            what the model was trained with.
    """

    def __init__(
        self,
        model: Any,
        deterministic: bool = True,
        action_mask: Literal["all", "consistent", "unasked"] = "all",
    ) -> None:
        super().__init__()
        if not hasattr(model, "predict") or not hasattr(model, "observation_space"):
            raise TypeError(f"model must be a stable-baselines3 model, got {type(model).__name__}; see SB3Policy.load")
        if action_mask not in ACTION_MASKS:
            raise ValueError(f"action_mask must be one of {', '.join(map(repr, ACTION_MASKS))}, got {action_mask!r}")
        self.model = model
        self.deterministic = deterministic
        self.action_mask = action_mask
        self.name = f"{type(model).__name__} policy"
        self._encoder: ObservationEncoder | None = None
        self._asked: np.ndarray | None = None

    @classmethod
    def load(
        cls,
        path: str | Path,
        algo: str = "maskable_ppo",
        trust_model: bool = False,
        sha256: str | None = None,
        **kwargs: Any,
    ) -> SB3Policy:
        """The policy of a model saved with ``model.save(path)`` by algorithm ``algo`` (see ``ALGORITHMS``), read
        without running code from the file (:func:`~agents.model_files.load_model`; ``trust_model``: SB3's own
        load, which runs whatever the file holds, for a file you trust; ``sha256``: the digest the file must
        have, checked first)."""
        return cls(load_model(path, algo, trust_model=trust_model, sha256=sha256), **kwargs)

    def reset(self, rules: DeductionRules, seed: int | None = None) -> None:
        super().reset(rules, seed)
        space = self.model.observation_space
        try:
            history = space["history"].nvec.size
        except (KeyError, TypeError, AttributeError):
            raise ValueError("the model was not trained on a deduction env's Dict observation") from None
        max_steps, rest = divmod(history, ObservationEncoder.slot_size(rules))
        query_features = QUERY_KEY in space.spaces  # the env's option, read from what the model saw
        self._encoder = ObservationEncoder(rules, max_steps, self.information_set.entropy(), query_features)
        self._asked = np.zeros(rules.num_actions, dtype=bool)
        if rest or self._encoder.space != space:
            raise ValueError(f"the model was trained on another game or size than {rules!r}")
        if self.model.action_space.n != rules.num_actions:
            raise ValueError(f"the model has {self.model.action_space.n} actions; {rules!r} has {rules.num_actions}")
        if seed is not None:
            self.model.set_random_seed(seed)

    def _started(self) -> tuple[ObservationEncoder, np.ndarray]:
        """The episode's encoder and the queries asked in it, made by :meth:`reset`."""
        if self._encoder is None or self._asked is None:
            raise RuntimeError("SB3Policy.reset(rules) must be called before playing")
        return self._encoder, self._asked

    def observe(self, action: int, feedback: int) -> None:
        super().observe(action, feedback)
        encoder, asked = self._started()
        encoder.record(int(action), int(feedback))
        asked[int(action)] = True

    def observation(self) -> dict[str, np.ndarray]:
        """The observation the model gets now: the env's, built from this agent's own knowledge."""
        return self._started()[0].encode(self.information_set)

    def mask(self) -> np.ndarray:
        """The queries the policy may choose from now (bool, one per query), as the env's ``action_mask`` gives."""
        mask = self.rules.action_mask(self.information_set, self.action_mask == "consistent")
        return unasked(mask, self._started()[1]) if self.action_mask == "unasked" else mask

    def act(self) -> int:
        observation, mask = self.observation(), self.mask()
        if _is_maskable(self.model):
            action, _ = self.model.predict(observation, deterministic=self.deterministic, action_masks=mask)
            return int(action)
        return int(_action_scores(self.model, observation, mask).argmax())

    def __repr__(self) -> str:
        return f"SB3Policy({type(self.model).__name__}, deterministic={self.deterministic})"


class SB3SeatPolicy(SeatAgent):
    """A model trained on one seat of a multiplayer env (:class:`~deduction_envs.envs.single_seat.SingleSeatEnv`)
    as a :class:`~agents.multiplayer.SeatAgent`: it keeps its seat's knowledge from the events projected for
    it, and rebuilds from that knowledge alone the observation the model was trained on.

    Args:
        model: a model trained on the single-seat view of ``env`` (``MaskablePPO``,
            ``PPO``, ``A2C``, ``DQN``); :meth:`load` reads a saved one.
        env: the game and size it was trained on, as a raw multiplayer env as training built it
            (``train.multiplayer.raw_env("clue_v0", players=4)``; the game's own ``clue_v0.raw_env(players=4)``
            serves unless training added entries, as Algo's ``exposure``) or that env's observer
            (``env.observer``, :class:`~deduction_envs.envs.multiplayer_env.Observer`): only the observation
            encoder and its seats' knowledge budgets are used, never a game's state.
        deterministic: take the most likely legal action (default), or draw
            one from the policy's masked distribution with the agent's seeded
            generator (actor-critic models).
    """

    name = "policy"

    def __init__(self, model: Any, env: Any, deterministic: bool = True) -> None:
        super().__init__()
        from deduction_envs.envs.multiplayer_env import MultiplayerAECEnv, Observer

        if not hasattr(model, "predict") or not hasattr(model, "observation_space"):
            raise TypeError(f"model must be a stable-baselines3 model, got {type(model).__name__}")
        env = getattr(env, "unwrapped", env)
        observer = env.observer if isinstance(env, MultiplayerAECEnv) else env
        if not isinstance(observer, Observer):
            raise ValueError(
                f"env must be a multiplayer env or its observer (e.g. clue_v0.raw_env()), got {type(env).__name__}"
            )
        rules = observer.rules
        if getattr(model.observation_space, "shape", None) != (observer.size,):
            raise ValueError(
                f"the model's observations have shape {model.observation_space.shape}; "
                f"{type(rules).__name__} with these sizes has {(observer.size,)}: it was trained on another game or "
                "size"
            )
        if model.action_space.n != rules.num_actions:
            raise ValueError(f"the model has {model.action_space.n} actions; the env has {rules.num_actions}")
        if not deterministic and not hasattr(model.policy, "get_distribution"):
            raise ValueError(f"{type(model).__name__} has no action distribution to sample: use deterministic=True")
        self.model, self.observer, self.deterministic = model, observer, deterministic

    @classmethod
    def load(
        cls,
        path: str | Path,
        env: Any,
        algo: str = "maskable_ppo",
        trust_model: bool = False,
        sha256: str | None = None,
        **kwargs: Any,
    ) -> SB3SeatPolicy:
        """The seat policy of a model saved with ``model.save(path)`` by algorithm ``algo``, read without running
        code from the file (``trust_model``, ``sha256``: as :meth:`SB3Policy.load`)."""
        return cls(load_model(path, algo, trust_model=trust_model, sha256=sha256), env, **kwargs)

    def reset(self, rules: Any, seat: int, seed: int | None = None) -> None:
        mine = self.observer.rules
        if type(rules) is not type(mine) or rules.num_actions != mine.num_actions:
            raise ValueError(f"the policy plays {mine!r}, not {rules!r}")
        super().reset(rules, seat, seed)
        self.knowledge = self.observer.new_knowledge(seat)  # the observer's budgets, as in training

    def observation(self) -> np.ndarray:
        """The observation the model gets now: the observer's, from this seat's knowledge."""
        if self.knowledge is None:
            raise RuntimeError("SB3SeatPolicy.reset(rules, seat) must be called before playing")
        return self.observer.encode(self.knowledge)

    def act(self, mask: np.ndarray) -> int:
        scores = _action_scores(self.model, self.observation(), mask)
        if self.deterministic:
            return int(scores.argmax())
        return int(self.rng.choice(scores.size, p=scores / scores.sum()))

    def __repr__(self) -> str:
        return f"SB3SeatPolicy({type(self.model).__name__}, {type(self.observer.rules).__name__})"


def _is_maskable(model: Any) -> bool:
    return type(model).__name__ == "MaskablePPO"


def _action_scores(model: Any, observation: Any, mask: np.ndarray | None = None) -> np.ndarray:
    """Per action: the policy's probability (actor-critic models) or Q-value (DQN); with ``mask``, illegal
    actions score 0 (probabilities, renormalised over the legal ones) or -inf (Q-values)."""
    import torch

    policy = model.policy
    if hasattr(policy, "q_net"):
        tensor, _ = policy.obs_to_tensor(observation)
        with torch.no_grad():
            values = policy.q_net(tensor).cpu().numpy().reshape(-1).astype(np.float64)
        if mask is not None:
            values[~np.asarray(mask, dtype=bool)] = -np.inf
        return values
    masks = None if mask is None else np.asarray(mask, dtype=bool)[None]
    return masked_probabilities(policy, observation, masks, maskable=_is_maskable(model))[0]


def masked_probabilities(
    policy: Any, observations: Any, masks: np.ndarray | None = None, maskable: bool = True
) -> np.ndarray:
    """The actor-critic ``policy``'s action probabilities for a batch of ``observations``, ``(k, actions)``
    float64; with ``masks`` (bool ``(k, actions)``), illegal actions get 0 and each row is renormalised over its
    legal ones (a ``maskable`` policy masks its logits itself; uniform over the legal actions where a row's
    legal ones all have probability 0). The one place a trained policy's masked choice is computed: the seat
    agent (one observation) and the batched seats (every game where the policy is to act) read it."""
    import torch

    tensor, _ = policy.obs_to_tensor(observations)
    with torch.no_grad():
        if masks is not None and maskable:
            distribution = policy.get_distribution(tensor, action_masks=np.array(masks, dtype=bool))  # a copy
        else:
            distribution = policy.get_distribution(tensor)
    probabilities = distribution.distribution.probs.cpu().numpy().astype(np.float64)
    probabilities = probabilities.reshape(-1, probabilities.shape[-1])
    if masks is not None:
        masks = np.asarray(masks, dtype=bool).reshape(probabilities.shape)
        probabilities[~masks] = 0.0
        totals = probabilities.sum(axis=1, keepdims=True)
        uniform = masks / np.maximum(masks.sum(axis=1, keepdims=True), 1)
        probabilities = np.where(totals > 0, probabilities / np.where(totals > 0, totals, 1.0), uniform)
    return probabilities


def sample_actions(probabilities: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """One action a row of ``probabilities`` (``(k, actions)``, rows summing to 1), drawn by inverting each row's
    cumulative sum at ``uniforms[i]`` in [0, 1); never an action of probability 0."""
    cumulative = np.cumsum(probabilities, axis=1)
    cumulative /= cumulative[:, -1:]
    actions = (cumulative <= np.asarray(uniforms)[:, None]).sum(axis=1)
    return np.minimum(actions, probabilities.shape[1] - 1)
