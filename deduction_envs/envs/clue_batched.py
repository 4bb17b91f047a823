"""What every seat of N batched Clue games knows, and the observation of the seat to act (issue 61, second piece).

:class:`BatchedClueSeats` keeps, for every game of a :class:`~deduction_envs.games.clue_batched.BatchedClueRules`
and every seat, what :class:`~deduction_envs.reasoning.clue_player.CluePlayerKnowledge` keeps: the facts each
event proves for the seat (``ClueRules.event_facts``: its hand, the passes, a refuter holding one of three cards,
a card shown to it, an accusation's verdict) as int64 masks per place and a table of open clauses, propagated by
the one compiled kernel of the unit rules (``clue_facts.propagate_masks``, whose fixed point does not depend on
the order facts arrive in), and the public record (suggested, passed, refuted; and what the seat has shown).
:meth:`~BatchedClueSeats.observe` writes the observation of each game's seat to act as ``clue_v0`` does
(:class:`~deduction_envs.envs.clue.ClueObserver`), tested equal to it; on the board (games of
:class:`~deduction_envs.games.clue_board_batched.BatchedClueBoardRules`), with the board's pieces. With
``probabilities=True`` (the AEC env's default; the twin's is False) the exact sheet, the probability pieces and the
entropy are counted for every observed seat in one compiled call
(:func:`~deduction_envs.reasoning.clue_sweep.count_seat`, from the seat's masks, kept until its facts change):
exact, so equal to the AEC env's where the AEC env counts exactly, and exact too in most of the states where the
AEC env's engine is over its observation budget and samples (past the sweep's own budget,
:data:`~deduction_envs.reasoning.clue_sweep.SWEEP_WORK`, the twin asks the AEC seat's engine, which samples as the
AEC env does: :meth:`~BatchedClueSeats.counted`).
:meth:`~BatchedClueSeats.entropy` gives each seat's bits for the entropy-shaped reward.

    from deduction_envs.games.clue import ClueRules
    from deduction_envs.games.clue_batched import BatchedClueRules
    from deduction_envs.envs.clue_batched import BatchedClueSeats

    games = BatchedClueRules(ClueRules(4), 256)
    seats = BatchedClueSeats(games)
    seats.reset(seeds=range(256))
    observations = seats.observe()                     # (256, size) float32: each game's seat to act
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from deduction_envs.envs.batched_seats import BatchedSeats
from deduction_envs.envs.clue import ClueObserver, write_sheet
from deduction_envs.games.clue_batched import BatchedClueRules
from deduction_envs.games.clue_board_batched import BatchedClueBoardRules
from deduction_envs.reasoning.clue_facts import AT_LEAST, DEAD, NOT_ALL, Facts, facts_of, propagate_masks
from deduction_envs.reasoning.clue_sweep import CONTRADICTION, EXACT, OVER_BUDGET, SWEEP_WORK, count_seat

__all__ = ["CLAUSES", "BatchedClueSeats", "BatchedSheetSeats"]

#: The rows of open clauses each seat's table starts with (rows the propagation has settled are reused first; a
#: table whose seat holds more open clauses doubles, :meth:`BatchedSheetSeats.make_room`).
CLAUSES = 96


class BatchedSheetSeats(BatchedSeats):
    """What the batched twins of ``clue_v0`` and ``generalized_clue_v0`` share (as :class:`SheetObserver` does
    for their observers): every seat's facts as masks and a clause table, and its record. A subclass names its
    rules and observer, feeds its events and writes its observation (:meth:`_feed`, :meth:`_encode`); the
    arguments are :class:`~deduction_envs.envs.batched_seats.BatchedSeats`'."""

    observer_class: type[Any]

    def __init__(self, games: Any, max_cycles: int, illegal_action: str = "end") -> None:
        super().__init__(games, max_cycles, illegal_action)
        rules = self.games.rules
        n, players = self.games.n, rules.players
        blank = self.observer.new_knowledge(0)
        self._groups, self._full = blank._facts.model.group_table, int(blank._facts.model.full)
        self.hand = np.zeros((n, players), dtype=np.int64)
        self.required = np.zeros((n, players, players + 1), dtype=np.int64)
        self.forbidden = np.zeros((n, players, players + 1), dtype=np.int64)
        self.clauses = np.full((n, players, CLAUSES, 3), DEAD, dtype=np.int64)
        self.used = np.zeros((n, players), dtype=np.int64)
        #: Whether a seat's facts have changed since they were last propagated (propagation runs when read).
        self.dirty = np.zeros((n, players), dtype=np.bool_)
        self.record = np.zeros((n, players, *blank.record.shape), dtype=np.int32)
        self._sheet_starts = self.observer._starts  # hand, held, not held, record
        self._places = np.array(self.observer._places, dtype=np.int64)  # per observer: its seats, the case file
        self._seats = np.array(self.observer._seats, dtype=np.int64)

    def make_room(self, live: np.ndarray) -> None:
        """Make sure every seat of the games ``live`` marks has a free row for the clause an event may add it:
        a full table is settled (propagated, its dead rows dropped), and where a seat's open clauses still fill
        it, every table doubles (long games of random agents leave hundreds open)."""
        if not (self.used[live] >= self.clauses.shape[2]).any():
            return
        if _make_room(live, self.clauses, self.used, self.required, self.forbidden, self._full, self._groups):
            n, players, rows, width = self.clauses.shape
            grown = np.full((n, players, 2 * rows, width), DEAD, dtype=np.int64)
            grown[:, :, :rows] = self.clauses
            self.clauses = grown

    def make_observer(self, rules: Any) -> Any:
        return self.observer_class(rules, probabilities=False, max_cycles=self.max_cycles)

    def _start(self, games: np.ndarray) -> None:
        """The seats of the games ``games``, just dealt: each knows its hand and nothing else."""
        self.dealt[games] += 1
        _start_seats(games, self.games.places, self._full, self.hand, self.required, self.forbidden, self.clauses,
                     self.used, self.record, self.dirty, self.moves)  # fmt: skip


class BatchedClueSeats(BatchedSheetSeats):
    """Every seat's knowledge of every game of ``games`` (a :class:`BatchedClueRules`), fed by :meth:`step`, and
    its observation as ``clue_v0`` gives it; see the module docstring and :class:`BatchedSheetSeats` for the
    arguments (``max_cycles`` as ``clue_v0``'s, 1,000), and ``probabilities``: the counted pieces too."""

    rules_class = BatchedClueRules
    observer_class = ClueObserver
    has_probabilities = True
    has_entropy = True
    #: The probability pieces and the entropy are counted compiled across the batch (the AEC seat's engine only
    #: past the sweep's budget, :data:`~deduction_envs.reasoning.clue_sweep.SWEEP_WORK`).
    compiled_probabilities = True

    def __init__(self, games: BatchedClueRules, max_cycles: int = 1000, illegal_action: str = "end",
                 probabilities: bool = False) -> None:  # fmt: skip
        if not isinstance(probabilities, bool):
            raise ValueError(f"probabilities must be True or False, got {probabilities!r}")
        super().__init__(games, max_cycles, illegal_action)
        self.probabilities = probabilities
        blank = self.observer.new_knowledge(0)  # the AEC seat's engine and its number of deals when it samples
        self._engine, self._samples = blank.engine, blank.samples
        #: Per (game, seat): the facts last counted and what counting gave (the exact sheet and the solution).
        self._counted: dict[tuple[int, int], tuple[Facts, np.ndarray, Any]] = {}
        self._table = blank.engine._model.sweep_table[:3]  # the sweep's sizes, category masks and case counts
        n, players, cards = games.n, games.rules.players, games.rules.cards
        #: What counting gave each seat, kept while ``_fresh``: each card's probability at each place, the sheet
        #: (1 held, 0 not, -1 unknown) and the case file's entropy in bits.
        self._probabilities = np.zeros((n, players, cards, players + 1))
        self._sheet = np.zeros((n, players, cards, players + 1), dtype=np.int8)
        self._entropy = np.zeros((n, players))
        self._fresh = np.zeros((n, players), dtype=np.bool_)
        #: Whether each seat's last count was the compiled sweep's (exact) rather than the AEC seat's engine's.
        self.swept = np.zeros((n, players), dtype=np.bool_)
        self._status = np.zeros(n, dtype=np.int64)  # the sweep's answer for each game's seat counted last
        self._no_vectors = np.zeros((n, 1), dtype=np.float32)  # where a count writes no observation
        slots = self.observer.pieces.slices
        self._counted_starts = np.array([slots[name].start for name in ("held", "not_held", "probabilities",
                                                                         "entropy")], dtype=np.int64)  # fmt: skip
        self._starts = np.array([slots[name].start for name in ("suggestion", "asker", "refuter", "phase", "turn",
                                                                 "in")], dtype=np.int64)  # fmt: skip
        #: Whether the games are on the board (a :class:`BatchedClueBoardRules`): the observation's board pieces.
        self.board = isinstance(games, BatchedClueBoardRules)
        if self.board:
            names = ("tokens", "weapons", "stage", "roll", "reachable", "summoned")
            self._board_starts = np.array([slots[name].start for name in names], dtype=np.int64)
            self._tokens = np.array(self.observer._tokens, dtype=np.int64)  # per observer: the suspects in order

    def _feed(self, live: np.ndarray) -> None:
        event = self.games.event
        self.make_room(live)
        if not _feed(live, event["kind"], event["player"], event["cards"], event["passed"], event["refuter"],
                     event["card"], event["correct"], self.games.turn, self.required, self.forbidden, self.clauses,
                     self.used, self.dirty, self.record, self._full, self._groups):  # fmt: skip
            raise RuntimeError("a seat's open clauses outgrew its table (make_room failed to grow it)")
        self._fresh &= ~self.dirty  # a seat whose facts changed is counted again when next asked

    def _start(self, games: np.ndarray) -> None:
        super()._start(games)
        self._fresh[games] = False
        if self._counted:  # a game dealt anew: its seats' counts are gone
            for g in np.asarray(games).ravel().tolist():
                for s in range(self.games.rules.players):
                    self._counted.pop((g, s), None)

    def counted(self, game: int, seat: int) -> tuple[np.ndarray, Any]:
        """What counting the deals gives seat ``seat`` of game ``game``: its exact sheet (``(cards, places)``, 1
        held, 0 not, -1 unknown) and its :class:`~deduction_envs.reasoning.clue_knowledge.ClueSolution`, as the AEC
        env's seat has them (``knowledge.sheet()``, ``knowledge.solution()``: the same engine, from the same facts,
        sampling the same number of deals from the same seed where exact counting is over budget); kept until the
        seat's facts change."""
        g, s = int(game), int(seat)
        if not settled(g, s, self.required, self.forbidden, self.clauses, self.dirty, self._full, self._groups):
            raise RuntimeError("a seat's facts contradict: the batched game is inconsistent")
        facts = facts_of(self.required[g, s], self.forbidden[g, s], self.clauses[g, s])
        kept = self._counted.get((g, s))
        if kept is None or kept[0] != facts:
            engine = self._engine.with_facts(facts)
            # The AEC seat seeds its sampling with the events it has seen: the deal and one a move.
            solution = engine.solve("auto", samples=self._samples, rng=1 + int(self.moves[g]))
            kept = self._counted[g, s] = (facts, engine.deduction_sheet(solution=solution), solution)
        return kept[1], kept[2]

    def count(self, games: np.ndarray, seats: np.ndarray) -> None:
        """Count the deals of seat ``seats[g]`` of every game ``games`` marks, where its facts changed since its
        last count: each card's probability at each place, the exact sheet and the case file's entropy, as the AEC
        env's seat has them (``knowledge.solution()``, ``knowledge.sheet()``); what the compiled agents that
        count (:mod:`agents.clue_batched`) read, kept for the observations (and the other way round)."""
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), (self.games.n,))
        self._count(np.asarray(games, dtype=np.bool_), seats)

    def entropy(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Bits of the case file's distribution each seat ``seats[g]`` of the games ``games`` marks has still to
        find out, as the AEC env's ``entropy(agent)`` (zeros elsewhere)."""
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), games.shape)
        self._count(games, seats)
        return np.where(games, self._entropy[np.arange(games.size), seats], 0.0)

    def _count(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None) -> None:
        """Count the deals of seat ``seats[g]`` of every game ``games`` marks whose count is not kept: compiled, and
        the seats past the sweep's budget by the AEC seat's engine (:meth:`counted`); with ``out``, the observations
        to write the counted pieces into (in the same compiled call)."""
        sizes, categories, case_counts = self._table
        vectors = self._no_vectors if out is None else out
        left = _count_seats(games, seats, self.required, self.forbidden, self.clauses, self.dirty, self._full,
                            self._groups, sizes, categories, case_counts, SWEEP_WORK, self._fresh,
                            self._probabilities, self._sheet, self._entropy, self.swept, self._status, self._places,
                            self._counted_starts, self.observer._max_entropy, out is not None, vectors)  # fmt: skip
        self._count_the_rest(left, seats, out)

    def _count_the_rest(self, left: int, seats: np.ndarray, out: np.ndarray | None) -> None:
        """After the compiled count (``left``: the games it could not count, -1 if a seat's facts contradict):
        the seats past the sweep's budget, by the AEC seat's engine, written into ``out`` if given."""
        if left < 0:
            raise RuntimeError("a seat's facts contradict: the batched game is inconsistent")
        if left == 0:
            return
        status = self._status
        if np.any(status == CONTRADICTION):
            raise RuntimeError("a seat's facts admit no deal: the batched game is inconsistent")
        past = status == OVER_BUDGET
        for g in np.flatnonzero(past):
            s = int(seats[g])
            sheet, solution = self.counted(int(g), s)
            self._probabilities[g, s], self._sheet[g, s], self._entropy[g, s] = (solution.probabilities, sheet,
                                                                                 solution.entropy)  # fmt: skip
            self._fresh[g, s] = True
        if out is not None:
            _write_counted(past, seats, self._probabilities, self._sheet, self._entropy, self._places,
                           self._counted_starts, self.observer._max_entropy, out)  # fmt: skip

    def _encode(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> bool:
        batch = self.games
        if self.probabilities:  # one compiled call observes and counts (each call's arguments cost microseconds)
            sizes, categories, case_counts = self._table
            left = _observe_counted(games, seats, batch.turn, batch.phase, batch.refuter, batch.suggestion,
                                    batch.out, self.hand, self.required, self.forbidden, self.clauses, self.dirty,
                                    self.record, self._full, self._groups, self._sheet_starts, self._places,
                                    self._seats, self._starts, out, sizes, categories, case_counts, SWEEP_WORK,
                                    self._fresh, self._probabilities, self._sheet, self._entropy, self.swept,
                                    self._status, self._counted_starts, self.observer._max_entropy)  # fmt: skip
            if left == -2:
                return False
            self._count_the_rest(left, seats, out)
        elif not _observe(games, seats, batch.turn, batch.phase, batch.refuter, batch.suggestion, batch.out,
                          self.hand, self.required, self.forbidden, self.clauses, self.dirty, self.record,
                          self._full, self._groups, self._sheet_starts, self._places, self._seats, self._starts,
                          out):  # fmt: skip
            return False
        if self.board:
            board = batch.rules.board
            _observe_board(games, seats, batch.positions, batch.weapons, batch.roll, batch.moved, batch.summoned,
                           batch.reachable(), self._tokens, self._seats, self._board_starts, board.nodes, board.rooms,
                           out)  # fmt: skip
        return True


@njit(cache=True)
def _count_seats(games, seats, required, forbidden, clauses, dirty, full, groups, sizes, categories, case_counts,
                 budget, fresh, probabilities, sheet, entropy, swept, status, places, starts, max_entropy, write,
                 vectors):  # pragma: no cover - compiled  # fmt: skip
    """Count seat ``seats[g]`` of each game ``games`` marks whose count is not ``fresh``: its probabilities, exact
    sheet and entropy (``swept``); with ``write``, write them into the game's observation in ``vectors``
    (:func:`_write_counted`). ``status[g]`` says where the sweep was over its budget or found no deal (nothing
    written); returns how many such games are left to count another way, -1 if a seat's facts contradict."""
    left = 0
    for g in range(games.size):
        status[g] = EXACT
        if not games[g]:
            continue
        s = seats[g]
        if fresh[g, s]:
            if write:
                _write_seat(g, s, probabilities, sheet, entropy, places, starts, max_entropy, vectors)
            continue
        if not settled(g, s, required, forbidden, clauses, dirty, full, groups):
            return -1
        code, _, bits = count_seat(required[g, s], forbidden[g, s], clauses[g, s], sizes, categories, case_counts,
                                   full, budget, probabilities[g, s])  # fmt: skip
        status[g] = code
        swept[g, s] = code == EXACT
        if code != EXACT:
            left += 1
            continue
        entropy[g, s] = bits
        table = probabilities[g, s]
        for card in range(table.shape[0]):
            for place in range(table.shape[1]):
                p = table[card, place]
                sheet[g, s, card, place] = 1 if p == 1.0 else (0 if p == 0.0 else -1)
        fresh[g, s] = True
        if write:
            _write_seat(g, s, probabilities, sheet, entropy, places, starts, max_entropy, vectors)
    return left


@njit(cache=True)
def _observe_counted(live, mover, turn, phase, refuter, suggestion, out, hand, required, forbidden, clauses, dirty,
                     record, full, groups, sheet_starts, places, seats, starts, vectors, sizes, categories,
                     case_counts, budget, fresh, probabilities, sheet, entropy, swept, status, counted_starts,
                     max_entropy):  # pragma: no cover - compiled  # fmt: skip
    """:func:`_observe` then :func:`_count_seats` writing the counted pieces, in one call: -2 if a seat's facts
    contradict, else what :func:`_count_seats` returns."""
    if not _observe(live, mover, turn, phase, refuter, suggestion, out, hand, required, forbidden, clauses, dirty,
                    record, full, groups, sheet_starts, places, seats, starts, vectors):  # fmt: skip
        return -2
    return _count_seats(live, mover, required, forbidden, clauses, dirty, full, groups, sizes, categories,
                        case_counts, budget, fresh, probabilities, sheet, entropy, swept, status, places,
                        counted_starts, max_entropy, True, vectors)  # fmt: skip


@njit(cache=True)
def _write_counted(games, seats, probabilities, sheet, entropy, places, starts, max_entropy, vectors):
    # pragma: no cover - compiled
    """What counting gave each observed seat, written as ``SheetObserver.write_counted`` writes it: held, not held
    and the probabilities by card then place (the seat's turn order, the case file last), the entropy scaled."""
    for g in range(games.size):
        if games[g]:
            _write_seat(g, seats[g], probabilities, sheet, entropy, places, starts, max_entropy, vectors)


@njit(cache=True)
def _write_seat(g, s, probabilities, sheet, entropy, places, starts, max_entropy, vectors):
    # pragma: no cover - compiled
    """:func:`_write_counted` for seat ``s`` of game ``g``."""
    held, lacked, shares, bits = starts[0], starts[1], starts[2], starts[3]
    order = places[s]
    vector = vectors[g]
    width = order.size
    for card in range(probabilities.shape[2]):
        for i in range(width):
            place = order[i]
            at = card * width + i
            vector[held + at] = 1.0 if sheet[g, s, card, place] == 1 else 0.0
            vector[lacked + at] = 1.0 if sheet[g, s, card, place] == 0 else 0.0
            vector[shares + at] = probabilities[g, s, card, place]
    vector[bits] = entropy[g, s] / max_entropy


@njit(cache=True)
def _start_seats(games, places, full, hand, required, forbidden, clauses, used, record, dirty,
                 moves):  # pragma: no cover - compiled  # fmt: skip
    """Every seat of the games ``games`` (indices) knows its hand and nothing else; no move played."""
    players = hand.shape[1]
    for g in games:
        required[g, :, :] = 0
        forbidden[g, :, :] = 0
        clauses[g, :, :, 2] = DEAD
        used[g, :] = 0
        record[g] = 0
        dirty[g, :] = True
        moves[g] = 0
        for s in range(players):
            hand[g, s] = 0
        for c in range(places.shape[1]):
            if places[g, c] < players:
                hand[g, places[g, c]] |= np.int64(1) << c
        for s in range(players):
            required[g, s, s] = hand[g, s]
            forbidden[g, s, s] = full & ~hand[g, s]


@njit(cache=True)
def add_clause(clauses, used, g, s, place, mask, kind, required, forbidden, full, groups):  # pragma: no cover
    """Append a clause to seat ``s`` of game ``g``; when its table is full, settle it (propagate, drop the dead
    rows) first. False if it is still full."""
    if used[g, s] == clauses.shape[2] and _compact(g, s, clauses, used, required, forbidden, full, groups):
        return False
    clauses[g, s, used[g, s], 0] = place
    clauses[g, s, used[g, s], 1] = mask
    clauses[g, s, used[g, s], 2] = kind
    used[g, s] += 1
    return True


@njit(cache=True)
def _compact(g, s, clauses, used, required, forbidden, full, groups):  # pragma: no cover - compiled
    """Seat ``s`` of game ``g``'s clause table settled (propagated) and its dead rows dropped; True if its open
    clauses still fill it."""
    propagate_masks(required[g, s], forbidden[g, s], full, groups, clauses[g, s])
    live = 0
    for row in range(clauses.shape[2]):
        if clauses[g, s, row, 2] != DEAD:
            clauses[g, s, live, :] = clauses[g, s, row, :]
            live += 1
    for row in range(live, clauses.shape[2]):
        clauses[g, s, row, 2] = DEAD
    used[g, s] = live
    return live == clauses.shape[2]


@njit(cache=True)
def _make_room(live, clauses, used, required, forbidden, full, groups):  # pragma: no cover - compiled
    """Every full table of a seat of a live game settled (:func:`_compact`); True if one is still full."""
    full_yet = False
    for g in range(live.size):
        if live[g]:
            for s in range(used.shape[1]):
                if used[g, s] == clauses.shape[2] and _compact(g, s, clauses, used, required, forbidden, full,
                                                               groups):  # fmt: skip
                    full_yet = True
    return full_yet


@njit(cache=True)
def _feed(live, kind, player, cards, passed, refuter, card, correct, turn, required, forbidden, clauses, used,
          dirty, record, full, groups):  # pragma: no cover - compiled  # fmt: skip
    """Every seat of every game that moved takes the facts its event proves (``ClueRules.event_facts``) and the
    record's counts (``CluePlayerKnowledge.update``)."""
    players = required.shape[1]
    case_file = players
    for g in range(live.size):
        if not live[g]:
            continue
        named = 0
        for k in range(3):
            if cards[g, k] >= 0:
                named |= np.int64(1) << cards[g, k]
        # A fact the seat's facts already imply (a subset of what propagation will prove) changes nothing: it is
        # not added and the seat stays settled, which spares most propagations late in a game.
        if kind[g] == 1:  # a suggestion: the passes, and a refuter holding one of the cards
            for s in range(players):
                for q in range(players):
                    if passed[g] >> q & 1:
                        if q != s and forbidden[g, s, q] & named != named:
                            forbidden[g, s, q] |= named
                            dirty[g, s] = True
                        for k in range(3):
                            record[g, s, 2, q, cards[g, k]] += 1
                for k in range(3):
                    record[g, s, 1, player[g], cards[g, k]] += 1
                if refuter[g] >= 0:
                    for k in range(3):
                        record[g, s, 3, refuter[g], cards[g, k]] += 1
                    if s != player[g] and s != refuter[g] and required[g, s, refuter[g]] & named == 0:
                        dirty[g, s] = True
                        if not add_clause(clauses, used, g, s, refuter[g], named, AT_LEAST, required, forbidden,
                                           full, groups):  # fmt: skip
                            return False
        elif kind[g] == 2:  # a card shown: the asker (whose turn it is) learns the refuter holds it
            asker, bit = turn[g], np.int64(1) << card[g]
            if required[g, asker, refuter[g]] & bit == 0:
                required[g, asker, refuter[g]] |= bit
                dirty[g, asker] = True
            record[g, refuter[g], 0, asker, card[g]] = 1
        elif kind[g] == 3:  # an accusation: the case file is, or is not, the three cards
            for s in range(players):
                if correct[g]:
                    if required[g, s, case_file] & named != named:
                        required[g, s, case_file] |= named
                        dirty[g, s] = True
                elif forbidden[g, s, case_file] & named == 0:  # not yet known to be wrong
                    dirty[g, s] = True
                    if not add_clause(clauses, used, g, s, case_file, named, NOT_ALL, required, forbidden, full,
                                       groups):  # fmt: skip
                        return False
    return True


@njit(cache=True)
def settled(g, s, required, forbidden, clauses, dirty, full, groups):  # pragma: no cover - compiled
    """Seat ``s`` of game ``g`` with its facts propagated (if they changed since); False if they contradict."""
    if dirty[g, s]:
        if not propagate_masks(required[g, s], forbidden[g, s], full, groups, clauses[g, s]):
            return False
        dirty[g, s] = False
    return True


@njit(cache=True)
def _observe(live, mover, turn, phase, refuter, suggestion, out, hand, required, forbidden, clauses, dirty, record,
             full, groups, sheet_starts, places, seats, starts, vectors):  # pragma: no cover - compiled  # fmt: skip
    """The observation of seat ``mover[g]`` of each live game, written as ``ClueObserver.encode`` writes it."""
    players = record.shape[1]
    for g in range(live.size):
        if not live[g]:
            continue
        s = mover[g]
        if not settled(g, s, required, forbidden, clauses, dirty, full, groups):
            return False
        vector = vectors[g]
        write_sheet(vector, sheet_starts, hand[g, s], required[g, s], forbidden[g, s], places[s], record[g, s],
                     seats[s])  # fmt: skip
        if phase[g] == 1:  # a card to show: the suggestion, its asker and refuter
            for k in range(3):
                vector[starts[0] + suggestion[g, k]] = 1
            vector[starts[1] + (turn[g] - s) % players] = 1
            vector[starts[2] + (refuter[g] - s) % players] = 1
        vector[starts[3] + phase[g]] = 1
        vector[starts[4] + (turn[g] - s) % players] = 1
        for i in range(players):
            if not out[g, (s + i) % players]:
                vector[starts[5] + i] = 1
    return True


@njit(cache=True)
def _observe_board(live, seat, positions, weapons, roll, moved, summoned, reachable, tokens, seats, starts, nodes,
                   rooms, vectors):  # pragma: no cover - compiled  # fmt: skip
    """The board's pieces of the observation of seat ``seat[g]`` of each live game, as
    ``ClueObserver._encode_board`` writes them (``reachable``: the mover's, where it has rolled and not moved)."""
    for g in range(live.size):
        if not live[g]:
            continue
        s, vector = seat[g], vectors[g]
        for row in range(tokens.shape[1]):
            vector[starts[0] + row * nodes + positions[g, tokens[s, row]]] = 1
        for w in range(weapons.shape[1]):
            vector[starts[1] + w * rooms + weapons[g, w]] = 1
        rolled = roll[g] > 0 and not moved[g]
        vector[starts[2] + (2 if moved[g] else 1 if rolled else 0)] = 1
        vector[starts[3]] = roll[g] / 12
        for node in range(nodes):
            if reachable[g, node]:
                vector[starts[4] + node] = 1
        for i in range(seats.shape[1]):
            if summoned[g, seats[s, i]]:
                vector[starts[5] + i] = 1
