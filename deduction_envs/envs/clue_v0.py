"""``clue_v0``: Clue as a PettingZoo AEC env (documented in :mod:`deduction_envs.envs.clue`)."""

from deduction_envs.envs.clue import env, raw_env

__all__ = ["env", "raw_env"]
