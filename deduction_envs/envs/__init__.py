"""Thin adapters from rules to Gymnasium (and, later, PettingZoo) envs."""

from deduction_envs.envs.deduction_env import DeductionEnv
from deduction_envs.envs.registration import ENV_IDS, env_rules, register_envs

__all__ = ["ENV_IDS", "DeductionEnv", "env_rules", "register_envs"]
