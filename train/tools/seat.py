"""A person in seat 0 of a multiplayer game and agents in the others: what ``train.tools.play_algo`` and
``train.tools.play_clue`` share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.multiplayer import SeatAgent
from deduction_envs.core.multiplayer import MultiplayerRules, Table, play

__all__ = ["Quit", "play_in_seat_zero"]


class Quit(Exception):
    """The person at the terminal quit."""


def play_in_seat_zero(
    rules: MultiplayerRules,
    agents: Sequence[SeatAgent],
    rng: np.random.Generator,
    hear: Callable[[Any], None],
    ask: Callable[[np.ndarray], int],
) -> Table | None:
    """Play one game through the one game loop; the finished table, or None if the person quit.

    ``agents`` sit in seats 1.., seeded from ``rng`` (which then deals);
    ``hear`` is given every event as projected for seat 0 (the person's
    knowledge and what the terminal shows), and ``ask(mask)`` the person's
    action, raising :class:`Quit` (or ``EOFError`` at the end of input) to stop.
    """
    for seat, agent in enumerate(agents, start=1):
        agent.reset(rules, seat, int(rng.integers(2**32)))
    table = Table(rules, rng, [hear, *(agent.observe for agent in agents)])
    try:
        play(table, lambda seat, mask: ask(mask) if seat == 0 else agents[seat - 1].act(mask))
    except (Quit, EOFError):
        print("Bye.")
        return None
    return table
