"""Algo's rules for many games at once, in arrays (issue 61): the batched twin of
:class:`~deduction_envs.games.algo.AlgoRules`.

``n`` games as a struct of arrays in PGX's style, compiled (numba): a hand is a bit mask of card ids (``2 *
number + colour``: ascending ids are the hand's order, so a position is a rank among the hand's bits), the face-up
cards another mask, the numbers missed attacks named against each card a mask a card, the deck an array popped
from its end, as ``AlgoRules`` pops its list. The same deal for the same seed (``AlgoRules.new_game``), the same
legal actions, moves, end and rewards, checked against ``AlgoRules`` on random seeded games
(``tests/test_conformance.py``). What a seat sees is a function of the position and the seat (its cards, and
what is public), which :class:`~deduction_envs.envs.algo_batched.BatchedAlgoSeats` encodes.

    from deduction_envs.games.algo import AlgoRules
    from deduction_envs.games.algo_batched import BatchedAlgoRules

    games = BatchedAlgoRules(AlgoRules(2), 1024)
    games.reset(seeds=range(1024))
    masks = games.legal_masks()                        # (1024, 197) bool, for the player to act in each game
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deduction_envs.games.algo import AlgoRules, Phase
from deduction_envs.games.batched import BatchedRules

__all__ = ["BatchedAlgoRules", "seat_view"]

_ATTACK, _CONTINUE, _REVEAL, _OVER = (int(p) for p in Phase)


class BatchedAlgoRules(BatchedRules):
    """``n`` games of ``rules``, stepped together; see the module docstring.

    Args:
        rules: the game (an :class:`AlgoRules`).
        n: the number of games.
        seed: seeds the batch's own generator, which deals the games reset without a seed of their own.

    The arrays (one row a game): ``hands`` and ``revealed`` (by seat, bits of card ids), ``deck`` (the cards
    left to draw, the next at ``deck_left - 1``) and ``deck_left``, ``drawn`` (the mover's drawn card, -1 if
    none), ``turn`` (the mover), ``phase`` (:class:`Phase`), ``ruled_out`` (by card, bits of the numbers named
    against it), ``out`` (the seats out, in order, -1 after) and ``outs``, ``halted`` (stopped, :meth:`stop`).
    """

    rules_class, phases = AlgoRules, Phase

    def __init__(self, rules: AlgoRules, n: int, seed: int | None = None) -> None:
        super().__init__(rules, n, seed)
        n = self.n
        players, deck = rules.players, rules.deck_size
        self.hands = np.zeros((n, players), dtype=np.int64)
        self.revealed = np.zeros((n, players), dtype=np.int64)
        self.deck = np.zeros((n, deck), dtype=np.int64)
        self.deck_left = np.zeros(n, dtype=np.int64)
        self.drawn = np.full(n, -1, dtype=np.int64)
        self.turn = np.zeros(n, dtype=np.int64)
        self.ruled_out = np.zeros((n, deck), dtype=np.int64)
        self.out = np.full((n, players), -1, dtype=np.int64)
        self.outs = np.zeros(n, dtype=np.int64)

    # ------------------------------------------------------------------ dealing
    def _deal_drawn(self, games: np.ndarray) -> None:
        orders = np.argsort(self.rng.random((games.size, self.rules.deck_size)), axis=1)  # uniform shuffles
        self.deal(games, orders)

    def _deal_seeded(self, games: np.ndarray, seeds: list[int | None]) -> None:
        size = self.rules.deck_size
        orders = [np.random.default_rng(s).permutation(size) for s in seeds]  # AlgoRules.new_game's shuffle
        self.deal(games, np.array(orders, dtype=np.int64).reshape(games.size, size))

    def deal(self, games: np.ndarray, orders: np.ndarray) -> None:
        """Start the games ``games`` on the shuffled decks ``orders`` (a row a game: every card once, dealt as
        ``AlgoRules.new_game`` deals its permutation: hands from the front, the last card drawn first).

        Raises:
            ValueError: a row is not a shuffle of the deck.
        """
        games, orders = np.asarray(games, dtype=np.int64), np.asarray(orders)
        rules = self.rules
        if orders.shape != (games.size, rules.deck_size) or not np.issubdtype(orders.dtype, np.integer):
            raise ValueError(f"orders must be {games.size} rows of {rules.deck_size} integers, got {orders.shape}")
        if orders.size and not (np.sort(orders, axis=1) == np.arange(rules.deck_size)).all():
            raise ValueError(f"each row must be a shuffle of the {rules.deck_size} cards")
        _deal(games, orders.astype(np.int64), rules.players, rules.dealt, self.hands, self.revealed, self.deck,
              self.deck_left, self.drawn, self.turn, self.phase, self.ruled_out, self.out, self.outs,
              self.halted)  # fmt: skip

    # ------------------------------------------------------------------ playing
    @property
    def mover(self) -> np.ndarray:
        """The seat to act in every game."""
        return self.turn

    def legal_masks(self) -> np.ndarray:
        """``(n, num_actions)`` bool: what each game's mover may do (all False in a game that is over). The
        array is reused by the next call."""
        rules = self.rules
        _legal_masks(self.phase, self.turn, self.hands, self.revealed, self.out, self.outs, rules.max_hand,
                     rules.numbers, self._masks)  # fmt: skip
        self._masks[self.halted] = False
        return self._masks

    def _play(self, actions: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`step` without its checks: ``actions`` (int64) legal in every game ``live`` marks."""
        rules = self.rules
        rewards = np.zeros((self.n, rules.players))
        ended = np.zeros(self.n, dtype=np.bool_)
        _step(actions, live, self.hands, self.revealed, self.deck, self.deck_left, self.drawn, self.turn,
              self.phase, self.ruled_out, self.out, self.outs, rules.max_hand, rules.numbers, rewards,
              ended)  # fmt: skip
        return rewards, ended


@njit(cache=True)
def seat_view(g, seat, hands, revealed, ruled_out, drawn, turn, max_hand):  # pragma: no cover - compiled
    """Game ``g`` as ``seat`` sees it, in the arrays :func:`~deduction_envs.reasoning.algo_hands.view_walk` reads:
    every hand's size and, position by position, its colour, its card if face up (-1 if not) and the numbers missed
    attacks named against it (bits); then the seat's own cards and every card it can place (its own, its drawn
    card on its turn, the face-up ones), as bits."""
    players = hands.shape[1]
    sizes = np.zeros(players, dtype=np.int64)
    colours = np.zeros((players, max_hand), dtype=np.int64)
    cards = np.full((players, max_hand), -1, dtype=np.int64)
    excluded = np.zeros((players, max_hand), dtype=np.int64)
    own = hands[g, seat]
    seen = own
    if drawn[g] >= 0 and turn[g] == seat:
        seen |= np.int64(1) << drawn[g]
    for q in range(players):
        bits, card, position = hands[g, q], 0, 0
        seen |= revealed[g, q]
        while bits:
            if bits & 1:
                colours[q, position] = card % 2
                if revealed[g, q] >> card & 1:
                    cards[q, position] = card
                excluded[q, position] = ruled_out[g, card]
                position += 1
            bits >>= 1
            card += 1
        sizes[q] = position
    return sizes, colours, cards, excluded, own, seen


@njit(cache=True)
def _deal(games, orders, players, size, hands, revealed, deck, deck_left, drawn, turn, phase, ruled_out, out, outs,
          halted):  # pragma: no cover - compiled  # fmt: skip
    for k in range(games.size):
        g = games[k]
        for p in range(players):
            hands[g, p] = 0
            for i in range(size):
                hands[g, p] |= np.int64(1) << orders[k, p * size + i]
        left = orders.shape[1] - players * size
        for i in range(left):
            deck[g, i] = orders[k, players * size + i]
        revealed[g, :] = 0
        ruled_out[g, :] = 0
        out[g, :] = -1
        outs[g], turn[g], halted[g] = 0, 0, False
        phase[g] = _ATTACK
        if left > 0:  # the first mover draws
            drawn[g] = deck[g, left - 1]
            left -= 1
        else:
            drawn[g] = -1
        deck_left[g] = left


@njit(cache=True)
def _at(bits, position):  # pragma: no cover - compiled
    """The card at ``position`` (its rank among the set bits) of the hand ``bits``; -1 if none."""
    card = 0
    while bits:
        if bits & 1:
            if position == 0:
                return card
            position -= 1
        bits >>= 1
        card += 1
    return -1


@njit(cache=True)
def _is_out(outs_row, count, seat):  # pragma: no cover - compiled
    for i in range(count):
        if outs_row[i] == seat:
            return True
    return False


@njit(cache=True)
def _legal_masks(phase, turn, hands, revealed, out, outs, max_hand, numbers, masks):  # pragma: no cover - compiled
    players = hands.shape[1]
    for g in range(phase.size):
        mask = masks[g]
        mask[:] = False
        if phase[g] == _ATTACK or phase[g] == _CONTINUE:
            for target in range(players - 1):
                seat = (turn[g] + 1 + target) % players
                if _is_out(out[g], outs[g], seat):
                    continue
                position, bits, card = 0, hands[g, seat], 0
                while bits:
                    if bits & 1:
                        if not revealed[g, seat] >> card & 1:
                            start = (target * max_hand + position) * numbers
                            mask[start : start + numbers] = True
                        position += 1
                    bits >>= 1
                    card += 1
            mask[(players - 1) * max_hand * numbers] = phase[g] == _CONTINUE
        elif phase[g] == _REVEAL:
            stop = (players - 1) * max_hand * numbers
            position, bits, card = 0, hands[g, turn[g]], 0
            while bits:
                if bits & 1:
                    if not revealed[g, turn[g]] >> card & 1:
                        mask[stop + 1 + position] = True
                    position += 1
                bits >>= 1
                card += 1


@njit(cache=True)
def _reveal(g, seat, card, hands, revealed, phase, out, outs, players):  # pragma: no cover - compiled
    revealed[g, seat] |= np.int64(1) << card
    if revealed[g, seat] == hands[g, seat]:
        out[g, outs[g]] = seat
        outs[g] += 1
        if outs[g] == players - 1:
            phase[g] = _OVER


@njit(cache=True)
def _end_turn(g, hands, deck, deck_left, drawn, turn, phase, out, outs):  # pragma: no cover - compiled
    if phase[g] == _OVER:
        return
    players = hands.shape[1]
    seat = (turn[g] + 1) % players
    while _is_out(out[g], outs[g], seat):
        seat = (seat + 1) % players
    turn[g], phase[g] = seat, _ATTACK
    if deck_left[g] > 0:
        drawn[g] = deck[g, deck_left[g] - 1]
        deck_left[g] -= 1
    else:
        drawn[g] = -1


@njit(cache=True)
def _step(actions, live, hands, revealed, deck, deck_left, drawn, turn, phase, ruled_out, out, outs, max_hand,
          numbers, rewards, ended):  # pragma: no cover - compiled  # fmt: skip
    players = hands.shape[1]
    stop = (players - 1) * max_hand * numbers
    for g in range(actions.size):
        if not live[g]:
            continue
        action, me = actions[g], turn[g]
        if action == stop:  # the drawn card goes face down into the hand
            if drawn[g] >= 0:
                hands[g, me] |= np.int64(1) << drawn[g]
                drawn[g] = -1
            _end_turn(g, hands, deck, deck_left, drawn, turn, phase, out, outs)
        elif action > stop:  # reveal one's own card (a miss with the deck empty)
            card = _at(hands[g, me], action - stop - 1)
            _reveal(g, me, card, hands, revealed, phase, out, outs, players)
            _end_turn(g, hands, deck, deck_left, drawn, turn, phase, out, outs)
        else:
            rest, number = action // numbers, action % numbers
            target, position = rest // max_hand, rest % max_hand
            seat = (me + 1 + target) % players
            card = _at(hands[g, seat], position)
            if card // 2 == number:  # a hit: the card is face up; the mover attacks again or stops
                _reveal(g, seat, card, hands, revealed, phase, out, outs, players)
                if phase[g] != _OVER:
                    phase[g] = _CONTINUE
            else:
                ruled_out[g, card] |= np.int64(1) << number
                if drawn[g] < 0:
                    phase[g] = _REVEAL
                else:  # the drawn card goes face up into the hand, and the turn passes
                    hands[g, me] |= np.int64(1) << drawn[g]
                    revealed[g, me] |= np.int64(1) << drawn[g]
                    drawn[g] = -1
                    _end_turn(g, hands, deck, deck_left, drawn, turn, phase, out, outs)
        if phase[g] == _OVER:
            ended[g] = True
            winner = 0
            for seat in range(players):
                if not _is_out(out[g], outs[g], seat):
                    winner = seat
            rewards[g, winner] = 1.0
            for rank in range(1, players):  # the others by when they went out, the last out first
                seat = out[g, players - 1 - rank]
                rewards[g, seat] = 1.0 - 2.0 * rank / (players - 1)
