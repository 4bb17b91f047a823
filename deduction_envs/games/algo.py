"""Algo (sold also as Coda or Da Vinci Code): guess the numbers of your opponents' face-down cards.

Rules
-----
* **Cards.** 24 cards: black and white, numbers 0 to 11 (``numbers`` is a
  size parameter, default 12). Every card is unique and is identified by its
  (colour, number); its back shows its colour only.
* **Deal.** 2 to 4 players (default 2) each draw ``hand_size`` cards (4 for two
  players, 3 for three or four, unless set). A hand is kept in ascending
  order, black before white at equal numbers, so a card's position in a hand
  says something about its number. Everyone sees the colour of every card and
  the number of every revealed card; the rest form the deck, face down.
* **A turn.** The player draws a card if the deck is not empty, then must
  attack: name an opponent, a face-down position of that opponent's hand and
  a number.

  - **Hit**: that card is revealed. The attacker then attacks again or stops;
    on stopping, the drawn card goes face down into the attacker's hand.
  - **Miss**: the drawn card goes face up into the attacker's hand and the
    turn ends. With the deck empty there is no drawn card: the attacker
    reveals one of its own face-down cards, of its choice, instead.

* **End.** A player whose cards are all face up is out. The last player with
  a face-down card wins.

Indexing
--------
Card ``2 * number + colour`` (colour 0 black, 1 white): ascending ids are the
hand order, and no two cards share an id (an implementation that numbered
cards ``number + colour`` would give black 1 and white 0 the same one).
Actions are one flat index (:meth:`AlgoRules.action_index`):

* attacks ``(target, position, number)`` first, where ``target`` counts the
  opponents clockwise from the mover (0 is the next player);
* then **stop**;
* then **reveal** of the mover's own ``position``.

Positions run over :attr:`AlgoRules.max_hand`, the most cards a hand can hold.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from deduction_envs.core.rules import check_int, int_field

__all__ = [
    "AlgoDeal",
    "AlgoEvent",
    "AlgoRules",
    "AlgoState",
    "HandView",
    "Move",
    "Phase",
    "PlayerView",
    "card_id",
    "format_card",
    "parse_card",
]

COLOURS = "BW"
_NOTHING: frozenset[int] = frozenset()


def card_id(colour: int, number: int) -> int:
    """The id of a card: ``2 * number + colour`` (colour 0 black, 1 white)."""
    return 2 * number + colour


def format_card(card: int) -> str:
    """``"B3"`` for black 3, ``"W0"`` for white 0."""
    return f"{COLOURS[card % 2]}{card // 2}"


def parse_card(text: str, numbers: int = 12) -> int:
    """The id of a card written ``B3`` / ``w11`` (colour letter, then number)."""
    match = re.fullmatch(r"\s*([BWbw])\s*(\d+)\s*", text)
    if not match or int(match.group(2)) >= numbers:
        raise ValueError(f"a card is B or W and a number 0..{numbers - 1}, e.g. B3; got {text!r}")
    return card_id(COLOURS.index(match.group(1).upper()), int(match.group(2)))


class Phase(IntEnum):
    """What the mover must do next."""

    ATTACK = 0  # the first attack of a turn
    CONTINUE = 1  # after a hit: attack again or stop
    REVEAL = 2  # after a miss with the deck empty: reveal an own face-down card
    OVER = 3


class Move(NamedTuple):
    """A decoded action: ``kind`` is ``"attack"``, ``"stop"`` or ``"reveal"``."""

    kind: str
    target: int = -1  # opponents clockwise from the mover, 0 = next player (attacks)
    position: int = -1  # in the target's hand (attacks) or the mover's (reveals)
    number: int = -1  # named by an attack


@dataclass
class AlgoState:
    """The whole position, secrets included: only the rules and the env may hold it.

    ``hands[p]`` is player ``p``'s sorted card ids and ``revealed[p]`` the ids
    of its face-up cards. ``ruled_out[c]`` holds the numbers named against
    card ``c`` by missed attacks (public). ``out`` lists players in the order
    they went out.
    """

    hands: list[list[int]]
    revealed: list[set[int]]
    deck: list[int]
    mover: int = 0
    phase: Phase = Phase.ATTACK
    drawn: int | None = None
    ruled_out: dict[int, set[int]] = field(default_factory=dict)
    out: list[int] = field(default_factory=list)

    def copy(self) -> AlgoState:
        return AlgoState(
            [list(h) for h in self.hands],
            [set(r) for r in self.revealed],
            list(self.deck),
            self.mover,
            self.phase,
            self.drawn,
            {c: set(n) for c, n in self.ruled_out.items()},
            list(self.out),
        )

    def hidden(self, player: int) -> list[int]:
        """Positions of ``player``'s face-down cards."""
        revealed = self.revealed[player]
        return [i for i, c in enumerate(self.hands[player]) if c not in revealed]

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def winner(self) -> int | None:
        """The last player with a face-down card, once the game is over."""
        if self.phase != Phase.OVER:
            return None
        return next(p for p in range(self.players) if p not in self.out)

    @property
    def ranking(self) -> tuple[int, ...]:
        """Once the game is over, the players best first: the winner, then the others by when they went out."""
        if self.winner is None:
            raise ValueError("the game is not over")
        return (self.winner, *reversed(self.out))


class AlgoDeal(NamedTuple):
    """The deal as an event: public ``colours`` of every hand, private ``hands``.

    ``hands[p]`` is player ``p``'s sorted card ids; projected for a player
    (:meth:`AlgoRules.observe_event`), the others' are ``()``. ``drawn`` is
    the card the first mover drew (private to it, else -1) and ``deck`` the
    cards left to draw after that draw.
    """

    colours: tuple[tuple[int, ...], ...]
    hands: tuple[tuple[int, ...], ...]
    mover: int
    drawn: int
    deck: int


class AlgoEvent(NamedTuple):
    """One action as everyone sees it (no face-down number is in it), and the private card drawn after it.

    ``card`` is the id of the card the action showed to everyone: the one hit,
    or the one revealed by the mover, or -1. ``placed`` is the drawn card's new
    position in the mover's hand when the turn ended with one (-1 otherwise),
    ``placed_colour`` its colour (everyone sees a card's back) and
    ``placed_card`` its id if it went face up (a miss), else -1. When the
    action ended the turn, ``next_mover`` is the player to move next (-1
    otherwise, and when the game is over) and ``drawn`` the card it drew: private
    to it (-1 in the others' projections, and when the deck was empty).
    """

    mover: int
    move: Move
    target_player: int = -1
    hit: bool = False
    card: int = -1
    placed: int = -1
    placed_colour: int = -1
    placed_card: int = -1
    next_mover: int = -1
    drawn: int = -1


class HandView(NamedTuple):
    """A hand as another player sees it, position by position.

    ``colours`` of every card; ``known`` the id of each face-up card (-1 face
    down); ``excluded`` the numbers missed attacks have named against each card.
    """

    colours: tuple[int, ...]
    known: tuple[int, ...]
    excluded: tuple[frozenset[int], ...]


class PlayerView(NamedTuple):
    """Everything one player knows: its own cards and every hand as the others see it.

    ``hands[q]`` is player ``q``'s :class:`HandView` (the player's own too,
    which says what the others know of it); ``own`` its sorted card ids and
    ``drawn`` its drawn card (-1 if none or not its turn). ``deck`` is the
    number of cards left to draw; ``out`` the players whose cards are all face
    up, in the order they went out (public, and what ranks them).
    """

    player: int
    hands: tuple[HandView, ...]
    own: tuple[int, ...]
    drawn: int
    deck: int
    mover: int
    phase: Phase
    out: tuple[int, ...] = ()


@dataclass(frozen=True)
class AlgoRules:
    """Immutable rules of Algo at one size.

    Args:
        players: 2 to 4.
        hand_size: cards dealt to each player (default 4 for two players,
            3 for three or four).
        numbers: card numbers per colour, 2 to 12 (the deck has twice as many
            cards).
    """

    players: int = 2
    hand_size: int | None = None
    numbers: int = 12

    def __post_init__(self) -> None:
        int_field(self, "players", low=2, high=4)
        int_field(self, "numbers", low=2, high=12)
        if self.hand_size is None:
            object.__setattr__(self, "hand_size", 4 if self.players == 2 else 3)
        # The bound depends on the other sizes, which the message names (a default hand may be what conflicts).
        hand = check_int(f"hand_size (with players={self.players}, numbers={self.numbers})", self.hand_size, low=1,
                         high=self.deck_size // self.players)  # fmt: skip
        object.__setattr__(self, "hand_size", hand)

    @property
    def deck_size(self) -> int:
        return 2 * self.numbers

    @property
    def max_hand(self) -> int:
        """The most cards one hand can hold: all but the others' dealt cards."""
        return self.deck_size - (self.players - 1) * self.dealt

    @property
    def dealt(self) -> int:
        """:attr:`hand_size` as set: after construction it is never None."""
        assert self.hand_size is not None
        return self.hand_size

    @property
    def num_attacks(self) -> int:
        return (self.players - 1) * self.max_hand * self.numbers

    @property
    def stop_action(self) -> int:
        return self.num_attacks

    @property
    def num_actions(self) -> int:
        return self.num_attacks + 1 + self.max_hand

    # ------------------------------------------------ the multiplayer protocol
    def mover(self, state: AlgoState) -> int:
        return state.mover

    def is_over(self, state: AlgoState) -> bool:
        return state.phase == Phase.OVER

    def winner(self, state: AlgoState) -> int | None:
        return state.winner

    def deal_event(self, state: AlgoState) -> AlgoDeal:
        """The deal of a new game (:meth:`new_game`) as the first event."""
        return AlgoDeal(
            tuple(tuple(c % 2 for c in hand) for hand in state.hands),
            tuple(tuple(hand) for hand in state.hands),
            state.mover,
            -1 if state.drawn is None else state.drawn,
            len(state.deck),
        )

    def observe_event(self, event: AlgoDeal | AlgoEvent, player: int) -> AlgoDeal | AlgoEvent:
        """``event`` as ``player`` sees it: others' dealt hands and drawn cards are not in it."""
        if isinstance(event, AlgoDeal):
            hands = tuple(hand if q == player else () for q, hand in enumerate(event.hands))
            return event._replace(hands=hands, drawn=event.drawn if event.mover == player else -1)
        if event.drawn >= 0 and event.next_mover != player:
            return event._replace(drawn=-1)
        return event

    @property
    def reward_range(self) -> tuple[float, float]:
        """``(-1, 1)``: the first out's reward and the winner's."""
        return (-1.0, 1.0)

    def rewards(self, state: AlgoState) -> list[float]:
        """+1 for the winner, -1 for the first out, linear in between (each seat's reward for a finished game)."""
        rewards = [0.0] * self.players
        for rank, player in enumerate(state.ranking):
            rewards[player] = 1.0 - 2.0 * rank / (self.players - 1)
        return rewards

    # ------------------------------------------------------------- actions
    def action_index(self, move: Move) -> int:
        """The flat index of ``move`` (see the module docstring)."""
        if move.kind == "attack":
            check_int("target", move.target, low=0, high=self.players - 2)
            check_int("position", move.position, low=0, high=self.max_hand - 1)
            check_int("number", move.number, low=0, high=self.numbers - 1)
            return (move.target * self.max_hand + move.position) * self.numbers + move.number
        if move.kind == "stop":
            return self.stop_action
        if move.kind == "reveal":
            return self.stop_action + 1 + check_int("position", move.position, low=0, high=self.max_hand - 1)
        raise ValueError(f"a move is an 'attack', 'stop' or 'reveal', got {move.kind!r}")

    def decode(self, action: int) -> Move:
        """The move of a flat action index."""
        action = check_int("action", action, low=0, high=self.num_actions - 1)
        if action < self.num_attacks:
            rest, number = divmod(action, self.numbers)
            target, position = divmod(rest, self.max_hand)
            return Move("attack", target, position, number)
        if action == self.stop_action:
            return Move("stop")
        return Move("reveal", position=action - self.stop_action - 1)

    def target_player(self, mover: int, target: int) -> int:
        """The seat of the ``target``-th opponent clockwise from ``mover``."""
        return (mover + 1 + target) % self.players

    # ---------------------------------------------------------------- play
    def new_game(self, rng: np.random.Generator, first: int = 0) -> AlgoState:
        """Shuffle, deal and start ``first``'s turn (it draws)."""
        cards = [int(c) for c in rng.permutation(self.deck_size)]
        size = self.dealt
        hands = [sorted(cards[p * size : (p + 1) * size]) for p in range(self.players)]
        state = AlgoState(hands, [set() for _ in hands], cards[self.players * size :], mover=first)
        self._start_turn(state)
        return state

    def legal_mask(self, state: AlgoState) -> np.ndarray:
        """Bool mask over actions of what the mover may do now (all False once the game is over)."""
        mask = np.zeros(self.num_actions, dtype=bool)
        if state.phase in (Phase.ATTACK, Phase.CONTINUE):
            attacks = mask[: self.num_attacks].reshape(self.players - 1, self.max_hand, self.numbers)
            for target in range(self.players - 1):
                player = self.target_player(state.mover, target)
                if player not in state.out:
                    attacks[target, state.hidden(player), :] = True
            mask[self.stop_action] = state.phase == Phase.CONTINUE
        elif state.phase == Phase.REVEAL:
            mask[[self.stop_action + 1 + i for i in state.hidden(state.mover)]] = True
        return mask

    def _is_legal(self, state: AlgoState, move: Move) -> bool:
        """``legal_mask(state)[action_index(move)]`` without building the mask."""
        if move.kind == "stop":
            return state.phase == Phase.CONTINUE
        if move.kind == "reveal":
            hand = state.hands[state.mover]
            return (
                state.phase == Phase.REVEAL
                and move.position < len(hand)
                and hand[move.position] not in state.revealed[state.mover]
            )
        player = self.target_player(state.mover, move.target)
        hand = state.hands[player]
        return (
            state.phase in (Phase.ATTACK, Phase.CONTINUE)
            and player not in state.out
            and move.position < len(hand)
            and hand[move.position] not in state.revealed[player]
        )

    def apply(self, state: AlgoState, action: int) -> AlgoEvent:
        """Play ``action`` for the mover, changing ``state``; returns what everyone sees.

        An illegal action raises ValueError and changes nothing.
        """
        move = self.decode(action)
        if state.phase == Phase.OVER:
            raise ValueError("the game is over")
        if not self._is_legal(state, move):
            raise ValueError(f"action {action} ({move}) is not legal in phase {state.phase.name}")
        mover = state.mover
        if move.kind == "stop":
            colour = -1 if state.drawn is None else state.drawn % 2
            placed = self._place_drawn(state, face_up=False)
            return self._end_turn(state, AlgoEvent(mover, move, placed=placed, placed_colour=colour))
        if move.kind == "reveal":
            card = state.hands[mover][move.position]
            self._reveal(state, mover, card)
            return self._end_turn(state, AlgoEvent(mover, move, card=card))
        target = self.target_player(mover, move.target)
        card = state.hands[target][move.position]
        if card // 2 == move.number:
            self._reveal(state, target, card)
            if state.phase != Phase.OVER:
                state.phase = Phase.CONTINUE
            return AlgoEvent(mover, move, target, hit=True, card=card)
        state.ruled_out.setdefault(card, set()).add(move.number)
        if state.drawn is None:
            state.phase = Phase.REVEAL
            return AlgoEvent(mover, move, target)
        placed_card = state.drawn
        placed = self._place_drawn(state, face_up=True)
        event = AlgoEvent(mover, move, target, placed=placed, placed_colour=placed_card % 2, placed_card=placed_card)
        return self._end_turn(state, event)

    def view(self, state: AlgoState, player: int) -> PlayerView:
        """What ``player`` knows of ``state``: public information and its own cards, nothing else."""
        hands = tuple(
            HandView(
                tuple(c % 2 for c in hand),
                tuple(c if c in state.revealed[q] else -1 for c in hand),
                tuple(frozenset(state.ruled_out[c]) if c in state.ruled_out else _NOTHING for c in hand),
            )
            for q, hand in enumerate(state.hands)
        )
        drawn = state.drawn if state.drawn is not None and state.mover == player else -1
        own = tuple(state.hands[player])
        return PlayerView(player, hands, own, drawn, len(state.deck), state.mover, state.phase, tuple(state.out))

    def first_view(self, deal: AlgoDeal, player: int) -> PlayerView:
        """``player``'s view at the start, from the deal as projected for it."""
        hands = tuple(HandView(colours, (-1,) * len(colours), (_NOTHING,) * len(colours)) for colours in deal.colours)
        return PlayerView(player, hands, deal.hands[player], deal.drawn, deal.deck, deal.mover, Phase.ATTACK)

    def next_view(self, view: PlayerView, event: AlgoEvent) -> PlayerView:
        """``view`` after ``event`` (as projected for ``view.player``): what :meth:`view` gives after it.

        Public information only, plus the viewer's own cards, so any seat can
        keep its view from its events (checked against :meth:`view` on random games).
        """
        hands = list(view.hands)
        own, drawn, phase = view.own, view.drawn, view.phase

        def show(player: int, position: int, card: int) -> None:
            hand = hands[player]
            known = (*hand.known[:position], card, *hand.known[position + 1 :])
            hands[player] = hand._replace(known=known)

        move = event.move
        if move.kind == "attack":
            target = event.target_player
            if event.hit:
                show(target, move.position, event.card)
            else:
                hand = hands[target]
                excluded = hand.excluded[move.position] | {move.number}
                hands[target] = hand._replace(
                    excluded=(*hand.excluded[: move.position], excluded, *hand.excluded[move.position + 1 :])
                )
        elif move.kind == "reveal":
            show(event.mover, move.position, event.card)
        if event.placed >= 0:
            hand, at = hands[event.mover], event.placed
            hands[event.mover] = HandView(
                (*hand.colours[:at], event.placed_colour, *hand.colours[at:]),
                (*hand.known[:at], event.placed_card, *hand.known[at:]),
                (*hand.excluded[:at], _NOTHING, *hand.excluded[at:]),
            )
            if event.mover == view.player:
                own = (*own[:at], view.drawn, *own[at:])
                drawn = -1
        out = view.out + tuple(  # an event puts at most one player out
            q for q, hand in enumerate(hands) if q not in view.out and all(k >= 0 for k in hand.known)
        )
        if len(out) == self.players - 1:
            phase = Phase.OVER
        elif move.kind == "attack" and event.hit:
            phase = Phase.CONTINUE
        elif move.kind == "attack" and event.placed < 0:
            phase = Phase.REVEAL  # a miss with nothing drawn
        if event.next_mover < 0:
            return view._replace(hands=tuple(hands), own=own, drawn=drawn, phase=phase, out=out)
        deck = max(view.deck - 1, 0)
        return PlayerView(view.player, tuple(hands), own, event.drawn, deck, event.next_mover, Phase.ATTACK, out)

    def state_of_view(self, view: PlayerView, hands: Sequence[Sequence[int]], deck: Sequence[int]) -> AlgoState:
        """The position ``view`` shows, with every hand's cards (``hands``, by seat: the viewer's own and the
        others' face-down cards filled in, each hand sorted) and the cards left to draw (``deck``, the top
        last): how a determinisation is made. What is face up, the numbers ruled out, whose turn, the phase,
        the drawn card and who is out in what order are the view's.

        Raises:
            ValueError: a determinisation of another's turn (its drawn card is not in the view), or ``hands``
                and ``deck`` that do not match the view.
        """
        drawn = view.drawn if view.drawn >= 0 else None
        if drawn is None and view.player != view.mover:
            raise ValueError("a determinisation of Algo is drawn for the mover only (another's drawn card is unseen)")
        if len(hands) != self.players or len(deck) != view.deck:
            raise ValueError(
                f"need {self.players} hands and {view.deck} cards to draw, got {len(hands)} and {len(deck)}"
            )
        dealt = [list(hand) for hand in hands]
        revealed = [
            {c for c, k in zip(hand, seen.known, strict=True) if k >= 0}
            for hand, seen in zip(dealt, view.hands, strict=True)
        ]
        ruled_out = {
            c: set(excluded)
            for hand, seen in zip(dealt, view.hands, strict=True)
            for c, excluded in zip(hand, seen.excluded, strict=True)
            if excluded
        }
        return AlgoState(dealt, revealed, list(deck), view.mover, view.phase, drawn, ruled_out, list(view.out))

    # ------------------------------------------------------------- helpers
    def _start_turn(self, state: AlgoState) -> None:
        state.phase = Phase.ATTACK
        state.drawn = state.deck.pop() if state.deck else None

    def _place_drawn(self, state: AlgoState, face_up: bool) -> int:
        """Insert the drawn card into the mover's hand; its position, or -1 without one."""
        if state.drawn is None:
            return -1
        hand = state.hands[state.mover]
        position = bisect.bisect_left(hand, state.drawn)
        hand.insert(position, state.drawn)
        if face_up:
            state.revealed[state.mover].add(state.drawn)
        state.drawn = None
        return position

    def _reveal(self, state: AlgoState, player: int, card: int) -> None:
        state.revealed[player].add(card)
        if len(state.revealed[player]) == len(state.hands[player]):
            state.out.append(player)
            if len(state.out) == self.players - 1:
                state.phase = Phase.OVER

    def _end_turn(self, state: AlgoState, event: AlgoEvent) -> AlgoEvent:
        """Pass the turn on (unless the game is over); ``event`` with who moves next and what it drew."""
        if state.phase == Phase.OVER:
            return event
        # The mover may have gone out by revealing its last card: skip everyone out.
        player = (state.mover + 1) % self.players
        while player in state.out:
            player = (player + 1) % self.players
        state.mover = player
        self._start_turn(state)
        return event._replace(next_mover=player, drawn=-1 if state.drawn is None else state.drawn)
