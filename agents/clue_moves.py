"""How the Clue agents move on the board (:mod:`deduction_envs.games.clue_board`): toward the room they mean
to suggest in.

The deduction-sheet and entropy agents head for one room (their choice: :func:`nearest_room` among the rooms
they would name), taking the passage if it leads there, else rolling, then moving to the room if the roll
reaches it, else to a reachable node nearest it (:func:`toward`). Velma (:mod:`agents.clue_velma`) scores
every destination instead. Under the classic accusation rule (``accusations="room"``) every agent that means to
accuse heads for the accused room first (:func:`to_accuse`). Only the public part of the position is read (the
tokens, the roll), from the
seat's own record of the public events (``knowledge.public``), never from the table's state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from deduction_envs.games.clue import ClueMove, CluePhase, ClueRules
from deduction_envs.games.clue_board import ClueBoardRules

__all__ = ["board_stage", "head_for", "nearest_room", "to_accuse", "toward"]


def board_stage(rules: Any, knowledge: Any) -> str | None:
    """``"start"`` (roll, passage, or a summoned suggestion), ``"move"`` (after the roll) or None (not a board
    decision: no board, not the start of a turn, or already moved)."""
    if not isinstance(rules, ClueBoardRules) or knowledge.phase != CluePhase.START or knowledge.public.moved:
        return None
    return "move" if knowledge.public.roll else "start"


def toward(rules: ClueBoardRules, knowledge: Any, mask: np.ndarray, target: int, rng: np.random.Generator) -> int:
    """The board action that heads for room ``target``: at the start of a turn the passage if it leads there,
    else the roll; after the roll the target if reachable, else the reachable corridor square nearest it (ties
    at random; another room only if no square is reachable: entering a room ends the move)."""
    board, public = rules.board, knowledge.public
    here, goal = public.positions[knowledge.player], board.room_node(target)
    if board_stage(rules, knowledge) == "start":
        if mask[rules.passage_action] and board.passages.get(here) == goal:
            return rules.passage_action
        return rules.roll_action
    reach = np.flatnonzero(mask[rules.move_action :])
    if mask[rules.move_action + goal]:
        return rules.move_action + goal
    squares = reach[reach < board.squares]  # another room would end the move where it does not mean to suggest
    candidates = squares if squares.size else reach
    distance = board.distances[candidates, goal]
    return rules.move_action + int(rng.choice(candidates[distance == distance.min()]))


def nearest_room(rules: ClueBoardRules, knowledge: Any, rooms: np.ndarray, rng: np.random.Generator) -> int:
    """Among the bool mask ``rooms`` (all if none), one the seat's token reaches in fewest expected rolls."""
    rolls = rules.board.room_rolls[knowledge.public.positions[knowledge.player]]
    candidates = np.flatnonzero(rooms) if rooms.any() else np.arange(rules.board.rooms)
    best = candidates[rolls[candidates] <= rolls[candidates].min() + 1e-9]
    return int(rng.choice(best))


def head_for(rules: ClueRules, knowledge: Any, mask: np.ndarray, rooms: np.ndarray, rng: np.random.Generator
             ) -> int | None:  # fmt: skip
    """The board action toward the nearest of the bool mask ``rooms`` (:func:`toward`), or None when the seat
    should suggest where it stands instead: at the start of its turn, brought by another's suggestion into one
    of ``rooms``. Only on the board (``rules`` are :class:`ClueBoardRules`)."""
    if not isinstance(rules, ClueBoardRules):
        raise TypeError(f"head_for plays on the board; got {rules!r}")
    here = rules.board.room_of(knowledge.public.positions[knowledge.player])
    if board_stage(rules, knowledge) == "start" and mask[: rules.num_triples].any() and here >= 0 and rooms[here]:
        return None
    return toward(rules, knowledge, mask, nearest_room(rules, knowledge, rooms, rng), rng)


def to_accuse(rules: ClueRules, knowledge: Any, mask: np.ndarray, accusation: tuple[int, ...] | None,
              rng: np.random.Generator) -> int | None:  # fmt: skip
    """The action for a seat that means to accuse ``accusation`` (None: it does not): the accusation if the mask
    allows it; on a board whose rule keeps accusations to the room of the turn (``accusations="room"``), the
    board action toward the accused room (:func:`head_for`) while it is not there; else None (the agent's own
    choice: suggesting in the room it entered, ending the turn)."""
    if accusation is None:
        return None
    action = rules.action_index(ClueMove("accuse", accusation))
    if mask[action]:
        return action
    if board_stage(rules, knowledge) is None or not isinstance(rules, ClueBoardRules) or rules.accusations != "room":
        return None
    room = np.zeros(rules.category_sizes[-1], dtype=bool)
    room[accusation[-1] - rules.category_starts[-1]] = True
    return head_for(rules, knowledge, mask, room, rng)  # None only where the accusation is legal: not here
