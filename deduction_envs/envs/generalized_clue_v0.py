"""``generalized_clue_v0``: Generalized Clue as a PettingZoo AEC env (documented in
:mod:`deduction_envs.envs.generalized_clue`)."""

from deduction_envs.envs.generalized_clue import env, raw_env

__all__ = ["env", "raw_env"]
