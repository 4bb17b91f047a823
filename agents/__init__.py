"""Reference policies that trained agents are compared against.

Agents are built from a game's rules and learn only from their own
observations; they never see a secret. See :class:`agents.base.Agent` for
single-player games and :class:`agents.multiplayer.SeatAgent` for
multiplayer ones.
"""

from agents.algo_agents import AlgoEpsilonGreedy, AlgoMaxEntropy
from agents.base import Agent
from agents.clue_agents import ClueDeductionSheet, ClueEntropyAgent
from agents.clue_velma import ClueVelma
from agents.evaluation import EvaluationResult, evaluate
from agents.generalized_clue_agents import GeneralizedClueExact, GeneralizedClueRandom, GeneralizedClueScoreboard
from agents.ises import ISES
from agents.ismcts import ISMCTS
from agents.knuth import Knuth
from agents.marginal_rule import MarginalRule
from agents.multiplayer import GameRecord, Logged, MatchResult, RandomSeatAgent, SeatAgent, play_game, play_match
from agents.multiplayer_ismcts import (
    SOISMCTS,
    AlgoSearchPolicy,
    ClueSearchPolicy,
    SearchPolicy,
    algo_search,
    clue_search,
)
from agents.random_agent import RandomAgent
from agents.sb3_policy import SB3Policy, SB3SeatPolicy
from deduction_envs.core.renamed import renamed

__all__ = [
    "ISES",
    "ISMCTS",
    "Agent",
    "AlgoEpsilonGreedy",
    "AlgoMaxEntropy",
    "AlgoSearchPolicy",
    "ClueDeductionSheet",
    "ClueSearchPolicy",
    "ClueEntropyAgent",
    "ClueVelma",
    "EvaluationResult",
    "GeneralizedClueExact",
    "GeneralizedClueRandom",
    "GeneralizedClueScoreboard",
    "GameRecord",
    "Knuth",
    "MarginalRule",
    "Logged",
    "MatchResult",
    "RandomAgent",
    "RandomSeatAgent",
    "SB3Policy",
    "SB3SeatPolicy",
    "SOISMCTS",
    "SearchPolicy",
    "SeatAgent",
    "algo_search",
    "clue_search",
    "evaluate",
    "play_game",
    "play_match",
]

#: The Generalized Clue agents' names before they spelt the game out, kept for one version.
__getattr__ = renamed(
    __name__,
    {
        "GCExact": "GeneralizedClueExact",
        "GCRandom": "GeneralizedClueRandom",
        "GCScoreboard": "GeneralizedClueScoreboard",
    },
)
