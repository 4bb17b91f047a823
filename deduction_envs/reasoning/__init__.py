"""Knowledge engines for information sets too large to enumerate."""

from deduction_envs.reasoning.algo_hands import AlgoHandPosterior

__all__ = ["AlgoHandPosterior"]
