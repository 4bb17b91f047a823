"""Entropy-shaped rewards: information gained, in bits, as potential-based shaping.

With the potential ``phi(s) = -H(s)``, minus the entropy of the player's
information set in bits, the shaping term of Ng, Harada & Russell (1999) is

    F(s, s') = scale * (gamma * phi(s') - phi(s)) = scale * (H(s) - gamma * H(s'))

which, with ``gamma = 1``, is the information the step gained. Adding it to
the env's reward leaves the optimal policy unchanged (for the discount
``gamma`` the learner uses), while rewarding every query by what it taught.
The potential of a terminal state is zero, so a terminal step adds
``scale * H(s)``; a truncated episode keeps its last state's potential.
Over a whole episode with ``gamma = 1`` the shaping therefore adds
``scale * (H0 - H_final)``, where ``H_final`` is the entropy left at
truncation and counts as zero at termination.

The entropy comes from the env's own information set (``info["entropy"]``),
so the wrapper never touches the secret.

For the multiplayer envs, :func:`entropy_shaping` is the seam: an AEC
wrapper applies it to each agent with that agent's own information set, and
can subtract what the agent's move taught its opponents (the Algo article's
point that what I reveal is a loss) by shaping with the opponents' entropy as
well.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym

from deduction_envs.core.entropy import check_shaping, entropy_shaping

__all__ = ["EntropyRewardWrapper", "entropy_shaping"]


class EntropyRewardWrapper(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Adds the information each query gained (in bits, potential-based) to the reward.

    Works on every single-player deduction env; see the module docstring for
    the shaping and its guarantees. ``info["entropy_reward"]`` holds the term
    added at each step.

    Args:
        env: a deduction env (anything whose ``reset`` and ``step`` put the
            information set's entropy in bits into ``info["entropy"]``).
        scale: the weight of the shaping term; 0 turns it off.
        gamma: the discount of the potential; set it to the learner's
            discount for the policy-invariance guarantee.

    Example::

        import gymnasium as gym
        import deduction_envs
        from deduction_envs.wrappers import EntropyRewardWrapper

        gym.register_envs(deduction_envs)
        env = EntropyRewardWrapper(gym.make("Mastermind-v0", pegs=3, colors=4), scale=0.5)
    """

    @staticmethod
    def check(scale: float, gamma: float) -> None:
        """Refuse a ``scale`` below 0 or a ``gamma`` outside [0, 1] with a ValueError naming it."""
        check_shaping(scale, gamma)

    def __init__(self, env: gym.Env, scale: float = 1.0, gamma: float = 1.0) -> None:
        self.check(scale, gamma)
        # Recorded so that env.spec (and gym.make(env.spec)) recreates the wrapper, as Gymnasium's wrappers do.
        gym.utils.RecordConstructorArgs.__init__(self, scale=scale, gamma=gamma)
        gym.Wrapper.__init__(self, env)
        self.scale = float(scale)
        self.gamma = float(gamma)
        self._entropy: float | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self._entropy = self._entropy_of(info)
        return observation, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._entropy is None:
            raise RuntimeError("call reset() before step()")
        observation, reward, terminated, truncated, info = self.env.step(action)
        entropy = self._entropy_of(info)
        bonus = entropy_shaping(self._entropy, entropy, scale=self.scale, gamma=self.gamma, terminal=terminated)
        self._entropy = entropy
        info["entropy_reward"] = bonus
        return observation, float(reward) + bonus, terminated, truncated, info

    @staticmethod
    def _entropy_of(info: dict[str, Any]) -> float:
        try:
            return float(info["entropy"])
        except KeyError:
            raise ValueError(
                "EntropyRewardWrapper needs the information set's entropy in info['entropy'], "
                "as every deduction env gives it"
            ) from None
