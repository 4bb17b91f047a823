"""``algo_v0``: Algo as a PettingZoo AEC env (documented in :mod:`deduction_envs.envs.algo`)."""

from deduction_envs.envs.algo import env, raw_env

__all__ = ["env", "raw_env"]
