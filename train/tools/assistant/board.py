"""The assistant's advice on the board: roll or passage, and where to move, ranked as Velma ranks them.

Pyvelma's assistant ranks "whether to take a secret passage or roll the dice" and "where to move after rolling
the dice" (``../shared/references/pyvelma-readme.txt``). :func:`board_advice` does the same for the person at a
real table, on this suite's board (:mod:`deduction_envs.games.clue_board`: the classic arrangement of rooms, a
grid of its own drawing, squares named ``row,column`` as :func:`board_map` numbers them):

* **before the roll** (no ``roll`` given): rolling (the expected best score over the eleven sums of two dice),
  the secret passage from a corner room, and suggesting where you stand if another's suggestion brought you
  there (``summoned``), best first;
* **after the roll**: every node the roll reaches (up to the roll's count, never through another token's square,
  ``others``), best first, each with the suggestion to make in a room it enters.

The scores are :class:`agents.clue_velma.ClueVelma`'s (:func:`~agents.clue_velma.destination_scores`, pyvelma's
sum by default: expected entropy in nats plus the expected rolls to the murder room), from the session's
knowledge. Velma accuses when the likeliest case file reaches :data:`~agents.clue_velma.VELMA_THRESHOLD`; under
the classic rule (``accusations="room"``: accuse only in the room entered this turn, naming it) it then heads for
the accused room instead, and so does the ranking: the room first, then the nodes nearest it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agents.clue_velma import SCORES, VELMA_THRESHOLD, destination_scores, roll_value, room_values
from deduction_envs.games.clue import CLASSIC_CATEGORIES, parse_card
from deduction_envs.games.clue_board import ACCUSATION_RULES, ROOM_LETTERS, ClueBoard, classic_board

if TYPE_CHECKING:
    from train.tools.assistant.session import ClueSession

__all__ = ["BoardAdvice", "BoardOption", "board_advice", "board_map", "parse_position"]

#: The first room card's id in the classic deck (suspects 0-5, weapons 6-11, rooms 12-20), and the rooms' names.
FIRST_ROOM = 12
ROOMS = CLASSIC_CATEGORIES[2]


@dataclass(frozen=True)
class BoardOption:
    """One thing to do on the board: what (``action``, in words), its score (higher better) and, where it enters a
    room, the suggestion to make there and the expected entropy of the case file after it (bits); the expected
    rolls from where it ends to the murder room (``remoteness``)."""

    action: str
    score: float
    suggestion: tuple[str, ...] = ()
    entropy_after: float = math.nan
    remoteness: float = math.nan

    def __str__(self) -> str:
        text = self.action
        if self.suggestion:
            text += f", suggest {', '.join(self.suggestion)} (case file {self.entropy_after:.2f} bits after)"
        if not math.isnan(self.remoteness):
            text += f"; {self.remoteness:.1f} rolls from the murder room"
        return text


@dataclass(frozen=True)
class BoardAdvice:
    """The ranked board options (best first) from ``position`` with ``roll`` (None: before rolling)."""

    position: str
    roll: int | None
    options: tuple[BoardOption, ...]
    accusation: str  # what to do about accusing, in words ("" while Velma would not accuse)
    score: str
    accusations: str

    #: How many options the text shows (the rest are counted).
    shown: int = 6

    def __str__(self) -> str:
        when = f"rolled {self.roll}" if self.roll is not None else "before rolling"
        head = f"On the board at {self.position}, {when} (Velma's {self.score}, accusations {self.accusations}):"
        lines = [head, *(f"{i}. {option}" for i, option in enumerate(self.options[: self.shown], start=1))]
        if len(self.options) > self.shown:
            lines.append(f"({len(self.options) - self.shown} more, each worse)")
        if self.accusation:
            lines.insert(1, self.accusation)
        return "\n".join(lines)


def parse_position(text: str, board: ClueBoard | None = None) -> int:
    """A board node from what a person types: a room (its name or the start of a word, "kitch") or a corridor
    square as ``row,column`` (the numbers :func:`board_map` shows). A ValueError says what is wrong."""
    board = classic_board() if board is None else board
    text = str(text).strip()
    square = re.fullmatch(r"(-?\d+)\s*[, ]\s*(-?\d+)", text)
    if square:
        y, x = int(square[1]), int(square[2])
        if not (0 <= y < board.height and 0 <= x < board.width):
            size = f"rows 0-{board.height - 1}, columns 0-{board.width - 1}"
            raise ValueError(f"square {y},{x} is off the board ({size})")
        if (y, x) not in board.square_cells:
            letter = board.rows[y][x]
            what = "a room's" if letter.upper() in ROOM_LETTERS else "a wall's or the cellar's"
            raise ValueError(f"square {y},{x} is {what} cell, not a corridor square: name the room, or a '.' square")
        return board.square_cells.index((y, x))
    try:
        return board.room_node(parse_card(text, ROOMS))
    except ValueError as error:
        raise ValueError(f"{error}: a position is a room ({', '.join(ROOMS)}) or a square 'row,column'") from None


def board_map(here: int, marks: np.ndarray | None = None, others: Sequence[int] = (), board: ClueBoard | None = None
              ) -> str:  # fmt: skip
    """The board as text with numbered rows and columns: ``@`` your square, ``o`` the squares of ``others``,
    ``*`` the squares of ``marks`` (bool per node, such as what a roll reaches); the rooms by their letters
    (lower case at a door), the cellar blank."""
    board = classic_board() if board is None else board
    grid = [list(row.replace("X", " ")) for row in board.rows]
    for row in grid:
        for x, cell in enumerate(row):
            if cell.isdigit():
                row[x] = "."  # start squares are corridor squares
    marked = np.flatnonzero(marks[: board.squares]) if marks is not None else ()
    for symbol, nodes in (("*", marked), ("o", [n for n in others if n < board.squares]), ("@", [here])):
        for node in nodes:
            if node < board.squares:
                y, x = board.square_cells[node]
                grid[y][x] = symbol
    columns = range(board.width)
    lines = [
        "   " + "".join(str(x // 10) if x >= 10 else " " for x in columns),
        "   " + "".join(str(x % 10) for x in columns),
        *(f"{y:>2} {''.join(row)}" for y, row in enumerate(grid)),
    ]
    legend = ", ".join(f"{letter} {name}" for letter, name in zip(ROOM_LETTERS, ROOMS, strict=True))
    return "\n".join([*lines, "@ you, o other tokens, * reached;", f"rooms: {legend}"])


def board_advice(
    session: ClueSession,
    position: int | str,
    roll: int | None = None,
    others: Sequence[int | str] = (),
    summoned: bool = False,
    accusations: str = "anywhere",
    score: str = "sum",
) -> BoardAdvice:
    """What Velma would do on the board from ``position`` (a node, a room's name or ``"row,column"``), ranked.

    Args:
        session: the game (its knowledge gives the suggestions' scores and the murder room's probabilities).
        roll: the dice's sum (2 to 12) once rolled; None before rolling.
        others: the corridor squares other tokens stand on (they block); rooms are not blocked.
        summoned: another's suggestion brought you into the room you stand in since your last turn.
        accusations: the table's rule, ``"anywhere"`` or ``"room"`` (accuse only in the room entered this turn).
        score: Velma's ``"sum"`` (pyvelma's) or ``"rate"``.

    Raises:
        ValueError: a Generalized Clue game (it has no board), or a bad position, roll, square or choice.
    """
    if session.deck is not None:
        raise ValueError("Generalized Clue has no board: board advice is for Clue")
    if accusations not in ACCUSATION_RULES:
        raise ValueError(f"accusations must be one of {', '.join(ACCUSATION_RULES)}, got {accusations!r}")
    if score not in SCORES:
        raise ValueError(f"score must be one of {', '.join(SCORES)}, got {score!r}")
    board = classic_board()

    def node(place: int | str) -> int:
        """A node given as a node, a room's name or ``row,column``."""
        if isinstance(place, int | np.integer) and not isinstance(place, bool):
            return board.node(int(place))
        return parse_position(str(place), board)

    here, blocked = node(position), [node(o) for o in others]
    if here in blocked and here < board.squares:
        raise ValueError("another token cannot stand on your square")
    if roll is not None and (isinstance(roll, bool) or not isinstance(roll, int | np.integer) or not 2 <= roll <= 12):
        raise ValueError(f"a roll of two dice is 2 to 12, got {roll!r}")
    if summoned and not board.is_room(here):
        raise ValueError("a suggestion brings a token into a room: summoned is for a position in a room")
    scores = session.scores()
    solution = session.solution()
    case = len(session.players)
    murder = solution.probabilities[FIRST_ROOM + np.arange(board.rooms), case]
    values = room_values(scores, murder)
    after, _, murder = values
    remote = board.room_rolls @ murder
    likeliest = int(np.argmax(solution.case_file_probabilities))
    accused = tuple(int(c) for c in solution.case_files[likeliest])
    ready = float(solution.case_file_probabilities[likeliest]) >= VELMA_THRESHOLD
    names = session.card_names
    accused_names = ", ".join(names[c] for c in accused)
    goal_room = accused[-1] - FIRST_ROOM
    accusation = ""
    if ready and accusations == "anywhere":
        accusation = f"Velma would accuse now: {accused_names} (p = {solution.case_file_probabilities[likeliest]:.2f})"
    elif ready:
        accusation = (f"Velma would accuse {accused_names} (p = {solution.case_file_probabilities[likeliest]:.2f}) in "
                      f"the {names[accused[-1]]}: here if you entered it this turn or were brought here, else it heads "
                      "there")  # fmt: skip
    heading = ready and accusations == "room"

    def option(action: str, node: int, value: float, entered: bool) -> BoardOption:
        room = board.room_of(node)
        if entered and room >= 0:
            allowed = scores.suggestions[:, 2] == FIRST_ROOM + room
            best = scores.best(allowed, np.random.default_rng(0))
            suggestion = tuple(names[c] for c in scores.suggestions[best])
            return BoardOption(action, value, suggestion, float(after[room]), float(remote[node]))
        return BoardOption(action, value, remoteness=float(remote[node]))

    def heading_values(reach: np.ndarray) -> np.ndarray:
        """Under the classic rule with an accusation to make, as :func:`agents.clue_moves.toward` heads: the
        accused room first, then the squares nearest it, another room last (it would end the move there)."""
        goal = board.room_node(goal_room)
        values = -board.distances[reach, goal].astype(float)
        values[reach == goal] = 0.0
        if (reach < board.squares).any():
            values[(reach >= board.squares) & (reach != goal)] -= 1000.0
        return values

    options: list[BoardOption] = []
    name = _node_name(board, here)
    if roll is None:
        if heading:
            roll_score = -1.0  # the roll: below a passage that leads there, above one that does not
        else:
            roll_score = roll_value(board, here, blocked, *values, score)
        options.append(BoardOption("roll the dice", roll_score, remoteness=float(remote[here])))
        if here in board.passages:
            there = board.passages[here]
            if heading:
                value = 0.0 if board.room_of(there) == goal_room else -2.0
            else:
                value = float(destination_scores(board, np.array([there]), here, *values, score)[0])
            options.append(option(f"take the secret passage to the {_node_name(board, there)}", there, value, True))
        if summoned and heading and board.room_of(here) == goal_room:
            options.append(BoardOption(f"stay and accuse in the {name}", 1.0))
        elif summoned:
            value = -3.0 if heading else float(destination_scores(board, np.array([here]), -1, *values, score)[0])
            options.append(option(f"stay and suggest in the {name}", here, value, True))
    else:
        reach = np.flatnonzero(board.reachable(here, int(roll), blocked))
        if reach.size == 0:
            options.append(BoardOption(f"stay at {name} (the roll reaches nothing)", 0.0))
        else:
            if heading:
                values_of = heading_values(reach)
            else:
                values_of = destination_scores(board, reach, here, *values, score)
            for node, value in zip(reach, values_of, strict=True):
                options.append(option(f"move to {_node_name(board, int(node))}", int(node), float(value), True))
    options.sort(key=lambda o: -o.score)
    return BoardAdvice(name, None if roll is None else int(roll), tuple(options), accusation, score, accusations)


def _node_name(board: ClueBoard, node: int) -> str:
    """A node as the advice names it: a room's name, or ``square row,column``."""
    room = board.room_of(node)
    return ROOMS[room] if room >= 0 else board.describe(node)


def board_page(session: ClueSession, at: str, roll: str = "", others: str = "", summoned: bool = False,
               accusations: str | None = None) -> dict[str, object]:  # fmt: skip
    """The board's advice as the web page shows it, from the form's text: ``at`` a room or ``row,column``,
    ``roll`` empty (before rolling) or 2 to 12, ``others`` squares separated by ``;``. Returns ``head``,
    ``accusation``, ``options`` (best first, at most :attr:`BoardAdvice.shown`), ``more`` (how many not shown)
    and ``map`` (:func:`board_map` with what the roll reaches marked). A ValueError says what is wrong."""
    roll = roll.strip()
    if roll and not roll.isdigit():
        raise ValueError(f"a roll is a number, 2 to 12, got {roll!r}")
    squares = [o.strip() for o in others.split(";") if o.strip()]
    advice = board_advice(session, at, int(roll) if roll else None, squares, summoned,
                          session.accusations if accusations is None else accusations)  # fmt: skip
    board = classic_board()
    here = parse_position(at, board)
    blocked = [parse_position(o, board) for o in squares]
    marks = board.reachable(here, int(roll), blocked) if roll else None
    text = str(advice).split("\n")
    return {
        "head": text[0],
        "accusation": advice.accusation,
        "options": [str(option) for option in advice.options[: advice.shown]],
        "more": max(len(advice.options) - advice.shown, 0),
        "map": board_map(here, marks, blocked, board),
    }
