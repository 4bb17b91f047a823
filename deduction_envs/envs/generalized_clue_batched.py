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

    from deduction_envs.games.generalized_clue import GeneralizedClueRules
    from deduction_envs.games.generalized_clue_batched import BatchedGeneralizedClueRules
    from deduction_envs.envs.generalized_clue_batched import BatchedGeneralizedClueSeats

    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(GeneralizedClueRules(14, 2, 3), 256))
    seats.reset(seeds=range(256))
    observations = seats.observe()                     # (256, size) float32: each game's seat to act
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deduction_envs.envs.clue import _write_sheet
from deduction_envs.envs.clue_batched import CLAUSES, BatchedSheetSeats, _add_clause, _settled
from deduction_envs.envs.generalized_clue import GeneralizedClueObserver
from deduction_envs.games.generalized_clue import GeneralizedCluePhase
from deduction_envs.games.generalized_clue_batched import BatchedGeneralizedClueRules
from deduction_envs.reasoning.clue_facts import AT_LEAST

__all__ = ["BatchedGeneralizedClueSeats"]

_START, _ASKING, _GUESSING, _SHOW, _OVER = (int(p) for p in GeneralizedCluePhase)
_PIECES = ("chosen", "target", "request", "asker", "phase", "turn", "in", "rounds", "seat")


class BatchedGeneralizedClueSeats(BatchedSheetSeats):
    """Every seat's knowledge of every game of ``games`` (a :class:`BatchedGeneralizedClueRules`), fed by
    :meth:`step`; see the module docstring and :class:`~deduction_envs.envs.clue_batched.BatchedSheetSeats` for
    the arguments (``max_cycles`` as ``generalized_clue_v0``'s, 5,000)."""

    rules_class = BatchedGeneralizedClueRules
    observer_class = GeneralizedClueObserver

    def __init__(self, games: BatchedGeneralizedClueRules, max_cycles: int = 5000, illegal_action: str = "end") -> None:
        super().__init__(games, max_cycles, illegal_action)
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

    def _feed(self, live: np.ndarray) -> None:
        event = self.games.event
        _log(live, event["kind"], event["player"], event["target"], event["cards"], event["card"],
             event["answered"], event["hand"], self.asks, self.ask_count, self.shown_to, self.revealed)  # fmt: skip
        if not _feed(live, event["kind"], event["player"], event["target"], event["cards"], event["card"],
                     event["answered"], event["hand"], self.required, self.forbidden, self.clauses, self.used,
                     self.dirty, self.record, self._full, self._groups):  # fmt: skip
            raise RuntimeError(f"a seat's open clauses outgrew {CLAUSES} rows (raise CLAUSES)")

    def _encode(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> bool:
        batch = self.games
        return _observe(games, seats, batch.turn, batch.phase, batch.target, batch.chosen, batch.asked,
                        batch.turns, batch.out, float(batch.rules.rounds), self.hand, self.required,
                        self.forbidden, self.clauses, self.dirty, self.record, self._full, self._groups,
                        self._sheet_starts, self._places, self._seats, self._starts, out)  # fmt: skip


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
                    if not _add_clause(clauses, used, g, s, q, cards[g], AT_LEAST, required, forbidden, full, groups):
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
        if not _settled(g, s, required, forbidden, clauses, dirty, full, groups):
            return False
        vector = vectors[g]
        _write_sheet(vector, sheet_starts, hand[g, s], required[g, s], forbidden[g, s], places[s], record[g, s],
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
