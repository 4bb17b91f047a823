"""Thin adapters from rules to Gymnasium (and, later, PettingZoo) envs."""

from deduction_envs.envs.deduction_env import DeductionEnv
from deduction_envs.envs.registration import ENV_IDS, register_envs

__all__ = ["ENV_IDS", "DeductionEnv", "register_envs"]
