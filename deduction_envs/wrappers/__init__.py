"""Reward and observation wrappers for the deduction envs."""

from deduction_envs.wrappers.aec_entropy_reward import AECEntropyRewardWrapper
from deduction_envs.wrappers.entropy_reward import EntropyRewardWrapper, entropy_shaping

__all__ = ["AECEntropyRewardWrapper", "EntropyRewardWrapper", "entropy_shaping"]
