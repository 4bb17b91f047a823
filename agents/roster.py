"""The reference agents of each multiplayer env, by name: what ``--opponent(s)`` options and evaluations seat.

    from agents.roster import seat_agent, SEAT_AGENTS

    seat_agent("clue_v0", "deduction_sheet")      # a fresh ClueDeductionSheet
    sorted(SEAT_AGENTS["algo_v0"])                # ['epsilon_greedy', 'ismcts', 'ismcts_greedy', ...]

Each entry makes a fresh agent (agents keep their seat's knowledge, so every
seat needs its own). The names are the env modules' names (``algo_v0``,
``clue_v0``, ``generalized_clue_v0``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from agents.algo_agents import AlgoEpsilonGreedy, AlgoMaxEntropy
from agents.clue_agents import ClueDeductionSheet, ClueEntropyAgent
from agents.generalized_clue_agents import GCExact, GCRandom, GCScoreboard
from agents.multiplayer import RandomSeatAgent, SeatAgent
from agents.multiplayer_ismcts import SOISMCTS, AlgoSearchPolicy, ClueSearchPolicy

__all__ = ["SEAT_AGENTS", "seat_agent"]

#: Per env, each reference agent's maker by name.
SEAT_AGENTS: dict[str, dict[str, Callable[[], SeatAgent]]] = {
    "algo_v0": {
        "random": RandomSeatAgent,
        "epsilon_greedy": partial(AlgoEpsilonGreedy, 0.1),
        "max_entropy": AlgoMaxEntropy,
        "ismcts": partial(SOISMCTS, iterations=200),
        "ismcts_greedy": lambda: SOISMCTS(iterations=100, policy=AlgoSearchPolicy()),
        # Every root option about 200 play-outs, so that the choice follows their values rather than chance:
        # 100 iterations choose as a precise search would in 84% of stop decisions (results/multiplayer_training.md).
        "ismcts_greedy_precise": lambda: SOISMCTS(iterations=400, exploration=10.0, policy=AlgoSearchPolicy()),
    },
    "clue_v0": {
        "random": RandomSeatAgent,
        "deduction_sheet": ClueDeductionSheet,
        "entropy": ClueEntropyAgent,
        "ismcts": lambda: SOISMCTS(iterations=None, time_limit=0.25, policy=ClueSearchPolicy()),
    },
    "generalized_clue_v0": {
        "random": GCRandom,
        "scoreboard": GCScoreboard,
        "interrogation_pattern": partial(GCScoreboard, patterns=True),
        "exact": GCExact,
    },
}


def seat_agent(env: str, name: str) -> SeatAgent:
    """A fresh reference agent ``name`` of ``env`` (see :data:`SEAT_AGENTS`), named ``name`` in tables."""
    if env not in SEAT_AGENTS:
        raise ValueError(f"env must be one of {', '.join(SEAT_AGENTS)}, got {env!r}")
    makers = SEAT_AGENTS[env]
    if name not in makers:
        raise ValueError(f"{env}'s reference agents are {', '.join(makers)}, got {name!r}")
    agent = makers[name]()
    agent.name = name
    return agent
