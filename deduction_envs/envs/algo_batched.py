"""Any seat's observation of N batched Algo games (issue 61): the batched twin of ``algo_v0`` with
``probabilities=False``.

What an Algo seat knows is its view (``AlgoRules.view``: its own cards, every hand's colours, the face-up cards,
the numbers missed attacks named against each card, its drawn card on its turn, the deck's size, who is out), a
function of the position and the seat, which :class:`BatchedAlgoSeats` encodes from
:class:`~deduction_envs.games.algo_batched.BatchedAlgoRules`' arrays as :func:`~deduction_envs.envs.algo.
encode_view` does (tested equal to ``algo_v0``'s observation of every seat at every step of random seeded games). With
``probabilities=True`` the hand posterior's number probabilities of every position are counted as
:class:`~deduction_envs.reasoning.algo_hands.AlgoHandPosterior` counts them (the same compiled walk over the card
ids), exactly: tested equal too.

    from deduction_envs.games.algo import AlgoRules
    from deduction_envs.games.algo_batched import BatchedAlgoRules, seat_view
    from deduction_envs.envs.algo_batched import BatchedAlgoSeats

    seats = BatchedAlgoSeats(BatchedAlgoRules(AlgoRules(2), 256))
    seats.reset(seeds=range(256))
    observations = seats.observe()                     # (256, size) float32: each game's seat to act
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from deduction_envs.envs.algo import AlgoObserver
from deduction_envs.envs.batched_seats import BatchedSeats
from deduction_envs.games.algo_batched import BatchedAlgoRules, seat_view
from deduction_envs.reasoning.algo_hands import view_numbers

__all__ = ["BatchedAlgoSeats"]


class BatchedAlgoSeats(BatchedSeats):
    """Every seat's observation of every game of ``games`` (a :class:`BatchedAlgoRules`); the arguments are
    :class:`~deduction_envs.envs.batched_seats.BatchedSeats`' (``max_cycles`` as ``algo_v0``'s, 2,000)."""

    rules_class = BatchedAlgoRules
    has_probabilities = True
    has_entropy = True

    def __init__(
        self,
        games: BatchedAlgoRules,
        max_cycles: int = 2000,
        illegal_action: str = "end",
        probabilities: bool = False,
    ) -> None:
        if not isinstance(probabilities, bool):
            raise ValueError(f"probabilities must be True or False, got {probabilities!r}")
        self.probabilities = probabilities
        super().__init__(games, max_cycles, illegal_action)

    def make_observer(self, rules: Any) -> AlgoObserver:
        return AlgoObserver(rules, probabilities=self.probabilities)

    def _encode(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> bool:
        batch = self.games
        rules = batch.rules
        _observe(games, seats, batch.hands, batch.revealed, batch.ruled_out, batch.drawn, batch.turn, batch.phase,
                 batch.deck_left, rules.max_hand, rules.numbers, float(rules.deck_size), out)  # fmt: skip
        if self.probabilities:
            table = self.number_probabilities(games, seats)  # float64, stored as the AEC env stores them
            _store_probabilities(games, table, rules.max_hand, 3 + 3 * rules.numbers, 3 + 2 * rules.numbers, out)
        return True

    def entropy(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Bits of each seat's uncertainty, ``log2`` of the deals consistent with its view, as the AEC env's
        ``entropy(agent)`` (``AlgoKnowledge.entropy``); for the games ``games`` marks (zeros elsewhere)."""
        batch, rules = self.games, self.games.rules
        counts = np.zeros(batch.n, dtype=np.int64)
        table = np.zeros((batch.n, rules.players, rules.max_hand, rules.numbers))
        if not _posteriors(games, np.asarray(seats, dtype=np.int64), batch.hands, batch.revealed, batch.ruled_out,
                           batch.drawn, batch.turn, rules.numbers, table, counts):  # fmt: skip
            raise RuntimeError("a seat's view contradicts itself: the batched game is inconsistent")
        return np.where(games, np.log2(np.maximum(counts, 1)), 0.0)

    def number_probabilities(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``(n, players, max_hand, numbers)`` float64: for each game ``games`` marks, the probability of each
        number at each position of every hand (seats in turn order from ``seats[i]``'s), from that seat's view:
        the hand posterior's ``number_probabilities``, exactly (zeros elsewhere).

        Raises:
            RuntimeError: a seat's view contradicts itself (the batched game is inconsistent).
        """
        batch, rules = self.games, self.games.rules
        table = np.zeros((batch.n, rules.players, rules.max_hand, rules.numbers))
        counts = np.zeros(batch.n, dtype=np.int64)
        if not _posteriors(games, seats, batch.hands, batch.revealed, batch.ruled_out, batch.drawn, batch.turn,
                           rules.numbers, table, counts):  # fmt: skip
            raise RuntimeError("a seat's view contradicts itself: the batched game is inconsistent")
        return table


@njit(cache=True)
def _observe(live, viewer, hands, revealed, ruled_out, drawn, turn, phase, deck_left, max_hand, numbers, deck_size,
             vectors):  # pragma: no cover - compiled  # fmt: skip
    """Each live game's observation of seat ``viewer[g]``, written as ``encode_view`` writes it (no posterior)."""
    players = hands.shape[1]
    width = 3 + 3 * numbers
    tail = players * max_hand * width
    for g in range(live.size):
        if not live[g]:
            continue
        s, vector = viewer[g], vectors[g]
        for row in range(players):
            seat = (s + row) % players
            bits, card, position = hands[g, seat], 0, 0
            while bits:
                if bits & 1:
                    cell = (row * max_hand + position) * width
                    vector[cell] = 1
                    if card % 2:
                        vector[cell + 1] = 1
                    face_up = revealed[g, seat] >> card & 1
                    if face_up:
                        vector[cell + 2] = 1
                    if face_up or seat == s:
                        vector[cell + 3 + card // 2] = 1
                    for number in range(numbers):
                        if ruled_out[g, card] >> number & 1:
                            vector[cell + 3 + numbers + number] = 1
                    position += 1
                bits >>= 1
                card += 1
        if drawn[g] >= 0 and turn[g] == s:
            vector[tail] = 1
            vector[tail + 2 + drawn[g] // 2] = 1
            if drawn[g] % 2:
                vector[tail + 1] = 1
        if phase[g] != 3:  # not over: the phase
            vector[tail + 2 + numbers + phase[g]] = 1
        vector[vectors.shape[1] - 1] = deck_left[g] / deck_size
    return True


@njit(cache=True)
def _store_probabilities(games, table, max_hand, width, offset, vectors):  # pragma: no cover - compiled
    """``table[g, row, position]`` into each marked game's observation, where ``encode_view`` writes them."""
    for g in range(games.size):
        if not games[g]:
            continue
        for row in range(table.shape[1]):
            for position in range(max_hand):
                cell = (row * max_hand + position) * width + offset
                for number in range(table.shape[3]):
                    vectors[g, cell + number] = table[g, row, position, number]


@njit(cache=True)
def _posteriors(live, viewer, hands, revealed, ruled_out, drawn, turn, numbers, table,
                counts):  # pragma: no cover - compiled  # fmt: skip
    """Each live game's number probabilities of every position for seat ``viewer[g]``, ``table[g, row,
    position, number]`` (rows in turn order from the seat): what :class:`~deduction_envs.reasoning.algo_hands.
    AlgoHandPosterior` counts (the same walk over the card ids, forward and backward). False if a view
    contradicts itself. ``counts[g]``: the consistent deals."""
    for g in range(live.size):
        if not live[g]:
            continue
        sizes, colours, cards, excluded, own, seen = seat_view(g, viewer[g], hands, revealed, ruled_out, drawn, turn,
                                                               table.shape[2])  # fmt: skip
        counts[g] = view_numbers(viewer[g], sizes, colours, cards, excluded, own, seen, numbers, table[g])
        if counts[g] == 0:
            return False
    return True
