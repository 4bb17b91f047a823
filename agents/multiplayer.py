"""The contract of a multiplayer agent, and games and matches between such agents.

A :class:`SeatAgent` sits in one seat. It is built from the rules (which
every player knows) by :meth:`SeatAgent.reset`, sees every public event
through :meth:`SeatAgent.observe`, and chooses from its own view of the game
(:meth:`SeatAgent.act`): never the state, which holds the other players'
cards. :func:`play_game` and :func:`play_match` run games between agents
on the pure rules, without an env, which is what tournaments want.

The rules object of a multiplayer game provides ``new_game(rng, first)``,
``legal_mask(state)``, ``apply(state, action) -> event``,
``view(state, player)``, and a state with ``mover``, ``winner`` (None until
the game is over) and ``ranking`` (the players best first, once it is); Algo's
(:class:`deduction_envs.games.algo.AlgoRules`) is the first.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["GameRecord", "MatchResult", "RandomSeatAgent", "SeatAgent", "play_game", "play_match"]


class SeatAgent(abc.ABC):
    """A policy for one seat of a multiplayer game; see the module docstring."""

    #: A short name for tables.
    name: str = "agent"

    def __init__(self) -> None:
        self.rules: Any = None
        self.seat = -1
        self.rng = np.random.default_rng()

    def reset(self, rules: Any, seat: int, seed: int | None = None) -> None:
        """Start a game of ``rules`` in ``seat``; ``seed`` fixes the agent's own randomness."""
        self.rules = rules
        self.seat = seat
        self.rng = np.random.default_rng(seed)

    def observe(self, event: Any) -> None:  # noqa: B027 - agents that keep no history need not override it
        """A public event of the game (any player's action and what everyone saw)."""

    @abc.abstractmethod
    def act(self, view: Any, mask: np.ndarray) -> int:
        """The action to take, given this seat's ``view`` and the bool ``mask`` of legal actions."""


class RandomSeatAgent(SeatAgent):
    """A uniformly random legal action."""

    name = "random"

    def act(self, view: Any, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(legal.size)])


@dataclass(frozen=True)
class GameRecord:
    """One finished game: the agents' names by seat, the ranking (best first) and the actions played."""

    seats: tuple[str, ...]
    ranking: tuple[int, ...]
    actions: int
    first: int

    @property
    def winner(self) -> int:
        return self.ranking[0]


def play_game(
    rules: Any,
    agents: Sequence[SeatAgent],
    seed: int | Sequence[int] | None = None,
    first: int = 0,
    max_actions: int = 100_000,
) -> GameRecord:
    """Play one game, ``agents[p]`` in seat ``p`` and seat ``first`` to move first.

    The deal uses its own stream of ``seed``, and each agent another, so an
    agent's randomness never changes the deal.
    """
    if len(agents) != rules.players:
        raise ValueError(f"the game has {rules.players} seats, got {len(agents)} agents")
    streams = np.random.SeedSequence(seed).spawn(len(agents) + 1)
    state = rules.new_game(np.random.default_rng(streams[0]), first=first)
    for seat, agent in enumerate(agents):
        agent.reset(rules, seat, int(streams[seat + 1].generate_state(1)[0]))
    actions = 0
    while state.winner is None:
        if actions >= max_actions:
            raise RuntimeError(f"no winner after {max_actions} actions")
        mover = state.mover
        action = agents[mover].act(rules.view(state, mover), rules.legal_mask(state))
        event = rules.apply(state, action)
        for agent in agents:
            agent.observe(event)
        actions += 1
    return GameRecord(tuple(a.name for a in agents), state.ranking, actions, first)


@dataclass(frozen=True)
class MatchResult:
    """Games between agents with the seats rotated: wins per agent, and per agent and seat order."""

    names: tuple[str, ...]
    games: tuple[GameRecord, ...]

    def wins(self, agent: int) -> int:
        """Games won by ``agent`` (its index in the match)."""
        return sum(game.seats[game.winner] == self.names[agent] for game in self.games)

    def win_rate(self, agent: int) -> float:
        return self.wins(agent) / len(self.games)


def play_match(rules: Any, agents: Sequence[SeatAgent], games: int, seed: int = 0) -> MatchResult:
    """``games`` games with the agents rotated through the seats (seat 0 moves first), balanced when
    ``games`` is a multiple of the number of players; game ``g`` is seeded ``(seed, g)``.

    Agents' names must differ (they identify the winners).
    """
    names = tuple(a.name for a in agents)
    if len(set(names)) != len(names):
        raise ValueError(f"agents' names must differ to tell their wins apart, got {names}")
    records = []
    for g in range(games):
        shift = g % len(agents)
        seated = [agents[(p + shift) % len(agents)] for p in range(len(agents))]
        records.append(play_game(rules, seated, seed=(seed, g)))
    return MatchResult(names, tuple(records))
