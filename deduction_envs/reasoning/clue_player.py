"""One Clue seat's knowledge, kept from the events projected for it (the multiplayer ``Knowledge``).

:class:`CluePlayerKnowledge` turns each projected event of
:class:`~deduction_envs.games.clue.ClueRules` into what it proves about the
deal, for the seat's :class:`~deduction_envs.reasoning.ClueKnowledge`:

* the deal: the seat's own hand;
* a suggestion: each player who passed holds none of the three cards; the
  refuter holds at least one (unless the seat made the suggestion, whose shown
  card says more, or is the refuter);
* a card shown to the seat: the refuter holds it;
* an accusation: the case file is, or is not, those three cards.

It also keeps the public record the observation needs: per seat and card how
often it was suggested, passed on and refuted; the cards this seat has shown
to each player; the pending suggestion; whose turn it is, the phase, who is
out. Events are trusted (they come from the rules), so they are added without
validation or the satisfiability search (``ClueKnowledge.add_trusted``), as
int64 masks that are propagated when read and handed to the engine only when
an answer is asked for.

Answers (:meth:`CluePlayerKnowledge.solution`) are counted exactly by the
compiled sweep over card types (:mod:`~deduction_envs.reasoning.clue_sweep`,
the batched twins' counter) within its budget; past it by the engine, exact
when its counting fits the work budget, else estimated from a fixed number of
sampled deals (seeded by the number of events, so the same events give the
same answer); kept until the next event that changes what is known.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np

from deduction_envs.core.information_set import readonly
from deduction_envs.core.rules import check_int
from deduction_envs.games.clue import ClueEvent, CluePhase, ClueRules, ClueState
from deduction_envs.reasoning.clue_facts import card_mask
from deduction_envs.reasoning.clue_knowledge import ClueKnowledge, ClueSolution
from deduction_envs.reasoning.clue_sweep import EXACT, SWEEP_WORK, solve_seat

__all__ = ["RECORD", "CluePlayerKnowledge", "SeatKnowledge", "blank_engine"]

#: The layers of :attr:`CluePlayerKnowledge.record`.
RECORD = ("shown", "suggested", "passed", "refuted")


def _count(row: np.ndarray, cards: tuple[int, ...]) -> None:
    for card in cards:  # three scalar increments are cheaper than one fancy-indexed one
        row[card] += 1


@functools.lru_cache(maxsize=64)
def _triples(categories: tuple) -> np.ndarray:
    """Every case file of a classic table (one card of each category), card ids in triple order."""
    starts = np.cumsum([0, *(len(c) for c in categories)])
    return np.array(list(itertools.product(*(range(a, b) for a, b in itertools.pairwise(starts)))), dtype=np.int64)


@functools.lru_cache(maxsize=64)
def blank_engine(categories: tuple, hand_sizes: tuple[int, ...], hidden: int, work_limit: float) -> ClueKnowledge:
    """A knowledge that knows nothing yet, built once per table (copies of it are O(1))."""
    return ClueKnowledge(categories, hand_sizes, hidden, work_limit=work_limit)


class SeatKnowledge:
    """What Clue's and Generalized Clue's seats share: a :class:`ClueKnowledge` fed event by event, answers cached.

    Subclasses turn events into facts (``self._facts.add(kind, place, mask)``,
    see :meth:`ClueKnowledge.add_trusted`) and append every event to
    :attr:`events`. The facts are kept as int64 masks
    (:class:`~deduction_envs.reasoning.clue_facts.TrustedFacts`), propagated
    when read (:meth:`fact_masks`, what an observation without counting
    needs), and handed to the engine only when it is asked for.

    Args:
        engine: an empty knowledge of the table (copied).
        player: the seat.
        samples: deals drawn when counting is over budget: a number, not a time,
            so that answers (and an env's observations) are the same on every
            run for the same events.
    """

    #: The phase in which a card is to be shown (the pending suggestion or ask has an asker).
    SHOW: int
    #: The public position as this seat sees it (a state without cards), moved by the rules' ``advance``.
    public: Any

    @property
    def mover(self) -> int:
        """Whose turn it is (the asker while a card is to be shown)."""
        return self.public.mover

    @property
    def phase(self) -> Any:
        return self.public.phase

    @property
    def asker(self) -> int:
        """Who made the pending suggestion or ask (-1 if none)."""
        return self.public.mover if self.public.phase == self.SHOW else -1

    @property
    def out(self) -> np.ndarray:
        """Per seat, whether it is out of the game."""
        return np.array(self.public.out, dtype=bool)

    def __init__(self, engine: ClueKnowledge, player: int, samples: int) -> None:
        self.player = player
        self.samples = check_int("samples", samples, low=1)
        self._engine = engine.copy()
        self._facts = engine.trusted_facts()  # fed by update; the engine takes them when asked for
        self._solution: ClueSolution | None = None
        self._changes = -1  # the engine's count of changes when the solution was made
        self.events: list = []

    @property
    def engine(self) -> ClueKnowledge:
        """The seat's :class:`ClueKnowledge`, with every event so far (it takes its facts from the seat's, so
        events go through :meth:`update`; a fact added to the engine directly would be lost at the next)."""
        if self._facts.new:
            self._engine.take_trusted(self._facts)
        return self._engine

    def fact_masks(self) -> tuple[np.ndarray, np.ndarray]:
        """``(required, forbidden)``: per place (the players, then the case file), the cards propagation proves
        held and not held, as int64 bit masks (the seat's own arrays: read them, do not write them); no
        counting, no engine."""
        return self._facts.masks()

    def solution(self) -> ClueSolution:
        """Probabilities and case-file distribution: exact within the work budget, else from ``samples`` deals
        (a subclass may count exactly first, :meth:`_swept`)."""
        engine = self.engine
        if self._changes != engine.changes:  # only when what is known changed (-1: never solved)
            self._solution = self._swept() or engine.solve("auto", samples=self.samples, rng=len(self.events))
            self._changes = engine.changes
        assert self._solution is not None
        return self._solution

    def _swept(self) -> ClueSolution | None:
        """The exact solution from a compiled counter, or None to ask the engine (the default)."""
        return None

    def entropy(self) -> float:
        """Bits of the case file's distribution still to find out."""
        return self.solution().entropy

    def sheet(self, exact: bool = True) -> np.ndarray:
        """``(cards, players + 1)`` int8: 1 certainly there, 0 certainly not, -1 unknown.

        With ``exact`` (and counting within budget), every certainty there is;
        else what propagation proves, which needs no counting.
        """
        if exact:
            return self.engine.deduction_sheet(solution=self.solution())
        return self.engine.deduction_sheet(method="sample")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(player={self.player}, events={len(self.events)})"


class CluePlayerKnowledge(SeatKnowledge):
    """What seat ``player`` knows of a Clue game; see the module docstring. A seat is out after a wrong
    accusation.

    Args:
        rules: the game.
        player: the seat.
        work_limit: hands exact counting may enumerate (:class:`ClueKnowledge`).
        samples: deals drawn when counting is over budget: a number, not a time,
            so that answers (and an env's observations) are the same on every
            run for the same events.
    """

    SHOW = CluePhase.SHOW

    def __init__(self, rules: ClueRules, player: int, work_limit: float = 2e6, samples: int = 4000) -> None:
        super().__init__(blank_engine(rules.categories, rules.hand_sizes, 1, float(work_limit)), player, samples)
        self.rules = rules
        self._triples = _triples(rules.categories)
        players, cards = rules.players, rules.cards
        self.hand: tuple[int, ...] = ()
        #: ``[what, seat, card]``, ``what`` in RECORD: the public record, and what this seat has shown.
        self.record = np.zeros((len(RECORD), players, cards), dtype=np.int32)
        #: ``[seat, card]``: 1 if this seat has shown the card to that seat.
        self.shown = self.record[0]
        #: ``[seat, card]``: suggestions by the seat naming the card; passes and refutations on such suggestions.
        self.suggested, self.passed, self.refuted = self.record[1], self.record[2], self.record[3]
        #: The public position (no cards): whose turn, the phase, the pending suggestion, who is out, the winner;
        #: moved by the rules' own public state machine (:meth:`ClueRules.advance`).
        self.public = rules.public_state()

    def _swept(self) -> ClueSolution | None:
        """The exact solution by the compiled sweep (:func:`~deduction_envs.reasoning.clue_sweep.solve_seat`),
        as the batched twin counts its seats; None past the sweep's budget."""
        required, forbidden = self._facts.masks()
        triples = self._triples
        probabilities = np.zeros((self.rules.cards, self.rules.players + 1))
        cases = np.zeros(len(triples))
        status, count, _ = solve_seat(required, forbidden, self._facts.clauses, *self._engine._model.sweep_table,
                                      SWEEP_WORK, probabilities, cases)  # fmt: skip
        if status != EXACT:
            return None
        possible = np.flatnonzero(cases > 0)
        return ClueSolution(method="exact", count=round(count), count_error=0.0, probabilities=readonly(probabilities),
                            errors=readonly(np.zeros_like(probabilities)), case_files=readonly(triples[possible]),
                            case_file_probabilities=readonly(cases[possible]))  # fmt: skip

    @property
    def suggestion(self) -> tuple[int, ...]:
        """The pending suggestion's cards (empty when none is pending)."""
        return self.public.suggestion

    @property
    def refuter(self) -> int:
        """Who must show a card of the pending suggestion (-1 if none)."""
        return self.public.refuter

    @property
    def winner(self) -> int | None:
        return self.public.winner

    # ------------------------------------------------------------------ events
    def update(self, event: ClueEvent) -> None:
        """Take the next event projected for this seat (the deal first)."""
        me = self.player
        self.events.append(event)
        kind, actor, cards = event.kind, event.player, event.cards
        for fact, place, named in self.rules.event_facts(event, me):
            self._facts.add(fact, place, card_mask(named))
        if kind == "deal":
            self.hand = event.hands[me]
        elif kind == "suggest":
            _count(self.suggested[actor], cards)
            for q in event.passed:
                _count(self.passed[q], cards)
            if event.refuter >= 0:
                _count(self.refuted[event.refuter], cards)
        elif kind == "show" and me == event.refuter:
            self.shown[event.asker, event.card] = 1
        self.rules.advance(self.public, event)

    def public_view(self, viewer: int) -> ClueKnowledge:
        """What seat ``viewer`` knows of where the cards are, as far as this seat can tell.

        The public events (passes, refutations, accusations) and the cards this
        seat has shown ``viewer``; not ``viewer``'s own hand or what others
        showed it, which this seat never sees. A refuter uses it to show the
        card that tells the asker least.
        """
        viewer = check_int("viewer", viewer, low=0, high=self.rules.players - 1)
        engine = blank_engine(self.rules.categories, self.rules.hand_sizes, 1, self._engine.work_limit).copy()
        facts = [
            (fact, place, card_mask(named))
            for event in self.events
            for fact, place, named in self.rules.event_facts(event, -1)  # as a spectator sees it: the public part
        ]
        facts.extend(("holds", self.player, 1 << int(c)) for c in np.flatnonzero(self.shown[viewer]))
        engine.add_trusted(facts)
        return engine

    def determinise(self, rng: np.random.Generator) -> ClueState:
        """A whole state drawn uniformly from the deals consistent with this seat's knowledge."""
        return self.rules.state_of_deal(self.engine.sample(1, rng)[0], public=self.public)
