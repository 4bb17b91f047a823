"""One Generalized Clue seat's knowledge, kept from the events projected for it (the multiplayer ``Knowledge``).

Each projected event of :class:`~deduction_envs.games.generalized_clue.GeneralizedClueRules`
becomes what it proves about the deal, for the seat's
:class:`~deduction_envs.reasoning.ClueKnowledge` (``ClueKnowledge.generalized``):

* the deal: the seat's own hand;
* an ask answered "no": the asked player holds none of the list; "yes": it
  holds at least one (unless the seat asked, whose shown card says more, or
  was asked);
* a card shown to the seat: the asked player holds it;
* a guess: the guesser's hand, now public.

It also keeps the public record the observation needs: per seat and card how
often the seat was asked about the card, and answered yes or no; the cards
this seat has shown to each player; who has left; the turns each player has
taken; the move this seat is building, and an ask waiting for its answer.
"""

from __future__ import annotations

import numpy as np

from deduction_envs.core.renamed import renamed
from deduction_envs.games.generalized_clue import (
    GeneralizedClueEvent,
    GeneralizedCluePhase,
    GeneralizedClueRules,
    GeneralizedClueState,
)
from deduction_envs.reasoning.clue_facts import card_mask
from deduction_envs.reasoning.clue_player import SeatKnowledge, blank_engine

__all__ = ["GC_RECORD", "GeneralizedCluePlayerKnowledge"]

#: The layers of :attr:`GeneralizedCluePlayerKnowledge.record`: ``[what, seat, card]``.
GC_RECORD = ("shown", "asked", "yes", "no")


class GeneralizedCluePlayerKnowledge(SeatKnowledge):
    """What seat ``player`` knows of a Generalized Clue game; see the module docstring.

    Args:
        rules: the game.
        player: the seat.
        work_limit: hands exact counting may enumerate (:class:`ClueKnowledge`).
        samples: deals drawn when counting is over budget (a number, so that answers are reproducible).
    """

    SHOW = GeneralizedCluePhase.SHOW

    def __init__(self, rules: GeneralizedClueRules, player: int, work_limit: float = 2e6, samples: int = 4000):
        engine = blank_engine((rules.cards,), rules.hand_sizes, rules.hidden, float(work_limit))
        super().__init__(engine, player, samples)
        self.rules = rules
        players, cards = rules.players, rules.cards
        self.hand: tuple[int, ...] = ()
        self.record = np.zeros((len(GC_RECORD), players, cards), dtype=np.int32)
        #: ``[seat, card]``: 1 if this seat has shown the card to that seat.
        self.shown = self.record[0]
        #: ``[seat, card]``: how often the seat was asked about the card, and answered yes or no.
        self.asked, self.yes, self.no = self.record[1], self.record[2], self.record[3]
        #: The public position as this seat sees it (no cards; the others' build steps show as START), moved by
        #: the rules' own public state machine (:meth:`GeneralizedClueRules.advance`).
        self.public = rules.public_state()
        #: ``(player, cards, hand)`` of every guess, in order; ``correct`` of this seat's own (None before it).
        self.guesses: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
        self.correct: bool | None = None

    @property
    def target(self) -> int:
        """The player this seat is asking, or the asked player of a pending ask (-1 if none)."""
        return self.public.target

    @property
    def chosen(self) -> int:
        """The list or guess this seat is building, as a bit mask."""
        return self.public.chosen

    @property
    def asked_cards(self) -> tuple[int, ...]:
        """The cards of an ask waiting for its answer."""
        return self.public.asked

    @property
    def turns(self) -> np.ndarray:
        """Per seat, the turns it has finished."""
        return np.array(self.public.turns, dtype=np.int64)

    def update(self, event: GeneralizedClueEvent) -> None:
        """Take the next event projected for this seat (the deal first)."""
        me = self.player
        self.events.append(event)
        for fact, place, named in self.rules.event_facts(event, me):
            self._facts.add(fact, place, card_mask(named))
        if event.kind == "deal":
            self.hand = event.hands[me]
        elif event.kind == "ask":
            target = event.target
            self.asked[target, list(event.cards)] += 1
            (self.yes if event.answered else self.no)[target, list(event.cards)] += 1
        elif event.kind == "show" and me == event.target:
            self.shown[event.player, event.card] = 1
        elif event.kind == "guess":
            self.guesses.append((event.player, event.cards, event.hands[0]))
            if event.player == me:
                self.correct = bool(event.correct)
        self.rules.advance(self.public, event, me)

    def determinise(self, rng: np.random.Generator) -> GeneralizedClueState:
        """A whole state drawn uniformly from the deals consistent with this seat's knowledge.

        Earlier guesses are right or wrong as the drawn deal makes them.
        """
        deal = self.engine.sample(1, rng)[0]
        return self.rules.state_of_deal(deal, public=self.public, guesses=[(p, cards) for p, cards, _ in self.guesses])


#: The names before they spelt out Generalized Clue, kept for one version.
__getattr__ = renamed(__name__, {"GCPlayerKnowledge": "GeneralizedCluePlayerKnowledge"})
