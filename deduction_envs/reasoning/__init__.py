"""Knowledge engines for information sets too large to enumerate."""

from deduction_envs.reasoning.algo_hands import AlgoHandPosterior, AlgoKnowledge
from deduction_envs.reasoning.clue_knowledge import ClueKnowledge, ClueSolution, ContradictionError, UndecidedError

__all__ = [
    "AlgoHandPosterior",
    "AlgoKnowledge",
    "ClueKnowledge",
    "ClueSolution",
    "ContradictionError",
    "UndecidedError",
]
