"""The board of Clue: a grid of the project's own drawing, movement by two dice, secret passages.

The grid
--------
24 columns by 25 rows (:data:`BOARD_MAP`), the nine rooms in the classic arrangement: Kitchen, Ballroom
and Conservatory along the top; Dining Room on the left, Billiard Room and Library on the right; Lounge,
Hall and Study along the bottom; the cellar (``X``) in the middle is no room of the game and cannot be
entered. In the map ``.`` is a corridor square, ``#`` a wall, a digit ``0``-``5`` the start square (a
corridor square) of that suspect, in card order (Miss Scarlet 0 ... Professor Plum 5), an upper-case
letter a cell of a room and its lower-case letter a cell of that room with a door: the door opens onto the
corridor squares beside it (K kitchen, B ballroom, C conservatory, D dining room, I billiard room, L library,
O lounge, H hall, S study).

Nodes
-----
Movement is on a graph: every corridor square is a node (``0 .. squares - 1``, row by row), and each room is
one node (``squares + r`` for room card ``r`` in the deck's order: Kitchen, Ballroom, Conservatory, Dining
Room, Billiard Room, Library, Lounge, Hall, Study), however many tokens it holds. Corridor squares are joined
to the squares beside them (not diagonally); a room to the corridor squares its doors open onto. The corner
rooms diagonally opposite are joined by the two secret passages: Kitchen and Study, Conservatory and Lounge.

Movement (the rule of this suite)
---------------------------------
A roll of two dice gives the number of squares a token may move: **up to** that many steps (at least one)
from node to node, never through or onto a corridor square another token stands on (rooms hold any number of
tokens). Entering a room ends the move, and a token may not end its move in the room it started in. A token
that cannot move stays where it is. (The box's rule is to move the whole count unless a room is entered;
moving up to the count is the common reading at the table, and it makes what is reachable a breadth-first
search.) :meth:`ClueBoard.reachable` is that rule; :meth:`ClueBoard.expected_rolls` the expected number of
rolls to cover a distance, the measure of a room's remoteness in Velma's agent.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from deduction_envs.core.raster import Canvas
from deduction_envs.core.rules import check_int
from deduction_envs.games.clue import ClueEvent, ClueMove, CluePhase, ClueRules, ClueState, deal

__all__ = [
    "ACCUSATION_RULES",
    "BOARD_MAP",
    "PASSAGES",
    "ROOM_LETTERS",
    "TWO_DICE",
    "ClueBoard",
    "board_pixels",
    "board_text",
    "ClueBoardRules",
    "ClueBoardState",
    "classic_board",
]

#: The grid, row 0 at the top (see the module docstring for its letters).
BOARD_MAP: tuple[str, ...] = (
    "#########2####3#########",
    "KKKKKK#..........#CCCCCC",
    "KKKKKK..BBBBBBBB..CCCCCC",
    "KKKKKK..BBBBBBBB..CCCCCC",
    "KKKKKK..BBBBBBBB..cCCCCC",
    "KKKKKK..bBBBBBBb..CCCCCC",
    "KKKKkK..BBBBBBBB.......4",
    "#.......BbBBBBbB.......#",
    "#................IIIIII#",
    "DDDDDDdD.........iIIIII#",
    "DDDDDDDD..XXXXX..IIIIII#",
    "DDDDDDDD..XXXXX..IIIIII#",
    "DDDDDDDd..XXXXX..IIIIiI#",
    "DDDDDDDD..XXXXX........#",
    "DDDDDDDD..XXXXX..LLLlLLL",
    "DDDDDDDD..XXXXX..LLLLLLL",
    "#.........XXXXX..lLLLLLL",
    "1..................LLLLL",
    "#........HHhhHH..LLLLLLL",
    "OOOOOoO..HHHHHH........5",
    "OOOOOOO..HHHHHH........#",
    "OOOOOOO..HHHHHh..SsSSSSS",
    "OOOOOOO..HHHHHH..SSSSSSS",
    "OOOOOOO..HHHHHH..SSSSSSS",
    "OOOOOOO##HHHHHH#0SSSSSSS",
)

#: Each room's letter in :data:`BOARD_MAP`, in the deck's room order.
ROOM_LETTERS = "KBCDILOHS"

#: The secret passages, by room index (0 Kitchen ... 8 Study): both ways.
PASSAGES: dict[int, int] = {0: 8, 8: 0, 2: 6, 6: 2}

#: Where a player on the board may accuse: ``"anywhere"`` (at any decision of its turn, any triple: this suite's
#: rule since the board was added) or ``"room"`` (the classic board rule, and pyvelma's: only in the room it may
#: suggest in this turn, naming that room).
ACCUSATION_RULES = ("anywhere", "room")

#: The probability of each sum of two fair dice, indexed by the sum (0 .. 12).
TWO_DICE = np.array([0, 0, *[(6 - abs(s - 7)) / 36 for s in range(2, 13)]])


class ClueBoard:
    """The board graph of a map (default :data:`BOARD_MAP`); see the module docstring for its nodes."""

    def __init__(self, board_map: Sequence[str] = BOARD_MAP) -> None:
        rows = [str(row) for row in board_map]
        if not rows or len({len(r) for r in rows}) != 1:
            raise ValueError("a board map is a list of rows of the same length")
        self.rows, self.height, self.width = tuple(rows), len(rows), len(rows[0])
        cells = [(y, x) for y in range(self.height) for x in range(self.width)]
        corridor = [(y, x) for y, x in cells if rows[y][x] == "." or rows[y][x].isdigit()]
        self.squares = len(corridor)
        self.rooms = len(ROOM_LETTERS)
        self.nodes = self.squares + self.rooms
        self.square_cells: tuple[tuple[int, int], ...] = tuple(corridor)
        index = {cell: i for i, cell in enumerate(corridor)}
        self.room_cells: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple((y, x) for y, x in cells if rows[y][x].upper() == letter) for letter in ROOM_LETTERS
        )
        neighbours: list[set[int]] = [set() for _ in range(self.nodes)]
        for (y, x), i in index.items():
            for cell in ((y + 1, x), (y, x + 1)):
                if cell in index:
                    neighbours[i].add(index[cell])
                    neighbours[index[cell]].add(i)
        for r, letter in enumerate(ROOM_LETTERS):
            doors = [(y, x) for y, x in self.room_cells[r] if rows[y][x] == letter.lower()]
            if not self.room_cells[r] or not doors:
                raise ValueError(f"the map has no room {letter!r} with a door")
            for y, x in doors:
                opens = [index[c] for c in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)) if c in index]
                if not opens:
                    raise ValueError(f"the door of room {letter!r} at row {y}, column {x} opens onto no corridor")
                for square in opens:
                    neighbours[self.squares + r].add(square)
                    neighbours[square].add(self.squares + r)
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(tuple(sorted(n)) for n in neighbours)
        starts = {int(rows[y][x]): index[(y, x)] for y, x in corridor if rows[y][x].isdigit()}
        if sorted(starts) != list(range(6)):
            raise ValueError("a board map has one start square for each of the six suspects, 0 to 5")
        self.starts: tuple[int, ...] = tuple(starts[s] for s in range(6))
        self.passages = {self.squares + a: self.squares + b for a, b in PASSAGES.items()}

    # ------------------------------------------------------------------ nodes
    def node(self, node: int) -> int:
        """``node`` checked: a ValueError unless it is one of the board's nodes (0 .. ``nodes - 1``)."""
        return check_int("node", node, low=0, high=self.nodes - 1)

    def is_room(self, node: int) -> bool:
        return self.node(node) >= self.squares

    def room_node(self, room: int) -> int:
        """The node of room ``room`` (0 Kitchen ... 8 Study)."""
        return self.squares + check_int("room", room, low=0, high=self.rooms - 1)

    def room_of(self, node: int) -> int:
        """The room index of a room node, -1 for a corridor square."""
        node = self.node(node)
        return node - self.squares if node >= self.squares else -1

    def describe(self, node: int) -> str:
        """A node in words: a room's letter-free name is the deck's; a square is ``row,column``."""
        node = self.node(node)
        if node >= self.squares:
            return f"room {node - self.squares}"
        y, x = self.square_cells[node]
        return f"square {y},{x}"

    # ------------------------------------------------------------------ movement
    def reachable(self, start: int, roll: int, occupied: np.ndarray | Sequence[int] = ()) -> np.ndarray:
        """The nodes a token at ``start`` may end its move on with ``roll`` (bool, one per node).

        ``occupied``: the corridor squares other tokens stand on (node ids, or a bool mask over nodes); they
        can be neither crossed nor landed on. Rooms end a move and hold any number of tokens; the start room
        is not a destination. Empty when the token cannot move.
        """
        start = check_int("start", start, low=0, high=self.nodes - 1)
        roll = check_int("roll", roll, low=0, high=12)
        blocked = np.zeros(self.nodes, dtype=bool)
        occupied = np.asarray(occupied)
        if occupied.dtype == bool:
            if occupied.shape != (self.nodes,):
                raise ValueError(f"occupied as a mask is one bool per node, {self.nodes}, got shape {occupied.shape}")
            blocked[: self.squares] = occupied[: self.squares]
        elif occupied.size:
            if occupied.ndim != 1 or not np.issubdtype(occupied.dtype, np.integer) or not (
                (occupied >= 0).all() and (occupied < self.nodes).all()
            ):
                raise ValueError(
                    f"occupied holds node ids in [0, {self.nodes - 1}] (or is a bool mask), got {occupied}"
                )
            blocked[occupied[occupied < self.squares]] = True
        blocked[start] = False
        seen = np.zeros(self.nodes, dtype=bool)
        seen[start] = True
        frontier = [start]
        for _ in range(roll):
            step = []
            for node in frontier:
                for nxt in self.neighbours[node]:
                    if not seen[nxt] and not blocked[nxt]:
                        seen[nxt] = True
                        if nxt < self.squares:  # a room ends the move: it is reached, not crossed
                            step.append(nxt)
            frontier = step
            if not frontier:
                break
        seen[start] = False
        return seen

    @cached_property
    def distances(self) -> np.ndarray:
        """Shortest path lengths between nodes on the empty board, rooms not crossed (``(nodes, nodes)``
        int64; -1: unreachable). A secret passage is not a path: it is a turn's move of its own."""
        far = np.full((self.nodes, self.nodes), -1, dtype=np.int64)
        for source in range(self.nodes):
            far[source, source] = 0
            queue = deque([source])
            while queue:
                node = queue.popleft()
                if node != source and node >= self.squares:
                    continue  # rooms end a path
                for nxt in self.neighbours[node]:
                    if far[source, nxt] < 0:
                        far[source, nxt] = far[source, node] + 1
                        queue.append(nxt)
        far.flags.writeable = False
        return far

    @cached_property
    def _expected_rolls(self) -> np.ndarray:
        """``E[d]`` for d = 0 .. the longest distance: ``E[0] = 0``, ``E[d] = 1 + sum_s P(s) E[max(d - s, 0)]``."""
        longest = int(self.distances.max())
        expected = np.zeros(longest + 1)
        for d in range(1, longest + 1):
            expected[d] = 1 + sum(TWO_DICE[s] * expected[max(d - s, 0)] for s in range(2, 13))
        return expected

    def expected_rolls(self, distance: int | np.ndarray) -> float | np.ndarray:
        """The expected number of rolls of two dice to cover ``distance`` steps, moving up to each roll's sum
        (the empty board's measure: other tokens are not counted). ``distance``: integers from 0 to the board's
        longest path (``distances.max()``); anything else is a ValueError."""
        distance = np.asarray(distance)
        longest = len(self._expected_rolls) - 1
        if distance.dtype == bool or not np.issubdtype(distance.dtype, np.integer) or (
            distance.size and not ((distance >= 0).all() and (distance <= longest).all())
        ):
            raise ValueError(f"distance must be integers in [0, {longest}] (the board's longest path), got {distance}")
        return self._expected_rolls[distance]

    @cached_property
    def room_rolls(self) -> np.ndarray:
        """Expected rolls from every node to every room, ``(nodes, rooms)`` (a room's own entry is 0; from a
        passage room, its opposite room is one move away: 1)."""
        rolls = np.asarray(self.expected_rolls(self.distances[:, self.squares :]), dtype=float)
        for a, b in self.passages.items():
            rolls[a, b - self.squares] = min(rolls[a, b - self.squares], 1.0)
        rolls.flags.writeable = False
        return rolls


_CLASSIC: ClueBoard | None = None


def classic_board() -> ClueBoard:
    """The board of :data:`BOARD_MAP`, built once."""
    global _CLASSIC
    if _CLASSIC is None:
        _CLASSIC = ClueBoard()
    return _CLASSIC


# --------------------------------------------------------------------------------------------- the rules


@dataclass
class ClueBoardState(ClueState):
    """A Clue position on the board: :class:`~deduction_envs.games.clue.ClueState` and the board's public part.

    ``positions[s]`` is suspect ``s``'s node (seat ``s`` plays suspect ``s``; the others' tokens stand on the
    board too), ``weapons[w]`` weapon ``w``'s room. In the turn of ``mover``: ``roll`` the dice's sum (0 before
    the roll), ``moved`` whether its token has moved (rolled and moved, or taken a passage), ``entered`` the
    room it entered (-1: none). ``summoned[s]``: suspect ``s``'s token was moved into its room by another
    player's suggestion since its player's last turn. ``dice`` draws the rolls (the table's, not a seat's),
    made from ``dice_seed`` at the first roll (most random games end before any).
    """

    positions: list[int] = field(default_factory=list)
    weapons: list[int] = field(default_factory=list)
    roll: int = 0
    moved: bool = False
    entered: int = -1
    summoned: list[bool] = field(default_factory=list)
    dice_seed: int = 0
    dice: np.random.Generator | None = None

    def copy(self) -> ClueBoardState:
        return ClueBoardState(
            self.places, self.hands, self.mover, self.phase, self.suggestion, self.refuter, list(self.out),
            self.winner, list(self.positions), list(self.weapons), self.roll, self.moved, self.entered,
            list(self.summoned), self.dice_seed, None if self.dice is None else copy.deepcopy(self.dice),
        )  # fmt: skip

    def throw(self) -> tuple[int, int]:
        """Two dice from the table's generator."""
        if self.dice is None:
            self.dice = np.random.default_rng(self.dice_seed)
        first, second = self.dice.integers(1, 7, size=2)
        return int(first), int(second)


@dataclass(frozen=True)
class ClueBoardRules(ClueRules):
    """Clue on the board for 2 to 6 players: :class:`~deduction_envs.games.clue.ClueRules` with movement.

    A turn
    ------
    * **The start of a turn** (phase ``START``, not yet moved): *roll* the two dice (drawn by the table's
      seeded generator, seen by everyone), or, in the Kitchen, Study, Conservatory or Lounge, take the *secret
      passage* to the opposite corner; or, if another player's suggestion moved one's token into a room since
      one's last turn, *suggest* in that room without moving; or *accuse*.
    * **After the roll**: *move* to one of the nodes :meth:`ClueBoard.reachable` gives for the roll (the
      board's rule of movement); a token that cannot move *moves to its own node* (stays).
    * **After moving**: in a room just entered (by the dice or the passage), *suggest* naming that room, or
      *accuse*, or *end* the turn; elsewhere *accuse* or *end*. A suggestion goes round the table as in
      :class:`ClueRules`, and it moves the suggested suspect's token (and the weapon's) into the room.
    * After a suggestion, as in :class:`ClueRules`: the refuter shows a card, then the mover accuses or ends.

    Accusations
    -----------
    ``accusations="anywhere"`` (the default): at any decision of one's turn (before the roll, after the move,
    after a suggestion), naming any room. ``accusations="room"`` (the classic board rule, and pyvelma's): only in
    the room one may suggest in this turn (the room just entered by the dice or the passage, or, at the start of
    the turn, the room another's suggestion brought one's token into), before or after suggesting there, and the
    accusation names that room; a player who knows the case file must get to the murder room to say so.

    Actions
    -------
    :class:`ClueRules`'s 670 (suggestions, accusations, end, show), then *roll* (670), *passage* (671), and
    *move to node n* (``672 + n``, nodes as :class:`ClueBoard` numbers them: the corridor squares row by row,
    then the nine rooms in card order): ``672 + nodes`` actions in all.
    """

    accusations: str = "anywhere"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.accusations not in ACCUSATION_RULES:
            raise ValueError(f"accusations must be one of {', '.join(ACCUSATION_RULES)}, got {self.accusations!r}")

    @cached_property
    def board(self) -> ClueBoard:
        return classic_board()

    @cached_property
    def roll_action(self) -> int:
        return 2 * self.num_triples + 1 + self.cards

    @cached_property
    def passage_action(self) -> int:
        return self.roll_action + 1

    @cached_property
    def move_action(self) -> int:
        """The action of a move to node 0; node ``n`` is ``move_action + n``."""
        return self.roll_action + 2

    @cached_property
    def num_actions(self) -> int:
        return self.move_action + self.board.nodes

    @cached_property
    def _moves(self) -> tuple[ClueMove, ...]:
        nodes = range(self.board.nodes)
        return (*super()._moves, ClueMove("roll"), ClueMove("passage"), *(ClueMove("move", node=n) for n in nodes))

    def action_index(self, move: ClueMove) -> int:
        if move.kind == "roll":
            return self.roll_action
        if move.kind == "passage":
            return self.passage_action
        if move.kind == "move":
            return self.move_action + check_int("node", move.node, low=0, high=self.board.nodes - 1)
        return super().action_index(move)

    def format_move(self, move: ClueMove) -> str:
        if move.kind == "roll":
            return "roll the dice"
        if move.kind == "passage":
            return "take the secret passage"
        if move.kind == "move":
            return f"move to {self.node_name(move.node)}"
        return super().format_move(move)

    def node_name(self, node: int) -> str:
        """A node in words: a room's name, or ``square row,column``."""
        room = self.board.room_of(node)
        return self.card_names[self.category_starts[-1] + room] if room >= 0 else self.board.describe(node)

    def describe(self, event: ClueEvent, names: Sequence[str] | None = None, you: int | None = None) -> str:
        if event.kind not in ("roll", "move", "passage"):
            return super().describe(event, names, you)
        named = list(names) if names else [f"player {p}" for p in range(self.players)]
        who = "You" if event.player == you else named[event.player][0].upper() + named[event.player][1:]
        if event.kind == "roll":
            return f"{who} {'roll' if event.player == you else 'rolls'} {event.dice[0]} and {event.dice[1]}."
        verb = "take" if event.player == you else "takes"
        if event.kind == "passage":
            return f"{who} {verb} the secret passage to the {self.node_name(event.node)}."
        return f"{who} {'move' if event.player == you else 'moves'} to {self.node_name(event.node)}."

    # ------------------------------------------------------------------ the game
    def new_game(self, rng: np.random.Generator, first: int = 0) -> ClueBoardState:
        """Deal as :class:`ClueRules` does (the same deal for the same generator), then put the weapons in six
        random rooms and seed the dice from ``rng``."""
        first = check_int("first", first, low=0, high=self.players - 1)
        places = deal(self.category_sizes, [1] * len(self.categories), self.players, rng)
        state = ClueRules.state_of_deal(self, places, first)  # not the board's: its dice would be thrown away
        weapons = rng.permutation(self.board.rooms)[: self.category_sizes[1]].tolist()
        return self._on_board(state, weapons, int(rng.integers(2**63)))

    def _on_board(self, state: ClueState, weapons: list[int], dice_seed: int) -> ClueBoardState:
        """``state`` with the tokens on their start squares, the weapons in ``weapons``."""
        suspects = self.category_sizes[0]
        return ClueBoardState(
            state.places, state.hands, state.mover, state.phase, state.suggestion, state.refuter, state.out,
            state.winner, list(self.board.starts[:suspects]), weapons, summoned=[False] * suspects,
            dice_seed=dice_seed,
        )  # fmt: skip

    def public_state(self) -> ClueBoardState:
        return self._on_board(super().public_state(), [], 0)

    def state_of_deal(
        self, places: Sequence[int] | np.ndarray, first: int = 0, public: ClueState | None = None
    ) -> ClueState:
        """:meth:`ClueRules.state_of_deal` on the board: the tokens, weapons and turn of ``public`` (or the
        start), and dice seeded by the deal (a determinisation's future rolls are its own draw)."""
        base = super().state_of_deal(places, first, public)
        seed = hash(base.places) & (2**63 - 1)  # a tuple of ints hashes the same in every process
        if public is None:
            return self._on_board(base, list(range(self.category_sizes[1])), seed)
        state = public.copy()
        assert isinstance(state, ClueBoardState), "a board game's position is a board state"
        state.places, state.hands, state.dice_seed, state.dice = base.places, base.hands, seed, None
        return state

    # The methods below take ClueBoardState, not ClueRules' ClueState: these rules only ever see the states they
    # make (a table asks its rules for its states), so the narrowing is safe; mypy is told so, method by method.
    def deal_event(self, state: ClueBoardState) -> ClueEvent:  # type: ignore[override]
        return super().deal_event(state)._replace(weapons=tuple(state.weapons))

    def allowed_rooms(self, state: ClueBoardState) -> np.ndarray:  # type: ignore[override]
        """The rooms the mover may name now: the room it entered this turn, or, at the start of its turn, the
        room another's suggestion moved it to; none otherwise."""
        rooms = np.zeros(self.board.rooms, dtype=bool)
        if state.moved:
            if state.entered >= 0:
                rooms[state.entered] = True
        elif state.roll == 0 and state.summoned[state.mover]:
            room = self.board.room_of(state.positions[state.mover])
            if room >= 0:
                rooms[room] = True
        return rooms

    def reachable(self, state: ClueBoardState) -> np.ndarray:
        """The nodes the mover's token may move to with the roll (bool per node): :meth:`ClueBoard.reachable`
        among the other tokens, or its own node alone if it cannot move."""
        me = state.positions[state.mover]
        others = [p for s, p in enumerate(state.positions) if s != state.mover]
        reach = self.board.reachable(me, state.roll, others)
        if not reach.any():
            reach[me] = True
        return reach

    def legal_mask(self, state: ClueBoardState) -> np.ndarray:  # type: ignore[override]
        if state.phase != CluePhase.START:
            mask = super().legal_mask(state)
            if state.phase == CluePhase.AFTER and self.accusations == "room":
                self._room_accusations(state, mask)
            return mask
        if state.roll and not state.moved:  # after the roll: only the move
            mask = np.zeros(self.num_actions, dtype=bool)
            mask[self.move_action :] = self.reachable(state)
            return mask
        mask = self._board_masks[state.moved].copy()  # the accusations, and the roll or the end
        if not state.moved:
            mask[self.passage_action] = state.positions[state.mover] in self.board.passages
        for room in np.flatnonzero(self.allowed_rooms(state)):
            mask[self._room_suggestions[room]] = True
        if self.accusations == "room":
            self._room_accusations(state, mask)
        return mask

    def _room_accusations(self, state: ClueBoardState, mask: np.ndarray) -> None:
        """Under ``accusations="room"``: ``mask``'s accusations cut to those naming the room of this turn."""
        mask[self.num_triples : 2 * self.num_triples] = False
        for room in np.flatnonzero(self.allowed_rooms(state)):
            mask[self.num_triples + self._room_suggestions[room]] = True

    @cached_property
    def _board_masks(self) -> tuple[np.ndarray, np.ndarray]:
        """The start of a turn (accusations and the roll) and after the move (accusations and the end)."""
        masks = np.zeros((2, self.num_actions), dtype=bool)
        masks[:, self.num_triples : 2 * self.num_triples] = True
        masks[0, self.roll_action] = masks[1, self.end_action] = True
        return masks[0], masks[1]

    @cached_property
    def _room_suggestions(self) -> tuple[np.ndarray, ...]:
        """Per room, the actions of the suggestions naming it (the room is the fastest index)."""
        rooms = self.category_sizes[-1]
        return tuple(np.arange(room, self.num_triples, rooms) for room in range(rooms))

    def _is_legal(self, state: ClueBoardState, move: ClueMove) -> bool:  # type: ignore[override]
        if state.phase != CluePhase.START:
            legal = move.kind not in ("roll", "passage", "move") and super()._is_legal(state, move)
            if legal and move.kind == "accuse" and self.accusations == "room":
                return bool(self.allowed_rooms(state)[move.cards[-1] - self.category_starts[-1]])
            return legal
        return bool(self.legal_mask(state)[self.action_index(move)])  # the board's turn: one statement, the mask

    def apply(self, state: ClueBoardState, action: int) -> ClueEvent:  # type: ignore[override]
        move = self.decode(action)
        if move.kind not in ("roll", "passage", "move"):
            return super().apply(state, action)
        if not self._is_legal(state, move):
            raise ValueError(f"action {action} ({self.format_move(move)}) is not legal now")
        player = state.mover
        if move.kind == "roll":
            event = ClueEvent("roll", player, dice=state.throw())
        elif move.kind == "passage":
            event = ClueEvent("passage", player, node=self.board.passages[state.positions[player]])
        else:
            event = ClueEvent("move", player, node=move.node)
        self.advance(state, event)
        return event

    def advance(self, state: ClueBoardState, event: ClueEvent) -> None:  # type: ignore[override]
        """:meth:`ClueRules.advance`, and the board: the weapons' rooms at the deal, the roll, a token's move, the
        tokens a suggestion moves, and the turn's board state cleared when the turn passes."""
        kind = event.kind
        if kind == "deal":
            state.weapons = list(event.weapons)
        elif kind == "roll":
            state.roll = sum(event.dice)
        elif kind in ("move", "passage"):
            stayed = state.positions[event.player] == event.node  # a token that could not move: no room entered
            state.positions[event.player] = event.node
            state.moved, state.entered = True, -1 if stayed else self.board.room_of(event.node)
        elif kind == "suggest":
            suspect, weapon, room = (c - s for c, s in zip(event.cards, self.category_starts, strict=True))
            node = self.board.room_node(room)
            if suspect < self.players and suspect != event.player and state.positions[suspect] != node:
                state.summoned[suspect] = True
            state.positions[suspect] = node
            state.weapons[weapon] = room
        super().advance(state, event)
        if event.next_mover >= 0:  # the turn passed: its board state is spent
            state.roll, state.moved, state.entered = 0, False, -1
            state.summoned[event.player] = False


# --------------------------------------------------------------------------------------------- renders

#: The suspects' token colours, in card order (Scarlet, Mustard, White, Green, Peacock, Plum).
TOKEN_COLORS = ((200, 30, 40), (230, 180, 20), (245, 245, 245), (30, 140, 60), (40, 90, 200), (130, 50, 150))
#: Each room's floor, in card order: muted, and no two neighbours alike.
_ROOM_COLORS = ((214, 166, 120), (196, 178, 214), (150, 200, 160), (206, 150, 150), (130, 180, 170),
                (170, 150, 120), (220, 190, 140), (180, 180, 200), (160, 130, 160))  # fmt: skip
_CORRIDOR, _WALL, _CELLAR, _DOOR = (235, 225, 190), (60, 50, 40), (90, 80, 70), (255, 255, 255)


def board_text(
    rules: ClueBoardRules, state: ClueBoardState, marks: np.ndarray | None = None, coordinates: bool = False
) -> str:
    """The board as text: the map with each suspect's token as its number on its corridor square, then who and
    which weapons are in each occupied room, and the turn's roll. ``marks`` (bool per node, such as what a roll
    reaches): corridor squares drawn ``*``, rooms listed. ``coordinates``: rows and columns numbered (a square
    is named ``row,column``). Reads only the public part of ``state`` (a seat's ``knowledge.public`` will do)."""
    board = rules.board
    grid = [list(row.replace("X", " ")) for row in board.rows]
    for node in np.flatnonzero(marks[: board.squares]) if marks is not None else ():
        y, x = board.square_cells[node]
        grid[y][x] = "*"
    for row in grid:
        for x, cell in enumerate(row):
            if cell.isdigit():
                row[x] = "."  # start squares are corridor squares
    names = rules.card_names
    rooms: dict[int, list[str]] = {}
    for suspect, place in enumerate(state.positions):
        if board.is_room(int(place)):
            rooms.setdefault(board.room_of(int(place)), []).append(f"{names[suspect]} ({suspect})")
        else:
            y, x = board.square_cells[place]
            grid[y][x] = str(suspect)
    weapon_start = rules.category_starts[1]
    for weapon, room in enumerate(state.weapons):
        rooms.setdefault(room, []).append(names[weapon_start + weapon])
    lines = ["".join(row) for row in grid]
    if coordinates:
        columns = range(board.width)
        lines = [
            "   " + "".join(str(x // 10) if x >= 10 else " " for x in columns),
            "   " + "".join(str(x % 10) for x in columns),
            *(f"{y:>2} {line}" for y, line in enumerate(lines)),
        ]
    room_start = rules.category_starts[-1]
    for room in sorted(rooms):
        lines.append(f"{names[room_start + room]} ({ROOM_LETTERS[room]}): {', '.join(rooms[room])}")
    if state.roll:
        lines.append(f"rolled {state.roll}" + (", moved" if state.moved else ", to move"))
    if marks is not None and marks[board.squares :].any():
        reached = [names[room_start + r] for r in np.flatnonzero(marks[board.squares :])]
        lines.append("rooms within reach: " + ", ".join(reached))
    return "\n".join(lines)


def board_pixels(rules: ClueBoardRules, state: ClueBoardState, cell: int = 16) -> np.ndarray:
    """The board as an image: corridors, rooms (doors in white), the suspects' tokens as discs in their colours
    (in rooms side by side), the weapons as small squares in their rooms."""
    board = rules.board
    canvas = Canvas(board.height * cell, board.width * cell, _WALL)
    for y, row in enumerate(board.rows):
        for x, letter in enumerate(row):
            if letter == "." or letter.isdigit():  # corridor squares, one by one
                canvas.rect(y * cell + 1, x * cell + 1, cell - 2, cell - 2, _CORRIDOR)
            elif letter == "X":
                canvas.rect(y * cell, x * cell, cell, cell, _CELLAR)
            elif letter.upper() in ROOM_LETTERS:  # a room's floor is of a piece
                canvas.rect(y * cell, x * cell, cell, cell, _ROOM_COLORS[ROOM_LETTERS.index(letter.upper())])
                if letter.islower():
                    canvas.frame(y * cell, x * cell, cell, cell, _DOOR, 2)
    for start in board.starts:
        y, x = board.square_cells[start]
        canvas.frame(y * cell + 2, x * cell + 2, cell - 4, cell - 4, (160, 150, 120), 1)
    in_room: dict[int, int] = {}
    for suspect, node in enumerate(state.positions):
        if board.is_room(node):
            k = in_room.get(node, 0)
            in_room[node] = k + 1
            y, x = board.room_cells[board.room_of(node)][1 + k]  # along the room's top row
        else:
            y, x = board.square_cells[node]
        canvas.disc((y + 0.5) * cell, (x + 0.5) * cell, cell * 0.4, TOKEN_COLORS[suspect], outline=(0, 0, 0))
    weapons_in: dict[int, int] = {}
    for room in state.weapons:
        k = weapons_in.get(room, 0)
        weapons_in[room] = k + 1
        cells = board.room_cells[room]
        y, x = cells[len(cells) - 2 - k]  # along the room's bottom row
        canvas.rect(y * cell + cell // 4, x * cell + cell // 4, cell // 2, cell // 2, (70, 70, 70))
    return canvas.pixels
