"""Clue (Cluedo) as a PettingZoo AEC env: ``clue_v0``.

A whole game of random legal actions::

    from deduction_envs.envs import clue_v0

    env = clue_v0.env(players=4, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"] if not (termination or truncation) else None
        action = None if mask is None else env.action_space(agent).sample(mask)
        env.step(action)

The rules are in :mod:`deduction_envs.games.clue` (2 to 6 players, the
classic deck, no board: any room may be suggested) and, with ``board=True``, in
:mod:`deduction_envs.games.clue_board` (the board: dice, movement, secret passages,
suggestions only in the room just entered); this module adapts them
to :class:`~deduction_envs.envs.multiplayer_env.MultiplayerAECEnv`. Agents are
``player_0`` .. ``player_{p-1}``; the agent to act is whoever must decide
now: the player whose turn it is, or the refuter choosing which card to show.

Action space
------------
``Discrete(670)``. To decode an action ``a`` (``rules.decode(a)`` does it):

* ``a < 324``: suggest the triple ``a``: suspect card ``a // 54``, weapon card
  ``6 + a // 9 % 6``, room card ``12 + a % 9`` (card ids follow
  ``rules.card_names``: suspects, weapons, rooms);
* ``324 <= a < 648``: accuse the triple ``a - 324``;
* ``a == 648``: end the turn;
* ``a > 648``: show card ``a - 649`` (only to the refuter, only its matching cards).

On the board (``board=True``) the space is ``Discrete(672 + nodes)`` = ``Discrete(862)``: the 670 above,
then ``670`` roll the dice, ``671`` take the secret passage, and ``672 + n`` move the token to node ``n``
(the board's 181 corridor squares row by row, then the nine rooms in card order; ``rules.node_name(n)``).
A turn is then: roll (or passage, or a suggestion where another's suggestion brought one), move (the
mask holds the nodes the roll reaches), then suggest in the room entered, accuse or end.

``observation["action_mask"]`` marks the legal ones. A masked action ends the
game with -1 for its player (``illegal_action="raise"`` raises instead).

Observation space
-----------------
``{"observation": Box, "action_mask": Box}``. The observation is the acting
player's information state, built from its own
:class:`~deduction_envs.reasoning.CluePlayerKnowledge` (kept from the events
projected for it: nothing private of another seat). Seats are in turn order
starting with the observer's own, and places are those seats then the case
file. Named pieces of one vector, in order (``raw_env.pieces`` gives the
shapes; ``raw_env.split(vector)`` the pieces):

* ``hand`` (21): the observer's cards;
* ``held``, ``not_held`` (21 x places): the certain facts; every certainty
  exact counting proves when ``probabilities=True`` and the count fits the
  budget, else what propagation proves;
* ``probabilities`` (21 x places) and ``entropy`` (1, the case file's entropy
  over log2 324): exact where counting fits its budget (2e5 hands, about
  15 ms), else estimated from 2,000 sampled deals, seeded so that the env
  stays deterministic (``probabilities=False`` leaves them 0 and skips the
  counting);
* ``shown`` (seats x 21): cards the observer has shown to each seat;
* ``suggested``, ``passed``, ``refuted`` (seats x 21): per seat and card, how
  often the seat suggested it, passed on a suggestion of it, refuted one (counts);
* ``suggestion`` (21), ``asker`` and ``refuter`` (seats, one-hot): a suggestion
  waiting for its refuter's card (empty otherwise);
* ``phase`` (4: start, show, after the suggestion, over), ``turn`` (seats,
  one-hot: whose turn it is) and ``in`` (seats: not out).
* on the board, all public: ``tokens`` (6 x nodes, one-hot: each suspect's node, the seats' suspects in the
  observer's turn order, then the suspects nobody plays), ``weapons`` (6 x 9: each weapon's room),
  ``stage`` (3: start of the turn, rolled, moved), ``roll`` (the dice's sum / 12), ``reachable`` (nodes: where
  the roll takes the mover's token, while it is to move) and ``summoned`` (seats: moved into a room by
  another's suggestion since its last turn).

Rewards
-------
At the end: +1 to the winner, ``-1/(p-1)`` to the others; ``-1/(p-1)`` to
everyone if every player accused wrongly. ``max_cycles`` actions truncate the
game (0 for everyone). ``env.unwrapped.entropy(agent)`` is the agent's case-file
entropy, which ``AECEntropyRewardWrapper`` shapes rewards with.

Arguments
---------
``players`` (2-6, default 4; two play one-on-one, nine cards each), ``board`` (default False),
``accusations`` (on the board: ``"anywhere"``, default, or ``"room"``, the classic rule: only in the room
entered this turn, naming it; :class:`~deduction_envs.games.clue_board.ClueBoardRules`), ``probabilities``
(default True), ``max_cycles`` (default 1,000), ``render_mode`` (``"ansi"``, ``"human"`` or ``"rgb_array"``:
the acting player's deduction sheet; on the board, the board drawn with its tokens first),
``illegal_action`` (``"end"``, default, or ``"raise"``; ``strict`` its deprecated alias).

Version History
---------------
* v0: first version. Later additions, each off by default or new: two players; ``board=True``;
  ``accusations="room"``.
  ``illegal_action`` (``"end"`` or ``"raise"``) names the strict mode as the Gymnasium envs do; ``strict`` is
  its deprecated alias, for one version.
  ``state()`` is PettingZoo's global view (every seat's observation vector, in ``state_space``); it was a
  property holding the table's whole state, which is ``env.table.state``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from numba import njit
from pettingzoo import AECEnv

from deduction_envs import registry
from deduction_envs.core.raster import Canvas
from deduction_envs.envs.multiplayer_env import MultiplayerAECEnv, ObservationPieces, Observer, wrap
from deduction_envs.games.clue import CluePhase, ClueRules
from deduction_envs.games.clue_board import ClueBoardRules, board_pixels, board_text
from deduction_envs.reasoning.clue_facts import card_mask
from deduction_envs.reasoning.clue_player import CluePlayerKnowledge

__all__ = [
    "ClueObserver",
    "SheetEnv",
    "SheetObserver",
    "env",
    "observation_pieces",
    "raw_env",
    "sheet_pieces",
    "sheet_pixels",
]

#: The observation's counting budget: exact up to this many hands, else estimated from this many sampled deals.
OBSERVATION_WORK = 2e5
OBSERVATION_SAMPLES = 2000


def sheet_pieces(cards: int, seats: int) -> list[tuple[str, tuple[int, ...]]]:
    """The pieces every Clue-family observation starts with: hand, facts, probabilities, entropy."""
    places = seats + 1
    return [
        ("hand", (cards,)),
        ("held", (cards, places)),
        ("not_held", (cards, places)),
        ("probabilities", (cards, places)),
        ("entropy", (1,)),
    ]


def observation_pieces(rules: ClueRules) -> ObservationPieces:
    """The named pieces of the observation vector (see the module docstring)."""
    cards, seats = rules.cards, rules.players
    return ObservationPieces(
        [
            *sheet_pieces(cards, seats),
            ("shown", (seats, cards)),
            ("suggested", (seats, cards)),
            ("passed", (seats, cards)),
            ("refuted", (seats, cards)),
            ("suggestion", (cards,)),
            ("asker", (seats,)),
            ("refuter", (seats,)),
            ("phase", (len(CluePhase),)),
            ("turn", (seats,)),
            ("in", (seats,)),
            *(board_pieces(rules) if isinstance(rules, ClueBoardRules) else []),
        ]
    )


def board_pieces(rules: ClueBoardRules) -> list[tuple[str, tuple[int, ...]]]:
    """The board's pieces of the observation (see the module docstring)."""
    suspects, board = rules.category_sizes[0], rules.board
    return [
        ("tokens", (suspects, board.nodes)),
        ("weapons", (rules.category_sizes[1], board.rooms)),
        ("stage", (3,)),
        ("roll", (1,)),
        ("reachable", (board.nodes,)),
        ("summoned", (rules.players,)),
    ]


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` in the standard wrapper (PettingZoo's order checks)."""
    return wrap(raw_env(**kwargs))


class SheetObserver(Observer):
    """What the observers of ``clue_v0`` and ``generalized_clue_v0`` share: seats in turn order from the
    observer, the sheet pieces of the vector (hand, facts, probabilities, entropy, the record).

    Subclasses pass the rules, the vector's pieces, the names of the first and last of the record's adjacent
    pieces, the case file's largest entropy and the vector's upper bound (the record counts up to the game's
    ``max_cycles``); they encode what else their observation holds in :meth:`encode` after
    :meth:`encode_sheet`.
    """

    def __init__(
        self,
        rules: Any,
        pieces: ObservationPieces,
        record: tuple[str, str],
        max_entropy: float,
        probabilities: bool,
        high: float,
    ) -> None:
        super().__init__(rules, probabilities)
        self.pieces, self.high = pieces, float(high)
        self._max_entropy = max(max_entropy, 1.0)
        players = rules.players
        # Per observer: the seats in its turn order, the places (those seats, then the case file), each seat's rank.
        self._seats = [[(me + i) % players for i in range(players)] for me in range(players)]
        self._places = [[*seats, players] for seats in self._seats]
        self._relative = [{seat: i for i, seat in enumerate(seats)} for seats in self._seats]
        self._place_arrays = [np.array(places, dtype=np.int64) for places in self._places]
        self._seat_arrays = [np.array(seats, dtype=np.int64) for seats in self._seats]
        self._slots = dict(pieces.slices)
        self._slots["record"] = slice(self._slots[record[0]].start, self._slots[record[1]].stop)  # adjacent pieces
        self._starts = np.array([self._slots[name].start for name in ("hand", "held", "not_held", "record")])

    def encode_sheet(self, knowledge: Any) -> np.ndarray:
        """A new observation vector with the seat's hand, facts, probabilities, entropy and record in it."""
        me = knowledge.player
        vector = np.zeros(self.pieces.size, dtype=np.float32)
        if self.probabilities:
            solution = knowledge.solution()
            self.write_counted(vector, me, knowledge.sheet(), solution.probabilities, solution.entropy)
            required = forbidden = None
        else:  # what propagation proves, without counting
            required, forbidden = knowledge.fact_masks()
        write_sheet(vector, self._starts, card_mask(knowledge.hand), required, forbidden, self._place_arrays[me],
                     knowledge.record, self._seat_arrays[me])  # fmt: skip
        return vector

    def write_counted(self, vector: np.ndarray, me: int, sheet: np.ndarray, probabilities: np.ndarray,
                      entropy: float) -> None:  # fmt: skip
        """Write into seat ``me``'s observation ``vector`` what counting the deals gives: the exact ``sheet``
        (``(cards, places)``: 1 held, 0 not, -1 unknown), each card's ``probabilities`` at each place and the case
        file's ``entropy`` in bits (places in the seat's turn order); the AEC env's and a batched twin's."""
        places, at = self._places[me], self._slots
        vector[at["held"]] = (sheet[:, places] == 1).ravel()
        vector[at["not_held"]] = (sheet[:, places] == 0).ravel()
        vector[at["probabilities"]] = probabilities[:, places].ravel()
        vector[at["entropy"]] = entropy / self._max_entropy


class ClueObserver(SheetObserver):
    """A seat's observation of Clue (see the module docstring), from its :class:`CluePlayerKnowledge` alone.
    ``max_cycles`` bounds the record's counts (the vector's upper bound)."""

    rules: ClueRules

    def __init__(self, rules: ClueRules, probabilities: bool = True, max_cycles: int = 1000) -> None:
        record = ("shown", "refuted")  # shown, suggested, passed, refuted: adjacent
        entropy = math.log2(rules.num_triples)
        super().__init__(rules, observation_pieces(rules), record, entropy, probabilities, max_cycles)
        self.board = isinstance(rules, ClueBoardRules)
        pieces = board_pieces(rules) if isinstance(rules, ClueBoardRules) else []
        self._board_starts = {name: self._slots[name].start for name, _ in pieces}
        suspects = rules.category_sizes[0]
        self._tokens = [[*seats, *range(rules.players, suspects)] for seats in self._seats]

    def new_knowledge(self, player: int) -> CluePlayerKnowledge:
        # Observations count exactly up to OBSERVATION_WORK hands (about 15 ms), then estimate from samples.
        return CluePlayerKnowledge(self.rules, player, work_limit=OBSERVATION_WORK, samples=OBSERVATION_SAMPLES)

    def encode(self, knowledge: CluePlayerKnowledge) -> np.ndarray:
        me, at = knowledge.player, self._slots
        seats = self._seats[me]
        vector = self.encode_sheet(knowledge)
        for card in knowledge.suggestion:  # a few scalar writes cost less than one fancy-indexed write
            vector[at["suggestion"].start + card] = 1
        relative = self._relative[me]
        if knowledge.asker >= 0:
            vector[at["asker"].start + relative[knowledge.asker]] = 1
        if knowledge.refuter >= 0:
            vector[at["refuter"].start + relative[knowledge.refuter]] = 1
        vector[at["phase"].start + int(knowledge.phase)] = 1
        vector[at["turn"].start + relative[knowledge.mover]] = 1
        out, start = knowledge.out, at["in"].start
        for i, seat in enumerate(seats):
            if not out[seat]:
                vector[start + i] = 1
        if self.board:
            self._encode_board(vector, knowledge)
        return vector

    def _encode_board(self, vector: np.ndarray, knowledge: CluePlayerKnowledge) -> None:
        """The board's pieces: the tokens (the seats' suspects in the observer's turn order, then the others),
        the weapons' rooms, the stage of the turn, the roll, the reachable nodes (after the roll) and who was
        summoned."""
        rules = self.rules
        assert isinstance(rules, ClueBoardRules)
        public, at, nodes, rooms = knowledge.public, self._board_starts, rules.board.nodes, rules.board.rooms
        for row, suspect in enumerate(self._tokens[knowledge.player]):  # scalar writes: cheaper than fancy indexing
            vector[at["tokens"] + row * nodes + public.positions[suspect]] = 1
        for weapon, room in enumerate(public.weapons):
            vector[at["weapons"] + weapon * rooms + room] = 1
        rolled = public.roll > 0 and not public.moved
        vector[at["stage"] + (2 if public.moved else 1 if rolled else 0)] = 1
        vector[at["roll"]] = public.roll / 12
        if rolled and knowledge.phase == CluePhase.START:
            vector[at["reachable"] : at["reachable"] + nodes] = rules.reachable(public)
        for i, seat in enumerate(self._seats[knowledge.player]):
            if public.summoned[seat]:
                vector[at["summoned"] + i] = 1


class SheetEnv(MultiplayerAECEnv):
    """What ``clue_v0`` and ``generalized_clue_v0`` share: a :class:`SheetObserver` and the renders of the
    acting player's sheet; a subclass may add a line to the text render (:meth:`status`)."""

    rules: Any  # ClueRules or GeneralizedClueRules

    # ------------------------------------------------------------------ renders
    def _viewer(self) -> Any:
        """The knowledge of the player to act (the last mover once the game is over)."""
        return self.knowledge[self.dealt_table().mover]

    def status(self, viewer: Any) -> str:
        """What the text render says of the acting player after its name (default: nothing)."""
        return ""

    def render_text(self) -> str:
        """The last event, who is to act, and the acting player's deduction sheet."""
        viewer = self._viewer()
        names = self.possible_agents
        event = self.rules.observe_event(self.dealt_table().last_event, viewer.player)
        solution = viewer.solution()
        how = "exact" if solution.method == "exact" else f"{solution.method}, {solution.samples} deals"
        lines = [
            self.rules.describe(event, names),
            f"{names[viewer.player]} to act{self.status(viewer)}; its hand: "
            + ", ".join(self.rules.card_names[c] for c in viewer.hand),
            f"its case file entropy: {viewer.entropy():.2f} bits ({how}); its sheet:",
            viewer.engine.format_sheet(solution=solution, names=names),
        ]
        return "\n".join(lines)

    def render_rgb(self) -> np.ndarray:
        """The acting player's sheet (:func:`sheet_pixels`)."""
        viewer = self._viewer()
        solution = viewer.solution()
        cell = 16 if self.rules.cards <= 30 else 10
        return sheet_pixels(viewer.engine.deduction_sheet(solution=solution), solution.probabilities, cell)


class raw_env(SheetEnv):
    """Clue for 2 to 6 players, without the board or on it (``board=True``); see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {**MultiplayerAECEnv.metadata, "name": "clue_v0"}
    rules: ClueRules

    def __init__(
        self,
        players: int = 4,
        probabilities: bool = True,
        max_cycles: int = 1000,
        render_mode: str | None = None,
        illegal_action: str = "end",
        strict: bool | None = None,
        board: bool = False,
        accusations: str = "anywhere",
    ) -> None:
        if accusations != "anywhere" and board is not True:
            raise ValueError(f"accusations={accusations!r} is a rule of the board: set board=True")
        rule = {"accusations": accusations} if board is True else {}
        rules = registry.game("clue_v0").make_rules(players=players, board=board, **rule)  # the board variant there
        super().__init__(rules, probabilities, max_cycles, render_mode, illegal_action, strict)

    def make_observer(self, rules: ClueRules, probabilities: bool, max_cycles: int) -> ClueObserver:
        return ClueObserver(rules, probabilities, max_cycles)

    def status(self, viewer: CluePlayerKnowledge) -> str:
        return f" ({CluePhase(viewer.phase).name.lower()})"

    def render_text(self) -> str:
        """The sheet of :meth:`SheetEnv.render_text`; on the board, the board first."""
        text = super().render_text()
        if isinstance(self.rules, ClueBoardRules):
            text = board_text(self.rules, self.dealt_table().state) + "\n" + text
        return text

    def render_rgb(self) -> np.ndarray:
        """The acting player's sheet; on the board, the board with its tokens beside it."""
        sheet = super().render_rgb()
        if not isinstance(self.rules, ClueBoardRules):
            return sheet
        picture = board_pixels(self.rules, self.dealt_table().state)
        height = max(picture.shape[0], sheet.shape[0])
        canvas = np.full((height, picture.shape[1] + 8 + sheet.shape[1], 3), 30, dtype=np.uint8)
        canvas[: picture.shape[0], : picture.shape[1]] = picture
        canvas[: sheet.shape[0], picture.shape[1] + 8 :] = sheet
        return canvas


@njit(cache=True)
def write_sheet(vector, starts, hand, required, forbidden, places, record, seats):  # fmt: skip
    """Write into a zeroed observation ``vector`` from ``starts`` (hand, held, not held, record): the cards of
    the ``hand`` mask; if ``required`` is not None, the bit matrices (cards x places, in the observer's order)
    of the ``required`` and ``forbidden`` masks; the ``record`` (what x seat x card) with the seats in the
    observer's order."""
    card = 0
    while hand:
        if hand & 1:
            vector[starts[0] + card] = 1
        hand >>= 1
        card += 1
    if required is not None:
        columns = places.size
        for i in range(columns):
            for start, masks in ((starts[1], required), (starts[2], forbidden)):
                mask, card = masks[places[i]], 0
                while mask:
                    if mask & 1:
                        vector[start + card * columns + i] = 1
                    mask >>= 1
                    card += 1
    at = starts[3]
    for what in range(record.shape[0]):
        for seat in seats:
            for card in range(record.shape[2]):
                vector[at] = record[what, seat, card]
                at += 1


def sheet_pixels(sheet: np.ndarray, probabilities: np.ndarray, cell: int = 16) -> np.ndarray:
    """A deduction sheet as an image: a row per card, a column per place; green held, red not, grey by probability."""
    gap = 2
    rows, columns = sheet.shape
    canvas = Canvas(gap + rows * (cell + gap), gap + columns * (cell + gap), (30, 30, 30))
    for card in range(rows):
        for place in range(columns):
            if sheet[card, place] == 1:
                colour = (0, 158, 115)
            elif sheet[card, place] == 0:
                colour = (150, 40, 40)
            else:
                shade = int(60 + 195 * probabilities[card, place])
                colour = (shade, shade, shade)
            canvas.rect(gap + card * (cell + gap), gap + place * (cell + gap), cell, cell, colour)
    return canvas.pixels
