"""What one Clue player knows about where the cards are: exact probabilities from every event seen.

Model
-----
A deck is split into categories; the case file holds a fixed number of cards
of each (Clue: one suspect, one weapon, one room; Generalized Clue: ``k`` cards
of its single category) and the rest is dealt to players whose hand sizes are
known. A *deal* says where every card is. The shuffle makes every deal equally
likely before play (the case file is a uniform draw per category, the rest a
uniform deal), and every event the engine takes is a *constraint* on the
deal: it is true of some deals and false of others. Conditioning a uniform
prior on a constraint leaves the uniform distribution over the deals that
satisfy it, so every probability here is a count of consistent deals over the
total count. The engine deliberately ignores evidence whose likelihood
depends on the players' strategies (which card a refuter chose to show, which
suggestion a player chose to make): modelling it would need a model of each
player, and the constraints alone are sound whatever the players do.

The events: a whole hand (my own, or one made public); a player holds a card
(shown to me); a player holds none of a set (could not refute); a player holds
at least one of a set (refuted another player's suggestion, card unseen); an
accusation was wrong (the case file is not exactly those cards) or right.

Algorithms
----------
1. *Propagation* (:mod:`~deduction_envs.reasoning.clue_facts`; unit rules, to
   a fixed point) keeps the certain facts: a card held somewhere is held
   nowhere else; a card that can be in one place only is there; a place whose
   known cards fill its size holds nothing else, and one whose possible cards
   are just enough holds them all (per category for the case file); a clause
   with one possible card left becomes a fact. What is left are *free* cards
   and clauses over them.
2. *Exact counting* (:mod:`~deduction_envs.reasoning.clue_counting`): because
   each constraint concerns one place, a deal is a path of valid hands, place
   after place, through the sets of free cards still to deal, and forward and
   backward counts over those sets (a dynamic programme on bitmasks, compiled
   with numba) give the number of deals, each card's probability at each place,
   the case-file distribution, exact uniform samples and the distribution of
   answers to a suggestion. Its cost grows with the free cards; a budget on the
   hands enumerated (``work_limit``) bounds it.
3. *Sampling* (:mod:`~deduction_envs.reasoning.clue_sampling`) beyond the
   budget: deals drawn uniformly through the exact counts of a capacity
   dynamic programme that keeps the hard facts and the most restrictive
   clauses (one bit each in its state), with rejection of those that break
   another clause. Estimates average over the distinct deals drawn and carry
   standard errors.
4. *Satisfiability*: every event is checked before it is kept, by propagation
   and a complete backtracking search over the clauses (each branch puts one of
   a clause's cards in place; every node is pruned by a matching of cards to
   places and to disjoint clauses, which is exact at the leaves), so a
   contradiction raises :class:`ContradictionError` at once, exact or not.
   Deciding is hard in general, so the search has a budget of branches
   (``check_limit``); past it a local search for a consistent deal decides,
   and an event neither proved nor refuted is refused with
   :class:`UndecidedError`: never a hang, and never an unchecked event kept.

``method="auto"`` counts exactly when the budget allows and samples otherwise;
:attr:`ClueSolution.method` says which was used.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from deduction_envs.core.entropy import entropy_bits, sampled_entropy_bits
from deduction_envs.core.information_set import readonly
from deduction_envs.core.rules import check_int
from deduction_envs.games.clue import CLASSIC_CATEGORIES, MAX_CARDS, deal_sizes
from deduction_envs.reasoning.clue_counting import (
    ExactCounts,
    FreeProblem,
    WorkLimitExceeded,
    answer_weights,
    count_exactly,
)
from deduction_envs.reasoning.clue_facts import (
    Contradiction,
    FactModel,
    Facts,
    TrustedFacts,
    bit_matrix,
    mask_bits,
    propagate,
    propagate_python,  # noqa: F401 (the reference the tests compare the compiled propagation with)
)
from deduction_envs.reasoning.clue_sampling import (
    TRACKED_ENTRIES,
    RelaxedCounts,
    SwapChain,
    groups_sharing_cards,
    relaxed_feasible,
)
from deduction_envs.reasoning.clue_types import TypeCounts, count_by_types

__all__ = ["ClueKnowledge", "ClueSolution", "ContradictionError", "UndecidedError"]

Card = int | str
METHODS = ("auto", "exact", "sample")
#: Deals a swap chain keeps when the relaxed counts are too large (and no number of samples was asked for).
CHAIN_SAMPLES = 4000
#: Rejection draws (about 1.5 us each) for a number of samples asked for without a time budget; a rejection
#: sampler that would accept fewer than :data:`MIN_ACCEPTED` deals in them gives way to the swap chain.
REJECTION_DRAWS = 300_000
MIN_ACCEPTED = 100
#: Card places a request for deals may hold (int64; 400 MB): bounds ``sample(n)`` and ``solve(samples=...)``.
MAX_DEAL_ENTRIES = 50_000_000
#: Branches the consistency check of one event may explore (about 0.2 ms each at 62 cards: 2,000 in 0.4 s)
#: before a local search for a consistent deal decides, and failing that the event is refused as undecided.
CHECK_LIMIT = 2000
#: Swaps the local search for a consistent deal may try (0.24 s when it found none, at 62 cards).
WITNESS_SWAPS = 500_000
TOO_MANY_CARDS = f"a deck has at most {MAX_CARDS} cards (the engine's masks are int64), got {{}}"


#: A constraint: how to describe it (written only when needed), and how it changes the facts.
Constraint = tuple[Callable[[], str], Callable[["Facts"], "Facts"]]


class ContradictionError(ValueError):
    """An event that no deal agrees with, given what is already known."""


class UndecidedError(ValueError):
    """An event the engine could not check within its budget (``check_limit``), or a state it could not find a
    consistent deal of to answer from: neither a deal nor a proof that none exists was found in time. An event is
    refused and nothing changes."""


def _combinations(hands: np.ndarray, cards: np.ndarray, required: int) -> np.ndarray:
    """The case files of ``hands`` (masks over the free ``cards``, each as many), with the ``required`` cards:
    ``(hands, case-file size)`` card ids, each row sorted."""
    fixed = np.array(mask_bits(required), dtype=np.int64)
    if cards.size == 0:
        return np.tile(fixed, (hands.size, 1))
    held = (hands[:, None] >> np.arange(cards.size)) & 1 == 1
    free = np.broadcast_to(cards, held.shape)[held].reshape(hands.size, -1)
    return np.sort(np.concatenate([np.tile(fixed, (hands.size, 1)), free], axis=1), axis=1)


def _free_problem(model: FactModel, facts: Facts, first: Sequence[int] = ()) -> tuple[FreeProblem, list[int]]:
    """The free cards of propagated ``facts`` as a :class:`FreeProblem`, and their deck ids.

    Places in ``first`` come first in that order, even if they take no free
    card; then the case file; then the other places that take free cards, in
    increasing number of candidate hands (the largest is last, never enumerated).
    """
    placed = 0
    for mask in facts.required:
        placed |= mask
    free = model.full & ~placed
    cards = mask_bits(free)
    position = {card: bit for bit, card in enumerate(cards)}

    def compress(mask: int) -> int:
        return sum(1 << position[c] for c in mask_bits(mask & free))

    entries = []
    for p in range(model.places):
        size = model.sizes[p] - facts.required[p].bit_count()
        if size == 0 and p not in first:
            continue
        allowed = compress(~facts.forbidden[p] & model.full)
        categories: tuple[tuple[int, int], ...] = ()
        if p == model.case_file:
            categories = tuple(
                (compress(mask), count - (facts.required[p] & mask).bit_count())
                for mask, count in zip(model.category_masks, model.case_counts, strict=True)
                if compress(mask) & allowed
            )
        entries.append(
            (
                p,
                size,
                allowed,
                tuple(compress(c) for q, c in sorted(facts.at_least) if q == p),
                tuple(compress(c) for q, c in sorted(facts.not_all) if q == p),
                categories,
            )
        )

    def rank(entry):
        p, size, allowed = entry[:3]
        if p in first:
            return (0, list(first).index(p))
        return (1 if p == model.case_file else 2, math.comb(allowed.bit_count(), size))

    entries.sort(key=rank)
    columns = [tuple(column) for column in zip(*entries, strict=True)] or [()] * 6
    return FreeProblem(len(cards), *columns), cards


def _count(problem: FreeProblem, work_limit: float) -> ExactCounts | TypeCounts:
    """Exact counts: by types of interchangeable cards where they are few, else by the bitmask programme."""
    try:
        return count_by_types(problem, work_limit)
    except WorkLimitExceeded:
        return count_exactly(problem, work_limit)


def _check_positive(name: str, value: object) -> None:
    """Refuse, naming ``name``, a value that is not a positive finite number."""
    number = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
    if not number or not 0 < value < math.inf:  # type: ignore[operator]  # a number, checked just above
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")


class _OutOfBranches(Exception):
    """The consistency check used up its branches without deciding."""


def _satisfiable(model: FactModel, facts: Facts, budget: list[int]) -> bool:
    """Whether any deal satisfies propagated ``facts``: backtracking over the clauses, each node pruned by the
    relaxed matching (exact once no clause is left); ``budget[0]`` branches may be explored, then
    :class:`_OutOfBranches`."""
    problem, cards = _free_problem(model, facts)
    if cards and not relaxed_feasible(problem):
        return False
    clauses = [(p, c, True) for p, c in facts.at_least] + [(p, c, False) for p, c in facts.not_all]
    if not clauses:
        return True
    place, cards_of_clause, at_least = min(clauses, key=lambda clause: (clause[1].bit_count(), clause))
    branch = facts
    for card in mask_bits(cards_of_clause):
        budget[0] -= 1
        if budget[0] < 0:
            raise _OutOfBranches
        # Branch k puts card k in place (or, for not-all, out of it) and rules out cards 1..k-1: disjoint branches.
        attempt = branch.holding(place, 1 << card) if at_least else branch.lacking(place, 1 << card)
        try:
            if _satisfiable(model, propagate(model, attempt), budget):
                return True
        except Contradiction:
            pass
        branch = branch.lacking(place, 1 << card) if at_least else branch.holding(place, 1 << card)
    return False


def _consistent(model: FactModel, facts: Facts, budget: list[int]) -> bool:
    """:func:`_satisfiable`, after each group of clauses that share cards (across places) alone: a group that no
    deal satisfies refutes the whole at once, where a search over all the clauses might branch through every
    other group first."""
    groups = groups_sharing_cards(sorted(facts.at_least | facts.not_all), lambda clause: clause[1])
    if len(groups) > 1:
        for members in sorted(groups, key=len):
            alone = replace(
                facts,
                at_least=frozenset(c for c in members if c in facts.at_least),
                not_all=frozenset(c for c in members if c in facts.not_all),
            )
            if not _satisfiable(model, alone, budget):
                return False
    return _satisfiable(model, facts, budget)


def _witness(model: FactModel, facts: Facts) -> bool:
    """Whether a local search (the swap chain's repair, seeded) finds a deal that satisfies propagated ``facts``:
    a deal found proves them consistent; none found proves nothing."""
    problem, _ = _free_problem(model, facts)
    try:
        SwapChain(problem, search=WITNESS_SWAPS).sample(np.random.default_rng(0), 1)
    except RuntimeError:
        return False
    return True


@dataclass(frozen=True)
class ClueSolution:
    """Everything the engine answers about one state of knowledge.

    Attributes:
        method: ``"exact"``, ``"sample"`` (uniform deals) or ``"mcmc"`` (deals
            from a swap chain, approximately uniform, when the table is too large
            even for the sampler's relaxed counts; ``count`` is then NaN).
        count: the number of consistent deals: an int when exact, else an estimate.
        count_error: its standard error (0 when exact).
        probabilities: ``(cards, players + 1)``: the probability of each card
            at each place; the case file is the last column.
        errors: standard errors of ``probabilities`` (zeros when exact).
        case_files: ``(m, case-file size)`` card ids, the combinations with
            positive (estimated) probability, sorted.
        case_file_probabilities: their probabilities.
        samples: distinct consistent deals behind the estimates (0 when
            exact); estimates average over them, see
            :mod:`~deduction_envs.reasoning.clue_sampling`.
        work: hands enumerated by exact counting (0 when sampled).
    """

    method: str
    count: int | float
    count_error: float
    probabilities: np.ndarray
    errors: np.ndarray
    case_files: np.ndarray
    case_file_probabilities: np.ndarray
    samples: int = 0
    work: int = 0
    _counts: ExactCounts | TypeCounts | None = field(default=None, repr=False, compare=False)
    _cards: tuple[int, ...] = field(default=(), repr=False, compare=False)

    @property
    def entropy(self) -> float:
        """Entropy in bits of the case file's distribution.

        Exact when counted. When sampled, the Miller-Madow estimate from the
        case files of the ``samples`` distinct deals drawn: the plug-in
        estimate, which is biased low, plus its first-order bias; it still
        underestimates when many possible case files were never drawn (the
        case file then has far more possibilities than samples).
        """
        if self.method == "exact":
            return float(entropy_bits(self.case_file_probabilities))
        return sampled_entropy_bits(self.case_file_probabilities, self.samples)


class ClueKnowledge:
    """The card-location knowledge of one Clue or Generalized Clue player.

    Args:
        categories: the card names of each category, or the number of cards
            in each (cards are then named by their ids as strings). Card ids
            run through the categories in order.
        hand_sizes: cards dealt to each player.
        case_file_sizes: cards of each category in the case file (one int for
            every category).
        work_limit: hands exact counting may enumerate before ``method="auto"``
            samples instead (each costs about 75 ns on a 2-core benchmark
            machine, so the default is about 0.15 s).
        seconds: the sampler's time budget when :meth:`solve` samples and is
            given neither ``samples`` nor ``seconds``. With the default work
            limit, an answer takes at most about a quarter of a second
            (``python -m benchmarks.clue_knowledge budget``).
        check_limit: branches the consistency check of one event may explore
            (about 0.2 ms each at 62 cards); past it, a local search for a
            consistent deal decides (a quarter of a second more when it finds none),
            and failing that the event is refused with :class:`UndecidedError`
            (nothing changes). The usual check takes a handful.

    Cards are given by id or name; players by index; the case file is place
    ``players`` (the last column of :meth:`probabilities`).

    >>> k = ClueKnowledge.classic(players=3)
    >>> k.add_hand(0, ["Miss Scarlet", "Knife", "Rope", "Kitchen", "Hall", "Study"])
    >>> k.count()  # 5 * 4 * 6 case files, then 6 of the other 12 cards to player 1
    (110880, 0.0)
    >>> k.add_holds_none(1, ["Mr. Green", "Candlestick", "Library"])
    >>> k.add_holds_none(2, ["Mr. Green", "Candlestick", "Library"])
    >>> float(k.case_file_distribution()[1].max())  # Green, Candlestick and Library are all in the case file
    1.0
    """

    def __init__(
        self,
        categories: Sequence[Sequence[str]] | Sequence[int],
        hand_sizes: Sequence[int],
        case_file_sizes: Sequence[int] | int = 1,
        *,
        work_limit: float = 2e6,
        seconds: float = 0.08,
        check_limit: int = CHECK_LIMIT,
    ) -> None:
        if isinstance(categories, (str, bytes)) or not len(categories):
            raise ValueError(f"categories must be a non-empty list of card-name lists or sizes, got {categories!r}")
        if all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in categories):
            sizes = [check_int(f"categories[{j}]", c, low=1, high=MAX_CARDS) for j, c in enumerate(categories)]
            if sum(sizes) > MAX_CARDS:  # before building the names
                raise ValueError(TOO_MANY_CARDS.format(sum(sizes)))
            starts = np.cumsum([0, *sizes])
            groups = [[str(i) for i in range(a, b)] for a, b in itertools.pairwise(starts)]
        else:
            if any(isinstance(c, (str, int, np.integer)) or not c for c in categories):
                raise ValueError("each category must be a non-empty list of card names")
            groups = [list(c) for c in categories if not isinstance(c, int)]
        names = tuple(str(name) for group in groups for name in group)
        if len(set(names)) != len(names):
            raise ValueError("card names must be unique")
        if len(names) > MAX_CARDS:
            raise ValueError(TOO_MANY_CARDS.format(len(names)))
        if isinstance(case_file_sizes, (int, np.integer)):
            case_file_sizes = [int(case_file_sizes)] * len(groups)
        if len(case_file_sizes) != len(groups):
            raise ValueError(f"case_file_sizes needs one count per category ({len(groups)}), got {case_file_sizes!r}")
        counts = tuple(
            check_int(f"case_file_sizes[{j}]", c, low=0, high=len(group))
            for j, (c, group) in enumerate(zip(case_file_sizes, groups, strict=True))
        )
        if not len(hand_sizes):
            raise ValueError("hand_sizes needs at least one player")
        hands = tuple(check_int(f"hand_sizes[{p}]", h, low=0) for p, h in enumerate(hand_sizes))
        if sum(hands) + sum(counts) != len(names):
            raise ValueError(
                f"the hands ({sum(hands)} cards) and the case file ({sum(counts)}) must hold the "
                f"{len(names)} cards of the deck exactly"
            )
        for name, value in (("work_limit", work_limit), ("seconds", seconds)):
            _check_positive(name, value)
        self.check_limit = check_int("check_limit", check_limit, low=1)
        starts = np.cumsum([0, *(len(g) for g in groups)])
        masks = tuple(((1 << int(b)) - 1) ^ ((1 << int(a)) - 1) for a, b in itertools.pairwise(starts))
        self._model = FactModel(names, len(hands), (*hands, sum(counts)), masks, counts)
        self._facts = Facts((0,) * self._model.places, (0,) * self._model.places)
        self._events: tuple[Callable[[], str], ...] = ()  # descriptions, written when asked for
        self._trusted: tuple[Facts, TrustedFacts] | None = None  # the facts and a store of them, never fed
        #: The sampler's relaxed counts of the current facts, by table budget (None: too large to count).
        self._relaxed: dict[float, RelaxedCounts | None] = {}
        self._solution: ClueSolution | None = None
        self._over_budget: str | None = None  # why exact counting failed for the current state
        self.work_limit = float(work_limit)
        self.seconds = float(seconds)
        #: How many times events have changed what is known (answers are cached between changes).
        self.changes = 0
        self._index = {name: i for i, name in enumerate(names)}

    @classmethod
    def classic(cls, players: int, **kwargs) -> ClueKnowledge:
        """Standard Clue: 6 suspects, 6 weapons, 9 rooms, one of each hidden, 18 cards dealt to 2..6 players."""
        players = check_int("players", players, low=2, high=6)
        return cls(CLASSIC_CATEGORIES, deal_sizes(18, players), 1, **kwargs)

    @classmethod
    def generalized(cls, cards: int, hidden: int, players: int, **kwargs) -> ClueKnowledge:
        """Generalized Clue: ``hidden`` of ``cards`` cards of one kind in the case file, the rest dealt."""
        cards = check_int("cards", cards, low=1, high=MAX_CARDS)
        hidden = check_int("hidden", hidden, low=1, high=cards)
        players = check_int("players", players, low=1, high=cards - hidden if cards > hidden else 1)
        return cls([cards], deal_sizes(cards - hidden, players), hidden, **kwargs)

    # -- the table -------------------------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self._model.players

    @property
    def case_file(self) -> int:
        """The place index of the case file: the last column of :meth:`probabilities`."""
        return self._model.case_file

    @property
    def card_names(self) -> tuple[str, ...]:
        return self._model.names

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return self._model.sizes[:-1]

    @property
    def categories(self) -> tuple[tuple[int, ...], ...]:
        """The card ids of each category."""
        return tuple(tuple(mask_bits(mask)) for mask in self._model.category_masks)

    @property
    def case_file_sizes(self) -> tuple[int, ...]:
        return self._model.case_counts

    @property
    def events(self) -> tuple[str, ...]:
        """The events taken so far, as text."""
        return tuple(describe() for describe in self._events)

    def card(self, card: Card) -> int:
        """The id of a card given by id or name."""
        if isinstance(card, str):
            if card not in self._index:
                raise ValueError(f"unknown card {card!r}; the cards are {', '.join(self._model.names)}")
            return self._index[card]
        return check_int("card", card, low=0, high=self._model.cards - 1)

    def _mask(self, cards: Card | Iterable[Card], what: str = "cards") -> int:
        if isinstance(cards, (str, int, np.integer)):
            cards = [cards]
        elif not isinstance(cards, Iterable):
            raise ValueError(f"{what} must be a card (a name or an id) or a list of cards, got {cards!r}")
        ids = [self.card(c) for c in cards]
        if not ids:
            raise ValueError(f"{what} must name at least one card")
        if len(set(ids)) != len(ids):
            twice = sorted({i for i in ids if ids.count(i) > 1})
            listed = ", ".join(self._model.names[i] for i in ids)
            raise ValueError(f"{what} names {', '.join(self._model.names[i] for i in twice)} twice ({listed})")
        return sum(1 << i for i in ids)

    def _player(self, player: int) -> int:
        return check_int("player", player, low=0, high=self.players - 1)

    def copy(self) -> ClueKnowledge:
        """An independent copy, cheap: the facts are immutable and shared until either side adds an event."""
        other = object.__new__(ClueKnowledge)
        other.__dict__.update(self.__dict__)
        return other

    def with_work_limit(self, work_limit: float) -> ClueKnowledge:
        """A copy that counts exactly up to ``work_limit`` hands (its answers counted afresh): to count exactly a
        state this knowledge's budget samples."""
        _check_positive("work_limit", work_limit)
        other = self.copy()
        other.work_limit = float(work_limit)
        other._solution, other._over_budget, other._relaxed = None, None, {}
        return other

    def with_facts(self, facts: Facts) -> ClueKnowledge:
        """A copy holding ``facts`` instead of its own: facts a game's engine has propagated, as a batched twin keeps
        them (per place the cards held and not held, and the clauses still open), trusted and unchecked; its
        answers are counted from them as from the facts of events."""
        other = self.copy()
        other._keep(facts, [])
        return other

    def __repr__(self) -> str:
        return f"ClueKnowledge(players={self.players}, cards={self._model.cards}, events={len(self._events)})"

    # -- events ----------------------------------------------------------------------------------------------

    def _add(self, constraint: Constraint) -> None:
        """Take one event (its description and its change of the facts), checked, or refuse it."""
        describe, change = constraint
        self._commit(change(self._facts), [describe], check=True)

    def _commit(self, facts: Facts, describers: Sequence[Callable[[], str]], check: bool) -> None:
        """Propagate ``facts`` (checked if ``check``) and keep them, or raise naming the events described."""

        def description() -> str:
            return "; ".join(describe() for describe in describers)

        try:
            facts = propagate(self._model, facts)
        except Contradiction as error:
            raise ContradictionError(f"{description()}: contradicts what is known, since {error}") from None
        if check:
            try:
                consistent = _consistent(self._model, facts, [self.check_limit])
            except _OutOfBranches:
                if not _witness(self._model, facts):
                    raise UndecidedError(
                        f"{description()}: refused, since the engine could not tell within its budget whether any "
                        f"deal agrees with it and the {len(self._events)} earlier events (a search of "
                        f"{self.check_limit} branches and a local search of {WITNESS_SWAPS} swaps); nothing "
                        f"changed; a larger check_limit may decide it"
                    ) from None
                consistent = True
            if not consistent:
                raise ContradictionError(
                    f"{description()}: contradicts what is known; no deal agrees with it and the "
                    f"{len(self._events)} earlier events"
                )
        self._keep(facts, describers)

    def _keep(self, facts: Facts, describers: Sequence[Callable[[], str]]) -> None:
        """Keep propagated ``facts``, with the events that made them."""
        self._events = (*self._events, *describers)
        if facts != self._facts:  # an event that tells nothing new keeps the answers
            self._facts = facts
            self._solution = None
            self._over_budget = None
            self._relaxed = {}
            self.changes += 1

    def add_trusted(self, events: Iterable[tuple[str, int, int]]) -> None:
        """Events from a game engine, which cannot contradict: taken together, unchecked and unvalidated.

        Each is ``(kind, place, mask)`` with ``mask`` the cards as bits of an int
        and ``kind`` one of ``"hand"``, ``"holds"``, ``"none"``, ``"one_of"``,
        ``"right"`` and ``"wrong"`` (an accusation, whose place is the case
        file). The fast path of a game's own knowledge; people's input goes
        through the ``add_*`` methods, which check it.
        """
        store = self.trusted_facts()
        for kind, place, mask in events:
            store.add(kind, place, mask)
        self.take_trusted(store)

    def trusted_facts(self) -> TrustedFacts:
        """This knowledge's facts as a mutable :class:`~deduction_envs.reasoning.clue_facts.TrustedFacts`, to be
        fed a game's events one by one and handed back with :meth:`take_trusted`."""
        if self._trusted is None or self._trusted[0] is not self._facts:  # copies are cheaper than a new store
            self._trusted = (self._facts, TrustedFacts(self._model, self._facts))
        return self._trusted[1].copy()

    def take_trusted(self, store: TrustedFacts) -> None:
        """Keep the facts of ``store``, made by :meth:`trusted_facts` of this knowledge (or of the one it was
        copied from, with no event added to either since) and fed since; its new events become this
        knowledge's events."""
        model = self._model
        describers = [
            lambda kind=kind, place=place, mask=mask: f"{kind}: {model.place_name(place)}, {model.card_list(mask)}"
            for kind, place, mask in store.take_new()
        ]
        try:
            store.masks()
        except Contradiction as error:
            description = "; ".join(describe() for describe in describers)
            raise ContradictionError(f"{description}: contradicts what is known, since {error}") from None
        self._keep(store.facts(), describers)

    def _hand(self, player: int, cards: Iterable[Card]) -> Constraint:
        player = self._player(player)
        mask = self._mask(cards)
        if mask.bit_count() != self.hand_sizes[player]:
            raise ValueError(f"player {player} holds {self.hand_sizes[player]} cards, got {mask.bit_count()}")
        rest = self._model.full & ~mask
        return lambda: f"player {player}'s hand is {self._model.card_list(mask)}", lambda f: f.holding(
            player, mask
        ).lacking(player, rest)

    def _holds(self, player: int, cards: Card | Iterable[Card]) -> Constraint:
        player = self._player(player)
        mask = self._mask(cards)
        return lambda: f"player {player} holds {self._model.card_list(mask)}", lambda f: f.holding(player, mask)

    def _holds_none(self, player: int, cards: Card | Iterable[Card]) -> Constraint:
        player = self._player(player)
        mask = self._mask(cards)
        return lambda: f"player {player} holds none of {self._model.card_list(mask)}", lambda f: f.lacking(player, mask)

    def _holds_one_of(self, player: int, cards: Card | Iterable[Card]) -> Constraint:
        player = self._player(player)
        mask = self._mask(cards)
        return lambda: f"player {player} holds at least one of {self._model.card_list(mask)}", lambda f: replace(
            f, at_least=f.at_least | {(player, mask)}
        )

    def _accusation(self, cards: Iterable[Card], correct: bool) -> Constraint:
        if not isinstance(correct, (bool, np.bool_)):
            raise ValueError(f"correct must be True or False, got {correct!r}")
        mask = self._mask(cards, "an accusation")
        for j, (cat, count) in enumerate(zip(self._model.category_masks, self._model.case_counts, strict=True)):
            if (mask & cat).bit_count() != count:
                raise ValueError(
                    f"an accusation names {count} card(s) of category {j} (the case file's count), "
                    f"got {(mask & cat).bit_count()}"
                )
        case = self.case_file
        verdict = "right" if correct else "wrong"

        def description() -> str:
            return f"the accusation {self._model.card_list(mask)} was {verdict}"

        if correct:
            return description, lambda f: f.holding(case, mask)
        return description, lambda f: replace(f, not_all=f.not_all | {(case, mask)})

    def add_hand(self, player: int, cards: Iterable[Card]) -> None:
        """``player``'s whole hand is ``cards``: my own hand, or a hand made public."""
        self._add(self._hand(player, cards))

    def add_holds(self, player: int, cards: Card | Iterable[Card]) -> None:
        """``player`` holds each of ``cards`` (a card shown to me, or cards made public)."""
        self._add(self._holds(player, cards))

    def add_holds_none(self, player: int, cards: Card | Iterable[Card]) -> None:
        """``player`` holds none of ``cards`` (could not refute a suggestion of them)."""
        self._add(self._holds_none(player, cards))

    def add_holds_one_of(self, player: int, cards: Card | Iterable[Card]) -> None:
        """``player`` holds at least one of ``cards`` (refuted a suggestion; I did not see the card)."""
        self._add(self._holds_one_of(player, cards))

    def add_accusation(self, cards: Iterable[Card], correct: bool) -> None:
        """An accusation of ``cards`` was ``correct`` (the case file is exactly them) or wrong (it is not)."""
        self._add(self._accusation(cards, correct))

    def add_facts(self, facts: Iterable[tuple[str, int, Sequence[Card]]]) -> None:
        """Facts as the rules state what an event proves (``ClueRules.event_facts``, ``GeneralizedClueRules.
        event_facts``): ``(kind, place, cards)`` with ``kind`` one of ``"hand"``, ``"holds"``, ``"none"``,
        ``"one_of"``, ``"right"`` and ``"wrong"`` (an accusation, whose place is the case file), each validated as
        the ``add_*`` method of its kind validates it, and taken together: one check that some deal agrees with
        all of them, and all kept or none. People's input made into events goes through here; a game engine's
        own events through :meth:`add_trusted`."""
        makers = {"hand": self._hand, "holds": self._holds, "none": self._holds_none, "one_of": self._holds_one_of}
        constraints = []
        for kind, place, cards in facts:
            if kind in ("right", "wrong"):
                constraints.append(self._accusation(cards, kind == "right"))
            elif kind in makers:
                constraints.append(makers[kind](place, cards))
            else:
                raise ValueError(f"a fact is one of {sorted([*makers, 'right', 'wrong'])}, got {kind!r}")
        if not constraints:
            return
        changed = self._facts
        for _, change in constraints:
            changed = change(changed)
        self._commit(changed, [describe for describe, _ in constraints], check=True)

    # -- answers ---------------------------------------------------------------------------------------------

    def _check_method(self, method: str) -> None:
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")

    def solve(
        self,
        method: str = "auto",
        *,
        samples: int | None = None,
        seconds: float | None = None,
        rng: np.random.Generator | int | None = 0,
    ) -> ClueSolution:
        """Count or sample the consistent deals and summarise them.

        Args:
            method: ``"exact"`` (raise ``ValueError`` if over ``work_limit``),
                ``"sample"``, or ``"auto"`` (exact within the budget, else sample).
            samples: accepted deals to draw when sampling (with ``seconds``,
                whichever comes first).
            seconds: a time budget for the whole estimate (at least one batch
                of 256 deals is drawn); with neither, the knowledge's ``seconds``.
            rng: seed or generator for sampling.

        Exact solutions are cached until the next event.
        """
        self._check_method(method)
        if samples is not None:
            samples = self._check_deals("samples", samples, low=1)
        if seconds is not None:
            _check_positive("seconds", seconds)
        exact = None if method == "sample" else self._exact(method)
        if exact is not None:
            return exact
        if samples is None:  # as many as the time allows, within the memory bound
            samples, seconds = MAX_DEAL_ENTRIES // self._model.cards, seconds or self.seconds
        return self._sampled_solution(samples, seconds, np.random.default_rng(rng))

    def _check_deals(self, name: str, value: object, low: int) -> int:
        """A number of deals asked for, at most :data:`MAX_DEAL_ENTRIES` card places in all."""
        return check_int(name, value, low=low, high=MAX_DEAL_ENTRIES // self._model.cards)

    def _exact(self, method: str) -> ClueSolution | None:
        """The exact solution, or None when over budget (an error for ``method="exact"``); both cached per state."""
        if self._solution is None and self._over_budget is None:
            problem, cards = _free_problem(self._model, self._facts)
            try:
                counts = _count(problem, self.work_limit) if cards else None
                self._solution = self._exact_solution(counts, cards)
            except WorkLimitExceeded as error:
                self._over_budget = str(error)
        if self._solution is None and method == "exact":
            raise ValueError(
                f"exact counting is over budget ({self._over_budget}); raise work_limit or use method='sample'"
            )
        return self._solution

    def _fixed_probabilities(self) -> np.ndarray:
        probabilities = np.zeros((self._model.cards, self._model.places))
        for p, mask in enumerate(self._facts.required):
            probabilities[mask_bits(mask), p] = 1.0
        return probabilities

    def _case_file_combinations(self) -> int:
        pairs = zip(self._model.category_masks, self._model.case_counts, strict=True)
        return math.prod(math.comb(mask.bit_count(), count) for mask, count in pairs)

    def _unconstrained_deals(self) -> int:
        hands = self.hand_sizes
        return self._case_file_combinations() * math.factorial(sum(hands)) // math.prod(map(math.factorial, hands))

    def _exact_solution(self, counts: ExactCounts | TypeCounts | None, cards: list[int]) -> ClueSolution:
        probabilities = self._fixed_probabilities()
        case_required = self._facts.required[self.case_file]
        total = counts.total if counts is not None else 1.0
        hands: Sequence[int] | np.ndarray = [0]
        weights = np.array([total])  # a case file without free cards
        if counts is not None:
            places = counts.problem.places
            for i, place in enumerate(places):
                probabilities[cards, place] = counts.card_weights[i] / total
            if places[0] == self.case_file:  # every case file listed: as many as the work limit allows
                hands, weights = counts.first_place_hands(self.work_limit)
        combos = _combinations(np.asarray(hands, dtype=np.int64), np.array(cards, dtype=np.int64), case_required)
        order = np.lexsort(combos.T[::-1])
        count: int | float = round(total) if self._unconstrained_deals() < 2**53 else total
        return ClueSolution(
            method="exact",
            count=count,
            count_error=0.0,
            probabilities=readonly(probabilities),
            errors=readonly(np.zeros_like(probabilities)),
            case_files=readonly(combos[order]),
            case_file_probabilities=readonly(np.asarray(weights, dtype=float)[order] / total),
            work=counts.work if counts else 0,
            _counts=counts,
            _cards=tuple(cards),
        )

    def _sampled_deals(self, samples: int, seconds: float | None, rng: np.random.Generator, every: bool = False):
        """Consistent deals of the free cards: uniform by rejection through the relaxed counts, or from a swap
        chain when the counts are too large or rejection accepts too few in its draws (fewer than
        :data:`MIN_ACCEPTED`, or than ``samples`` if ``every`` of them is needed)."""
        start = time.perf_counter()
        problem, cards = _free_problem(self._model, self._facts)
        # A short budget cannot afford a large table: about 10 ns an entry, a quarter of the time.
        entries = TRACKED_ENTRIES if seconds is None else min(TRACKED_ENTRIES, seconds * 2.5e7)
        if entries not in self._relaxed:  # kept until the facts change: solve() and sample() often both draw
            try:
                self._relaxed[entries] = RelaxedCounts(problem, entries)
            except MemoryError:
                self._relaxed[entries] = None
        relaxed = self._relaxed[entries]
        enough = samples if every else min(samples, MIN_ACCEPTED)
        if relaxed is not None:
            left = None if seconds is None else seconds - (time.perf_counter() - start)
            draws = REJECTION_DRAWS if seconds is None else 10 * REJECTION_DRAWS  # a time budget stops it first
            drawn = relaxed.sample(rng, samples, left, max_draws=draws, enough=enough)
            if drawn.places.shape[0] >= enough:
                return problem, cards, drawn
        # A table too large to count even relaxed, or too few deals accepted: a chain of swaps, nearly uniform.
        chain = SwapChain(problem)
        if seconds is not None:  # a chain's cost is its length: about 0.1 us a proposal, thin proposals a deal
            left = seconds - (time.perf_counter() - start)
            samples = int(np.clip((left / 1e-7 - chain.burn) / chain.thin, MIN_ACCEPTED, min(samples, CHAIN_SAMPLES)))
        try:
            drawn = chain.sample(rng, samples)
        except RuntimeError as error:
            raise UndecidedError(f"no consistent deal was found to answer from: {error}") from None
        return problem, cards, drawn

    def _sampled_solution(self, samples: int, seconds: float | None, rng: np.random.Generator) -> ClueSolution:
        problem, cards, drawn = self._sampled_deals(samples, seconds, rng)
        # The deck place of each free card, one distinct deal a row.
        places = np.array(problem.places, dtype=np.int64)[drawn.distinct()]
        n = places.shape[0]
        probabilities = self._fixed_probabilities()
        errors = np.zeros_like(probabilities)
        if cards:
            cells = places + self._model.places * np.arange(len(cards))
            share = np.bincount(cells.ravel(), minlength=len(cards) * self._model.places).reshape(len(cards), -1) / n
            probabilities[cards] = share
            errors[cards] = np.sqrt(share * (1 - share) / n)  # without the finite-population correction
        # Each deal's free case-file cards (positions among the free cards, increasing), and the distinct rows.
        hidden = np.nonzero(places == self.case_file)[1].reshape(n, -1)
        rows, frequency = np.unique(hidden, axis=0, return_counts=True)
        required = np.array(mask_bits(self._facts.required[self.case_file]), dtype=np.int64)
        free_ids = np.array(cards, dtype=np.int64)[rows] if cards else np.zeros((len(rows), 0), dtype=np.int64)
        combos = np.sort(np.concatenate([np.tile(required, (len(rows), 1)), free_ids], axis=1), axis=1)
        order = np.lexsort(combos.T[::-1])
        count, count_error = drawn.count_estimate()
        return ClueSolution(
            method="mcmc" if drawn.mcmc else "sample",
            count=count,
            count_error=count_error,
            probabilities=readonly(probabilities),
            errors=readonly(errors),
            case_files=readonly(combos[order]),
            case_file_probabilities=readonly(frequency[order] / n),
            samples=n,
            _cards=tuple(cards),
        )

    def probabilities(self, method: str = "auto", **kwargs) -> np.ndarray:
        """``(cards, players + 1)`` array: the probability of each card at each place (case file last)."""
        return self.solve(method, **kwargs).probabilities

    def count(self, method: str = "auto", **kwargs) -> tuple[int | float, float]:
        """The number of consistent deals and its standard error (0 when exact)."""
        solution = self.solve(method, **kwargs)
        return solution.count, solution.count_error

    def case_file_distribution(self, method: str = "auto", **kwargs) -> tuple[np.ndarray, np.ndarray]:
        """Every combination the case file may hold (for Clue, all 324) and its probability.

        Returns ``(combinations, probabilities)``: card ids, one combination a
        row in lexicographic order, and their probabilities (0 for the
        impossible ones).

        Raises:
            ValueError: more than a million combinations (use
                :meth:`solve`, whose ``case_files`` lists the possible ones).
        """
        solution = self.solve(method, **kwargs)
        model = self._model
        total = self._case_file_combinations()
        if total > 1_000_000:
            raise ValueError(f"the case file has {total} combinations; use solve().case_files for the possible ones")
        per_category = [
            itertools.combinations(mask_bits(m), c)
            for m, c in zip(model.category_masks, model.case_counts, strict=True)
        ]
        combos = np.array([sum(parts, ()) for parts in itertools.product(*per_category)], dtype=np.int64)
        combos = combos.reshape(len(combos), -1)
        pairs = zip(solution.case_files.tolist(), solution.case_file_probabilities, strict=True)
        probability = {tuple(row): p for row, p in pairs}
        return combos, np.array([probability.get(tuple(row), 0.0) for row in combos.tolist()])

    def entropy(self, method: str = "auto", **kwargs) -> float:
        """Entropy in bits of the case file's distribution (what is left to find out): :attr:`ClueSolution.entropy`."""
        return self.solve(method, **kwargs).entropy

    def deduction_sheet(self, method: str = "auto", *, solution: ClueSolution | None = None, **kwargs) -> np.ndarray:
        """``(cards, players + 1)`` int8 array: 1 where a card certainly is, 0 where it certainly is not, -1 unknown.

        Exact solutions give every certainty there is; sampled ones only the
        facts propagation proved (a sample never proves a probability of 0).
        ``solution``: this state's :meth:`solve`, if already at hand.
        """
        if method != "sample":
            solution = solution or self.solve(method, **kwargs)
            if solution.method == "exact":
                p = solution.probabilities
                return np.where(p == 1.0, 1, np.where(p == 0.0, 0, -1)).astype(np.int8)
        held, lacked = self.facts()
        return np.where(held, 1, np.where(lacked, 0, -1)).astype(np.int8)

    def facts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(held, not_held)``, each ``(cards, players + 1)`` bool: what propagation has proved, without counting."""
        cards = self._model.cards
        return bit_matrix(self._facts.required, cards), bit_matrix(self._facts.forbidden, cards)

    def format_sheet(
        self,
        method: str = "auto",
        *,
        solution: ClueSolution | None = None,
        names: Sequence[str] | None = None,
        **kwargs,
    ) -> str:
        """The deduction sheet as text: ``X`` held, ``-`` not held, else the probability in percent.

        ``solution``: this state's :meth:`solve`, if already at hand; ``names``
        of the players for the header (default ``P0``, ``P1``, ...).
        """
        solution = solution or self.solve(method, **kwargs)
        probabilities = solution.probabilities
        sheet = self.deduction_sheet(method, solution=solution)
        header = [f"P{p}" for p in range(self.players)] if names is None else list(names)
        if len(header) != self.players:
            raise ValueError(f"names needs one name per player ({self.players}), got {names!r}")
        header.append("case")
        width = max(len(n) for n in self._model.names)
        cell = max(5, *(len(h) for h in header))
        lines = [" " * width + " " + " ".join(f"{h:>{cell}}" for h in header)]
        for card, name in enumerate(self._model.names):
            cells = [
                "X" if s == 1 else "-" if s == 0 else f"{100 * p:.0f}%"
                for s, p in zip(sheet[card], probabilities[card], strict=True)
            ]
            lines.append(f"{name:<{width}} " + " ".join(f"{c:>{cell}}" for c in cells))
        return "\n".join(lines)

    def sample(self, n: int, rng: np.random.Generator | int | None = None, method: str = "auto") -> np.ndarray:
        """``n`` uniform consistent deals: ``(n, cards)`` array of each card's place (case file = ``players``).

        Exact through the counts when they fit the budget, else by rejection, or from a swap chain (nearly
        uniform) when rejection accepts too few. ``n`` is at most :data:`MAX_DEAL_ENTRIES` card places.
        """
        n = self._check_deals("n", n, low=0)
        self._check_method(method)
        rng = np.random.default_rng(rng)
        deals = np.tile(np.argmax(self._fixed_probabilities(), axis=1), (n, 1))
        if n == 0:
            return deals
        solution = None if method == "sample" else self._exact(method)
        if solution is not None:
            counts, cards = solution._counts, list(solution._cards)
            if counts is None or n == 0:
                return deals
            masks = counts.draw(rng, n)
            for i, place in enumerate(counts.problem.places):
                for b, card in enumerate(cards):
                    deals[(masks[:, i] >> b) & 1 == 1, card] = place
            return deals
        problem, cards, drawn = self._sampled_deals(n, None, rng, every=True)
        deals[:, cards] = np.array(problem.places, dtype=np.int64)[drawn.places[:n]]
        return deals

    def answer_distribution(
        self,
        cards: Iterable[Card],
        asked: Sequence[int],
        see_card: bool = True,
        method: str = "auto",
        *,
        samples: int = 20_000,
        rng: np.random.Generator | int | None = 0,
    ) -> dict[tuple[int | None, int | None], float]:
        """Who would refute a suggestion of ``cards``, asking ``asked`` in order, and with which card.

        A refuter shows each of its matching cards with equal probability.
        Returns ``{(refuter, card id): probability}`` with ``(None, None)``
        for nobody refuting; with ``see_card=False`` (the suggestion of another
        player, whose card I would not see) the card is always ``None``. When
        sampled, it is estimated from ``samples`` deals drawn with ``rng``.
        """
        query = self._mask(cards, "a suggestion")
        asked = [self._player(p) for p in asked]
        if len(set(asked)) != len(asked):
            raise ValueError(f"asked names a player twice: {asked}")
        outcomes: dict[tuple[int | None, int | None], float] = {}

        def add(player, card, p):
            key = (player, None if card is None or not see_card else int(card))
            if p > 0:
                outcomes[key] = outcomes.get(key, 0.0) + float(p)

        self._check_method(method)
        weights = None
        free: list[int] = []  # the free cards' deck ids, with exact weights
        if method != "sample" and self._exact(method) is not None:
            problem, free = _free_problem(self._model, self._facts, first=asked)
            position = {card: b for b, card in enumerate(free)}
            queries = []
            for player in asked:
                required = query & self._facts.required[player]
                queries.append((sum(1 << position[c] for c in mask_bits(query) if c in position), required.bit_count()))
            try:  # the bitmask programme, which may be over budget where counting by types was not
                weights = answer_weights(problem, len(asked), queries, self.work_limit)
            except WorkLimitExceeded as error:
                if method == "exact":
                    raise ValueError(
                        f"exact answers are over budget ({error}); raise work_limit or use method='sample'"
                    ) from None
        if weights is not None:
            shown, nobody, total = weights
            for player, row in zip(asked, shown, strict=True):
                for b in np.flatnonzero(row[:-1]):
                    add(player, free[b], row[b] / total)
                known = mask_bits(query & self._facts.required[player])
                for card in known:
                    add(player, card, row[-1] / len(known) / total)
            add(None, None, nobody / total)
            return outcomes
        deals = self.sample(self._check_deals("samples", samples, low=1), rng, method="sample")
        query_cards = np.array(mask_bits(query))
        where = deals[:, query_cards]
        pending = np.ones(deals.shape[0], dtype=bool)
        for player in asked:
            holds = (where == player) & pending[:, None]
            matching = holds.sum(axis=1)
            for k, card in enumerate(query_cards):
                add(player, int(card), float(np.sum(holds[:, k] / np.maximum(matching, 1))) / deals.shape[0])
            pending &= matching == 0
        add(None, None, float(pending.mean()))
        return outcomes
