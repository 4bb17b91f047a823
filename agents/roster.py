"""The reference agents of each multiplayer game, by name: what ``--opponent(s)`` options and evaluations seat.

    from agents.roster import seat_agent, agent_names

    seat_agent("clue_v0", "deduction_sheet")      # a fresh ClueDeductionSheet
    agent_names("algo_v0")                        # ['random', 'epsilon_greedy', 'max_entropy', 'ismcts', ...]

The agents are declared with their game in :mod:`deduction_envs.registry`; this module makes them. Each call
makes a fresh agent (agents keep their seat's knowledge, so every seat needs its own).
"""

from __future__ import annotations

from agents.multiplayer import SeatAgent
from deduction_envs import registry

__all__ = ["agent_names", "seat_agent"]


def _multiplayer(env: str) -> registry.Game:
    game = registry.game(env)
    if not game.multiplayer:
        names = ", ".join(g.env_id for g in registry.games(multiplayer=True))
        raise ValueError(f"env must be a multiplayer game ({names}), got {env!r}")
    return game


def agent_names(env: str) -> list[str]:
    """The reference agents of multiplayer game ``env`` (its id, module or name), in the registry's order."""
    return list(_multiplayer(env).agents)


def seat_agent(env: str, name: str) -> SeatAgent:
    """A fresh reference agent ``name`` of ``env``, named ``name`` in tables."""
    agent = _multiplayer(env).make_agent(name)
    agent.name = name
    return agent
