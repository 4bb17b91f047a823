"""Reference policies that trained agents are compared against.

Agents are built from a game's rules and learn only from their own
observations; they never see a secret. See :class:`agents.base.Agent`.
"""

from agents.base import Agent
from agents.evaluation import EvaluationResult, evaluate
from agents.ises import ISES
from agents.ismcts import ISMCTS
from agents.random_agent import RandomAgent
from agents.sb3_policy import SB3Policy

__all__ = ["ISES", "ISMCTS", "Agent", "EvaluationResult", "RandomAgent", "SB3Policy", "evaluate"]
