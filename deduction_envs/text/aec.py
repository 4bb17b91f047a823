"""A multiplayer deduction env (PettingZoo AEC) played in text: each seat's observation is what it has seen, as
text; its action is a reply."""

from __future__ import annotations

import math
import string
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from deduction_envs import registry
from deduction_envs.core.multiplayer import both
from deduction_envs.core.rules import check_int
from deduction_envs.text.reply import TAIL, ReplyError
from deduction_envs.text.scoring import EPSILON, Bits, efficiency

__all__ = ["REWARDS", "GameText", "TextAECEnv", "text_of"]

#: The rewards :class:`TextAECEnv` can give: the game's alone, or with each question's bits or efficiency added.
REWARDS = ("game", "bits", "efficiency")

CHARSET = string.printable


class GameText(Protocol):
    """A multiplayer game as text (the class its registry entry names in ``text``, made with the rules): what
    :class:`TextAECEnv` asks of a game."""

    rules: Any

    def prompt(self, seat: int) -> str:
        """The rules as ``seat`` is told them (a system prompt)."""

    def observation(self, seat: int, you: Any, events: Sequence[Any], mask: np.ndarray | None,
                    note: str | None = None, end: str | None = None) -> str:  # fmt: skip
        """What ``seat`` has seen (its knowledge ``you`` and its projected ``events``), and its move if ``mask``."""

    def question(self, seat: int, you: Any, mask: np.ndarray, steps: Sequence[int]) -> tuple[float, float] | None:
        """A move that asks: its expected bits and the best question's; None for a move that asks nothing."""

    def say(self, seat: int, steps: Sequence[int]) -> str:
        """The reply that plays the whole move ``steps`` for ``seat`` (the inverse of :meth:`steps`)."""

    def complete(self, steps: Sequence[int]) -> bool:
        """Whether ``steps`` are a whole move (Generalized Clue's ask is several sub-steps)."""

    def answering(self, state: Any) -> bool:
        """Whether the game waits for an answer to the last question (it is not scored until it has one)."""

    def steps(self, reply: object, you: Any, mask: np.ndarray) -> list[int]:
        """The env's actions of a reply; a :class:`~deduction_envs.text.reply.ReplyError` says why it is none."""


def text_of(env: Any) -> GameText:
    """The text of the game ``env`` (a multiplayer env of this package, unwrapped) plays, at its rules: the class
    its registry entry names.

    Raises:
        TypeError: a game with no text (or an env that is no registered game). The text class's own error for a
            variant it does not play.
    """
    name = getattr(env, "metadata", {}).get("name")
    try:
        game = registry.game(name) if isinstance(name, str) else None
    except ValueError:
        game = None
    if game is None or game.text is None:
        texts = ", ".join(g.env_id for g in registry.games(multiplayer=True) if g.text is not None)
        raise TypeError(f"TextAECEnv plays the games with a text ({texts}), got {type(env).__name__}")
    return registry.load(game.text)(env.rules)


class TextAECEnv(BaseWrapper):
    """A multiplayer env of this package played in text: Algo, Clue (with or without its board) and Generalized Clue.

    ``observe(agent)`` is what that seat has seen, as text (its hand and its projected events, nothing else),
    ending with what it must do if it is to act; ``step(reply)`` reads the acting seat's reply as its whole move
    (Generalized Clue's sub-steps are stepped for it). A reply that is not a legal move is not played: the seat is
    asked again with what was wrong (``infos[agent]["invalid"]``), and after ``max_invalid`` such replies from any
    seat in a game, the game ends (every seat truncated). The rules, for a system prompt, are :meth:`prompt`.

    **Scoring** (``score``: the seats to score, or True for all): each question a scored seat asks (a Clue
    suggestion, a Generalized Clue ask, an Algo attack) is weighed, from that seat's knowledge when it asks,
    against the best question it could have asked, as the reference agents weigh them (the text class's
    ``question``): :meth:`bits` holds its ``(gained, expected, best)`` bits about what the seat plays to find out
    (Clue and Generalized Clue: the case file; Algo: the opponents' face-down cards), ``gained`` taken once the
    answer is in (after the card shown, if any); :meth:`efficiency` is the seat's information efficiency
    (:mod:`deduction_envs.text.scoring`). Also ``infos[agent]["bits"]`` on the step that settles a question.
    Unlike the single-player games' scores, Clue's and Generalized Clue's may be estimates from drawn deals when
    counting is out of reach, and Generalized Clue's best is over the asks its exact agent weighs (see each
    ``question``); in Algo an informative attack is not always a good one (a sure hit wins cards, not bits).

    Args:
        env: ``algo_v0.env()``, ``clue_v0.env()``, ``generalized_clue_v0.env()`` or their ``raw_env()`` (any
            wrappers around them).
        max_invalid: replies that are not a legal move a game allows before it ends.
        score: the agents whose questions are scored (True: every seat; False: none). Scoring a question costs
            what a reference agent's decision costs.
        reward: ``"game"`` (the env's rewards), ``"bits"`` (plus, to a scored seat, each question's expected bits
            when it is answered) or ``"efficiency"`` (plus its expected bits over the best's, 0 to 1; 1 where no
            question gains).
    """

    def __init__(self, env: Any, max_invalid: int = 5, score: bool | Iterable[str] = False,
                 reward: str = "game") -> None:  # fmt: skip
        super().__init__(env)
        self.text: GameText = text_of(env.unwrapped)
        rules = self.text.rules
        self.max_invalid = check_int("max_invalid", max_invalid, low=1)
        agents = list(env.unwrapped.possible_agents)
        if isinstance(score, bool):
            scored = agents if score else []
        elif isinstance(score, str) or not isinstance(score, Iterable):
            raise ValueError(f"score must be True, False or a list of agents, got {score!r}")
        else:
            scored = list(score)
            for agent in scored:
                if agent not in agents:
                    raise ValueError(f"score names an unknown agent {agent!r}; the agents are {', '.join(agents)}")
        self._scored = frozenset(agents.index(agent) for agent in scored)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if reward != "game" and not self._scored:
            raise ValueError(f"reward={reward!r} is built from the scores: it needs score")
        self.reward = reward
        self._bits: list[list[Bits]] = [[] for _ in agents]
        self._pending: dict[int, tuple[float, float, float]] = {}
        self._move: list[int] = []  # a scored seat's move so far, when played a sub-step at a time
        self._move_start: tuple[Any, float] = (None, 0.0)
        #: Callables told every event projected for a seat (``{seat: observe}``), from the next reset on: for agents
        #: that play seats through :meth:`play_action` and keep their own knowledge.
        self.listeners: dict[int, Any] = {}
        self._events: list[list[Any]] = [[] for _ in range(rules.players)]
        self._notes: dict[str, str] = {}
        self._invalid = 0
        self._ended: str | None = None
        players = range(rules.players)
        self._observation_spaces = [spaces.Text(max_length=100_000, min_length=1, charset=CHARSET) for _ in players]
        self._action_spaces = [spaces.Text(max_length=TAIL, min_length=0, charset=CHARSET) for _ in players]

    @property
    def invalid_replies(self) -> int:
        """Replies this game that were not a legal move (none was played)."""
        return self._invalid

    @property
    def forfeited(self) -> bool:
        """Whether this game was ended by ``max_invalid`` replies that were not a legal move."""
        return self._ended is not None

    def prompt(self, agent: str) -> str:
        """The rules and how to answer, for ``agent``'s seat."""
        return self.text.prompt(self._seat(agent))

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[self._seat(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[self._seat(agent)]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        raw = self.env.unwrapped
        self._events = [[] for _ in range(self.text.rules.players)]
        raw.seat_listeners = {seat: both(self._events[seat].append, self.listeners.get(seat))
                              for seat in range(self.text.rules.players)}  # fmt: skip
        self._notes, self._invalid, self._ended = {}, 0, None
        self._bits, self._pending, self._move = [[] for _ in self._bits], {}, []
        super().reset(seed=seed, options=options)
        for agent in raw.agents:
            raw.infos[agent]["invalid_replies"] = 0

    def observe(self, agent: str) -> str:
        raw, seat = self.env.unwrapped, self._seat(agent)
        if raw.table is None:
            raise RuntimeError("reset() needs to be called before observe.")
        acting = seat == raw.table.mover and not raw.table.over and self._ended is None
        mask = raw.table.legal_mask() if acting else None
        end = self._ended
        if end is None and raw.table.over:
            end = f"The game is over: your reward is {float(raw.rules.rewards(raw.table.state)[seat]):+.3f}."
        return self.text.observation(seat, raw.knowledge[seat], self._events[seat], mask, self._notes.get(agent),
                                     end)  # fmt: skip

    def step(self, action: Any) -> None:
        raw = self.env.unwrapped
        if raw.table is None:
            raise RuntimeError("reset() needs to be called before step.")
        if not raw.agents:  # after the end: the env warns, as it does for an action
            self.env.step(None)
            return
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            self.env.step(None)
            return
        seat = self._seat(agent)
        try:
            steps = self.text.steps(action, raw.knowledge[seat], raw.table.legal_mask())
        except ReplyError as error:  # not played: the same seat is asked again, told why
            self._invalid += 1
            self._notes[agent] = str(error)
            forfeit = self._invalid >= self.max_invalid
            raw.pass_step({"invalid": str(error)}, truncate=forfeit)
            for a in raw.agents:
                raw.infos[a]["invalid_replies"] = self._invalid
            if forfeit:
                self._ended = f"The game is over: {self._invalid} replies were not a legal move, the most allowed."
            return
        self._notes.pop(agent, None)
        self._play(seat, steps)

    def play_action(self, action: int) -> None:
        """Play ``action`` (an int of the wrapped env's action space) for the acting seat, as the wrapped env's
        ``step`` would, keeping the scores: for seats played by agents, not text (in Generalized Clue one
        sub-step). An action that is not legal now is a ValueError naming the legal ones, and is not played."""
        raw = self.env.unwrapped
        if raw.table is None:
            raise RuntimeError("reset() needs to be called before play_action.")
        agent = raw.agent_selection if raw.agents else None
        if agent is None or raw.terminations[agent] or raw.truncations[agent] or self._ended is not None:
            raise RuntimeError("the game is over: nobody is to act (step(None) for the seats left, or reset())")
        mask = raw.table.legal_mask()
        whole = isinstance(action, int | np.integer) and not isinstance(action, bool)
        if not whole or not 0 <= action < mask.size or not mask[action]:
            legal = ", ".join(str(a) for a in mask.nonzero()[0][:20])
            raise ValueError(f"{agent} may not play {action!r} now; its legal actions: {legal}")
        self._notes.pop(agent, None)
        self._play(self._seat(agent), [int(action)])

    def _play(self, seat: int, steps: list[int]) -> None:
        """Play the steps of ``seat``'s move, weighing it first if it is a scored question (a move played a
        sub-step at a time is weighed at its last, from the mask and entropy at its first)."""
        raw = self.env.unwrapped
        if seat in self._scored:
            you = raw.knowledge[seat]
            if not self._move:
                self._move_start = (raw.table.legal_mask(), you.entropy())
            self._move += steps
            if self.text.complete(self._move):
                mask, before = self._move_start
                question = self.text.question(seat, you, mask, self._move)
                if question is not None:
                    self._pending[seat] = (before, *question)
                self._move = []
        for step in steps:
            self.env.step(step)
        for a in raw.agents:
            raw.infos[a]["invalid_replies"] = self._invalid
        if self._pending and (raw.table.over or not self.text.answering(raw.table.state)):
            self._settle()

    def _settle(self) -> None:
        """Score the questions whose answers are in: the bits each gained, its reward if the reward says so."""
        raw = self.env.unwrapped
        for seat, (before, expected, best) in self._pending.items():
            bits = (before - raw.knowledge[seat].entropy(), expected, best)
            self._bits[seat].append(bits)
            agent = raw.possible_agents[seat]
            extra = {"game": 0.0, "bits": expected, "efficiency": expected / best if best > EPSILON else 1.0}
            if agent in raw.agents:
                raw.infos[agent]["bits"] = bits
                raw.add_reward(agent, extra[self.reward])
        self._pending = {}

    def bits(self, agent: str) -> list[Bits]:
        """The ``(gained, expected, best)`` bits of each question ``agent`` asked this game and had answered
        (empty for a seat not scored)."""
        return list(self._bits[self._seat(agent)])

    def efficiency(self, agent: str) -> float:
        """``agent``'s information efficiency this game (:func:`~deduction_envs.text.scoring.efficiency`); NaN for
        a seat not scored."""
        seat = self._seat(agent)
        return efficiency(self._bits[seat]) if seat in self._scored else math.nan

    def _seat(self, agent: str) -> int:
        return self.env.unwrapped.seat(agent)  # a clear error for an unknown agent
