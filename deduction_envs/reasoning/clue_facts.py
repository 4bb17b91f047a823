"""Certain facts about a Clue deal and the unit rules that propagate them.

The facts of a :class:`~deduction_envs.reasoning.ClueKnowledge` are masks of
cards per place (the players, then the case file): the cards it certainly
holds (``required``) and certainly lacks (``forbidden``), and the clauses still
open (a place holds at least one of some cards; does not hold all of some).
*Propagation* applies the unit rules to a fixed point (a card held somewhere is
held nowhere else; a card possible in one place only is there; a place whose
known cards fill its size holds nothing else, one whose possible cards just
fill it holds them all, per category for the case file; a clause with one
possible card left becomes a fact). The rules only ever add facts, so the fixed
point does not depend on the order in which facts arrive or rules run.

Two forms: :class:`Facts`, immutable, which the engine keeps and copies share;
and :class:`TrustedFacts`, mutable int64 arrays, which a game's seat feeds with
every event it sees (a few integer operations each) and propagates in place
when the facts are read. The compiled kernel is the one propagation of both;
the Python rules are its reference and say why when it meets a contradiction.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numba import njit

from deduction_envs.reasoning.clue_counting import popcount


class Contradiction(Exception):
    """Raised inside propagation with the reason; turned into a ContradictionError naming the event."""


@functools.lru_cache(maxsize=8192)
def card_mask(cards: tuple[int, ...]) -> int:
    """The cards as the bits of one int (cached: a game's events name the same few lists again and again)."""
    return sum(1 << c for c in cards)


def mask_bits(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first."""
    return [b for b in range(mask.bit_length()) if mask >> b & 1]


def bit_matrix(masks: Sequence[int], cards: int) -> np.ndarray:
    """``(cards, len(masks))`` bool: bit ``c`` of each mask (int64 holds them: a deck has at most 62 cards)."""
    return (np.array(masks, dtype=np.int64)[None, :] >> np.arange(cards)[:, None]) & 1 == 1


@dataclass(frozen=True)
class FactModel:
    """The deck and the table: everything fixed before play."""

    names: tuple[str, ...]
    players: int
    sizes: tuple[int, ...]  # cards per place; the case file is the last place
    category_masks: tuple[int, ...]
    case_counts: tuple[int, ...]

    @property
    def cards(self) -> int:
        return len(self.names)

    @property
    def case_file(self) -> int:
        return self.players

    @property
    def places(self) -> int:
        return self.players + 1

    @property
    def full(self) -> int:
        return (1 << self.cards) - 1

    def place_name(self, place: int) -> str:
        return "the case file" if place == self.case_file else f"player {place}"

    def card_list(self, mask: int) -> str:
        return ", ".join(self.names[b] for b in mask_bits(mask))

    @functools.cached_property
    def sweep_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """The table as :mod:`~deduction_envs.reasoning.clue_sweep`'s functions take it: each place's size, the
        category masks and the case file's count of each (int64 arrays), and the mask of every card."""
        return (np.array(self.sizes, dtype=np.int64), np.array(self.category_masks, dtype=np.int64),
                np.array(self.case_counts, dtype=np.int64), self.full)  # fmt: skip

    @functools.cached_property
    def group_table(self) -> np.ndarray:
        """Every count a place must meet, ``(groups, 3)`` int64 rows of (place, mask, count), for the compiled
        propagation."""
        rows = [(p, mask, count) for p in range(self.places) for mask, count, _ in self.groups(p)]
        return np.array(rows, dtype=np.int64).reshape(-1, 3)

    def groups(self, place: int) -> list[tuple[int, int, str]]:
        """(mask, count, what) triples whose counts a place must meet."""
        if place != self.case_file:
            return [(self.full, self.sizes[place], "cards")]
        return [
            (mask, count, f"cards of category {j}")
            for j, (mask, count) in enumerate(zip(self.category_masks, self.case_counts, strict=True))
        ]


@dataclass(frozen=True)
class Facts:
    """Certain facts per place and the clauses still open; immutable, so copies share it."""

    required: tuple[int, ...]
    forbidden: tuple[int, ...]
    at_least: frozenset[tuple[int, int]] = frozenset()
    not_all: frozenset[tuple[int, int]] = frozenset()

    def holding(self, place: int, mask: int) -> Facts:
        required = list(self.required)
        required[place] |= mask
        return replace(self, required=tuple(required))

    def lacking(self, place: int, mask: int) -> Facts:
        forbidden = list(self.forbidden)
        forbidden[place] |= mask
        return replace(self, forbidden=tuple(forbidden))


#: The kind column of a clause table: a place holds at least one of the cards, not all of them, or a clause
#: that is satisfied (or an unused row).
AT_LEAST, NOT_ALL, DEAD = 1, 0, -1


@njit(cache=True)
def propagate_masks(required, forbidden, full, groups, clauses):
    """The unit rules on int64 masks, in place: False at a contradiction (the Python rules then say why).

    ``groups``: ``(g, 3)`` rows of (place, mask, count); ``clauses``: ``(c, 3)``
    rows of (place, mask, kind), kind :data:`AT_LEAST`, :data:`NOT_ALL` or
    :data:`DEAD` (skipped; a clause that is satisfied, or becomes a fact, is
    marked dead and a narrowed one keeps its live cards).
    """
    places = required.size
    allowed = np.zeros(places, dtype=np.int64)
    while True:
        changed = False
        placed = 0
        for p in range(places):
            if placed & required[p] or required[p] & forbidden[p]:
                return False
            placed |= required[p]
        anywhere = 0
        for p in range(places):
            extra = placed & ~required[p] & ~forbidden[p]
            if extra:
                forbidden[p] |= extra
                changed = True
            allowed[p] = full & ~forbidden[p]
            anywhere |= allowed[p]
        if full & ~anywhere:
            return False
        for p in range(places):
            elsewhere = 0
            for q in range(places):
                if q != p:
                    elsewhere |= allowed[q]
            only = allowed[p] & ~elsewhere & ~required[p]
            if only:
                required[p] |= only
                changed = True
        for g in range(groups.shape[0]):
            p, mask, count = groups[g, 0], groups[g, 1], groups[g, 2]
            held = popcount(required[p] & mask)
            possible = popcount(full & ~forbidden[p] & mask)
            if held > count or possible < count:
                return False
            if held == count and mask & ~required[p] & ~forbidden[p]:
                forbidden[p] |= mask & ~required[p]
                changed = True
            elif possible == count and held < count:
                required[p] |= mask & ~forbidden[p]
                changed = True
        for c in range(clauses.shape[0]):
            kind = clauses[c, 2]
            if kind == DEAD:
                continue
            p, cards = clauses[c, 0], clauses[c, 1]
            # A not-all clause is an at-least clause with "held" and "not held" swapped.
            inside, outside = (required, forbidden) if kind == AT_LEAST else (forbidden, required)
            if cards & inside[p]:  # satisfied
                clauses[c, 2] = DEAD
                changed = True
                continue
            left = cards & ~outside[p]
            if left == 0:
                return False
            if popcount(left) == 1:
                inside[p] |= left
                clauses[c, 2] = DEAD
                changed = True
            elif left != cards:
                clauses[c, 1] = left
                changed = True
        if not changed:
            return True


def propagate(model: FactModel, facts: Facts) -> Facts:
    """Apply the unit rules until nothing changes; raise Contradiction with the reason if they fail.

    Compiled on int64 masks (a deck has at most 62 cards); the Python rules
    (:func:`propagate_python`) are the reference, and say why when the masks meet a contradiction.
    """
    store = TrustedFacts(model, facts)
    if not store.propagate():
        return propagate_python(model, facts)  # raises, naming the reason
    return store.facts()


def propagate_python(model: FactModel, facts: Facts) -> Facts:
    """The unit rules in Python (see :func:`propagate`)."""
    required, forbidden = list(facts.required), list(facts.forbidden)
    at_least, not_all = set(facts.at_least), set(facts.not_all)
    full, places = model.full, range(model.places)
    while True:
        before = (tuple(required), tuple(forbidden), frozenset(at_least), frozenset(not_all))
        placed = 0
        for p in places:
            if placed & required[p]:
                raise Contradiction(f"{model.card_list(placed & required[p])} would be in two places")
            placed |= required[p]
        for p in places:
            if required[p] & forbidden[p]:
                cards = model.card_list(required[p] & forbidden[p])
                raise Contradiction(f"{model.place_name(p)} would both hold and not hold {cards}")
        for p in places:
            forbidden[p] |= placed & ~required[p]
        allowed = [full & ~forbidden[p] for p in places]
        nowhere = full
        for mask in allowed:
            nowhere &= ~mask
        if nowhere:
            raise Contradiction(f"{model.card_list(nowhere)} could be nowhere")
        for p in places:
            elsewhere = 0
            for q in places:
                if q != p:
                    elsewhere |= allowed[q]
            required[p] |= allowed[p] & ~elsewhere
        for p in places:
            for mask, count, what in model.groups(p):
                held = (required[p] & mask).bit_count()
                possible = (full & ~forbidden[p] & mask).bit_count()
                if held > count:
                    raise Contradiction(f"{model.place_name(p)} would hold {held} {what}, not {count}")
                if possible < count:
                    raise Contradiction(f"{model.place_name(p)} could hold only {possible} {what}, not {count}")
                if held == count:
                    forbidden[p] |= mask & ~required[p]
                elif possible == count:
                    required[p] |= mask & ~forbidden[p]
        for p, clause in list(at_least):
            live = clause & ~forbidden[p]
            if clause & required[p] or live != clause:
                at_least.discard((p, clause))
            if clause & required[p]:
                continue
            if not live:
                raise Contradiction(f"{model.place_name(p)} would hold none of {model.card_list(clause)}")
            if live.bit_count() == 1:
                required[p] |= live
            elif live != clause:
                at_least.add((p, live))
        for p, clause in list(not_all):
            rest = clause & ~required[p]
            if clause & forbidden[p] or rest != clause:
                not_all.discard((p, clause))
            if clause & forbidden[p]:
                continue
            if not rest:
                raise Contradiction(f"{model.place_name(p)} would hold all of {model.card_list(clause)}")
            if rest.bit_count() == 1:
                forbidden[p] |= rest
            elif rest != clause:
                not_all.add((p, rest))
        after = (tuple(required), tuple(forbidden), frozenset(at_least), frozenset(not_all))
        if after == before:
            return Facts(*after)


#: Trusted events' kinds (see :meth:`TrustedFacts.add`).
TRUSTED_KINDS = ("hand", "holds", "none", "one_of", "right", "wrong")


def facts_of(required: np.ndarray, forbidden: np.ndarray, clauses: np.ndarray) -> Facts:
    """The immutable :class:`Facts` of int64 masks per place (``required``, ``forbidden``) and a clause table (rows
    of place, mask and kind; :data:`DEAD` rows left out): a :class:`TrustedFacts`' or a batched twin's seat's."""
    at_least: set[tuple[int, int]] = set()
    not_all: set[tuple[int, int]] = set()
    for place, mask, kind in clauses.tolist():
        if kind != DEAD:
            (at_least if kind == AT_LEAST else not_all).add((place, mask))
    return Facts(tuple(required.tolist()), tuple(forbidden.tolist()), frozenset(at_least), frozenset(not_all))


class TrustedFacts:
    """Facts as mutable int64 masks, fed events that cannot contradict and propagated in place when read.

    The fast path of a game's own events (they come from its rules, so they are
    taken unvalidated): adding one costs a few integer operations, and the
    compiled unit rules run only when :meth:`masks` or :meth:`facts` is asked
    for. A game's seat keeps one for its whole game;
    :meth:`ClueKnowledge.add_trusted` folds a batch through one.

    Args:
        model: the deck and the table.
        facts: the facts to start from.
    """

    def __init__(self, model: FactModel, facts: Facts) -> None:
        self.model = model
        self._full = model.full
        self.required = np.array(facts.required, dtype=np.int64)
        self.forbidden = np.array(facts.forbidden, dtype=np.int64)
        rows = [(p, c, AT_LEAST) for p, c in sorted(facts.at_least)]
        rows += [(p, c, NOT_ALL) for p, c in sorted(facts.not_all)]
        #: ``(capacity, 3)`` rows of (place, mask, kind); rows from ``_used`` on are free.
        self._clauses = np.full((max(8, 2 * len(rows)), 3), DEAD, dtype=np.int64)
        self._clauses[: len(rows)] = np.array(rows, dtype=np.int64).reshape(-1, 3)
        self._used = len(rows)
        #: The events added since :meth:`take_new` last took them, ``(kind, place, mask)``.
        self.new: list[tuple[str, int, int]] = []
        self._propagated = False  # the facts given may not be

    def add(self, kind: str, place: int, mask: int) -> None:
        """Take one event: ``kind`` in :data:`TRUSTED_KINDS`, ``place`` a player or the case file, ``mask``
        its cards as bits (see :meth:`ClueKnowledge.add_trusted`)."""
        if kind == "one_of" or kind == "wrong":
            if self._used == len(self._clauses):
                self._make_room()
            self._clauses[self._used] = (place, mask, AT_LEAST if kind == "one_of" else NOT_ALL)
            self._used += 1
        elif kind == "none":
            self.forbidden[place] |= mask
        elif kind == "holds" or kind == "right":
            self.required[place] |= mask
        elif kind == "hand":
            self.required[place] |= mask
            self.forbidden[place] |= self._full & ~mask
        else:
            raise ValueError(f"an event's kind is one of {', '.join(TRUSTED_KINDS)}, got {kind!r}")
        self.new.append((kind, place, mask))
        self._propagated = False

    def _make_room(self) -> None:
        """A table of the live clauses only, with as many free rows again (at least 8 rows in all)."""
        live = self._clauses[self._clauses[:, 2] != DEAD]
        table = np.full((max(8, 2 * len(live)), 3), DEAD, dtype=np.int64)
        table[: len(live)] = live
        self._clauses, self._used = table, len(live)

    def propagate(self) -> bool:
        """Run the unit rules to their fixed point in place; False if the facts contradict."""
        if not self._propagated:
            if not propagate_masks(self.required, self.forbidden, self._full, self.model.group_table, self._clauses):
                return False
            self._propagated = True
        return True

    def masks(self) -> tuple[np.ndarray, np.ndarray]:
        """``(required, forbidden)`` per place after propagation, int64 (the store's own arrays: do not write).

        Raises Contradiction if the events contradict (they cannot, if they came from a game's rules).
        """
        if not self.propagate():
            propagate_python(self.model, self.facts())  # raises, naming the reason
        return self.required, self.forbidden

    @property
    def clauses(self) -> np.ndarray:
        """The clause table, ``(rows, 3)`` int64 rows of (place, mask, kind) (dead rows included; the store's own
        array: do not write), as :func:`propagate_masks` and the compiled counters read it."""
        return self._clauses[: self._used]

    def facts(self) -> Facts:
        """The facts as the immutable :class:`Facts` (propagated if :meth:`propagate` was)."""
        return facts_of(self.required, self.forbidden, self._clauses[: self._used])

    def copy(self) -> TrustedFacts:
        """An independent copy."""
        other = object.__new__(TrustedFacts)
        other.__dict__.update(self.__dict__)
        other.required, other.forbidden = self.required.copy(), self.forbidden.copy()
        other._clauses = self._clauses.copy()
        other.new = list(self.new)
        return other

    def take_new(self) -> list[tuple[str, int, int]]:
        """The events added since the last call, now taken."""
        new, self.new = self.new, []
        return new
