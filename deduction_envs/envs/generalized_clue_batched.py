"""What every seat of N batched Generalized Clue games knows, and any seat's observation (issue 61).

The batched twin of ``generalized_clue_v0`` with ``probabilities=False``, as
:class:`~deduction_envs.envs.clue_batched.BatchedClueSeats` is Clue's: for every game of a
:class:`~deduction_envs.games.generalized_clue_batched.BatchedGeneralizedClueRules` and every seat, what
:class:`~deduction_envs.reasoning.generalized_clue_player.GeneralizedCluePlayerKnowledge` keeps: the facts each
event proves for the seat (``GeneralizedClueRules.event_facts``: its hand, an ask answered "no", an ask answered
"yes" as an at-least clause for the seats that neither asked nor answered, a card shown to the asker, a guesser's
public hand), propagated by the one compiled kernel of the unit rules, and the record (asked, yes, no; what the
seat has shown). :meth:`~BatchedGeneralizedClueSeats.observe` writes a seat's observation as
:class:`~deduction_envs.envs.generalized_clue.GeneralizedClueObserver` does, the seat's own view of the public
position included (another seat's list being built shows as the start of a turn), tested equal to it.

With ``probabilities=True`` (the AEC env's default; the twin's is False) the observation has the probability
pieces too, and :meth:`~BatchedGeneralizedClueSeats.entropy` gives a seat's case-file entropy in bits (the AEC
env's ``entropy(agent)``, what the entropy-shaped reward reads): both from every deal consistent with its facts,
enumerated in a compiled loop (:func:`_count_deals`), as exact as the AEC env's counting (tested equal to it).
The enumeration is for games whose deals from a seat's first view number at most :data:`DEAL_LIMIT` (the 12-
and 14-card games of three players: 1,260 and 3,150 deals); larger games refuse ``probabilities=True``.

    from deduction_envs.games.generalized_clue import GeneralizedClueRules
    from deduction_envs.games.generalized_clue_batched import BatchedGeneralizedClueRules
    from deduction_envs.envs.generalized_clue_batched import BatchedGeneralizedClueSeats

    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(GeneralizedClueRules(14, 2, 3), 256))
    seats.reset(seeds=range(256))
    observations = seats.observe()                     # (256, size) float32: each game's seat to act
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from deduction_envs.core.entropy import entropy_bits
from deduction_envs.envs.clue import write_sheet
from deduction_envs.envs.clue_batched import BatchedSheetSeats, add_clause, settled
from deduction_envs.envs.generalized_clue import MAX_CYCLES, OBSERVATION_WORK, GeneralizedClueObserver, max_actions
from deduction_envs.games.generalized_clue import GeneralizedCluePhase
from deduction_envs.games.generalized_clue_batched import BatchedGeneralizedClueRules
from deduction_envs.reasoning.clue_counting import popcount
from deduction_envs.reasoning.clue_facts import AT_LEAST, DEAD

__all__ = ["DEAL_LIMIT", "BatchedGeneralizedClueSeats"]

#: The consistent deals a seat's first view may have for the enumeration of ``probabilities=True`` (the AEC
#: env's observation counts exactly up to the same budget).
DEAL_LIMIT = int(OBSERVATION_WORK)

_START, _ASKING, _GUESSING, _SHOW, _OVER = (int(p) for p in GeneralizedCluePhase)
_PIECES = ("chosen", "target", "request", "asker", "phase", "turn", "in", "rounds", "seat")


class BatchedGeneralizedClueSeats(BatchedSheetSeats):
    """Every seat's knowledge of every game of ``games`` (a :class:`BatchedGeneralizedClueRules`), fed by
    :meth:`step`; see the module docstring and :class:`~deduction_envs.envs.clue_batched.BatchedSheetSeats` for
    the arguments (``max_cycles`` as ``generalized_clue_v0``'s: 5,000, or the most actions a game may take where
    that is more, :func:`~deduction_envs.envs.generalized_clue.max_actions`)."""

    rules_class = BatchedGeneralizedClueRules
    observer_class = GeneralizedClueObserver
    has_probabilities = True
    has_entropy = True

    def __init__(
        self,
        games: BatchedGeneralizedClueRules,
        max_cycles: int | None = None,
        illegal_action: str = "end",
        probabilities: bool = False,
    ) -> None:
        if not isinstance(probabilities, bool):
            raise ValueError(f"probabilities must be True or False, got {probabilities!r}")
        if max_cycles is None:
            max_cycles = max(MAX_CYCLES, max_actions(games.rules))
        super().__init__(games, max_cycles, illegal_action)
        self.probabilities = probabilities
        rules = games.rules
        self._binomials = np.array([[math.comb(c, k) for k in range(rules.hidden + 1)] for c in range(rules.cards + 1)],
                                   dtype=np.int64)  # fmt: skip
        self._case_files = math.comb(rules.cards, rules.hidden)
        self._sizes = np.array([*rules.hand_sizes, rules.hidden], dtype=np.int64)  # the cards each place holds
        #: The most deals a seat's view has had: its first view's (every seat's, at the start; the facts only cut it).
        self.deal_bound = self._first_view_deals()
        # What :meth:`solve` found for each seat of each game, kept until an event tells the seat something (a
        # list being built tells nobody anything: its steps reuse the count).
        self._stale = np.ones((games.n, rules.players), dtype=np.bool_)
        self._counted = np.zeros((games.n, rules.players, rules.cards, rules.players + 1))
        self._case_counts = np.zeros((games.n, rules.players, self._case_files), dtype=np.int64)
        if probabilities and self.deal_bound > DEAL_LIMIT:
            raise ValueError(f"probabilities=True enumerates the deals a seat may face: {self.deal_bound:,} here, "
                             f"over the {DEAL_LIMIT:,} the batched twin counts (the AEC env samples them); give "
                             "probabilities=False")  # fmt: skip
        slots = self.observer.pieces.slices
        self._starts = np.array([slots[name].start for name in _PIECES], dtype=np.int64)
        rules, n = games.rules, games.n
        # The history as the Python seats keep it (their events), for agents that reason from it rather than
        # from the facts: every ask (public: asker, target, the list as bits, answered), the cards shown to each
        # seat (private to it: [game, seat, by whom] as bits) and each guesser's hand (public once it is out).
        self.asks = np.zeros((n, rules.rounds * rules.players, 4), dtype=np.int64)
        self.ask_count = np.zeros(n, dtype=np.int64)
        self.shown_to = np.zeros((n, rules.players, rules.players), dtype=np.int64)
        self.revealed = np.zeros((n, rules.players), dtype=np.int64)

    def _start(self, games: np.ndarray) -> None:
        super()._start(games)
        self.ask_count[games], self.shown_to[games], self.revealed[games] = 0, 0, 0
        self._stale[games] = True

    def _feed(self, live: np.ndarray) -> None:
        event = self.games.event
        self._stale[live & (event["kind"] >= 2)] = True  # an ask, a card shown, a guess: facts for some seat
        _log(live, event["kind"], event["player"], event["target"], event["cards"], event["card"],
             event["answered"], event["hand"], self.asks, self.ask_count, self.shown_to, self.revealed)  # fmt: skip
        self.make_room(live)
        if not _feed(live, event["kind"], event["player"], event["target"], event["cards"], event["card"],
                     event["answered"], event["hand"], self.required, self.forbidden, self.clauses, self.used,
                     self.dirty, self.record, self._full, self._groups):  # fmt: skip
            raise RuntimeError("a seat's open clauses outgrew its table (make_room failed to grow it)")

    def _encode(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> bool:
        batch = self.games
        if not _observe(games, seats, batch.turn, batch.phase, batch.target, batch.chosen, batch.asked,
                        batch.turns, batch.out, float(batch.rules.rounds), self.hand, self.required,
                        self.forbidden, self.clauses, self.dirty, self.record, self._full, self._groups,
                        self._sheet_starts, self._places, self._seats, self._starts, out):  # fmt: skip
            return False
        if self.probabilities:  # the exact sheet, the probabilities and the entropy, as the AEC env's counting
            probabilities, cases = self.solve(games, seats)
            slots, places = self.observer.pieces.slices, self._places[seats]  # per game: its observer's places
            ordered = np.take_along_axis(probabilities, places[:, None, :], axis=2)[games]
            rows = out[games]
            rows[:, slots["held"]] = (ordered == 1.0).reshape(len(rows), -1)
            rows[:, slots["not_held"]] = (ordered == 0.0).reshape(len(rows), -1)
            rows[:, slots["probabilities"]] = ordered.reshape(len(rows), -1)
            bits = entropy_bits(cases[games], axis=1, check=False)
            rows[:, slots["entropy"].start] = bits / self.observer._max_entropy
            out[games] = rows
        return True

    def solve(self, games: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """What every deal consistent with seat ``seats[i]``'s facts says, for each game ``i`` that ``games``
        marks (zeros elsewhere): ``(n, cards, players + 1)`` float64, each card's probability at each place
        (absolute seats, then the case file), and ``(n, C(cards, hidden))`` int64, the deals with each case file
        (combinations ranked colex). As the AEC env's exact counting: ``knowledge.solution()``.

        Raises:
            RuntimeError: a seat's facts contradict (the batched game and its events disagree).
        """
        games, seats = self._count(games, seats)
        rows = np.arange(self.games.n)
        probabilities = np.where(games[:, None, None], self._counted[rows, seats], 0.0)
        return probabilities, np.where(games[:, None], self._case_counts[rows, seats], 0)

    def _count(self, games: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Count the deals of seat ``seats[i]`` of each game ``games`` marks whose count an event has made stale
        (into :attr:`_counted` and :attr:`_case_counts`); returns ``games`` and ``seats`` as arrays."""
        rules, n = self.games.rules, self.games.n
        games, seats = np.asarray(games, dtype=np.bool_), np.asarray(seats, dtype=np.int64)
        rows = np.arange(n)
        need = games & self._stale[rows, seats]
        if need.any():
            counts = np.zeros((n, rules.cards, rules.players + 1), dtype=np.int64)
            cases = np.zeros((n, self._case_files), dtype=np.int64)
            totals = np.zeros(n, dtype=np.int64)
            if not _solve(need, seats, self.required, self.forbidden, self.clauses, self.dirty, self._full,
                          self._groups, self._sizes, self._binomials, DEAL_LIMIT, counts, cases, totals):  # fmt: skip
                raise RuntimeError("a seat's facts contradict, or outgrew the deal limit: the batched game and its "
                                   "events disagree")  # fmt: skip
            g, s = rows[need], seats[need]
            self._counted[g, s] = counts[need] / totals[need, None, None]
            self._case_counts[g, s] = cases[need]
            self._stale[g, s] = False
        return games, seats

    def entropy(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Bits of each seat's uncertainty about the case file (the entropy of its distribution over every deal
        consistent with the seat's facts), as the AEC env's ``entropy(agent)``; for the games ``games`` marks
        (zeros elsewhere).

        Raises:
            ValueError: the game is larger than the enumeration's :data:`DEAL_LIMIT` (see :attr:`deal_bound`).
        """
        if self.deal_bound > DEAL_LIMIT:
            raise ValueError(f"a seat's first view has {self.deal_bound:,} deals, over the {DEAL_LIMIT:,} the "
                             "batched twin enumerates: no exact entropy at these sizes")  # fmt: skip
        games, seats = self._count(games, seats)
        bits = np.zeros(self.games.n)
        if games.any():
            bits[games] = entropy_bits(self._case_counts[games, seats[games]], axis=1, check=False)
        return bits

    def _first_view_deals(self) -> int:
        """The deals consistent with a seat's hand alone, the most of any seat (its first view)."""
        rules = self.games.rules
        sizes = list(rules.hand_sizes)
        most = 0
        for seat, own in enumerate(sizes):
            others = [*sizes[:seat], *sizes[seat + 1 :], rules.hidden]
            most = max(most, math.factorial(rules.cards - own) // math.prod(map(math.factorial, others)))
        return most


@njit(cache=True)
def _log(live, kind, player, target, cards, card, answered, hand, asks, count, shown_to, revealed):  # pragma: no cover
    """The history's log: each ask, each card shown (to the asker), each guesser's hand."""
    for g in range(live.size):
        if not live[g]:
            continue
        if kind[g] == 2:
            asks[g, count[g], 0], asks[g, count[g], 1] = player[g], target[g]
            asks[g, count[g], 2], asks[g, count[g], 3] = cards[g], answered[g]
            count[g] += 1
        elif kind[g] == 3:
            shown_to[g, player[g], target[g]] |= np.int64(1) << card[g]
        elif kind[g] == 4:
            revealed[g, player[g]] = hand[g]


@njit(cache=True)
def _feed(live, kind, player, target, cards, card, answered, hand, required, forbidden, clauses, used, dirty, record,
          full, groups):  # pragma: no cover - compiled  # fmt: skip
    """Every seat of every game that moved takes the facts its event proves (``GeneralizedClueRules.event_facts``)
    and the record's counts (``GeneralizedCluePlayerKnowledge.update``)."""
    players = required.shape[1]
    for g in range(live.size):
        if not live[g]:
            continue
        if kind[g] == 2:  # an ask: counted for everyone; "no" rules the list out, "yes" is a clause for onlookers
            q = target[g]
            for s in range(players):
                for c in range(record.shape[4]):
                    if cards[g] >> c & 1:
                        record[g, s, 1, q, c] += 1
                        record[g, s, 2 if answered[g] else 3, q, c] += 1
                dirty[g, s] = True
                if not answered[g]:
                    forbidden[g, s, q] |= cards[g]
                elif s != player[g] and s != q:
                    if not add_clause(clauses, used, g, s, q, cards[g], AT_LEAST, required, forbidden, full, groups):
                        return False
        elif kind[g] == 3:  # a card shown: the asker learns the target holds it; the target, whom it showed
            asker, q = player[g], target[g]
            required[g, asker, q] |= np.int64(1) << card[g]
            dirty[g, asker] = True
            record[g, q, 0, asker, card[g]] = 1
        elif kind[g] == 4:  # a guess: the guesser's hand is public
            guesser = player[g]
            for s in range(players):
                if s != guesser:
                    required[g, s, guesser] |= hand[g]
                    forbidden[g, s, guesser] |= full & ~hand[g]
                    dirty[g, s] = True
    return True


@njit(cache=True)
def _observe(live, viewer, turn, phase, target, chosen, asked, turns, out, rounds, hand, required, forbidden,
             clauses, dirty, record, full, groups, sheet_starts, places, seats, starts,
             vectors):  # pragma: no cover - compiled  # fmt: skip
    """The observation of seat ``viewer[g]`` of each live game, written as ``GeneralizedClueObserver.encode``."""
    players, cards = record.shape[1], record.shape[4]
    for g in range(live.size):
        if not live[g]:
            continue
        s = viewer[g]
        if not settled(g, s, required, forbidden, clauses, dirty, full, groups):
            return False
        vector = vectors[g]
        write_sheet(vector, sheet_starts, hand[g, s], required[g, s], forbidden[g, s], places[s], record[g, s],
                     seats[s])  # fmt: skip
        # The public position as this seat sees it: another seat's build shows as the start of its turn.
        seen_phase, seen_target, seen_chosen = phase[g], target[g], chosen[g]
        if (phase[g] == _ASKING or phase[g] == _GUESSING) and s != turn[g]:
            seen_phase, seen_target, seen_chosen = _START, -1, 0
        for c in range(cards):
            if seen_chosen >> c & 1:
                vector[starts[0] + c] = 1
        if seen_phase == _SHOW:
            for c in range(cards):
                if asked[g] >> c & 1:
                    vector[starts[2] + c] = 1
            vector[starts[3] + (turn[g] - s) % players] = 1
        if seen_target >= 0:
            vector[starts[1] + (seen_target - s) % players] = 1
        vector[starts[4] + seen_phase] = 1
        vector[starts[5] + (turn[g] - s) % players] = 1
        for i in range(players):
            seat = (s + i) % players
            if not out[g, seat]:
                vector[starts[6] + i] = 1
            vector[starts[7] + i] = turns[g, seat] / rounds
        vector[starts[8] + s] = 1
    return True


@njit(cache=True)
def _solve(live, viewer, required, forbidden, clauses, dirty, full, groups, sizes, binomials, limit, counts, cases,
           totals):  # pragma: no cover - compiled  # fmt: skip
    """:func:`_count_deals` for seat ``viewer[g]`` of each live game, its facts propagated first; False if they
    contradict or its deals outnumber ``limit``."""
    for g in range(live.size):
        if not live[g]:
            continue
        s = viewer[g]
        if not settled(g, s, required, forbidden, clauses, dirty, full, groups):
            return False
        totals[g] = _count_deals(required[g, s], forbidden[g, s], clauses[g, s], sizes, full, binomials, limit,
                                 counts[g], cases[g])  # fmt: skip
        if totals[g] <= 0:
            return False
    return True


@njit(cache=True)
def _count_deals(required, forbidden, clauses, sizes, full, binomials, limit, counts, cases):  # pragma: no cover
    """Every deal consistent with one seat's facts, enumerated: each card not yet placed (not required anywhere)
    goes to a place that does not forbid it and has room (``sizes``: the cards each place holds), depth first; a
    complete deal that meets every live clause (``AT_LEAST``: the place holds one of the cards; ``NOT_ALL``: not
    all) counts. Adds each card's deals at each place to ``counts`` (cards x places) and each case file's (the
    last place's cards, ranked colex with ``binomials[c, k] = C(c, k)``) to ``cases``; returns the deals, 0 if
    none, -1 past ``limit``."""
    places = required.size
    case = places - 1
    placed = 0
    for p in range(places):
        placed |= required[p]
    free = full & ~placed
    m = popcount(free)
    cards = np.empty(m, dtype=np.int64)
    k = 0
    for c in range(64):
        if free >> c & 1:
            cards[k] = c
            k += 1
    room = np.empty(places, dtype=np.int64)
    left = 0
    for p in range(places):
        room[p] = sizes[p] - popcount(required[p])
        if room[p] < 0:
            return 0
        left += room[p]
    if left != m:
        return 0
    live = np.empty(clauses.shape[0], dtype=np.int64)  # the clause rows in force (most of the table is DEAD)
    n_live = 0
    for row in range(clauses.shape[0]):
        if clauses[row, 2] != DEAD:
            live[n_live] = row
            n_live += 1
    n_cards = binomials.shape[0] - 1
    held = required.copy()
    where = np.full(m, -1, dtype=np.int64)
    total = 0
    i = 0
    while i >= 0:
        if i == m:  # a whole deal (every place full, since the rooms add up to the free cards)
            ok = True
            for k in range(n_live):
                row = live[k]
                kind = clauses[row, 2]
                inside = held[clauses[row, 0]] & clauses[row, 1]
                if (kind == AT_LEAST and inside == 0) or (kind != AT_LEAST and inside == clauses[row, 1]):
                    ok = False
                    break
            if ok:
                total += 1
                if total > limit:
                    return -1
                for j in range(m):
                    counts[cards[j], where[j]] += 1
                rank, taken, mask = 0, 0, held[case]
                for c in range(n_cards):
                    if mask >> c & 1:
                        taken += 1
                        rank += binomials[c, taken]
                cases[rank] += 1
            i -= 1
            continue
        bit = np.int64(1) << cards[i]
        p = where[i]
        if p >= 0:  # take card i back from where it was
            held[p] &= ~bit
            room[p] += 1
        p += 1
        while p < places and (room[p] == 0 or forbidden[p] & bit):  # the next place that may take it
            p += 1
        if p == places:
            where[i] = -1
            i -= 1
            continue
        where[i] = p
        held[p] |= bit
        room[p] -= 1
        i += 1
    for p in range(places):  # the cards already placed are there in every deal
        for c in range(64):
            if required[p] >> c & 1:
                counts[c, p] = total
    return total
