"""Algo's reference opponents inside the batch (issue 61): so far the random agent
(:class:`agents.batched.BatchedRandom`). The epsilon-greedy and max-entropy agents read the hand posterior, which
the batched twin does not compute yet."""

from __future__ import annotations

from agents.batched import BatchedAgent, BatchedRandom, named_agent

__all__ = ["BATCHED_AGENTS", "batched_agent"]

#: The compiled twins, by the roster's names (:mod:`agents.roster`).
BATCHED_AGENTS: dict[str, type] = {"random": BatchedRandom}


def batched_agent(name: str) -> BatchedAgent:
    """A compiled reference agent of Algo by its roster name (ValueError naming the choices if none)."""
    return named_agent(BATCHED_AGENTS, "Algo", name)
