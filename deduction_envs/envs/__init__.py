"""Thin adapters from rules to Gymnasium envs and PettingZoo AEC envs (``algo_v0``, ``clue_v0``)."""

from deduction_envs.envs import algo_v0, clue_v0
from deduction_envs.envs.deduction_env import DeductionEnv
from deduction_envs.envs.registration import ENV_IDS, env_rules, register_envs

__all__ = ["ENV_IDS", "DeductionEnv", "algo_v0", "clue_v0", "env_rules", "register_envs"]
