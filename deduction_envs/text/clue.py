"""Clue in text: a seat's prompt, what it has seen as text, and a reply read as its move.

What a seat is shown is what its projected events tell it (:meth:`ClueRules.observe_event
<deduction_envs.games.clue.ClueRules.observe_event>`): its own hand, every suggestion and who passed and
refuted, a card shown only to the two players who saw it, accusations and their verdicts. Nobody else's hand,
and nothing its knowledge implies. On the board (:class:`~deduction_envs.games.clue_board.ClueBoardRules`) also
every roll and move, and, when it is to act, the board as the terminal game draws it (rows and columns numbered,
what its roll reaches marked ``*``). The move notation is the terminal game's (``python -m train.tools.play
clue``), whose parser is this module's :func:`parse_move`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from deduction_envs.games.clue import ClueEvent, ClueMove, CluePhase, ClueRules, parse_card
from deduction_envs.games.clue_board import ClueBoardRules, board_text
from deduction_envs.reasoning.clue_suggestions import score_suggestions
from deduction_envs.text.reply import ReplyError, read_reply, seat_text
from deduction_envs.text.single import prompt_rules, seat_order

__all__ = ["ClueText", "choices", "move_text", "parse_move", "seat_board"]

KINDS = {"suggest": "suggest", "s": "suggest", "accuse": "accuse", "a": "accuse", "show": "show"}
NOTATION = (
    "Moves: 'suggest SUSPECT, WEAPON, ROOM', 'accuse SUSPECT, WEAPON, ROOM', 'end' (after a suggestion), and "
    "'show CARD' when you must refute (card names may be shortened to the start of a word: 'scar, rope, hall')."
)
BOARD_NOTATION = (
    "On the board, also: 'roll' (the dice), 'passage' (the secret passage, from a corner room), then 'go ROOM' or "
    "'go ROW,COLUMN' (a square marked * on the board you are shown), or 'stay' when nothing is within reach."
)


def parse_move(rules: ClueRules, text: str, phase: CluePhase, here: int = -1) -> ClueMove:
    """A typed move; a ValueError says what is wrong with it. ``here``: on the board, the node of your token
    (what ``stay`` names)."""
    words = text.strip().split(maxsplit=1)
    kind = KINDS.get(words[0].lower()) if words else None
    if words and words[0].lower() in ("end", "pass", "done"):
        return ClueMove("end")
    if isinstance(rules, ClueBoardRules) and words:
        first = words[0].lower()
        if first in ("roll", "r"):
            return ClueMove("roll")
        if first in ("passage", "p"):
            return ClueMove("passage")
        if first == "stay":
            return ClueMove("move", node=here)
        if first in ("go", "move", "m"):
            return ClueMove("move", node=_node(rules, words[1] if len(words) > 1 else ""))
    if kind is None and phase == CluePhase.SHOW:  # just the card
        kind, words = "show", ["show", text]
    if kind is None or len(words) < 2:
        raise ValueError("type 'suggest S, W, R', 'accuse S, W, R', 'end', 'show CARD', 'sheet', 'hint' or 'help'")
    if kind == "show":
        return ClueMove("show", card=parse_card(words[1], rules.card_names))
    parts = [p for p in words[1].replace(",", " , ").split(",")] if "," in words[1] else words[1].split()
    cards = sorted(parse_card(part, rules.card_names) for part in parts if part.strip())
    rules.triple_index(cards)  # one card of each category, or a clear error
    return ClueMove(kind, tuple(cards))


def _node(rules: ClueBoardRules, text: str) -> int:
    """The node a typed destination names: a room, or ``ROW,COLUMN`` of a corridor square."""
    board, numbers = rules.board, text.replace(",", " ").split()
    if len(numbers) == 2 and all(n.isdigit() for n in numbers):
        cell = (int(numbers[0]), int(numbers[1]))
        if cell not in board.square_cells:
            raise ValueError(f"row {cell[0]}, column {cell[1]} is no corridor square")
        return board.square_cells.index(cell)
    if not text.strip():
        raise ValueError("go where? a room, or ROW,COLUMN of a square marked *")
    room_start = rules.category_starts[-1]
    room = parse_card(text, rules.card_names[room_start:])
    return board.room_node(room)


def choices(rules: ClueRules, you: Any, mask: np.ndarray) -> tuple[str, str]:
    """What seat ``you`` (its knowledge) may do now: the line that asks for it, and the words for a move that may
    not be made."""
    phase = you.phase
    if phase == CluePhase.SHOW:
        options = ", ".join(rules.card_names[a - rules.end_action - 1] for a in np.flatnonzero(mask))
        return f"You must show P{you.asker} one of: {options}", "show one of the cards listed"
    if phase == CluePhase.AFTER:
        return "Accuse, or end your turn.", "accuse or end your turn"
    if not isinstance(rules, ClueBoardRules):
        return "Your turn: suggest or accuse.", "suggest or accuse"
    public = you.public
    if public.moved:
        if rules.allowed_rooms(public).any():
            where = rules.node_name(public.positions[you.player])
            return f"You may suggest (in the {where}), accuse or end your turn.", (
                "suggest in the room you entered, accuse or end your turn"
            )
        return "You may accuse or end your turn.", "accuse or end your turn"
    if public.roll:
        why = "move to a square marked * or a room within reach ('go ROOM', 'go ROW,COLUMN', or 'stay')"
        if np.flatnonzero(mask[rules.move_action :]).tolist() == [public.positions[you.player]]:
            return "Nothing is within reach: type 'stay'.", why
        return "Move: 'go ROOM' or 'go ROW,COLUMN' (a square marked *).", why
    passage = bool(mask[rules.passage_action])
    extra = (", 'passage'" if passage else "") + (
        ", suggest here (you were brought here)" if mask[: rules.num_triples].any() else ""
    )
    return f"Your turn: 'roll'{extra}, or accuse.", "roll" + (", take the passage" if passage else "") + " or accuse"


def seat_board(rules: ClueBoardRules, you: Any) -> str:
    """The board as seat ``you`` (its knowledge) sees it, rows and columns numbered, with what its roll reaches
    marked ``*`` while it is to move."""
    public = you.public
    marks = rules.reachable(public) if public.roll and not public.moved and public.mover == you.player else None
    return board_text(rules, public, marks, coordinates=True)


def move_text(rules: ClueRules, action: int) -> str:
    """An action in the notation :func:`parse_move` reads (with the board's moves where ``rules`` has one)."""
    move = rules.decode(int(action))
    if move.kind == "move" and isinstance(rules, ClueBoardRules):
        room = rules.board.room_of(move.node)
        if room >= 0:
            return f"go {rules.card_names[rules.category_starts[-1] + room]}"
        return "go {},{}".format(*rules.board.square_cells[move.node])
    if move.kind in ("suggest", "accuse"):
        return f"{move.kind} {', '.join(rules.card_names[c] for c in move.cards)}"
    if move.kind == "show":
        return f"show {rules.card_names[move.card]}"
    return move.kind


class ClueText:
    """Clue, with or without its board, as text for one seat at a time: :meth:`prompt`, :meth:`observation`,
    :meth:`parse`. Players are named ``P0``, ``P1``...; a seat is told which it is (on the board, seat ``p`` moves
    the token of the ``p``-th suspect)."""

    def __init__(self, rules: ClueRules) -> None:
        if not isinstance(rules, ClueRules):
            raise TypeError(f"ClueText plays Clue, got {type(rules).__name__}")
        self.rules = rules
        self.board = isinstance(rules, ClueBoardRules)
        self.names = [f"P{p}" for p in range(rules.players)]

    def prompt(self, seat: int) -> str:
        """The rules, the cards and how to answer, for ``seat``."""
        rules = self.rules
        doc = sys.modules[ClueRules.__module__].__doc__ or ""
        section = re.split(r"\n[^\n]+\n-{3,}\n", doc.split("Rules of Clue (:class:`ClueRules`)\n", 1)[1])[0]
        section = section.split("\n", 1)[1] if section.startswith("-") else section
        ends = [*rules.category_starts[1:], rules.cards]
        kinds = [", ".join(rules.card_names[a:b]) for a, b in zip(rules.category_starts, ends, strict=True)]
        notation = f"{NOTATION} {BOARD_NOTATION}" if self.board else NOTATION
        parts = [
            f"You are playing Clue with {rules.players} players (P0 to P{rules.players - 1}); you are "
            f"{self.names[seat]}. Be the first to accuse the three cards of the case file correctly.",
            "Rules:\n\n" + prompt_rules(section, rules) + "\n\n" + seat_order(rules.players),
        ]
        if self.board:  # the rules of Clue without the board say any room may be named
            parts[1] = parts[1].replace("There is no board: any room may be named.", "The room named is the one "
                                        "the mover's token is in (the board, below).")  # fmt: skip
        if self.board:
            parts.append(self._board_rules(seat))
        return "\n\n".join([
            *parts,
            "The cards (suspects, weapons, rooms):\n" + "\n".join(f"- {names}" for names in kinds),
            notation + " Each turn you are asked, reply with one move; you may think first, and put the move on "
            "the last line of your reply or as <answer>MOVE</answer>.",
        ])  # fmt: skip

    def _board_rules(self, seat: int) -> str:
        """The board's turn and movement, for the prompt (movement in the board module's own words)."""
        rules = self.rules
        assert isinstance(rules, ClueBoardRules)
        board_doc = sys.modules[ClueBoardRules.__module__].__doc__ or ""
        movement = board_doc.split("Movement (the rule of this suite)\n", 1)[1].split("\n", 1)[1]
        where = ("at any decision of your turn, naming any room" if rules.accusations == "anywhere" else
                 "only in the room you may suggest in this turn, naming that room")  # fmt: skip
        return "\n".join([
            f"The board: you move the token of {rules.card_names[seat]} (token {seat} on the board). A turn:",
            "* Start: roll the two dice (everyone sees the roll), or from the Kitchen, Study, Conservatory or Lounge "
            "take the secret passage to the opposite corner; or, if another player's suggestion brought your token "
            "into a room since your last turn, suggest in that room without moving.",
            "* After the roll: move to a square or room the roll reaches (marked on the board you are shown).",
            "* After moving: in a room you just entered, suggest naming that room; then, or elsewhere, end your turn. "
            "A suggestion moves the suggested suspect's token and the weapon into the room.",
            f"* You may accuse {where}.",
            "",
            "Movement: " + prompt_rules(movement.split("(The box's rule")[0], rules),
        ])  # fmt: skip

    def observation(self, seat: int, you: Any, events: Sequence[ClueEvent], mask: np.ndarray | None,
                    note: str | None = None, end: str | None = None) -> str:  # fmt: skip
        """What ``seat`` has seen (its knowledge ``you`` and its projected ``events``), and what it must do now
        (``mask``: its legal actions; None if it is not to act)."""
        rules = self.rules
        lines = [f"You are {self.names[seat]}. Your hand: " + ", ".join(rules.card_names[c] for c in you.hand) + "."]
        said = [rules.describe(event, self.names, you=seat) for event in events if event.kind != "deal"]
        last = end or (None if mask is None else choices(rules, you, mask)[0])
        if isinstance(rules, ClueBoardRules) and mask is not None and end is None:  # the board, then what to do
            last = f"The board (your token is {seat}):\n{seat_board(rules, you)}\n{last}"
        return seat_text(lines, said, note, last)

    def question(self, seat: int, you: Any, mask: np.ndarray, steps: Sequence[int]) -> tuple[float, float] | None:
        """The bits about the case file the move ``steps`` (a suggestion) is expected to gain from ``seat``'s
        knowledge ``you``, and the most any legal suggestion is (the entropy agent's scores,
        :func:`~deduction_envs.reasoning.clue_suggestions.score_suggestions`: exact over every consistent deal when
        there are at most 500, else over 2,000 drawn; a refuter shows any of its matching cards alike); None if the
        move is not a suggestion."""
        rules = self.rules
        if rules.decode(steps[0]).kind != "suggest":
            return None
        scores = score_suggestions(you.engine, seat, rng=len(you.events))
        gain = np.maximum(scores.gain, 0.0)
        return float(gain[steps[0]]), float(gain[mask[: rules.num_triples]].max())

    def say(self, seat: int, steps: Sequence[int]) -> str:
        """The reply that plays ``steps`` (one action: a Clue move is one step), as :meth:`steps` reads it."""
        return move_text(self.rules, steps[0])

    def complete(self, steps: Sequence[int]) -> bool:
        """Whether ``steps``, from the start of a move, are a whole move (one action)."""
        return True

    def answering(self, state: Any) -> bool:
        """Whether a question is still being answered in ``state`` (a refuter must show a card)."""
        return bool(state.phase == CluePhase.SHOW)

    def steps(self, reply: object, you: Any, mask: np.ndarray) -> list[int]:
        """:meth:`parse` as the list of actions a move is (one, in Clue)."""
        return [self.parse(reply, you, mask)]

    def parse(self, reply: object, you: Any, mask: np.ndarray) -> int:
        """The action ``reply`` names, if legal now for seat ``you``.

        Raises:
            ReplyError: why not, and what is expected.
        """
        rules = self.rules
        here = int(you.public.positions[you.player]) if self.board else -1
        notation = f"{NOTATION} {BOARD_NOTATION}" if self.board else NOTATION
        _, action = read_reply(reply, lambda answer: rules.action_index(parse_move(rules, answer, you.phase, here)),
                               notation)  # fmt: skip
        if not mask[action]:
            raise ReplyError(f"{move_text(rules, action)!r} is not legal now: {choices(rules, you, mask)[1]}")
        return action
