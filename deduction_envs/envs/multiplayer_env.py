"""The one PettingZoo AEC env under every multiplayer game (``algo_v0``, ``clue_v0``).

:class:`MultiplayerAECEnv` owns everything the games share: reset and seeding,
the :class:`~deduction_envs.core.multiplayer.Table` that applies actions and
delivers each event, projected, to each seat's knowledge; the agent to act;
actions outside the action space and masked actions; terminal states,
rewards and ``max_cycles`` truncation; each agent's ``entropy``; the render
modes. A game's env module subclasses it with the observation encoder, the
renders and its documentation page.

Masked actions
--------------
An action inside the action space that the mask forbids follows PettingZoo's
convention for classic games (the policy of ``DESIGN.md``, in this one
place): the game ends at once, the player who chose it gets ``-1`` and the
others ``0``, and ``infos[agent]["illegal_action"]`` says so. With
``illegal_action="raise"`` (the strict mode, named as in the Gymnasium envs; ``strict=True`` is its
deprecated alias, for one version) the env raises ``ValueError`` instead and changes nothing. An
action outside the action space always raises ``ValueError``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from deduction_envs import registry
from deduction_envs.core.multiplayer import Knowledge, MultiplayerRules, Table, both
from deduction_envs.core.rules import check_int, check_options, check_seed

__all__ = ["ILLEGAL_ACTION_REWARD", "MultiplayerAECEnv", "ObservationPieces", "Observer", "wrap"]

#: The reward of a player whose action was masked (the game ends; the others get 0).
ILLEGAL_ACTION_REWARD = -1.0


class ObservationPieces:
    """Named, shaped pieces of one observation vector, as OpenSpiel's observers lay theirs out.

    Args:
        pieces: ``(name, shape)`` pairs in the vector's order.
    """

    def __init__(self, pieces: Sequence[tuple[str, tuple[int, ...]]]) -> None:
        self.shapes = dict(pieces)
        #: Each piece's place in the vector.
        self.slices: dict[str, slice] = {}
        size = 0
        for name, shape in pieces:
            self.slices[name] = slice(size, size + math.prod(shape))
            size += math.prod(shape)
        self.size = size

    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Every piece of ``vector`` as a shaped view (writing to a view writes the vector)."""
        return {name: vector[self.slices[name]].reshape(shape) for name, shape in self.shapes.items()}


class Observer:
    """A multiplayer game's observation of one seat, as OpenSpiel's observers: the vector's named pieces and
    the vector itself from the seat's knowledge alone. An env holds one (``env.observer``); an agent or a seat
    policy can hold one without an env (:class:`agents.SB3SeatPolicy` takes either).

    Subclasses (one per game, in its env module) set :attr:`pieces` and implement :meth:`encode`; they may
    give the seats' knowledge other budgets (:meth:`new_knowledge`) and the vector another upper bound.

    Args:
        rules: the game.
        probabilities: whether the vector carries the seat's probability table, which costs the counting.
    """

    #: The vector's named pieces.
    pieces: ObservationPieces
    #: The vector's upper bound (1 unless the game counts something).
    high: float = 1.0

    def __init__(self, rules: MultiplayerRules, probabilities: bool = True) -> None:
        if not isinstance(probabilities, bool):
            raise ValueError(f"probabilities must be True or False, got {probabilities!r}")
        self.rules, self.probabilities = rules, probabilities

    @property
    def size(self) -> int:
        """Length of the vector."""
        return self.pieces.size

    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """The named pieces of a vector, shaped (views, not copies)."""
        return self.pieces.split(vector)

    def new_knowledge(self, player: int) -> Any:
        """A seat's empty knowledge, with the budgets its observations are made with (default the rules')."""
        return registry.new_knowledge(self.rules, player)

    def encode(self, knowledge: Any) -> np.ndarray:
        """The observation vector of a seat, from its knowledge only (the game's :class:`Knowledge`: a
        subclass names its own)."""
        raise NotImplementedError


def wrap(env: AECEnv) -> AECEnv:
    """The standard wrapper of every multiplayer env: PettingZoo's order checks.

    Masked and out-of-space actions are the env's own business (see the module
    docstring), so PettingZoo's illegal-action wrappers are not needed.
    """
    return _OrderEnforcing(env)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks; ``last()`` is the env's own (PettingZoo's wrappers answer it from the env's
    dictionaries, a ``KeyError`` once every agent has left)."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("last cannot be called before reset")  # PettingZoo's order check's words
        return self.env.last(observe)


class MultiplayerAECEnv(AECEnv):
    """An AEC env over a :class:`~deduction_envs.core.multiplayer.MultiplayerRules`; see the module docstring.

    Subclasses set ``metadata`` and implement :meth:`make_observer` (the game's :class:`Observer`: a seat's
    observation vector from its knowledge), :meth:`render_text` and :meth:`render_rgb`.

    Args:
        rules: the game.
        probabilities: whether observations carry the seat's exact (or
            estimated) probability table, which costs the counting.
        max_cycles: actions after which the game is truncated (rewards 0).
        render_mode: ``"ansi"``, ``"human"``, ``"rgb_array"`` or None.
        illegal_action: ``"end"`` (the game ends with -1 for the player) or ``"raise"`` (strict: a ValueError,
            nothing changed) on a masked action.
        strict: deprecated: ``strict=True`` is ``illegal_action="raise"``.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "multiplayer",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: MultiplayerRules,
        probabilities: bool = True,
        max_cycles: int = 2000,
        render_mode: str | None = None,
        illegal_action: str = "end",
        strict: bool | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        for name, flag in (("probabilities", probabilities), ("strict", False if strict is None else strict)):
            if not isinstance(flag, bool):
                raise ValueError(f"{name} must be True or False, got {flag!r}")
        if strict is not None:
            warnings.warn(
                "strict is deprecated: give illegal_action='raise' (or 'end'), the name the Gymnasium envs use",
                DeprecationWarning,
                stacklevel=3,
            )
            illegal_action = "raise" if strict else illegal_action
        if illegal_action not in ("end", "raise"):
            raise ValueError(f"illegal_action must be 'end' or 'raise', got {illegal_action!r}")
        self.probabilities = probabilities
        self.rules = rules
        self.max_cycles = check_int("max_cycles", max_cycles, low=1)
        #: The seats' observation encoder (made once the arguments it takes are checked).
        self.observer = self.make_observer(rules, probabilities, self.max_cycles)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.possible_agents = [f"player_{p}" for p in range(rules.players)]
        self._seat_of = {agent: p for p, agent in enumerate(self.possible_agents)}
        size = self.observation_size()
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, self.observation_high(), (size,), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (rules.num_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(rules.num_actions) for agent in self.possible_agents}
        #: The space of :meth:`state`: every seat's observation vector, in seat order.
        self.state_space = spaces.Box(0.0, self.observation_high(), (rules.players * size,), dtype=np.float32)
        self.table: Table | None = None
        self.knowledge: list[Knowledge] = []
        #: Extra listeners by seat, told every event projected for that seat from the next reset on (the agents
        #: that play seats inside a single-seat view).
        self.seat_listeners: dict[int, Callable[[Any], None]] = {}
        self._rng = np.random.default_rng()

    # ------------------------------------------------------------------ the game's parts
    def make_observer(self, rules: Any, probabilities: bool, max_cycles: int) -> Observer:
        """The game's observer (a training env may return one that adds entries)."""
        raise NotImplementedError

    @property
    def pieces(self) -> ObservationPieces:
        """The observation vector's named pieces."""
        return self.observer.pieces

    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """The named pieces of an observation vector, shaped (views, not copies)."""
        return self.observer.split(vector)

    def observation_size(self) -> int:
        """Length of the observation vector."""
        return self.observer.size

    def observation_high(self) -> float:
        """The observation vector's upper bound (1 unless the game counts something)."""
        return self.observer.high

    def encode(self, knowledge: Knowledge) -> np.ndarray:
        """The observation vector of a seat, from its knowledge only (the observer's)."""
        return self.observer.encode(knowledge)

    def new_knowledge(self, player: int) -> Knowledge:
        """A seat's empty knowledge, with the observer's budgets."""
        return self.observer.new_knowledge(player)

    def dealt_table(self) -> Table:
        """The table of the game in play.

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        if self.table is None:
            raise RuntimeError("reset() needs to be called first: no game is dealt")
        return self.table

    def render_text(self) -> str:
        raise NotImplementedError

    def render_rgb(self) -> np.ndarray:
        raise NotImplementedError

    # ------------------------------------------------------------------ PettingZoo's API
    def state(self) -> np.ndarray:
        """PettingZoo's global view for centralised training (a QMIX mixer, a MAPPO critic): every seat's
        observation vector (:meth:`encode` of its knowledge), in seat order, in :attr:`state_space`.

        It is the union of what the seats know, never more: cards that no seat holds (the deck's order, the
        rest of a deal) stay hidden. The game's whole state, secrets included, is ``env.table.state`` (for
        tests and spectators; never for a seat's policy)."""
        self.dealt_table()  # raises before reset()
        return np.concatenate([self.encode(knowledge) for knowledge in self.knowledge])

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game, seeded by ``seed`` (an int >= 0; None continues the generator).

        The envs take no ``options``: a dict of them is ignored with a warning (PettingZoo's ``api_test`` passes
        one), anything else but None is a ValueError."""
        seed = check_seed(seed)
        given = check_options(options, accepted=list(options) if isinstance(options, dict) else ())
        if given:
            gymnasium.logger.warn(f"reset options {sorted(map(str, given))} are ignored: this env takes none")
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.knowledge = [self.new_knowledge(p) for p in range(self.rules.players)]
        self.table = Table(self.rules, self._rng, [self._listener(p) for p in range(self.rules.players)])
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.table.mover]

    def _listener(self, seat: int) -> Callable[[Any], None]:
        return both(self.knowledge[seat].update, self.seat_listeners.get(seat))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.table is None:
            raise RuntimeError("reset() needs to be called before observe.")
        player = self.seat(agent)
        acting = player == self.table.mover and not self.table.over
        mask = self.table.legal_mask() if acting else np.zeros(self.rules.num_actions, dtype=bool)
        return {"observation": self.encode(self.knowledge[player]), "action_mask": mask.astype(np.int8)}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.table is None:
            raise RuntimeError("reset() needs to be called before last.")
        if not self.agents:  # each stepped None after the end: nobody is left to report on
            raise RuntimeError(
                "the game is over and every agent has left (each stepped None after it ended): last() has no agent "
                "to report on; reset() to play again (agent_iter() stops here on its own)"
            )
        return super().last(observe)

    def entropy(self, agent: str) -> float:
        """Bits of ``agent``'s uncertainty about the hidden cards, from its knowledge."""
        return self.knowledge[self.seat(agent)].entropy()

    def seat(self, agent: str) -> int:
        """``agent``'s seat (its index in ``possible_agents``); a ValueError naming the agents for an unknown one."""
        seat = self._seat_of.get(agent)
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}")
        return seat

    def step(self, action: int | None) -> None:
        if self.table is None:
            raise RuntimeError("reset() needs to be called before step.")
        if not self.agents:  # as PettingZoo's order wrapper: a step after the game is a warning, not a crash
            gymnasium.logger.warn("step() called after all agents are terminated or truncated. Should reset() first.")
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if not (0 <= action < self.rules.num_actions if type(action) is int else self._in_space(agent, action)):
            raise ValueError(
                f"{agent}'s action must be an integer in [0, {self.rules.num_actions - 1}] "
                f"(the action space), got {action!r}"
            )
        assert action is not None  # None is outside the space
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.infos = {a: {} for a in self.agents}
        if not self.table.legal_mask()[action]:
            if self.illegal_action == "raise":
                raise ValueError(f"{agent}'s action {action} is masked (not legal now)")
            gymnasium.logger.warn(f"{agent} chose the masked action {action}: the game ends, {agent} gets -1")
            self.rewards[agent] = ILLEGAL_ACTION_REWARD
            self.infos[agent]["illegal_action"] = int(action)
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.table.step(int(action))
            if self.table.over:
                self.rewards = dict(zip(self.possible_agents, self.rules.rewards(self.table.state), strict=True))
                self.terminations = dict.fromkeys(self.agents, True)
            elif len(self.table.actions) >= self.max_cycles:
                self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[self.table.mover]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def add_reward(self, agent: str, amount: float) -> None:
        """Add ``amount`` to ``agent``'s reward of the step just taken (and to what :meth:`last` reports for it):
        the seam a reward wrapper adds its term through (entropy shaping, a question's bits)."""
        if agent not in self.rewards:
            raise ValueError(f"{agent!r} is not at the table; the agents are {', '.join(self.agents) or 'none'}")
        self.rewards[agent] += float(amount)
        self._cumulative_rewards[agent] += float(amount)

    def pass_step(self, info: dict[str, Any], truncate: bool = False) -> None:
        """A step of the acting seat that plays nothing (a wrapper refused its input, as :class:`TextAECEnv
        <deduction_envs.text.aec.TextAECEnv>` refuses a reply that is no legal move): every seat's reward of the
        step is 0 and the acting seat's reward so far is taken, as a step takes it (:meth:`last` does not report it
        again); ``info`` is the acting seat's info; with ``truncate`` the game ends there, every seat truncated."""
        if self.table is None:
            raise RuntimeError("reset() needs to be called before pass_step.")
        if not self.agents:
            raise RuntimeError("the game is over: nobody is to act")
        agent = self.agent_selection
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.infos = {a: {} for a in self.agents}
        self.infos[agent].update(info)
        if truncate:
            self.truncations = dict.fromkeys(self.agents, True)

    def _in_space(self, agent: str, action: Any) -> bool:
        """Whether ``action``, not a plain int, is in the action space (a numpy integer, not a bool)."""
        return action is not None and not isinstance(action, bool) and self.action_spaces[agent].contains(action)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            return self.render_rgb()
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
