"""Policies that score each action by its features: logits ``= action_features @ g(observation)``.

A flat softmax over hundreds of actions learns each one separately. Where the
actions have structure (Clue's accusation is three cards; its score can be
the sum of theirs), a head that maps the network's latent vector to one
weight per *feature* and scores every action as the dot product of its
feature row with those weights learns the structure once.
``rules.action_features()`` gives the matrix (``ClueRules.action_features``).

    from train.policies import policy_for
    policy, kwargs = policy_for("maskable_ppo", features)   # features: (actions, k)
    model = MaskablePPO(policy, env, policy_kwargs=kwargs)

The head replaces SB3's last actor layer; masks, the value head and
everything else are the libraries' own, and a saved model loads with
``MaskablePPO.load`` as usual (the matrix is saved in its policy kwargs).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy
from torch import nn

__all__ = ["FeatureHead", "FeaturePolicy", "MaskableFeaturePolicy", "policy_for"]


class FeatureHead(nn.Module):
    """``logits = features @ w(latent)``, plus, with ``pointers``, ``sum_j observation[pointers[:, j]] * v_j(latent)``.

    ``features`` is a fixed (actions, k) matrix; ``pointers`` an (actions, m)
    matrix of indices into the observation vector (-1: none), which gives each
    action m state-dependent features read from the observation (Algo: an
    attack's probability to hit).
    """

    def __init__(self, latent: int, features: np.ndarray, pointers: np.ndarray | None = None) -> None:
        super().__init__()
        self.weights = nn.Linear(latent, features.shape[1])
        self.register_buffer("features_t", torch.as_tensor(np.ascontiguousarray(features.T), dtype=torch.float32))
        pointers = None if pointers is None else torch.as_tensor(np.asarray(pointers), dtype=torch.long)
        self.register_buffer("pointers", pointers)  # None registers no buffer, and reads as None
        if pointers is not None:
            self.pointer_weights = nn.Linear(latent, pointers.shape[1])

    def forward(self, latent: torch.Tensor, observation: torch.Tensor | None = None) -> torch.Tensor:
        logits = self.weights(latent) @ self.features_t
        if self.pointers is not None:
            if observation is None:
                raise ValueError("a head with pointers needs the observation")
            flat = observation.reshape(observation.shape[0], -1).float()
            padded = torch.nn.functional.pad(flat, (0, 1))  # index -1 reads the appended 0
            read = padded[:, self.pointers]  # (batch, actions, m)
            logits = logits + (read * self.pointer_weights(latent)[:, None, :]).sum(dim=-1)
        return logits


class _FeatureHeadMixin:
    """Builds the actor's output as a :class:`FeatureHead` over ``action_features`` (actions x k) and, if given,
    ``observation_pointers`` (actions x m)."""

    def __init__(
        self, *args: Any, action_features: Any = None, observation_pointers: Any = None, **kwargs: Any
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
            size = int(np.prod(args[0].shape or (0,)))
            if pointers.ndim != 2 or pointers.shape[0] != actions or not ((-1 <= pointers) & (pointers < size)).all():
                raise ValueError(
                    f"observation_pointers must be an (actions, m) matrix of indices into the observation "
                    f"(-1 to {size - 1}) with a row per action ({actions}), got shape {pointers.shape}"
                )
        self.action_features, self.observation_pointers = features, pointers
        self._observation: torch.Tensor | None = None
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        latent = self.mlp_extractor.latent_dim_pi
        self.action_net = FeatureHead(latent, self.action_features, self.observation_pointers)
        if self.ortho_init:
            self.action_net.weights.apply(lambda m: self.init_weights(m, gain=0.01))
            if self.observation_pointers is not None:
                self.action_net.pointer_weights.apply(lambda m: self.init_weights(m, gain=0.01))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    # The pointers read the observation in the call that scores the actions: every path to the head passes
    # through one of these two (get_distribution calls the base class's extract_features directly).
    def extract_features(self, obs: Any, *args: Any, **kwargs: Any) -> Any:
        self._observation = obs
        return super().extract_features(obs, *args, **kwargs)

    def get_distribution(self, obs: Any, *args: Any, **kwargs: Any) -> Any:
        self._observation = obs
        return super().get_distribution(obs, *args, **kwargs)

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor) -> Any:
        if self.observation_pointers is None:
            return super()._get_action_dist_from_latent(latent_pi)
        return self.action_dist.proba_distribution(action_logits=self.action_net(latent_pi, self._observation))

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {
            **super()._get_constructor_parameters(),
            "action_features": self.action_features,
            "observation_pointers": self.observation_pointers,
        }


class FeaturePolicy(_FeatureHeadMixin, ActorCriticPolicy):
    """SB3's actor-critic policy (PPO, A2C) with a :class:`FeatureHead`; ``action_features`` in its kwargs."""


class MaskableFeaturePolicy(_FeatureHeadMixin, MaskableActorCriticPolicy):
    """sb3-contrib's maskable actor-critic policy (MaskablePPO) with a :class:`FeatureHead`."""


def policy_for(
    algo: str, features: np.ndarray, dict_observations: bool = False, pointers: np.ndarray | None = None
) -> tuple[type, dict[str, Any]]:
    """The feature policy class of ``algo`` (``maskable_ppo``, ``ppo``) and its kwargs for ``features``
    (and ``pointers`` into a Box observation, as ``algo_v0``'s ``observation_pointers()``).

    ``dict_observations``: the env's observations are a ``Dict`` (the
    single-player envs), read with SB3's ``CombinedExtractor`` (no pointers).
    """
    classes = {"maskable_ppo": MaskableFeaturePolicy, "ppo": FeaturePolicy}
    if algo not in classes:
        raise ValueError(f"the features policy is for {' or '.join(classes)}, got {algo!r}")
    if pointers is not None and dict_observations:
        raise ValueError("observation pointers index a Box observation, not a Dict")
    kwargs: dict[str, Any] = {"action_features": np.asarray(features, dtype=np.float32)}
    if pointers is not None:
        kwargs["observation_pointers"] = np.asarray(pointers, dtype=np.int64)
    if dict_observations:
        from stable_baselines3.common.torch_layers import CombinedExtractor

        kwargs["features_extractor_class"] = CombinedExtractor
    return classes[algo], kwargs
