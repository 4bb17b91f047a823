"""Policies that score each action by its features: logits ``= action_features @ g(observation)``.

A flat softmax over hundreds of actions learns each one separately. Where the
actions have structure (Clue's accusation is three cards; its score can be
the sum of theirs), a head that maps the network's latent vector to one
weight per *feature* and scores every action as the dot product of its
feature row with those weights learns the structure once.
:func:`train.features.action_features` gives the matrix of a game's rules.

    import gymnasium as gym
    import deduction_envs
    from sb3_contrib import MaskablePPO
    from train.features import action_features
    from train.policies import policy_for

    gym.register_envs(deduction_envs)
    env = gym.make("Mastermind-v0", pegs=4, colors=6)
    features = action_features(env.unwrapped.rules)          # (actions, k)
    policy, kwargs = policy_for("maskable_ppo", features)
    model = MaskablePPO(policy, env, policy_kwargs=kwargs)

The head replaces SB3's last actor layer; masks, the value head and
everything else are the libraries' own, and a saved model loads with
``MaskablePPO.load`` as usual (the matrix is saved in its policy kwargs).

Every policy here (and :class:`MultiInputPolicy`, :class:`MaskableMultiInputPolicy`,
the flat ones ``python -m train`` builds) one-hot encodes ``MultiDiscrete``
observation entries in one scatter (:class:`OneHotInputs`), not one entry at a
time as SB3 does: the same tensor, several times faster on the envs' histories.
The maskable ones sample their actions by inverse CDF (:class:`InverseCdfCategorical`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy, MaskableMultiInputActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy, BaseModel, MultiInputActorCriticPolicy
from stable_baselines3.common.preprocessing import preprocess_obs
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, CombinedExtractor
from torch import nn

from deduction_envs.core.rules import component_offsets
from deduction_envs.envs.observation import QUERY_KEY  # the Dict entry of per-query features the head reads

__all__ = [
    "QUERY_KEY",
    "FeatureHead",
    "FeaturePolicy",
    "KnowledgeExtractor",
    "MaskableFeaturePolicy",
    "MaskableMultiInputPolicy",
    "MultiInputPolicy",
    "OneHotInputs",
    "flat_policy",
    "one_hot",
    "policy_for",
]


@lru_cache(maxsize=64)
def _offsets(nvec: tuple[int, ...]) -> torch.Tensor:
    """:func:`~deduction_envs.core.rules.component_offsets` as a tensor, made once per ``nvec``."""
    return torch.from_numpy(component_offsets(nvec).astype(np.int64))


def one_hot(observation: torch.Tensor, nvec: np.ndarray) -> torch.Tensor:
    """A batch of ``MultiDiscrete(nvec)`` observations one-hot encoded entry by entry and concatenated, as SB3's
    ``preprocess_obs`` encodes them, in one scatter: ``(batch, len(nvec))`` to ``(batch, sum(nvec))`` floats."""
    nvec = tuple(int(n) for n in np.asarray(nvec).reshape(-1))
    index = observation.long().reshape(observation.shape[0], -1) + _offsets(nvec).to(observation.device)
    encoded = torch.zeros(observation.shape[0], sum(nvec), device=observation.device)
    return encoded.scatter_(1, index, 1.0)


class OneHotInputs(BaseModel):
    """A mixin for SB3 policies (listed after the policy class, so that its ``extract_features`` is the one
    every path reaches: ``ActorCriticPolicy`` calls ``super().extract_features`` for the actor and the critic)
    that encodes ``MultiDiscrete`` entries with :func:`one_hot` and everything else as SB3 does."""

    def extract_features(self, obs: Any, features_extractor: BaseFeaturesExtractor) -> torch.Tensor:
        space = self.observation_space
        if isinstance(space, spaces.Dict):
            encoded = {
                key: one_hot(value, space[key].nvec)
                if isinstance(space[key], spaces.MultiDiscrete)
                else preprocess_obs(value, space[key], normalize_images=self.normalize_images)
                for key, value in obs.items()
            }
        elif isinstance(space, spaces.MultiDiscrete):
            encoded = one_hot(obs, space.nvec)
        else:
            encoded = preprocess_obs(obs, space, normalize_images=self.normalize_images)
        return features_extractor(encoded)


class InverseCdfCategorical(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical distribution, sampled by inverse CDF (``cumsum`` and ``searchsorted``)
    instead of ``torch.multinomial``: the same distribution, about 10x faster over Wordle's 10,000 queries
    (multinomial was 15% of a training run there). ``u`` is drawn in ``(0, total]``, so an action of
    probability 0 (a masked one) is never returned."""

    def sample(self) -> torch.Tensor:
        cumulative = self.distribution.probs.cumsum(-1)
        point = (1 - torch.rand((*cumulative.shape[:-1], 1), device=cumulative.device)) * cumulative[..., -1:]
        return torch.searchsorted(cumulative, point).squeeze(-1).clamp_(max=cumulative.shape[-1] - 1)


class InverseCdfSampling(BaseModel):
    """A mixin for sb3-contrib's maskable policies (listed before the policy class): their distribution is
    :class:`InverseCdfCategorical`."""

    def _build(self, lr_schedule: Any) -> None:
        if isinstance(self.action_space, spaces.Discrete):
            self.action_dist = InverseCdfCategorical(int(self.action_space.n))
        super()._build(lr_schedule)  # type: ignore[misc]


class MultiInputPolicy(MultiInputActorCriticPolicy, OneHotInputs):
    """SB3's ``MultiInputPolicy`` (PPO, A2C) with :class:`OneHotInputs`."""


class MaskableMultiInputPolicy(InverseCdfSampling, MaskableMultiInputActorCriticPolicy, OneHotInputs):
    """sb3-contrib's ``MultiInputPolicy`` (MaskablePPO) with :class:`OneHotInputs`."""


def flat_policy(algo: str, dict_observations: bool) -> Any:
    """The policy ``python -m train --policy flat`` gives ``algo``: for Dict observations the multi-input
    policy with :class:`OneHotInputs` (MaskablePPO, PPO, A2C), else the library's name for it."""
    if not dict_observations:
        return "MlpPolicy"
    return {"maskable_ppo": MaskableMultiInputPolicy, "ppo": MultiInputPolicy, "a2c": MultiInputPolicy}.get(
        algo, "MultiInputPolicy"
    )


class FeatureHead(nn.Module):
    """``logits = features @ w(latent)``, plus ``sum_j q[:, j] * v_j(latent)`` over state-dependent features ``q``.

    ``features`` is a fixed (actions, k) matrix. The state-dependent features
    ``q`` (actions, m) come from the observation in one of two ways:
    ``pointers``, an (actions, m) matrix of indices into a Box observation,
    or into the Dict observation's entry ``pointer_key`` (-1: none; Algo: an
    attack's probability to hit; a single-player game: the marginals of a
    query's components, :func:`deduction_envs.core.rules.marginal_pointers`), or ``query_features``
    = m, the width of the Dict observation's :data:`QUERY_KEY` matrix.

    Every game's features are sparse (a query's few components, a suggestion's three cards), so an action's
    logit is a sum of a few entries of one table: the weights ``w`` (k rows) and, per pointer column ``j``, the
    observation scaled by ``v_j`` (one block of rows each). The head computes them as one ``embedding_bag`` over
    that table, its cost in proportion to the nonzeros rather than to ``actions x k`` and ``actions x m``
    gathered floats (Wordle's head: 3x faster forward and backward; BENCHMARKS.md). ``features_t`` and
    ``pointers`` stay the head's saved definition; the bag's indices are derived from them.
    """

    def __init__(
        self,
        latent: int,
        features: np.ndarray,
        pointers: np.ndarray | None = None,
        query_features: int = 0,
        pointer_key: str | None = None,
    ) -> None:
        super().__init__()
        if pointers is not None and query_features:
            raise ValueError("a head reads pointers into the observation or a Dict's query features, not both")
        self.pointer_key = pointer_key
        self.weights = nn.Linear(latent, features.shape[1])
        self.register_buffer("features_t", torch.as_tensor(np.ascontiguousarray(features.T), dtype=torch.float32))
        pointers = None if pointers is None else torch.as_tensor(np.asarray(pointers), dtype=torch.long)
        self.register_buffer("pointers", pointers)  # None registers no buffer, and reads as None
        width = pointers.shape[1] if pointers is not None else query_features
        self.state_weights = nn.Linear(latent, width) if width else None
        # Each action's nonzero feature columns and their values, padded to the widest row with weight 0.
        nonzero = np.asarray(features) != 0
        columns = np.argsort(~nonzero, axis=1, kind="stable")[:, : max(1, int(nonzero.sum(1).max(initial=0)))]
        values = np.take_along_axis(np.asarray(features, dtype=np.float32), columns, 1)
        self.register_buffer("columns", torch.as_tensor(columns, dtype=torch.long), persistent=False)
        self.register_buffer("values", torch.as_tensor(values), persistent=False)
        self._bags: tuple[int, torch.Tensor, torch.Tensor] | None = None  # (observation size, indices, weights)

    @property
    def reads_observation(self) -> bool:
        """Whether :meth:`forward` needs the observation."""
        return self.state_weights is not None

    def _bag(self, size: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The bag of every action over the table of :meth:`forward` for a flat observation of ``size``
        entries: its feature columns, then per pointer ``j`` the pointed entry in block ``j`` (-1 reads the
        block's appended 0)."""
        if self._bags is None or self._bags[0] != size or self._bags[1].device != self.columns.device:
            k, m = self.features_t.shape[0], self.pointers.shape[1]
            entries = torch.where(self.pointers >= 0, self.pointers, size)
            blocks = k + entries + (size + 1) * torch.arange(m, device=entries.device)
            indices = torch.cat([self.columns, blocks], 1)
            weights = torch.cat([self.values, torch.ones(blocks.shape, device=blocks.device)], 1)
            self._bags = (size, indices, weights)
        return self._bags[1], self._bags[2]

    def reference(self, latent: torch.Tensor, observation: Any = None) -> torch.Tensor:
        """The logits of :meth:`forward` computed densely, as the definition reads: the slow, plain form the tests
        and ``python -m benchmarks.training --head`` check it against (equal up to float rounding)."""
        logits = self.weights(latent) @ self.features_t
        if self.state_weights is None:
            return logits
        if self.pointers is None:
            return logits + self._query_term(latent, observation)
        read = nn.functional.pad(self._pointed(observation), (0, 1))[:, self.pointers]  # (batch, actions, m)
        return logits + (read @ self.state_weights(latent)[:, :, None]).squeeze(-1)

    def _pointed(self, observation: Any) -> torch.Tensor:
        """The flat observation (or its ``pointer_key`` entry) the pointers index, ``(batch, size)`` floats."""
        read_from = observation if self.pointer_key is None else observation[self.pointer_key]
        return read_from.reshape(read_from.shape[0], -1).float()

    def _query_term(self, latent: torch.Tensor, observation: Any) -> torch.Tensor:
        """``sum_j q[:, j] * v_j(latent)`` over the Dict observation's per-query features ``q``."""
        return (observation[QUERY_KEY].float() @ self.state_weights(latent)[:, :, None]).squeeze(-1)

    def forward(self, latent: torch.Tensor, observation: Any = None) -> torch.Tensor:
        table = self.weights(latent).T  # (k, batch): row c scores feature c for each observation of the batch
        indices, weights = self.columns, self.values
        if self.state_weights is not None:
            if observation is None:
                raise ValueError("a head with state-dependent features needs the observation")
            if self.pointers is not None:
                flat = self._pointed(observation)
                padded = nn.functional.pad(flat, (0, 1)).T  # (size + 1, batch); index -1 reads the appended 0
                scaled = padded[None] * self.state_weights(latent).T[:, None]  # (m, size + 1, batch)
                table = torch.cat([table, scaled.reshape(-1, scaled.shape[-1])])
                indices, weights = self._bag(flat.shape[1])
        # embedding_bag's backward is several times faster from a contiguous gradient: hence the copies.
        logits = nn.functional.embedding_bag(
            indices, table.contiguous(), per_sample_weights=weights, mode="sum"
        ).T.contiguous()
        if self.state_weights is not None and self.pointers is None:
            logits = logits + self._query_term(latent, observation)
        return logits


class KnowledgeExtractor(CombinedExtractor):
    """SB3's ``CombinedExtractor`` over a Dict observation without its :data:`QUERY_KEY` entry, which the
    :class:`FeatureHead` reads per action instead (flattened into the network it would be actions x m inputs)."""

    def __init__(self, observation_space: spaces.Dict, **kwargs: Any) -> None:
        kept = {key: space for key, space in observation_space.spaces.items() if key != QUERY_KEY}
        super().__init__(spaces.Dict(kept), **kwargs)


class _FeatureHeadMixin:
    """Builds the actor's output as a :class:`FeatureHead` over ``action_features`` (actions x k) and, if given,
    ``observation_pointers`` (actions x m)."""

    def __init__(
        self,
        *args: Any,
        action_features: Any = None,
        observation_pointers: Any = None,
        query_features: int = 0,
        pointer_key: str | None = None,
        pointer_weight: float | Sequence[float] = 0.0,
        **kwargs: Any,
    ) -> None:
        actions = args[1].n
        features = np.asarray(action_features, dtype=np.float32)
        if features.ndim != 2 or features.shape[0] != actions:
            raise ValueError(
                f"action_features must be an (actions, features) matrix with a row per action "
                f"({actions}), got shape {features.shape}"
            )
        pointers = None
        if observation_pointers is not None:
            pointers = np.asarray(observation_pointers, dtype=np.int64)
            space = args[0] if pointer_key is None else getattr(args[0], "spaces", {}).get(pointer_key)
            if space is None:
                raise ValueError(f"pointer_key={pointer_key!r} names no entry of the observation {args[0]}")
            size = int(np.prod(space.shape or (0,)))
            if pointers.ndim != 2 or pointers.shape[0] != actions or not ((-1 <= pointers) & (pointers < size)).all():
                raise ValueError(
                    f"observation_pointers must be an (actions, m) matrix of indices into the observation "
                    f"(-1 to {size - 1}) with a row per action ({actions}), got shape {pointers.shape}"
                )
        if query_features:
            space = getattr(args[0], "spaces", {}).get(QUERY_KEY)
            if space is None or space.shape != (actions, query_features):
                raise ValueError(
                    f"query_features={query_features} needs a Dict observation with a {QUERY_KEY!r} entry of shape "
                    f"({actions}, {query_features}) (DeductionEnv(query_features=True)), got {args[0]}"
                )
        self.action_features, self.observation_pointers = features, pointers
        self.query_features, self.pointer_key = int(query_features), pointer_key
        self.pointer_weight = _pointer_weight(pointer_weight, pointers, query_features)
        self._observation: torch.Tensor | None = None
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        latent = self.mlp_extractor.latent_dim_pi
        self.action_net = FeatureHead(
            latent, self.action_features, self.observation_pointers, self.query_features, self.pointer_key
        )
        if self.ortho_init:
            self.action_net.weights.apply(lambda m: self.init_weights(m, gain=0.01))
            if self.action_net.state_weights is not None:
                self.action_net.state_weights.apply(lambda m: self.init_weights(m, gain=0.01))
        if self.action_net.state_weights is not None and np.any(self.pointer_weight):
            with torch.no_grad():  # each pointed feature's weight starts here rather than at 0
                bias = self.action_net.state_weights.bias
                if isinstance(self.pointer_weight, tuple):
                    bias[: len(self.pointer_weight)] = torch.tensor(self.pointer_weight)
                else:
                    bias.fill_(self.pointer_weight)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    # The state-dependent features read the observation in the call that scores the actions: every path to the
    # head passes through one of these two (get_distribution calls the base class's extract_features directly).
    def extract_features(self, obs: Any, *args: Any, **kwargs: Any) -> Any:
        self._observation = obs
        return super().extract_features(obs, *args, **kwargs)

    def get_distribution(self, obs: Any, *args: Any, **kwargs: Any) -> Any:
        self._observation = obs
        return super().get_distribution(obs, *args, **kwargs)

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor) -> Any:
        if not self.action_net.reads_observation:
            return super()._get_action_dist_from_latent(latent_pi)
        return self.action_dist.proba_distribution(action_logits=self.action_net(latent_pi, self._observation))

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {
            **super()._get_constructor_parameters(),
            "action_features": self.action_features,
            "observation_pointers": self.observation_pointers,
            "query_features": self.query_features,
            "pointer_key": self.pointer_key,
            "pointer_weight": self.pointer_weight,
        }


def _pointer_weight(
    weight: float | Sequence[float], pointers: np.ndarray | None, query_features: int
) -> float | tuple[float, ...]:
    """``pointer_weight`` checked: one start for every pointed feature (a number), or one per pointer column, in
    order (a sequence, the columns it leaves out start at 0)."""
    if isinstance(weight, (int, float, np.number)) and not isinstance(weight, bool):
        if not np.isfinite(weight):
            raise ValueError(f"pointer_weight must be finite, got {weight}")
        return float(weight)
    weights = tuple(float(w) for w in weight)
    columns = pointers.shape[1] if pointers is not None else query_features
    if not weights or len(weights) > columns or not np.isfinite(weights).all():
        raise ValueError(
            f"pointer_weight per column needs 1 to {columns} finite numbers (the head's pointer columns), "
            f"got {list(weights)}"
        )
    return weights


class FeaturePolicy(_FeatureHeadMixin, ActorCriticPolicy, OneHotInputs):
    """SB3's actor-critic policy (PPO, A2C) with a :class:`FeatureHead`; ``action_features`` in its kwargs."""


class MaskableFeaturePolicy(_FeatureHeadMixin, InverseCdfSampling, MaskableActorCriticPolicy, OneHotInputs):
    """sb3-contrib's maskable actor-critic policy (MaskablePPO) with a :class:`FeatureHead`."""


def policy_for(
    algo: str,
    features: np.ndarray,
    dict_observations: bool = False,
    pointers: np.ndarray | None = None,
    query_features: int = 0,
    pointer_key: str | None = None,
    pointer_weight: float | Sequence[float] = 0.0,
) -> tuple[type, dict[str, Any]]:
    """The feature policy class of ``algo`` (``maskable_ppo``, ``ppo``) and its kwargs for ``features``
    (and ``pointers`` into a Box observation, as ``algo_v0``'s ``observation_pointers()``, or into the Dict
    observation's entry ``pointer_key``, as :func:`deduction_envs.core.rules.marginal_pointers`).

    ``dict_observations``: the env's observations are a ``Dict`` (the
    single-player envs), read with :class:`KnowledgeExtractor`;
    ``query_features``: the width of its :data:`QUERY_KEY` entry, which the
    head reads per action (0: the env has none); ``pointer_weight``: the
    initial weight of every pointed feature (its bias; 0 by default), or a
    sequence of them, one per pointer column in order (those left out start at 0).
    """
    classes = {"maskable_ppo": MaskableFeaturePolicy, "ppo": FeaturePolicy}
    if algo not in classes:
        raise ValueError(f"the features policy is for {' or '.join(classes)}, got {algo!r}")
    if pointers is not None and dict_observations and pointer_key is None:
        raise ValueError("pointers into a Dict observation need the entry they index (pointer_key)")
    if pointer_key is not None and not dict_observations:
        raise ValueError("pointer_key names an entry of a Dict observation")
    if query_features and not dict_observations:
        raise ValueError("query features are an entry of a Dict observation")
    kwargs: dict[str, Any] = {"action_features": np.asarray(features, dtype=np.float32)}
    if pointers is not None:
        kwargs["observation_pointers"] = np.asarray(pointers, dtype=np.int64)
    if pointer_key is not None:
        kwargs["pointer_key"] = pointer_key
    if np.any(pointer_weight):  # the policy checks it (_pointer_weight)
        kwargs["pointer_weight"] = pointer_weight
    if query_features:
        kwargs["query_features"] = int(query_features)
    if dict_observations:
        kwargs["features_extractor_class"] = KnowledgeExtractor
    return classes[algo], kwargs
