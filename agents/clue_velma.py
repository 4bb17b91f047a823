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
from collections.abc import Sequence

import numpy as np

from agents.clue_agents import ClueEntropyAgent
from agents.clue_moves import board_stage
from deduction_envs.games.clue_board import TWO_DICE, ClueBoard, ClueBoardRules
from deduction_envs.reasoning.clue_suggestions import SuggestionScores

__all__ = ["SCORES", "VELMA_THRESHOLD", "ClueVelma", "destination_scores", "roll_value", "room_values"]

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
    also suggest there without moving. Equal scores (within 1e-12: the roll's expectation can equal a node's
    score in exact arithmetic) go to the roll, then the passage.

    Accusation: pyvelma's probability threshold (``PACCUSATIONTHRESH``): when
    the likeliest case file reaches ``threshold`` (default :data:`VELMA_THRESHOLD`, 0.79, the value this suite's
    Clue tournaments took for Velma's), at the next decision of its turn; refuting: pyvelma's card-to-show rule.
    ``remoteness`` weighs the remoteness terms (default 1, pyvelma's; 0 is the clean ablation: where to move is
    then scored by the suggestion alone, and a roll that reaches no room moves to a square at random). Other
    keywords are :class:`ClueEntropyAgent`'s (``refuter``, the model of the card a refuter shows). Off the board
    it plays as that agent with those settings.

    The refuter model stays ``"uniform"`` by default, not pyvelma's least helpful card (``"adversarial"``): on
    300 board games at each of 2 to 6 players against uniform Velmas, the adversarial model wins +0.007 games a
    game above its fair share (95% interval [-0.015, +0.029], p = 0.52) and its decisions take 1.5 to 2.3
    times as long (``results/velma_ablations.md``).
    """

    rules: ClueBoardRules  # it plays on the board only

    def __init__(self, score: str = "sum", threshold: float = VELMA_THRESHOLD, remoteness: float = 1.0,
                 **kwargs) -> None:  # fmt: skip
        super().__init__(threshold=threshold, **kwargs)
        if score not in SCORES:
            raise ValueError(f"score must be one of {', '.join(SCORES)}, got {score!r}")
        if isinstance(remoteness, bool) or not isinstance(remoteness, int | float) or not 0 <= remoteness < np.inf:
            raise ValueError(f"remoteness must be a weight >= 0, got {remoteness!r}")
        self.score = score
        self.remoteness = float(remoteness)
        extras = "" if remoteness == 1 else f", remoteness {remoteness:g}"
        extras += ", adversarial" if self.refuter == "adversarial" else ""
        self.name = f"velma({score}{extras})"

    # ------------------------------------------------------------------ the scores
    def room_values(self) -> tuple[np.ndarray, float, np.ndarray]:
        """``(after, now, murder)``: per room the expected entropy (bits) after its best suggestion
        (:meth:`room_entropies`), the entropy now, and per room its probability of being the case file's."""
        rules = self.rules
        case_rooms = rules.category_starts[-1] + np.arange(rules.board.rooms)
        return room_values(self.scores(), self.knowledge.solution().probabilities[case_rooms, rules.players])

    def node_scores(
        self, nodes: np.ndarray, start: int, values: tuple[np.ndarray, float, np.ndarray] | None = None
    ) -> np.ndarray:
        """Each destination's score, higher better (:func:`destination_scores`): ``nodes`` reached from
        ``start``; ``values``: :meth:`room_values`, if the caller has them."""
        values = self.room_values() if values is None else values
        return destination_scores(self.rules.board, nodes, start, *values, self.score, self.remoteness)

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
        others = [p for s, p in enumerate(public.positions) if s != self.seat]
        options: dict[int, float] = {
            rules.roll_action: roll_value(board, here, others, *values, self.score, self.remoteness)
        }
        if mask[rules.passage_action]:
            options[rules.passage_action] = float(self.node_scores(np.array([board.passages[here]]), here, values)[0])
        if mask[: rules.num_triples].any():  # summoned: suggesting here counts as entering the room
            options[-1] = float(self.node_scores(np.array([here]), -1, values)[0])
        best = max(options.values())  # the first of the best, ties within float noise (1e-12) included
        choice = next(option for option, value in options.items() if value >= best - 1e-12)
        return self.suggestion(mask[: rules.num_triples]) if choice == -1 else choice


def room_values(scores: SuggestionScores, murder: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """``(after, now, murder)`` from a seat's suggestion scores and each room's probability of being the case
    file's (``murder``, one per room, normalised here): per room the expected entropy (bits) after the best
    suggestion naming it, and the entropy now."""
    rooms = murder.size
    after = scores.expected_entropy.reshape(-1, rooms).min(axis=0)  # the room is the fastest index
    return after, float(scores.entropy), murder / max(murder.sum(), 1e-12)


def destination_scores(
    board: ClueBoard, nodes: np.ndarray, start: int, after: np.ndarray, now: float, murder: np.ndarray,
    score: str = "sum", remoteness: float = 1.0,
) -> np.ndarray:  # fmt: skip
    """Velma's score of each destination in ``nodes`` reached from ``start`` (-1: none, so that a room node
    counts as entered: a summoned token suggesting where it stands), higher better (pyvelma's sum is negated).

    ``after``, ``now``, ``murder``: :func:`room_values`. ``score="sum"`` (pyvelma's): expected entropy in nats
    (the best suggestion's in a room entered, the entropy now elsewhere) plus ``remoteness`` times the expected
    rolls to the murder room. ``score="rate"``: the best over rooms of the expected entropy reduction per expected
    turn (see :class:`ClueVelma`)."""
    remote = remoteness * (board.room_rolls @ murder)  # per node: expected rolls to the murder room
    rooms = np.where(nodes >= board.squares, nodes - board.squares, -1)
    entered = (rooms >= 0) & (nodes != start)
    if score == "sum":
        entropy = np.where(entered, after[np.maximum(rooms, 0)], now)
        return -(entropy * math.log(2) + remote[nodes])
    gain = np.maximum(now - after, 0.0)  # per room
    turns = 1.0 + board.room_rolls[nodes] + remote[board.squares :][None, :]  # (nodes, rooms)
    turns[entered, rooms[entered]] = 1.0 + remote[board.squares + rooms[entered]]
    if (nodes == start).any() and rooms[nodes == start][0] >= 0:  # no suggestion by staying: its own room later
        turns[nodes == start, rooms[nodes == start][0]] = np.inf
    return (gain[None, :] / turns).max(axis=1)


def roll_value(
    board: ClueBoard, here: int, others: Sequence[int], after: np.ndarray, now: float, murder: np.ndarray,
    score: str = "sum", remoteness: float = 1.0,
) -> float:  # fmt: skip
    """The expected best :func:`destination_scores` over the sums of two dice, from ``here`` among the other
    tokens at ``others`` (the passage-or-roll decision's value of rolling)."""
    value = 0.0
    for roll in range(2, 13):
        reach = np.flatnonzero(board.reachable(here, roll, others))
        if reach.size == 0:
            reach = np.array([here])
        best = destination_scores(board, reach, here, after, now, murder, score, remoteness).max()
        value += TWO_DICE[roll] * float(best)
    return value
