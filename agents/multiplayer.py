"""The contract of a multiplayer agent, and games and matches between such agents.

A :class:`SeatAgent` sits in one seat. :meth:`SeatAgent.reset` gives it the
rules (which every player knows), its seat and an empty knowledge of that
seat (:func:`deduction_envs.registry.new_knowledge`); :meth:`SeatAgent.observe` gives it
every event *as projected for its seat* (the deal first), which keeps the
knowledge; :meth:`SeatAgent.act` chooses from that knowledge and the legal
mask, never from the state, which holds the other players' cards.

:func:`play_game` and :func:`play_match` run games between agents on the
pure rules (any :class:`~deduction_envs.core.multiplayer.MultiplayerRules`)
through the one game loop of :mod:`deduction_envs.core.multiplayer`, which
the AEC envs step too.
"""

from __future__ import annotations

import abc
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from deduction_envs import registry
from deduction_envs.core.multiplayer import Knowledge, MultiplayerRules, Table, both, play
from deduction_envs.core.rules import check_int

__all__ = [
    "GameRecord",
    "Logged",
    "MatchResult",
    "RandomSeatAgent",
    "SeatAgent",
    "TOURNAMENT_MAX_ACTIONS",
    "play_game",
    "play_match",
    "reshown_card",
]


#: The action cap of tournaments and evaluations, which stop a game there as nobody's win (``truncate=True``) so
#: that one looping agent does not stop a run: 50 times the longest games of the shipped agents (Clue on the
#: board, six deduction sheets: at most 187 actions in ten games).
TOURNAMENT_MAX_ACTIONS = 10_000


class SeatAgent(abc.ABC):
    """A policy for one seat of a multiplayer game; see the module docstring."""

    #: A short name for tables.
    name: str = "agent"
    #: Whether :meth:`observe` keeps :attr:`knowledge` (agents that never read it may skip the work).
    keeps_knowledge: bool = True

    def __init__(self) -> None:
        self.rules: Any = None
        self.seat = -1
        self.knowledge: Knowledge | None = None
        self.rng = np.random.default_rng()

    def reset(self, rules: MultiplayerRules, seat: int, seed: int | None = None) -> None:
        """Start a game of ``rules`` in ``seat`` with empty knowledge; ``seed`` fixes the agent's own randomness."""
        self.rules = rules
        self.seat = seat
        self.knowledge = registry.new_knowledge(rules, seat) if self.keeps_knowledge else None
        self.rng = np.random.default_rng(seed)

    def observe(self, event: Any) -> None:
        """An event as projected for this seat (the deal first, then every player's action)."""
        if self.knowledge is not None:
            self.knowledge.update(event)

    @abc.abstractmethod
    def act(self, mask: np.ndarray) -> int:
        """The action to take, given the bool ``mask`` of legal actions (the agent's knowledge is up to date)."""


class RandomSeatAgent(SeatAgent):
    """A uniformly random legal action."""

    name = "random"
    keeps_knowledge = False

    def act(self, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(legal.size)])


def reshown_card(
    cards: np.ndarray, shown: np.ndarray, asker: int, rng: np.random.Generator, most_shown: bool = False
) -> int | None:
    """A refuter's card that gives least away: one of ``cards`` it has already shown the asker, else one it has
    shown anyone (``shown[seat, card]``), drawn at random; None if it has shown none of them.

    ``most_shown``: among the cards shown to anyone, only those shown to the most players (Velma's rule, "the
    card most often shown previously", as far as the record, which keeps whom a card was shown to, can say).
    """
    counts = (shown[:, cards] > 0).sum(axis=0)
    anyone = cards[counts == counts.max()] if most_shown and counts.max() > 0 else cards[counts > 0]
    for pool in (cards[shown[asker, cards] > 0], anyone):
        if pool.size:
            return int(rng.choice(pool))
    return None


class Logged(SeatAgent):
    """The agent it wraps, logging each decision as ``(seat, action, seconds)``.

    ``log`` is the list to append to (default its own): give every seat of a game the same list to have the
    game's decisions in the order they were made. The log is emptied when a game starts (:meth:`reset`).
    """

    def __init__(self, agent: SeatAgent, log: list[tuple[int, int, float]] | None = None) -> None:
        super().__init__()
        self.agent, self.name = agent, agent.name
        self.log: list[tuple[int, int, float]] = [] if log is None else log

    def reset(self, rules: Any, seat: int, seed: int | None = None) -> None:
        self.agent.reset(rules, seat, seed)
        self.rules, self.seat = rules, seat
        self.log.clear()

    def observe(self, event: Any) -> None:
        self.agent.observe(event)

    def act(self, mask: np.ndarray) -> int:
        start = time.perf_counter()
        action = int(self.agent.act(mask))
        self.log.append((self.seat, action, time.perf_counter() - start))
        return action


@dataclass(frozen=True)
class GameRecord:
    """One finished game: the agents' names by seat, the winner (None if nobody won), rewards and actions.

    With the seed it was played from, ``actions`` replays the game. ``truncated``: the game was stopped at
    :func:`play_game`'s action cap (nobody won, every reward 0).
    """

    seats: tuple[str, ...]
    winner: int | None
    rewards: tuple[float, ...]
    actions: tuple[int, ...]
    first: int
    truncated: bool = False


def play_game(
    rules: MultiplayerRules,
    agents: Sequence[SeatAgent],
    seed: int | Sequence[int] | None = None,
    first: int = 0,
    max_actions: int = 100_000,
    listeners: Sequence[Callable[[Any], None]] | None = None,
    watch: Callable[[Table], None] | None = None,
    truncate: bool = False,
) -> GameRecord:
    """Play one game, ``agents[p]`` in seat ``p`` and seat ``first`` to move first.

    The deal uses its own stream of ``seed``, and each agent another, so an
    agent's randomness never changes the deal. Each agent observes only the
    events projected for its seat.

    For analyses: ``listeners[p]``, if given, is told every event seat ``p``
    sees, after its agent; ``watch(table)`` is called before every action and
    once at the end (the table's ``last_event``, ``mover`` and ``over`` say
    where the game is).

    A game not over after ``max_actions`` actions (agents that never end it)
    raises a ``RuntimeError``; with ``truncate`` it is recorded as stopped
    there: nobody's win, every reward 0, ``truncated`` set, as the AEC envs'
    ``max_cycles`` truncation scores it.
    """
    check_int("max_actions", max_actions, low=1)
    if len(agents) != rules.players:
        raise ValueError(f"the game has {rules.players} seats, got {len(agents)} agents")
    if listeners is not None and len(listeners) != rules.players:
        raise ValueError(f"the game has {rules.players} seats, got {len(listeners)} listeners")
    streams = np.random.SeedSequence(seed).spawn(len(agents) + 1)
    for seat, agent in enumerate(agents):
        agent.reset(rules, seat, int(streams[seat + 1].generate_state(1)[0]))
    observers: list[Callable[[Any], None]] = [agent.observe for agent in agents]
    if listeners is not None:
        observers = [both(observe, listen) for observe, listen in zip(observers, listeners, strict=True)]
    table = Table(rules, np.random.default_rng(streams[0]), observers, first)

    def choose(seat: int, mask: np.ndarray) -> int:
        if watch is not None:
            watch(table)
        return agents[seat].act(mask)

    ended = play(table, choose, max_actions, truncate)
    if watch is not None:
        watch(table)
    names = tuple(a.name for a in agents)
    if not ended:
        return GameRecord(names, None, (0.0,) * len(agents), tuple(table.actions), first, truncated=True)
    return GameRecord(names, rules.winner(table.state), tuple(rules.rewards(table.state)), tuple(table.actions), first)


@dataclass(frozen=True)
class MatchResult:
    """Games between agents with the seats rotated: each game's record and which agent sat in each seat.

    ``lineups[g][seat]`` is the index (in the match's agent list) of the agent
    in ``seat`` of game ``g``; agents may share a name.
    """

    names: tuple[str, ...]
    games: tuple[GameRecord, ...]
    lineups: tuple[tuple[int, ...], ...]

    def wins(self, agent: int) -> int:
        """Games won by ``agent`` (its index in the match)."""
        return sum(
            game.winner is not None and lineup[game.winner] == agent
            for game, lineup in zip(self.games, self.lineups, strict=True)
        )

    def win_rate(self, agent: int) -> float:
        return self.wins(agent) / len(self.games)

    @property
    def truncated(self) -> int:
        """Games stopped at the action cap (see :func:`play_game`'s ``truncate``)."""
        return sum(game.truncated for game in self.games)


def play_match(
    rules: MultiplayerRules,
    agents: Sequence[SeatAgent],
    games: int,
    seed: int = 0,
    start: int = 0,
    after_game: Callable[[GameRecord, tuple[int, ...]], None] | None = None,
    max_actions: int = 100_000,
    truncate: bool = False,
) -> MatchResult:
    """``games`` games with the agents rotated through the seats (seat 0 moves first), balanced when
    ``games`` is a multiple of the number of players; game ``g`` is seeded ``(seed, g)``.

    ``agents`` must be distinct objects (each keeps its own seat's knowledge).
    ``start``: the index of the first game, so that a match split into parts
    (one per worker) plays the same games as a whole one. ``after_game(record,
    lineup)`` is called after each game (to read what the agents logged).
    ``max_actions`` and ``truncate``: as for :func:`play_game` (with ``truncate``,
    a game stopped at the cap is nobody's win and a match goes on).
    """
    if len({id(a) for a in agents}) != len(agents):
        raise ValueError("agents must be distinct objects, one per seat (each keeps its own seat's knowledge)")
    check_int("games", games, low=0)
    check_int("start", start, low=0)
    records, lineups = [], []
    for g in range(start, start + games):
        shift = g % len(agents)
        lineup = tuple((p + shift) % len(agents) for p in range(len(agents)))
        records.append(
            play_game(rules, [agents[i] for i in lineup], seed=(seed, g), max_actions=max_actions, truncate=truncate)
        )
        lineups.append(lineup)
        if after_game is not None:
            after_game(records[-1], lineup)
    return MatchResult(tuple(a.name for a in agents), tuple(records), tuple(lineups))
