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
    """``latent -> weights (k) -> logits = features @ weights``, the features a fixed (actions, k) buffer."""

    def __init__(self, latent: int, features: np.ndarray) -> None:
        super().__init__()
        self.weights = nn.Linear(latent, features.shape[1])
        self.register_buffer("features_t", torch.as_tensor(np.ascontiguousarray(features.T), dtype=torch.float32))

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return self.weights(latent) @ self.features_t


class _FeatureHeadMixin:
    """Builds the actor's output as a :class:`FeatureHead` over ``action_features`` (actions x k)."""

    def __init__(self, *args: Any, action_features: Any = None, **kwargs: Any) -> None:
        features = np.asarray(action_features, dtype=np.float32)
        if features.ndim != 2 or features.shape[0] != args[1].n:
            raise ValueError(
                f"action_features must be an (actions, features) matrix with a row per action "
                f"({args[1].n}), got shape {features.shape}"
            )
        self.action_features = features
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = FeatureHead(self.mlp_extractor.latent_dim_pi, self.action_features)
        if self.ortho_init:
            self.action_net.weights.apply(lambda m: self.init_weights(m, gain=0.01))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "action_features": self.action_features}


class FeaturePolicy(_FeatureHeadMixin, ActorCriticPolicy):
    """SB3's actor-critic policy (PPO, A2C) with a :class:`FeatureHead`; ``action_features`` in its kwargs."""


class MaskableFeaturePolicy(_FeatureHeadMixin, MaskableActorCriticPolicy):
    """sb3-contrib's maskable actor-critic policy (MaskablePPO) with a :class:`FeatureHead`."""


def policy_for(algo: str, features: np.ndarray, dict_observations: bool = False) -> tuple[type, dict[str, Any]]:
    """The feature policy class of ``algo`` (``maskable_ppo``, ``ppo``) and its kwargs for ``features``.

    ``dict_observations``: the env's observations are a ``Dict`` (the
    single-player envs), read with SB3's ``CombinedExtractor``.
    """
    classes = {"maskable_ppo": MaskableFeaturePolicy, "ppo": FeaturePolicy}
    if algo not in classes:
        raise ValueError(f"the features policy is for {' or '.join(classes)}, got {algo!r}")
    kwargs: dict[str, Any] = {"action_features": np.asarray(features, dtype=np.float32)}
    if dict_observations:
        from stable_baselines3.common.torch_layers import CombinedExtractor

        kwargs["features_extractor_class"] = CombinedExtractor
    return classes[algo], kwargs
