"""A multiplayer deduction env (PettingZoo AEC) played in text: each seat's observation is what it has seen, as
text; its action is a reply."""

from __future__ import annotations

import string
from typing import Any

from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from deduction_envs.core.rules import check_int
from deduction_envs.games.algo import AlgoRules
from deduction_envs.games.clue import ClueRules
from deduction_envs.games.generalized_clue import GeneralizedClueRules
from deduction_envs.text.algo import AlgoText
from deduction_envs.text.clue import ClueText
from deduction_envs.text.generalized_clue import GeneralizedClueText
from deduction_envs.text.reply import TAIL, ReplyError

__all__ = ["TextAECEnv"]

CHARSET = string.printable


class TextAECEnv(BaseWrapper):
    """A multiplayer env of this package played in text: Algo, Clue (without the board) and Generalized Clue.

    ``observe(agent)`` is what that seat has seen, as text (its hand and its projected events, nothing else),
    ending with what it must do if it is to act; ``step(reply)`` reads the acting seat's reply as its whole move
    (Generalized Clue's sub-steps are stepped for it). A reply that is not a legal move is not played: the seat is
    asked again with what was wrong (``infos[agent]["invalid"]``), and after ``max_invalid`` such replies from any
    seat in a game, the game ends (every seat truncated). The rules, for a system prompt, are :meth:`prompt`.

    Args:
        env: ``algo_v0.env()``, ``clue_v0.env()``, ``generalized_clue_v0.env()`` or their ``raw_env()`` (any
            wrappers around them).
        max_invalid: replies that are not a legal move a game allows before it ends.
    """

    def __init__(self, env: Any, max_invalid: int = 5) -> None:
        super().__init__(env)
        rules = getattr(env.unwrapped, "rules", None)
        self.text: ClueText | GeneralizedClueText | AlgoText
        if isinstance(rules, AlgoRules):
            self.text = AlgoText(rules)
        elif isinstance(rules, ClueRules):
            self.text = ClueText(rules)
        elif isinstance(rules, GeneralizedClueRules):
            self.text = GeneralizedClueText(rules)
        else:
            raise TypeError(f"TextAECEnv plays Algo, Clue and Generalized Clue, got {type(env.unwrapped).__name__}")
        self.max_invalid = check_int("max_invalid", max_invalid, low=1)
        self._events: list[list[Any]] = [[] for _ in range(rules.players)]
        self._notes: dict[str, str] = {}
        self._invalid = 0
        self._ended: str | None = None
        players = range(rules.players)
        self._observation_spaces = [spaces.Text(max_length=100_000, min_length=1, charset=CHARSET) for _ in players]
        self._action_spaces = [spaces.Text(max_length=TAIL, min_length=0, charset=CHARSET) for _ in players]

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
        raw.seat_listeners = {seat: self._events[seat].append for seat in range(self.text.rules.players)}
        self._notes, self._invalid, self._ended = {}, 0, None
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
            raw.rewards = dict.fromkeys(raw.agents, 0.0)
            raw.infos = {a: {"invalid_replies": self._invalid} for a in raw.agents}
            raw.infos[agent]["invalid"] = str(error)
            if self._invalid >= self.max_invalid:
                self._ended = f"The game is over: {self._invalid} replies were not a legal move, the most allowed."
                raw.truncations = dict.fromkeys(raw.agents, True)
            return
        self._notes.pop(agent, None)
        for step in steps:
            self.env.step(step)
        for a in raw.agents:
            raw.infos[a]["invalid_replies"] = self._invalid

    def _seat(self, agent: str) -> int:
        return self.env.unwrapped._seat(agent)  # a clear error for an unknown agent
