"""Reward and observation wrappers for the deduction envs."""

from deduction_envs.wrappers.entropy_reward import EntropyRewardWrapper, entropy_shaping

__all__ = ["EntropyRewardWrapper", "entropy_shaping"]
