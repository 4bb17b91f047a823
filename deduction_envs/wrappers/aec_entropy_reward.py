"""Entropy-shaped rewards for the multiplayer (PettingZoo AEC) envs.

Every action changes what every player knows, so after each step each player
``p`` gets, on top of the game's reward::

    scale * (g_p - opponents * sum of g_q over the other players q)

where ``g_p = gamma * phi_p(s') - phi_p(s)`` with ``phi_p = -H_p``, the
entropy in bits of ``p``'s information set, and ``phi = 0`` once the game is
over (:func:`entropy_shaping`, the seam shared with the single-player
wrapper). ``opponents`` > 0 also charges a player for what the others learn.
Both terms are potential-based, so the shaping leaves the optimal policies of
each player (against fixed opponents) unchanged. The env must provide
``entropy(agent)`` on its unwrapped object (``algo_v0`` does).
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from deduction_envs.core.entropy import DEFAULT_ENTROPY_END, ENTROPY_ENDS, entropy_shaping

__all__ = ["DEFAULT_ENTROPY_END", "ENTROPY_ENDS", "AECEntropyRewardWrapper"]



class AECEntropyRewardWrapper(BaseWrapper):
    """Adds each player's information gain (bits, potential-based) to its reward; see the module docstring.

    Args:
        env: a PettingZoo AEC env whose ``unwrapped.entropy(agent)`` is that agent's entropy in bits.
        scale: the weight of the shaping; 0 turns it off.
        gamma: the potential's discount (the learner's, for policy invariance).
        opponents: the weight of the other players' gains, subtracted.

    ``infos[agent]["entropy_reward"]`` holds the term added at the last step.
    """

    def __init__(self, env: AECEnv, scale: float = 1.0, gamma: float = 1.0, opponents: float = 0.0) -> None:
        super().__init__(env)
        for name, value in (("scale", scale), ("opponents", opponents)):
            if not value >= 0:
                raise ValueError(f"{name} must be >= 0, got {value}")
        if not 0 < gamma <= 1:
            raise ValueError(f"gamma must be in (0, 1], got {gamma}")
        if not callable(getattr(env.unwrapped, "entropy", None)):
            raise TypeError(f"{type(env.unwrapped).__name__} has no entropy(agent) method to shape rewards with")
        self.scale, self.gamma, self.opponents = float(scale), float(gamma), float(opponents)
        self._entropy: dict[str, float] = {}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed=seed, options=options)
        self._entropy = {agent: self.env.unwrapped.entropy(agent) for agent in self.possible_agents}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            super().step(action)
            return
        super().step(action)
        raw = self.env.unwrapped
        over = all(raw.terminations.values())
        after = {a: 0.0 if over else raw.entropy(a) for a in self.possible_agents}
        gains = {
            a: entropy_shaping(self._entropy[a], after[a], gamma=self.gamma, terminal=over)
            for a in self.possible_agents
        }
        total = sum(gains.values())
        for a in self.possible_agents:
            shaped = self.scale * (gains[a] - self.opponents * (total - gains[a]))
            raw.add_reward(a, shaped)
            raw.infos[a]["entropy_reward"] = shaped
        self._entropy = after
