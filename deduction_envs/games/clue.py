"""Clue (Cluedo): the decks of Clue and Generalized Clue, and the pure rules of Clue.

Decks
-----
Clue hides one suspect, one weapon and one room in the case file and deals the
other 18 cards one at a time around the table, so with 4 or 5 players the
first players hold one card more. Generalized Clue (a course game at Columbia)
hides ``k`` of ``n`` cards of a single kind and deals the rest the same way.

Rules of Clue (:class:`ClueRules`)
----------------------------------
* **Deal.** 2 to 6 players (two: one-on-one, nine cards each); the case file takes a random suspect, weapon and
  room, and the other 18 cards are dealt one at a time from player 0.
* **A turn.** The mover either *accuses* at once, or *suggests* a suspect, a
  weapon and a room. There is no board: any room may be named (a board or a
  room graph can constrain the rooms through :meth:`ClueRules.allowed_rooms`).
  The players to the mover's left are asked in order; those who hold none of
  the three cards *pass*, and the first who holds any *refutes*: it shows one
  of its matching cards, **of its own choice**, to the mover alone. That
  choice is the refuter's own action, and it is asked for it even when it holds
  only one matching card, so nobody learns from being kept waiting whether it
  had a choice. Then the mover may accuse or end its turn.
* **Accusations.** Naming the case file wins and ends the game. A wrong
  accusation puts the accuser out: it makes no more turns but still refutes.
  If every player is out, nobody wins. Naming one's own cards (bluffing) is legal.
* **What everyone sees.** Who suggested what, who passed, who refuted (not the
  card); every accusation and whether it was right. Only the mover and the
  refuter see the card shown. A seat never sees another's hand.
* **Rewards.** +1 to the winner and ``-1/(p-1)`` to each other player; if
  nobody wins, ``-1/(p-1)`` to everyone.

Actions
-------
One flat index (:meth:`ClueRules.decode`): the 324 suggestions
(suspect, weapon, room in mixed radix, room fastest), then the 324
accusations in the same order, then *end turn*, then *show* card ``c`` for
each of the 21 cards: 670 actions in all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cached_property
from typing import NamedTuple

import numpy as np

from deduction_envs.core.rules import check_int

__all__ = [
    "CLASSIC_CATEGORIES",
    "CLASSIC_CATEGORY_NAMES",
    "MAX_CARDS",
    "ClueEvent",
    "ClueMove",
    "ClueRules",
    "ClueState",
    "CluePhase",
    "asked_order",
    "deal",
    "deal_sizes",
    "parse_card",
    "refutation",
]

CLASSIC_CATEGORY_NAMES = ("suspect", "weapon", "room")
#: The largest deck of the Clue family: the knowledge engine keeps cards as bits of int64 masks.
MAX_CARDS = 62

CLASSIC_CATEGORIES: tuple[tuple[str, ...], ...] = (
    ("Miss Scarlet", "Colonel Mustard", "Mrs. White", "Mr. Green", "Mrs. Peacock", "Professor Plum"),
    ("Candlestick", "Knife", "Lead Pipe", "Revolver", "Rope", "Wrench"),
    ("Kitchen", "Ballroom", "Conservatory", "Dining Room", "Billiard Room", "Library", "Lounge", "Hall", "Study"),
)


def parse_card(text: str, names: Sequence[str]) -> int:
    """The id of the card ``text`` names: a whole name, or the start of one of its words ("scar", "pipe").

    Case and spacing do not matter. An unknown or ambiguous name raises a
    ValueError that says which cards it could be.
    """
    wanted = " ".join(text.lower().replace(".", "").split())
    if not wanted:
        raise ValueError("name a card")
    simple = [" ".join(name.lower().replace(".", "").split()) for name in names]
    if wanted in simple:
        return simple.index(wanted)
    matches = [i for i, name in enumerate(simple) if wanted in name.split()]  # a whole word first ("mr")
    matches = matches or [
        i for i, name in enumerate(simple) if name.startswith(wanted) or any(w.startswith(wanted) for w in name.split())
    ]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ValueError(f"{text.strip()!r} could be {', '.join(names[i] for i in matches)}")
    raise ValueError(f"no card is called {text.strip()!r}")


def deal_sizes(cards: int, players: int) -> tuple[int, ...]:
    """Hand sizes when ``cards`` are dealt one at a time starting with player 0.

    >>> deal_sizes(18, 4)
    (5, 5, 4, 4)
    """
    cards = check_int("cards", cards, low=0)
    players = check_int("players", players, low=1)
    return tuple(cards // players + (p < cards % players) for p in range(players))


def deal(
    category_sizes: Sequence[int], case_file_sizes: Sequence[int], players: int, rng: np.random.Generator
) -> np.ndarray:
    """Shuffle and deal: each card's place, ``players`` for the case file.

    The case file takes a uniform choice of ``case_file_sizes[j]`` cards of
    each category ``j``; the rest are shuffled and dealt one at a time from
    player 0, so hands have the sizes :func:`deal_sizes` gives.
    """
    places = np.full(sum(category_sizes), -1, dtype=np.int64)
    start = 0
    for size, hidden in zip(category_sizes, case_file_sizes, strict=True):
        places[start + rng.choice(size, size=hidden, replace=False)] = players
        start += size
    rest = rng.permutation(np.flatnonzero(places < 0))
    places[rest] = np.arange(rest.size) % players
    return places


def asked_order(asker: int, players: int) -> list[int]:
    """The players asked about ``asker``'s suggestion, in order: everyone after it, clockwise (a player who is out
    still answers); the first who holds a card of it refutes."""
    return [(asker + step) % players for step in range(1, players)]


def refutation(places: np.ndarray, asker: int, cards: Sequence[int], players: int) -> tuple[int | None, list[int]]:
    """Who refutes ``asker``'s suggestion of ``cards`` (:func:`asked_order`), and the cards they could show;
    ``(None, [])`` when nobody can."""
    for player in asked_order(asker, players):
        matching = [int(c) for c in cards if places[c] == player]
        if matching:
            return player, matching
    return None, []


# --------------------------------------------------------------------------------------------- the rules


YOU_VERBS = {"suggests": "suggest", "passes": "pass", "refutes": "refute", "shows": "show", "accuses": "accuse",
             "ends": "end"}  # fmt: skip


class CluePhase(IntEnum):
    """What the player to act must do."""

    START = 0  # the mover suggests or accuses
    SHOW = 1  # the refuter chooses the card to show
    AFTER = 2  # after the suggestion: the mover accuses or ends the turn
    OVER = 3


class ClueMove(NamedTuple):
    """A decoded action: ``kind`` is ``"suggest"``, ``"accuse"``, ``"end"`` or ``"show"``.

    ``cards`` are the suspect, weapon and room ids of a suggestion or an
    accusation; ``card`` the card shown.
    """

    kind: str
    cards: tuple[int, ...] = ()
    card: int = -1
    node: int = -1  #: the board's destination of a ``"move"`` (:mod:`deduction_envs.games.clue_board`)


class ClueEvent(NamedTuple):
    """One event as the table sees it; :meth:`ClueRules.observe_event` projects it for a seat.

    ``kind`` is ``"deal"``, ``"suggest"``, ``"show"``, ``"accuse"`` or ``"end"``
    and ``player`` the seat that acted (the first mover for the deal).

    * deal: ``hands`` every seat's hand, private (``()`` for the others in a
      seat's projection).
    * suggest: ``cards`` suggested, ``passed`` the players who could not
      refute, in the order asked, and ``refuter`` the one who must show (-1:
      nobody could).
    * show: ``refuter`` (= ``player``) showed ``card`` to ``asker``: private to
      the two (-1 in the others' projections); ``cards`` is the suggestion.
    * accuse: ``cards`` named and whether they were ``correct``.
    * end (and a wrong accusation): ``next_mover``, whose turn it is now (-1
      when the game is over).
    * on the board (:mod:`deduction_envs.games.clue_board`), all public: roll: the two ``dice``; move and
      passage: the ``node`` the mover's token goes to; the deal: the room of each weapon's token (``weapons``).
    """

    kind: str
    player: int
    cards: tuple[int, ...] = ()
    passed: tuple[int, ...] = ()
    refuter: int = -1
    card: int = -1
    asker: int = -1
    correct: bool = False
    hands: tuple[tuple[int, ...], ...] = ()
    next_mover: int = -1
    dice: tuple[int, ...] = ()
    node: int = -1
    weapons: tuple[int, ...] = ()


@dataclass
class ClueState:
    """The whole position, hands included: only the rules and the table may hold it.

    ``places[c]`` is card ``c``'s place (``players`` for the case file) and
    ``hands[p]`` player ``p``'s sorted cards. ``mover`` is whose turn it is;
    in the show phase ``refuter`` must show one of the ``suggestion``'s cards.
    """

    places: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    mover: int = 0
    phase: CluePhase = CluePhase.START
    suggestion: tuple[int, ...] = ()
    refuter: int = -1
    out: list[bool] = field(default_factory=list)
    winner: int | None = None

    def copy(self) -> ClueState:
        return ClueState(
            self.places,
            self.hands,
            self.mover,
            self.phase,
            self.suggestion,
            self.refuter,
            list(self.out),
            self.winner,
        )


@dataclass(frozen=True)
class ClueRules:
    """Immutable rules of Clue for ``players`` (2 to 6) with the classic deck; see the module docstring."""

    players: int = 4

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", check_int("players", self.players, low=2, high=6))

    # ------------------------------------------------------------------ the deck and the action space
    @property
    def categories(self) -> tuple[tuple[str, ...], ...]:
        return CLASSIC_CATEGORIES

    @cached_property
    def category_sizes(self) -> tuple[int, ...]:
        return tuple(len(c) for c in self.categories)

    @cached_property
    def card_names(self) -> tuple[str, ...]:
        return tuple(name for category in self.categories for name in category)

    @cached_property
    def cards(self) -> int:
        return sum(self.category_sizes)

    @cached_property
    def hand_sizes(self) -> tuple[int, ...]:
        return deal_sizes(self.cards - len(self.categories), self.players)

    @cached_property
    def category_starts(self) -> tuple[int, ...]:
        return tuple(int(x) for x in np.cumsum([0, *self.category_sizes[:-1]]))

    @cached_property
    def num_triples(self) -> int:
        """Suggestions (and accusations): one card of each category."""
        return math.prod(self.category_sizes)

    @cached_property
    def end_action(self) -> int:
        return 2 * self.num_triples

    @cached_property
    def num_actions(self) -> int:
        return 2 * self.num_triples + 1 + self.cards

    def triple_index(self, cards: Sequence[int]) -> int:
        """The index (0 .. 323) of one card of each category, given as card ids in category order."""
        if len(cards) != len(self.categories):
            known = range(self.cards)
            named = [self.card_names[c] if isinstance(c, int | np.integer) and c in known else c for c in cards]
            raise ValueError(
                f"a suggestion names {len(self.categories)} cards, one per category, got {len(named)}: "
                + ", ".join(map(str, named))
            )
        index = 0
        for j, (card, start, size) in enumerate(zip(cards, self.category_starts, self.category_sizes, strict=True)):
            card = check_int(f"cards[{j}]", card, low=0, high=self.cards - 1)
            if not start <= card < start + size:
                raise ValueError(f"cards[{j}] must be a {CLASSIC_CATEGORY_NAMES[j]}, got {self.card_names[card]!r}")
            index = index * size + card - start
        return index

    def triple(self, index: int) -> tuple[int, ...]:
        """The card ids of triple ``index`` (the inverse of :meth:`triple_index`)."""
        cards = []
        for start, size in zip(self.category_starts[::-1], self.category_sizes[::-1], strict=True):
            index, offset = divmod(index, size)
            cards.append(start + offset)
        return tuple(cards[::-1])

    def action_index(self, move: ClueMove) -> int:
        """The flat index of ``move`` (see the module docstring)."""
        if move.kind == "suggest":
            return self.triple_index(move.cards)
        if move.kind == "accuse":
            return self.num_triples + self.triple_index(move.cards)
        if move.kind == "end":
            return self.end_action
        if move.kind == "show":
            return self.end_action + 1 + check_int("card", move.card, low=0, high=self.cards - 1)
        raise ValueError(f"a move is 'suggest', 'accuse', 'end' or 'show', got {move.kind!r}")

    def decode(self, action: int) -> ClueMove:
        """The move of a flat action index."""
        if type(action) is not int or not 0 <= action < self.num_actions:  # the check, only where it may fail
            action = check_int("action", action, low=0, high=self.num_actions - 1)
        return self._moves[action]

    @cached_property
    def _moves(self) -> tuple[ClueMove, ...]:
        """Every action's move, by index."""
        triples = [self.triple(t) for t in range(self.num_triples)]
        return (
            *(ClueMove("suggest", cards) for cards in triples),
            *(ClueMove("accuse", cards) for cards in triples),
            ClueMove("end"),
            *(ClueMove("show", card=card) for card in range(self.cards)),
        )

    def format_move(self, move: ClueMove) -> str:
        names = self.card_names
        if move.kind in ("suggest", "accuse"):
            return f"{move.kind} {', '.join(names[c] for c in move.cards)}"
        return "end turn" if move.kind == "end" else f"show {names[move.card]}"

    def describe(self, event: ClueEvent, names: Sequence[str] | None = None, you: int | None = None) -> str:
        """One event in words, as the seat it was projected for saw it.

        ``names`` of the players (default ``player 0``, ...); seat ``you`` is
        called "you".
        """
        names = list(names or [f"player {p}" for p in range(self.players)])
        if you is not None:
            names[you] = "you"

        def said(player: int, verb: str) -> str:  # "player 1 passes", "you pass"
            return f"{names[player]} {verb}" if player != you else f"you {YOU_VERBS[verb]}"

        def sentence(text: str) -> str:
            return text[0].upper() + text[1:]

        cards = ", ".join(self.card_names[c] for c in event.cards)
        if event.kind == "deal":
            return f"The cards are dealt; {names[event.player]} moves first."
        if event.kind == "suggest":
            passed = "".join(f" {sentence(said(q, 'passes'))}." for q in event.passed)
            refuted = f" {sentence(said(event.refuter, 'refutes'))}." if event.refuter >= 0 else " Nobody can refute."
            return sentence(f"{said(event.player, 'suggests')} {cards}.{passed}{refuted}")
        if event.kind == "show":
            card = "a card" if event.card < 0 else self.card_names[event.card]
            return sentence(f"{said(event.player, 'shows')} {card} to {names[event.asker]}.")
        if event.kind == "accuse":
            verdict = "right: the case is solved" if event.correct else "wrong, and out"
            return sentence(f"{said(event.player, 'accuses')} {cards}: {verdict}.")
        return sentence(f"{said(event.player, 'ends')} the turn.")

    # ------------------------------------------------------------------ the multiplayer protocol
    def new_game(self, rng: np.random.Generator, first: int = 0) -> ClueState:
        """Shuffle and deal as in the box; seat ``first`` moves first."""
        first = check_int("first", first, low=0, high=self.players - 1)
        return self.state_of_deal(deal(self.category_sizes, [1] * len(self.categories), self.players, rng), first)

    def state_of_deal(
        self, places: Sequence[int] | np.ndarray, first: int = 0, public: ClueState | None = None
    ) -> ClueState:
        """The game of the deal ``places`` (each card's place, ``players`` for the case file): new, or at the
        public position of ``public`` (whose turn, the phase, the pending suggestion, who is out, the winner; a
        seat's record, :meth:`public_state`), which is how a determinisation is made."""
        places = tuple(places.tolist() if isinstance(places, np.ndarray) else (int(p) for p in places))
        hands: list[list[int]] = [[] for _ in range(self.players + 1)]  # and the case file
        for card, place in enumerate(places):
            hands[place].append(card)
        held = tuple(map(tuple, hands[:-1]))
        if public is None:
            return ClueState(places, held, mover=first, out=[False] * self.players)
        return ClueState(
            places, held, public.mover, public.phase, public.suggestion, public.refuter, list(public.out),
            public.winner,
        )  # fmt: skip

    def public_state(self) -> ClueState:
        """A position with no cards, for a seat to keep the public part of the game in (:meth:`advance`)."""
        return ClueState((), (), out=[False] * self.players)

    def advance(self, state: ClueState, event: ClueEvent) -> None:
        """The public part of ``state`` after ``event``: whose turn, the phase, the pending suggestion and its
        refuter, who is out, the winner.

        The one statement of Clue's public state machine: :meth:`apply` moves a position by it, and a seat's
        knowledge its own record (:meth:`public_state`) by the events it is shown.
        """
        kind = event.kind
        if kind == "deal":
            state.mover = event.player
        elif kind == "suggest":
            if event.refuter >= 0:  # pending until the card is shown
                state.phase, state.refuter, state.suggestion = CluePhase.SHOW, event.refuter, event.cards
            else:
                state.phase = CluePhase.AFTER
        elif kind == "show":
            state.phase, state.refuter, state.suggestion = CluePhase.AFTER, -1, ()
        elif kind == "accuse":
            if event.correct:
                state.phase, state.winner = CluePhase.OVER, event.player
            else:
                state.out[event.player] = True
                if all(state.out):
                    state.phase = CluePhase.OVER
        if event.next_mover >= 0:
            state.mover, state.phase = event.next_mover, CluePhase.START

    def deal_event(self, state: ClueState) -> ClueEvent:
        return ClueEvent("deal", state.mover, hands=state.hands)

    def mover(self, state: ClueState) -> int:
        return state.refuter if state.phase == CluePhase.SHOW else state.mover

    def is_over(self, state: ClueState) -> bool:
        return state.phase == CluePhase.OVER

    def winner(self, state: ClueState) -> int | None:
        return state.winner

    @property
    def reward_range(self) -> tuple[float, float]:
        """``(-1/(p-1), 1)``: a loss and a win."""
        return (-1.0 / (self.players - 1), 1.0)

    def rewards(self, state: ClueState) -> list[float]:
        """+1 to the winner, -1/(p-1) to everyone else (everyone, if nobody won)."""
        loss = -1.0 / (self.players - 1)
        return [1.0 if p == state.winner else loss for p in range(self.players)]

    def allowed_rooms(self, state: ClueState) -> np.ndarray:
        """Bool mask over the rooms the mover may name in a suggestion: every room, as there is no board.

        The hook for a board or room-graph variant; with no room allowed, the
        mover may end its turn without suggesting.
        """
        return self._every_room

    @cached_property
    def _every_room(self) -> np.ndarray:
        rooms = np.ones(self.category_sizes[-1], dtype=bool)
        rooms.flags.writeable = False
        return rooms

    def legal_mask(self, state: ClueState) -> np.ndarray:
        """Bool mask over actions of what the player to act may do now (all False once the game is over)."""
        if state.phase == CluePhase.SHOW:
            mask = np.zeros(self.num_actions, dtype=bool)
            for card in self._matching(state, state.refuter):
                mask[self.end_action + 1 + card] = True
            return mask
        if state.phase == CluePhase.START:
            rooms = self.allowed_rooms(state)
            if rooms is not self._every_room and not rooms.all():  # a board's rule (no board: the constant)
                return self._start_mask(rooms)
        return self._phase_masks[state.phase].copy()

    @cached_property
    def _phase_masks(self) -> dict[CluePhase, np.ndarray]:
        """The masks that depend on the phase alone (the start of a turn with every room allowed)."""
        after = np.zeros(self.num_actions, dtype=bool)
        after[self.num_triples : self.end_action + 1] = True
        return {
            CluePhase.START: self._start_mask(np.ones(self.category_sizes[-1], dtype=bool)),
            CluePhase.AFTER: after,
            CluePhase.OVER: np.zeros(self.num_actions, dtype=bool),
        }

    def _start_mask(self, rooms: np.ndarray) -> np.ndarray:
        """The start of a turn: suggestions naming an allowed room, every accusation; end only if no room is."""
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[: self.num_triples] = np.tile(rooms, self.num_triples // rooms.size)
        mask[self.num_triples : 2 * self.num_triples] = True
        mask[self.end_action] = not rooms.any()
        return mask

    def apply(self, state: ClueState, action: int) -> ClueEvent:
        """Play ``action`` for the player to act, changing ``state``; the event.

        An illegal action raises ValueError and changes nothing.
        """
        move = self.decode(action)
        if not self._is_legal(state, move):
            raise ValueError(f"action {action} ({self.format_move(move)}) is not legal in phase {state.phase.name}")
        player = self.mover(state)
        if move.kind == "suggest":
            passed: list[int] = []
            for asked in asked_order(player, self.players):
                if self._matching(state, asked, move.cards):
                    event = ClueEvent("suggest", player, move.cards, tuple(passed), refuter=asked)
                    break
                passed.append(asked)
            else:
                event = ClueEvent("suggest", player, move.cards, tuple(passed))
        elif move.kind == "show":
            event = ClueEvent("show", player, state.suggestion, refuter=player, card=move.card, asker=state.mover)
        elif move.kind == "accuse":
            correct = all(state.places[c] == self.players for c in move.cards)
            event = ClueEvent("accuse", player, move.cards, correct=correct)
            if not correct and sum(state.out) + 1 < self.players:  # the game goes on without the accuser
                event = event._replace(next_mover=self._next_in(state, player))
        else:
            event = ClueEvent("end", player, next_mover=self._next_in(state))
        self.advance(state, event)
        return event

    def observe_event(self, event: ClueEvent, player: int) -> ClueEvent:
        """``event`` as ``player`` sees it: its own hand of the deal, a shown card only if it showed or saw it."""
        if event.kind == "deal":
            return event._replace(hands=tuple(h if q == player else () for q, h in enumerate(event.hands)))
        if event.kind == "show" and player not in (event.refuter, event.asker):
            return event._replace(card=-1)
        return event

    def event_facts(self, event: ClueEvent, seat: int) -> list[tuple[str, int, tuple[int, ...]]]:
        """What ``event``, projected for ``seat``, proves of where the cards are: ``(kind, place, cards)``, the
        kinds of :meth:`ClueKnowledge.add_trusted <deduction_envs.reasoning.ClueKnowledge.add_trusted>` (the case
        file is place ``players``). ``seat`` -1 is a spectator, who sees only the public part.

        The one statement of what an event proves: a seat's knowledge and its public view read it.
        """
        if event.kind == "deal":
            return [("hand", seat, tuple(event.hands[seat]))] if seat >= 0 else []
        if event.kind == "suggest":
            facts = [("none", q, event.cards) for q in event.passed if q != seat]
            if event.refuter >= 0 and seat not in (event.player, event.refuter):  # the asker will see the card
                facts.append(("one_of", event.refuter, event.cards))
            return facts
        if event.kind == "show":
            return [("holds", event.refuter, (event.card,))] if seat == event.asker and seat >= 0 else []
        if event.kind == "accuse":
            return [("right" if event.correct else "wrong", self.players, event.cards)]
        return []

    # ------------------------------------------------------------------ helpers
    def _is_legal(self, state: ClueState, move: ClueMove) -> bool:
        """``legal_mask(state)[action_index(move)]`` without building the mask (``apply`` checks every action)."""
        phase = state.phase
        if move.kind == "suggest":
            return phase == CluePhase.START and bool(
                self.allowed_rooms(state)[move.cards[-1] - self.category_starts[-1]]
            )
        if move.kind == "accuse":
            return phase in (CluePhase.START, CluePhase.AFTER)
        if move.kind == "end":
            return phase == CluePhase.AFTER or (phase == CluePhase.START and not self.allowed_rooms(state).any())
        return phase == CluePhase.SHOW and move.card in self._matching(state, state.refuter)

    def _matching(self, state: ClueState, player: int, cards: Sequence[int] | None = None) -> list[int]:
        """``player``'s cards among ``cards`` (default: the pending suggestion)."""
        cards = state.suggestion if cards is None else cards
        return [c for c in cards if state.places[c] == player]

    def _next_in(self, state: ClueState, leaving: int = -1) -> int:
        """The next player still in after the mover, ``leaving`` (an accuser just out) counted out too."""
        player = (state.mover + 1) % self.players
        while state.out[player] or player == leaving:
            player = (player + 1) % self.players
        return player
