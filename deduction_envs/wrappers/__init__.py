"""Reward and observation wrappers for the deduction envs."""
