"""Generalized Clue (a course game at Columbia, COMS 4444): the pure rules.

* **Deal.** ``cards`` cards of one kind; ``hidden`` of them go to the case
  file, the rest are shuffled and dealt one at a time from player 0, so with
  leftovers the first players hold one card more (:func:`~deduction_envs.games.clue.deal_sizes`).
* **A turn.** The mover either *asks* or *guesses*.

  - To ask, it names one opponent still in and any non-empty list of cards
    (its own included). If the opponent holds any card of the list, it shows
    the asker **one of its choice**, privately (its own action, asked for even
    when it holds one matching card); otherwise everyone sees "no". Everyone
    sees who asked whom about which list and whether the answer was yes.
  - To guess, it names ``hidden`` cards. Right or wrong, it leaves the game
    and its hand becomes public; nobody else is told whether it was right.
  - After ``max_rounds`` turns of its own, a player still in must guess (by default as many as a sound
    player may need to be certain: :attr:`GeneralizedClueRules.asks_to_certainty`, at least 20).
* **End and rewards.** When everyone has guessed. Players rank by the order of
  their right guesses; wrong guessers rank below every right one, tied. The
  reward is linear in rank from +1 (first) to -1 (last); tied players share
  the mean of their places' rewards.

Actions: sub-steps
------------------
A list of cards is a compound choice, built in masked sub-steps by the same
player (as ``DESIGN.md`` asks), so that the action space stays
``Discrete(cards + players + 2)``:

* ``a < cards``: card ``a``: added to the list being built (a card once
  added stays: no step undoes another, so every move takes at most
  ``cards + 2`` steps), or, when answering an ask, the card shown;
* ``cards + q``: ask player ``q`` (then build the list);
* ``cards + players``: guess (then build the guess, exactly ``hidden`` cards);
* ``cards + players + 1``: submit the list or the guess.

Whole moves (:class:`GeneralizedClueMove`) are turned into these steps by
:meth:`GeneralizedClueRules.steps`, for agents that decide a move at once
(:class:`~agents.multiplayer.SeatAgent` s return one action a call and play
the rest of the steps on the next calls) and tools.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from deduction_envs.core.renamed import renamed
from deduction_envs.core.rules import check_int
from deduction_envs.games.clue import MAX_CARDS, deal, deal_sizes

__all__ = [
    "GeneralizedClueEvent",
    "GeneralizedClueMove",
    "GeneralizedCluePhase",
    "GeneralizedClueState",
    "GeneralizedClueRules",
]


class GeneralizedCluePhase(IntEnum):
    """What the player to act must do."""

    START = 0  # ask someone or guess
    ASKING = 1  # build the list to ask about (add cards, submit)
    GUESSING = 2  # build the guess
    SHOW = 3  # the asked player chooses the card to show
    OVER = 4


class GeneralizedClueMove(NamedTuple):
    """A whole move: ``("ask", cards, target)``, ``("guess", cards)`` or ``("show", card=c)``."""

    kind: str
    cards: tuple[int, ...] = ()
    target: int = -1
    card: int = -1


class GeneralizedClueEvent(NamedTuple):
    """One event; :meth:`GeneralizedClueRules.observe_event` projects it for a seat.

    ``kind``:

    * ``"deal"``: ``hands`` (private: ``()`` for the others in a projection);
    * ``"step"``: a sub-step of building a move, ``card`` added or ``target``
      chosen (the others see only that the player is deciding: -1s);
    * ``"ask"``: ``player`` asked ``target`` about ``cards``; ``answered`` yes or no;
    * ``"show"``: ``target`` showed ``card`` to ``player`` (-1 for the others);
    * ``"guess"``: ``player`` guessed ``cards`` and left; ``hands[0]`` is its
      hand, now public; ``correct`` is 1 or 0 for the guesser and -1 for the others.

    ``next_mover`` is whose turn it is after the event (-1 when the turn has
    not passed, or the game is over).
    """

    kind: str
    player: int
    target: int = -1
    cards: tuple[int, ...] = ()
    card: int = -1
    answered: bool = False
    correct: int = -1
    hands: tuple[tuple[int, ...], ...] = ()
    next_mover: int = -1


@dataclass
class GeneralizedClueState:
    """The whole position, hands included: only the rules and the table may hold it."""

    places: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    mover: int = 0
    phase: GeneralizedCluePhase = GeneralizedCluePhase.START
    target: int = -1
    chosen: int = 0  # the list or guess being built, as a bit mask
    asked: tuple[int, ...] = ()  # the list the target must answer
    turns: list[int] = field(default_factory=list)  # turns each player has finished
    out: list[bool] = field(default_factory=list)
    right: list[int] = field(default_factory=list)  # right guessers, in order
    wrong: list[int] = field(default_factory=list)

    def copy(self) -> GeneralizedClueState:
        return GeneralizedClueState(
            self.places,
            self.hands,
            self.mover,
            self.phase,
            self.target,
            self.chosen,
            self.asked,
            list(self.turns),
            list(self.out),
            list(self.right),
            list(self.wrong),
        )


def _bits(mask: int) -> tuple[int, ...]:
    return tuple(b for b in range(mask.bit_length()) if mask >> b & 1)


@dataclass(frozen=True)
class GeneralizedClueRules:
    """Immutable rules of Generalized Clue; see the module docstring.

    The default, 14 cards with 2 hidden among 3 players, deals hands of 4, 4 and 4: the course report deals
    evenly (before issue 64 the default was 12 cards, hands of 4, 3 and 3). Other sizes deal the remainder
    one card each to the first players.

    Args:
        cards: cards in the deck (2 to 62, the knowledge engine's limit; default 14).
        hidden: cards in the case file (1 to ``cards - players``; default 2).
        players: 2 or more, at most ``cards - hidden`` (everyone holds a card; default 3).
        max_rounds: turns a player may take before it must guess. Default: :attr:`asks_to_certainty`, the
            asks a sound player may need to be certain, but at least 20 (the default before it was derived, so
            that recorded games of the smaller decks stay valid). A smaller value warns (``UserWarning``):
            players may be forced to guess before they can be certain.
    """

    cards: int = 14
    hidden: int = 2
    players: int = 3
    max_rounds: int | None = None

    def __post_init__(self) -> None:
        # The smallest deck hides one card and deals one to each of two players; a bound that depends on another
        # size names it, since a default may be what conflicts with the size given.
        cards = check_int("cards", self.cards, low=3, high=MAX_CARDS)
        hidden = check_int(f"hidden (with cards={cards})", self.hidden, low=1, high=cards - 2)
        players = check_int(f"players (with cards={cards}, hidden={hidden})", self.players, low=2, high=cards - hidden)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "hidden", hidden)
        object.__setattr__(self, "players", players)
        if self.max_rounds is None:
            object.__setattr__(self, "max_rounds", max(20, self.asks_to_certainty))
            return
        object.__setattr__(self, "max_rounds", check_int("max_rounds", self.max_rounds, low=1))
        if self.max_rounds < self.asks_to_certainty:
            warnings.warn(
                f"max_rounds={self.max_rounds} is below {self.asks_to_certainty}, the asks a player may need to be "
                f"certain with cards={cards}, hidden={hidden}, players={players} (cards - hidden - the smallest "
                "hand): players may be forced to guess before they can be certain",
                UserWarning,
                stacklevel=3,
            )

    @property
    def asks_to_certainty(self) -> int:
        """The most asks a sound player needs to be certain: the cards neither in its hand nor hidden, for the
        smallest hand. Asking one opponent about every card it may still hold is answered "yes" with a card not
        yet placed until that opponent's hand is known, so each ask places a card (and a known hand's count
        rules out the rest)."""
        return self.cards - self.hidden - min(self.hand_sizes)

    # ------------------------------------------------------------------ the action space
    @property
    def card_names(self) -> tuple[str, ...]:
        return tuple(str(c) for c in range(self.cards))

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return deal_sizes(self.cards - self.hidden, self.players)

    @property
    def guess_action(self) -> int:
        return self.cards + self.players

    @property
    def submit_action(self) -> int:
        return self.cards + self.players + 1

    @property
    def num_actions(self) -> int:
        return self.cards + self.players + 2

    def ask_action(self, target: int) -> int:
        return self.cards + check_int("target", target, low=0, high=self.players - 1)

    def describe_action(self, action: int) -> str:
        """An action in words ("card 3", "ask player 2", "guess", "submit")."""
        action = check_int("action", action, low=0, high=self.num_actions - 1)
        if action < self.cards:
            return f"card {action}"
        if action < self.guess_action:
            return f"ask player {action - self.cards}"
        return "guess" if action == self.guess_action else "submit"

    def steps(self, move: GeneralizedClueMove) -> list[int]:
        """The actions that make ``move`` from the start of a turn (or the answer to an ask)."""
        if move.kind == "show":
            return [check_int("card", move.card, low=0, high=self.cards - 1)]
        cards = sorted({check_int("card", c, low=0, high=self.cards - 1) for c in move.cards})
        if move.kind == "ask":
            if not cards:
                raise ValueError("an ask names at least one card")
            return [self.ask_action(move.target), *cards, self.submit_action]
        if move.kind == "guess":
            if len(cards) != self.hidden:
                raise ValueError(f"a guess names {self.hidden} distinct cards, got {list(move.cards)}")
            return [self.guess_action, *cards, self.submit_action]
        raise ValueError(f"a move is an ask, a guess or a show, got {move.kind!r}")

    # ------------------------------------------------------------------ the multiplayer protocol
    def new_game(self, rng: np.random.Generator, first: int = 0) -> GeneralizedClueState:
        """Shuffle and deal; seat ``first`` moves first."""
        first = check_int("first", first, low=0, high=self.players - 1)
        return self.state_of_deal(deal([self.cards], [self.hidden], self.players, rng), first)

    @property
    def rounds(self) -> int:
        """:attr:`max_rounds` as set: after construction it is never None."""
        assert self.max_rounds is not None
        return self.max_rounds

    def state_of_deal(
        self,
        places: Sequence[int] | np.ndarray,
        first: int = 0,
        public: GeneralizedClueState | None = None,
        guesses: Sequence[tuple[int, Sequence[int]]] = (),
    ) -> GeneralizedClueState:
        """The game of the deal ``places`` (each card's place, ``players`` for the case file): new, or at the
        public position of ``public`` (a seat's record, :meth:`public_state`) after the guesses ``(player,
        cards)`` made so far, each right or wrong as this deal makes it; which is how a determinisation is made.
        """
        places = tuple(int(p) for p in places)
        hands = tuple(tuple(c for c, place in enumerate(places) if place == p) for p in range(self.players))
        if public is None:
            return GeneralizedClueState(
                places, hands, mover=first, turns=[0] * self.players, out=[False] * self.players
            )
        state = GeneralizedClueState(
            places, hands, public.mover, public.phase, public.target, public.chosen, public.asked,
            list(public.turns), list(public.out),
        )  # fmt: skip
        for player, cards in guesses:
            (state.right if all(places[c] == self.players for c in cards) else state.wrong).append(player)
        return state

    def public_state(self) -> GeneralizedClueState:
        """A position with no cards, for a seat to keep the public part of the game in (:meth:`advance`)."""
        return GeneralizedClueState((), (), turns=[0] * self.players, out=[False] * self.players)

    def advance(self, state: GeneralizedClueState, event: GeneralizedClueEvent, seat: int | None = None) -> None:
        """The public part of ``state`` after ``event`` as ``seat`` sees it (None: the whole event, as
        :meth:`apply` has it): whose turn, the phase, the move being built (a seat sees only its own: the
        others' build steps leave it at START), the pending ask, the turns taken, who is out, and the guesses
        whose verdict the seat knows.

        The one statement of Generalized Clue's public state machine: :meth:`apply` moves a position by it, and
        a seat's knowledge its own record (:meth:`public_state`) by the events it is shown.
        """
        kind = event.kind
        if kind == "deal":
            state.mover = event.player
        elif kind == "step":
            if seat is None or seat == event.player:
                if event.card >= 0:
                    state.chosen |= 1 << event.card
                else:
                    state.phase = GeneralizedCluePhase.GUESSING if event.target < 0 else GeneralizedCluePhase.ASKING
                    state.target, state.chosen = event.target, 0
        elif kind == "ask":
            if event.answered:
                state.phase, state.target, state.asked = GeneralizedCluePhase.SHOW, event.target, event.cards
            state.chosen = 0
        elif kind == "guess":
            state.out[event.player] = True
            if event.correct >= 0:
                (state.right if event.correct else state.wrong).append(event.player)
        if kind in ("show", "guess") or (kind == "ask" and not event.answered):  # the mover's turn is over
            state.turns[event.player] += 1
            state.target, state.chosen, state.asked = -1, 0, ()
            if all(state.out):
                state.phase = GeneralizedCluePhase.OVER
        if event.next_mover >= 0:
            state.mover, state.phase = event.next_mover, GeneralizedCluePhase.START

    def deal_event(self, state: GeneralizedClueState) -> GeneralizedClueEvent:
        return GeneralizedClueEvent("deal", state.mover, hands=state.hands)

    def mover(self, state: GeneralizedClueState) -> int:
        """The player to act: the target while it chooses a card to show, else the player whose turn it is."""
        return state.target if state.phase == GeneralizedCluePhase.SHOW else state.mover

    def is_over(self, state: GeneralizedClueState) -> bool:
        return state.phase == GeneralizedCluePhase.OVER

    def winner(self, state: GeneralizedClueState) -> int | None:
        """The first right guesser (None if nobody guessed right, or before anyone has)."""
        return state.right[0] if state.right else None

    def ranks(self, state: GeneralizedClueState) -> list[float]:
        """Each player's rank (1 = first); wrong guessers, and players still in, share the places below."""
        rank = [0.0] * self.players
        for place, player in enumerate(state.right):
            rank[player] = place + 1.0
        rest = [p for p in range(self.players) if p not in state.right]
        for p in rest:
            rank[p] = len(state.right) + (len(rest) + 1) / 2
        return rank

    @property
    def reward_range(self) -> tuple[float, float]:
        """``(-1, 1)``: last place's reward and first place's."""
        return (self.rank_reward(self.players), self.rank_reward(1))

    def rewards(self, state: GeneralizedClueState) -> list[float]:
        """+1 for first place to -1 for last, linear in rank (ties share the mean)."""
        return [self.rank_reward(r) for r in self.ranks(state)]

    def rank_reward(self, rank: float) -> float:
        """The reward of finishing at ``rank`` (1 first, ``players`` last): +1 to -1, linear."""
        return 1.0 - 2.0 * (rank - 1.0) / (self.players - 1)

    def legal_mask(self, state: GeneralizedClueState) -> np.ndarray:
        """Bool mask over actions of what the player to act may do now (all False once the game is over)."""
        mask = np.zeros(self.num_actions, dtype=bool)
        phase = state.phase
        if phase == GeneralizedCluePhase.START:
            mask[self.guess_action] = True
            if state.turns[state.mover] < self.rounds:
                for q in range(self.players):
                    mask[self.cards + q] = q != state.mover and not state.out[q]
        elif phase in (GeneralizedCluePhase.ASKING, GeneralizedCluePhase.GUESSING):
            count = state.chosen.bit_count()
            if phase == GeneralizedCluePhase.ASKING or count < self.hidden:  # a guess full: only submitting
                mask[: self.cards] = [not state.chosen >> c & 1 for c in range(self.cards)]
            mask[self.submit_action] = count != 0 if phase == GeneralizedCluePhase.ASKING else count == self.hidden
        elif phase == GeneralizedCluePhase.SHOW:
            mask[[c for c in state.asked if state.places[c] == state.target]] = True
        return mask

    def apply(self, state: GeneralizedClueState, action: int) -> GeneralizedClueEvent:
        """Play ``action`` for the player to act, changing ``state``; the event.

        An illegal action raises ValueError and changes nothing.
        """
        action = int(action)
        if not (0 <= action < self.num_actions and self.legal_mask(state)[action]):
            raise ValueError(f"action {action} is not legal in phase {state.phase.name}")
        player = self.mover(state)
        if state.phase == GeneralizedCluePhase.START:
            event = GeneralizedClueEvent(
                "step", player, target=-1 if action == self.guess_action else action - self.cards
            )
        elif state.phase == GeneralizedCluePhase.SHOW:
            event = GeneralizedClueEvent("show", state.mover, target=player, cards=state.asked, card=action)
            event = event._replace(next_mover=self._next_in(state))
        elif action < self.cards:  # a card added
            event = GeneralizedClueEvent("step", player, target=state.target, card=action)
        elif state.phase == GeneralizedCluePhase.ASKING:  # submit the list
            cards = _bits(state.chosen)
            answered = any(state.places[c] == state.target for c in cards)
            event = GeneralizedClueEvent("ask", player, target=state.target, cards=cards, answered=answered)
            if not answered:
                event = event._replace(next_mover=self._next_in(state))
        else:  # submit the guess
            cards = _bits(state.chosen)
            correct = all(state.places[c] == self.players for c in cards)
            event = GeneralizedClueEvent(
                "guess", player, cards=cards, correct=int(correct), hands=(state.hands[player],)
            )
            event = event._replace(next_mover=self._next_in(state, leaving=player))
        self.advance(state, event)
        return event

    def _next_in(self, state: GeneralizedClueState, leaving: int = -1) -> int:
        """The next player still in after the mover, ``leaving`` (a guesser) counted out too; -1 if nobody is."""
        if sum(state.out) + (leaving >= 0 and not state.out[leaving]) == self.players:
            return -1
        player = (state.mover + 1) % self.players
        while state.out[player] or player == leaving:
            player = (player + 1) % self.players
        return player

    def observe_event(self, event: GeneralizedClueEvent, player: int) -> GeneralizedClueEvent:
        """``event`` as ``player`` sees it: its own hand of the deal; a shown card, a build step and a guess's
        verdict only if its own."""
        if event.kind == "deal":
            return event._replace(hands=tuple(h if q == player else () for q, h in enumerate(event.hands)))
        if event.kind == "step" and player != event.player:
            return event._replace(target=-1, card=-1)
        if event.kind == "show" and player not in (event.player, event.target):
            return event._replace(card=-1)
        if event.kind == "guess" and player != event.player:
            return event._replace(correct=-1)
        return event

    def event_facts(self, event: GeneralizedClueEvent, seat: int) -> list[tuple[str, int, tuple[int, ...]]]:
        """What ``event``, projected for ``seat``, proves of where the cards are: ``(kind, place, cards)``, the
        kinds of :meth:`ClueKnowledge.add_trusted <deduction_envs.reasoning.ClueKnowledge.add_trusted>`. The one
        statement of what an event proves, which a seat's knowledge reads."""
        if event.kind == "deal":
            return [("hand", seat, tuple(event.hands[seat]))] if seat >= 0 else []
        if event.kind == "ask":
            if not event.answered:
                return [("none", event.target, event.cards)]
            return [("one_of", event.target, event.cards)] if seat not in (event.player, event.target) else []
        if event.kind == "show":
            return [("holds", event.target, (event.card,))] if seat == event.player else []
        if event.kind == "guess" and event.player != seat:
            return [("hand", event.player, tuple(event.hands[0]))]
        return []

    # ------------------------------------------------------------------ words
    def describe(self, event: GeneralizedClueEvent, names: Sequence[str] | None = None) -> str:
        """One event in words, as the seat it was projected for saw it."""
        names = list(names or [f"player {p}" for p in range(self.players)])
        cards = ", ".join(str(c) for c in event.cards)
        who = names[event.player]
        if event.kind == "deal":
            return f"The cards are dealt; {who} moves first."
        if event.kind == "step":
            if event.card >= 0:
                return f"{who} adds card {event.card}."
            return f"{who} chooses whom to ask." if event.target < 0 else f"{who} will ask {names[event.target]}."
        if event.kind == "ask":
            return f"{who} asks {names[event.target]} about {cards}: {'yes' if event.answered else 'no'}."
        if event.kind == "show":
            card = "a card" if event.card < 0 else f"card {event.card}"
            return f"{names[event.target]} shows {card} to {who}."
        verdict = {1: ": right", 0: ": wrong", -1: ""}[event.correct]
        hand = ", ".join(str(c) for c in event.hands[0])
        return f"{who} guesses {cards}{verdict}, and leaves; its hand was {hand}."


#: The names before they spelt out Generalized Clue, kept for one version.
__getattr__ = renamed(
    __name__,
    {
        "GCPhase": "GeneralizedCluePhase",
        "GCMove": "GeneralizedClueMove",
        "GCEvent": "GeneralizedClueEvent",
        "GCState": "GeneralizedClueState",
    },
)
