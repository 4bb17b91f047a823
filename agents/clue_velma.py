"""Velma, the movement-aware Clue agent on the board (:mod:`deduction_envs.games.clue_board`).

:class:`ClueVelma` is the agent pyvelma's README describes (``../shared/references/pyvelma-readme.txt``):
every destination the roll reaches is scored by the best suggestion of its room (the least expected entropy of
the case file) and by its *remoteness*, the expected number of rolls from there to the murder room, weighted by
each room's probability of being it.

Only public parts of the position are read (the tokens, the roll, whose turn), from the seat's own record of
the public events (``knowledge.public``), never from the table's state.
"""

from __future__ import annotations

import math

import numpy as np

from agents.clue_agents import ClueEntropyAgent
from agents.clue_moves import board_stage
from deduction_envs.games.clue_board import TWO_DICE, ClueBoardRules

__all__ = ["SCORES", "VELMA_THRESHOLD", "ClueVelma"]

#: Velma's accusation threshold: the probability of the likeliest case file at which it accuses.
VELMA_THRESHOLD = 0.79

#: How Velma weighs a destination: pyvelma's sum (expected entropy in nats + expected turns, minimised) or the
#: rate pyvelma proposes (expected entropy reduction per expected turn, maximised).
SCORES = ("sum", "rate")


class ClueVelma(ClueEntropyAgent):
    """Velma: the entropy agent's suggestions and accusations, and pyvelma's choice of where to move.

    On the board, at the start of its turn and after its roll, every option is scored:

    * each room's best suggestion (:meth:`ClueEntropyAgent.scores`, the least expected entropy of the case
      file among the suggestions naming that room) gives the entropy after entering it; a corridor square, or
      staying in the room the turn began in, leaves the entropy as it is;
    * each node's *remoteness*: the expected number of rolls to the murder room, the expected rolls to each
      room (:attr:`ClueBoard.room_rolls`, from the two-dice distribution) weighted by its probability of being
      the case file's room;
    * ``score="sum"`` (pyvelma's): expected entropy in nats + remoteness, the least wins; ``score="rate"`` (the
      dimensionally consistent score pyvelma proposes): the expected entropy reduction per expected turn, the
      largest wins: for a destination ``d``, the best over rooms ``r`` of the reduction of ``r``'s best
      suggestion divided by the turns it takes (this one, the expected rolls from ``d`` to ``r``, and ``r``'s
      remoteness).

    The passage-or-roll decision compares the passage's room with the roll's expected best score (over the
    eleven sums of two dice, the reachable nodes of each); a token another's suggestion brought into a room may
    also suggest there without moving. Accusation: pyvelma's probability threshold (``PACCUSATIONTHRESH``): when
    the likeliest case file reaches ``threshold`` (default :data:`VELMA_THRESHOLD`, 0.79, the value this suite's
    Clue tournaments took for Velma's), at the next decision of its turn; refuting: pyvelma's card-to-show rule.
    Other keywords are :class:`ClueEntropyAgent`'s. Off the board it plays as that agent with those settings.
    """

    rules: ClueBoardRules  # it plays on the board only

    def __init__(self, score: str = "sum", threshold: float = VELMA_THRESHOLD, **kwargs) -> None:
        super().__init__(threshold=threshold, **kwargs)
        if score not in SCORES:
            raise ValueError(f"score must be one of {', '.join(SCORES)}, got {score!r}")
        self.score = score
        self.name = f"velma({score})"

    # ------------------------------------------------------------------ the scores
    def room_values(self) -> tuple[np.ndarray, float, np.ndarray]:
        """``(after, now, murder)``: per room the expected entropy (bits) after its best suggestion
        (:meth:`room_entropies`), the entropy now, and per room its probability of being the case file's."""
        rules = self.rules
        after, now = self.room_entropies()
        case_rooms = rules.category_starts[-1] + np.arange(rules.board.rooms)
        murder = self.knowledge.solution().probabilities[case_rooms, rules.players]
        return after, now, murder / max(murder.sum(), 1e-12)

    def node_scores(self, nodes: np.ndarray, start: int, values: tuple | None = None) -> np.ndarray:
        """Each destination's score, higher better (the sum is negated): ``nodes`` reached from ``start``;
        ``values``: :meth:`room_values`, if the caller has them."""
        board = self.rules.board
        after, now, murder = self.room_values() if values is None else values
        remote = board.room_rolls @ murder  # per node: expected rolls to the murder room
        rooms = np.where(nodes >= board.squares, nodes - board.squares, -1)
        entered = (rooms >= 0) & (nodes != start)
        if self.score == "sum":
            entropy = np.where(entered, after[np.maximum(rooms, 0)], now)
            return -(entropy * math.log(2) + remote[nodes])
        gain = np.maximum(now - after, 0.0)  # per room
        turns = 1.0 + board.room_rolls[nodes] + remote[board.squares :][None, :]  # (nodes, rooms)
        turns[entered, rooms[entered]] = 1.0 + remote[board.squares + rooms[entered]]
        if (nodes == start).any() and rooms[nodes == start][0] >= 0:  # no suggestion by staying: its own room later
            turns[nodes == start, rooms[nodes == start][0]] = np.inf
        return (gain[None, :] / turns).max(axis=1)

    def board_action(self, mask: np.ndarray) -> int:
        """On the board, before the move (in place of :meth:`ClueEntropyAgent.board_action`, after the same
        accusation rule): the roll, passage, summoned suggestion or move with the best score (ties at random)."""
        rules, knowledge = self.rules, self.knowledge
        board, public = rules.board, knowledge.public
        here, values = public.positions[self.seat], self.room_values()
        if board_stage(rules, knowledge) == "move":
            reach = np.flatnonzero(mask[rules.move_action :])
            scores = self.node_scores(reach, here, values)
            best = reach[scores >= scores.max() - 1e-12]
            return rules.move_action + int(self.rng.choice(best))
        options: dict[int, float] = {rules.roll_action: self._roll_value(here, values)}
        if mask[rules.passage_action]:
            options[rules.passage_action] = float(self.node_scores(np.array([board.passages[here]]), here, values)[0])
        if mask[: rules.num_triples].any():  # summoned: suggesting here counts as entering the room
            options[-1] = float(self.node_scores(np.array([here]), -1, values)[0])
        choice = max(options, key=options.__getitem__)
        return self.suggestion(mask[: rules.num_triples]) if choice == -1 else choice

    def _roll_value(self, here: int, values: tuple) -> float:
        """The expected best score over the sums of two dice (``values``: :meth:`room_values`)."""
        board, public = self.rules.board, self.knowledge.public
        others = [p for s, p in enumerate(public.positions) if s != self.seat]
        value = 0.0
        for roll in range(2, 13):
            reach = np.flatnonzero(board.reachable(here, roll, others))
            if reach.size == 0:
                reach = np.array([here])
            value += TWO_DICE[roll] * float(self.node_scores(reach, here, values).max())
        return value
