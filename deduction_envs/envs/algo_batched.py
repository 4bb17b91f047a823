"""Any seat's observation of N batched Algo games (issue 61): the batched twin of ``algo_v0`` with
``probabilities=False``.

What an Algo seat knows is its view (``AlgoRules.view``: its own cards, every hand's colours, the face-up cards,
the numbers missed attacks named against each card, its drawn card on its turn, the deck's size, who is out), a
function of the position and the seat, which :class:`BatchedAlgoSeats` encodes from
:class:`~deduction_envs.games.algo_batched.BatchedAlgoRules`' arrays as :func:`~deduction_envs.envs.algo.
encode_view` does (tested equal to ``algo_v0``'s observation of every seat at every step of random seeded games).
The hand posterior (the probability pieces) is not batched yet.

    from deduction_envs.games.algo import AlgoRules
    from deduction_envs.games.algo_batched import BatchedAlgoRules
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
from deduction_envs.games.algo_batched import BatchedAlgoRules

__all__ = ["BatchedAlgoSeats"]


class BatchedAlgoSeats(BatchedSeats):
    """Every seat's observation of every game of ``games`` (a :class:`BatchedAlgoRules`); the arguments are
    :class:`~deduction_envs.envs.batched_seats.BatchedSeats`' (``max_cycles`` as ``algo_v0``'s, 2,000)."""

    rules_class = BatchedAlgoRules

    def __init__(self, games: BatchedAlgoRules, max_cycles: int = 2000, illegal_action: str = "end") -> None:
        super().__init__(games, max_cycles, illegal_action)

    def make_observer(self, rules: Any) -> AlgoObserver:
        return AlgoObserver(rules, probabilities=False)

    def _encode(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> bool:
        batch = self.games
        rules = batch.rules
        _observe(games, seats, batch.hands, batch.revealed, batch.ruled_out, batch.drawn, batch.turn, batch.phase,
                 batch.deck_left, rules.max_hand, rules.numbers, float(rules.deck_size), out)  # fmt: skip
        return True


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
