"""Clue's rules for many games at once, in arrays (the first piece of the batched multiplayer games, issue 61).

:class:`BatchedClueRules` holds ``n`` games of :class:`~deduction_envs.games.clue.ClueRules` (without the board)
as a struct of arrays, in PGX's style: one :meth:`~BatchedClueRules.step` takes an action for each game's player
to act, and the legal masks, who acts and every seat's reward at the end come back for every game. The rules are
``ClueRules``' own, compiled (numba): the same deal for the same seed (each game is dealt by
``ClueRules.new_game``), the same legal actions, the same events and the same end and rewards, checked against
``ClueRules`` on random seeded games (``tests/test_conformance.py``).

What the seats know (the observation) is not here yet: the step leaves the last event of every game in arrays
(:attr:`~BatchedClueRules.event`) for the seat knowledge that will read it.

    from deduction_envs.games.clue import ClueRules
    from deduction_envs.games.clue_batched import BatchedClueRules

    games = BatchedClueRules(ClueRules(4), 1024)
    games.reset(seeds=range(1024))
    masks = games.legal_masks()                        # (1024, 670) bool, for the player to act in each game
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from deduction_envs.games.batched import BatchedRules
from deduction_envs.games.clue import CluePhase, ClueRules, deal

__all__ = ["EVENT_KINDS", "BatchedClueRules", "batch_deals"]

#: The kinds of :attr:`BatchedClueRules.event` ``["kind"]``, by code (the ClueEvent kinds).
EVENT_KINDS = ("deal", "suggest", "show", "accuse", "end")
#: :class:`CluePhase` codes as plain ints, for the compiled kernels.
PHASE_START, PHASE_SHOW, PHASE_AFTER, PHASE_OVER = (
    int(p) for p in (CluePhase.START, CluePhase.SHOW, CluePhase.AFTER, CluePhase.OVER)
)


def batch_deals(
    category_sizes: Sequence[int], case_sizes: Sequence[int], players: int, rng: np.random.Generator, k: int
) -> np.ndarray:
    """``k`` deals drawn at once from ``rng``, as :func:`~deduction_envs.games.clue.deal` draws one (not from the
    same stream): a uniform choice of ``case_sizes[j]`` cards of each category ``j`` to the case file (place
    ``players``), the rest shuffled and dealt one at a time from seat 0. ``(k, cards)`` int64."""
    cards = sum(category_sizes)
    places = np.empty((k, cards), dtype=np.int64)
    case = np.zeros((k, cards), dtype=bool)
    rows, start = np.arange(k), 0
    for size, hidden in zip(category_sizes, case_sizes, strict=True):
        chosen = np.argsort(rng.random((k, size)), axis=1)[:, :hidden]  # a uniform subset of the category
        case[rows[:, None], start + chosen] = True
        start += size
    keys = rng.random((k, cards))
    keys[case] = 2.0  # the case file's cards sort last
    order = np.argsort(keys, axis=1)[:, : cards - sum(case_sizes)]
    places[case] = players
    places[rows[:, None], order] = np.arange(order.shape[1]) % players
    return places


class BatchedClueRules(BatchedRules):
    """``n`` games of ``rules`` (Clue without its board), stepped together; see the module docstring.

    Args:
        rules: the game (a :class:`ClueRules`; on the board,
            :func:`~deduction_envs.games.clue_board_batched.batched_clue_rules` gives a
            :class:`~deduction_envs.games.clue_board_batched.BatchedClueBoardRules`).
        n: the number of games.
        seed: seeds the batch's own generator, which deals the games reset without a seed of their own (an
            autoreset in training: all such deals drawn at once).

    The arrays (one row a game): ``places`` (each card's place, ``players`` for the case file), ``turn`` (whose
    turn it is), ``phase`` (:class:`CluePhase`), ``refuter`` (the seat choosing a card to show, -1 if none),
    ``suggestion`` (the pending suggestion's cards), ``out`` (by seat), ``winner`` (-1 while none).
    """

    rules_class, phases = ClueRules, CluePhase

    def __init__(self, rules: ClueRules, n: int, seed: int | None = None) -> None:
        if type(rules) is not self.rules_class:  # the board's rules are its subclass's (clue_board_batched)
            raise ValueError(f"rules must be {self.rules_class.__name__}, got {type(rules).__name__}"
                             + (" (on the board: BatchedClueBoardRules)" if self.rules_class is ClueRules else ""))
        super().__init__(rules, n, seed)
        n, players, cards = self.n, rules.players, rules.cards
        self.places = np.zeros((n, cards), dtype=np.int64)
        self.turn = np.zeros(n, dtype=np.int64)
        self.refuter = np.full(n, -1, dtype=np.int64)
        self.suggestion = np.full((n, 3), -1, dtype=np.int64)
        self.out = np.zeros((n, players), dtype=np.bool_)
        self.winner = np.full(n, -1, dtype=np.int64)
        #: The last event of every game: its kind (an index of :data:`EVENT_KINDS`), the seat that acted, the
        #: cards named, the seats that passed (a bit a seat), the refuter (-1: none), the card shown (-1) and
        #: whether an accusation was right.
        self.event: dict[str, np.ndarray] = {
            "kind": np.zeros(n, dtype=np.int64),
            "player": np.zeros(n, dtype=np.int64),
            "cards": np.full((n, 3), -1, dtype=np.int64),
            "passed": np.zeros(n, dtype=np.int64),
            "refuter": np.full(n, -1, dtype=np.int64),
            "card": np.full(n, -1, dtype=np.int64),
            "correct": np.zeros(n, dtype=np.bool_),
        }
        self._triples = np.array([rules.triple(t) for t in range(rules.num_triples)], dtype=np.int64)

    # ------------------------------------------------------------------ dealing
    def _deal_drawn(self, games: np.ndarray) -> None:
        self._set(games, self._deals(games.size))  # deals of the table by construction (tested)

    def _deal_seeded(self, games: np.ndarray, seeds: list[int | None]) -> None:
        rules = self.rules
        hidden = [1] * len(rules.categories)  # ClueRules.new_game's deal, without building its state
        places = [deal(rules.category_sizes, hidden, rules.players, np.random.default_rng(seed)) for seed in seeds]
        self.deal(games, np.array(places, dtype=np.int64).reshape(games.size, rules.cards))

    def _deals(self, k: int) -> np.ndarray:
        rules = self.rules
        return batch_deals(rules.category_sizes, [1] * len(rules.categories), rules.players, self.rng, k)

    def _set(self, games: np.ndarray, places: np.ndarray) -> None:
        """Start the games ``games`` on the deals ``places``, known to be deals of this table."""
        self.places[games] = places
        self.turn[games], self.phase[games], self.refuter[games] = 0, PHASE_START, -1
        self.suggestion[games], self.out[games], self.winner[games] = -1, False, -1
        self.halted[games] = False
        self.event["kind"][games], self.event["player"][games] = 0, 0

    def deal(self, games: np.ndarray, places: np.ndarray) -> None:
        """Start the games ``games`` (indices) on the deals ``places`` (a row a game: each card's place, the
        players then the case file), seat 0 first.

        Raises:
            ValueError: a row is not a deal of this table (a hand or the case file of the wrong size).
        """
        games, places = np.asarray(games, dtype=np.int64), np.asarray(places)
        rules = self.rules
        if places.shape != (games.size, rules.cards) or not np.issubdtype(places.dtype, np.integer):
            raise ValueError(f"places must be {games.size} rows of {rules.cards} integers, got shape {places.shape}")
        hands = [(places == seat).sum(axis=1) != size for seat, size in enumerate(rules.hand_sizes)]
        ends = [*rules.category_starts[1:], rules.cards]
        case = [(places[:, a:b] == rules.players).sum(axis=1) != 1 for a, b in zip(rules.category_starts, ends,
                                                                                 strict=True)]  # fmt: skip
        if places.size and (places.min() < 0 or places.max() > rules.players or np.any(hands) or np.any(case)):
            raise ValueError(f"a deal gives each player its hand ({list(rules.hand_sizes)} cards) and the case file "
                             "one card of each category")  # fmt: skip
        self._set(games, places)

    # ------------------------------------------------------------------ playing
    @property
    def mover(self) -> np.ndarray:
        """The seat to act in every game (the refuter while it chooses a card to show)."""
        return np.where(self.phase == PHASE_SHOW, self.refuter, self.turn)

    def legal_masks(self) -> np.ndarray:
        """``(n, num_actions)`` bool: what each game's player to act may do (all False in a game that is over).
        The array is reused by the next call."""
        rules = self.rules
        legal_masks(self.phase, self.places, self.refuter, self.suggestion, rules.num_triples, rules.end_action,
                     self._masks)  # fmt: skip
        self._masks[self.halted] = False
        return self._masks

    def _illegal(self, actions: np.ndarray, live: np.ndarray) -> np.ndarray:
        rules, illegal = self.rules, np.zeros(self.n, dtype=np.bool_)
        _illegal_games(actions, live, self.phase, self.places, self.refuter, self.suggestion, rules.num_triples,
                       rules.end_action, rules.num_actions, illegal)  # fmt: skip
        return illegal

    def _play(self, actions: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`step` without its checks: ``actions`` (int64) legal in every game ``live`` marks."""
        rules = self.rules
        rewards = np.zeros((self.n, rules.players))
        ended = np.zeros(self.n, dtype=np.bool_)
        event = self.event
        _step(actions, live, self.places, self.turn, self.phase, self.refuter, self.suggestion,
              self.out, self.winner, self._triples, rules.num_triples, rules.end_action, rewards, ended,
              event["kind"], event["player"], event["cards"], event["passed"], event["refuter"], event["card"],
              event["correct"])  # fmt: skip
        return rewards, ended


@njit(cache=True)
def legal_masks(phase, places, refuter, suggestion, triples, end_action, masks):  # pragma: no cover - compiled
    """Each game's legal actions into ``masks`` (games x actions) from its phase (the board adds its own)."""
    for g in range(phase.size):
        mask = masks[g]
        mask[:] = False
        if phase[g] == PHASE_START:  # every suggestion (no board: every room) and every accusation
            mask[: 2 * triples] = True
        elif phase[g] == PHASE_AFTER:  # accuse or end the turn
            mask[triples : end_action + 1] = True
        elif phase[g] == PHASE_SHOW:  # a card of the suggestion that the refuter holds
            for k in range(3):
                card = suggestion[g, k]
                if places[g, card] == refuter[g]:
                    mask[end_action + 1 + card] = True


@njit(cache=True)
def _illegal_games(
    actions, live, phase, places, refuter, suggestion, triples, end_action, num_actions, illegal
):  # pragma: no cover - compiled
    """Marks in ``illegal`` the moving games whose action its mask forbids (what :func:`legal_masks` says)."""
    for g in range(actions.size):
        if not live[g]:
            continue
        action = actions[g]
        if action < 0 or action >= num_actions:
            illegal[g] = True
            continue
        if phase[g] == PHASE_START:
            legal = action < 2 * triples
        elif phase[g] == PHASE_AFTER:
            legal = triples <= action <= end_action
        elif phase[g] == PHASE_SHOW:
            card = action - end_action - 1
            legal = False
            if card >= 0:
                for k in range(3):
                    if suggestion[g, k] == card and places[g, card] == refuter[g]:
                        legal = True
        else:
            legal = False
        illegal[g] = not legal


@njit(cache=True)
def _next_in(out, turn, leaving):  # pragma: no cover - compiled
    """The next seat still in after ``turn``, ``leaving`` (an accuser just out) counted out too."""
    players = out.size
    seat = (turn + 1) % players
    while out[seat] or seat == leaving:
        seat = (seat + 1) % players
    return seat


@njit(cache=True)
def _step(actions, live, places, turn, phase, refuter, suggestion, out, winner, triple_cards, triples, end_action,
          rewards, ended, kind, player, cards, passed, ev_refuter, card, correct):  # pragma: no cover  # fmt: skip
    players = out.shape[1]
    for g in range(actions.size):
        if not live[g]:
            continue
        action = actions[g]
        me = refuter[g] if phase[g] == PHASE_SHOW else turn[g]
        player[g], cards[g, :], passed[g], ev_refuter[g], card[g], correct[g] = me, -1, 0, -1, -1, False
        if action < triples:  # a suggestion: the seats to the left answer in turn
            kind[g] = 1
            cards[g, :] = triple_cards[action]
            suggestion[g, :] = triple_cards[action]
            found = -1
            for offset in range(1, players):
                asked = (me + offset) % players
                holds = False
                for k in range(3):
                    if places[g, triple_cards[action, k]] == asked:
                        holds = True
                if holds:
                    found = asked
                    break
                passed[g] |= 1 << asked
            ev_refuter[g] = found
            if found >= 0:
                phase[g], refuter[g] = PHASE_SHOW, found
            else:
                phase[g] = PHASE_AFTER
        elif action < 2 * triples:  # an accusation
            kind[g] = 3
            cards[g, :] = triple_cards[action - triples]
            right = True
            for k in range(3):
                if places[g, triple_cards[action - triples, k]] != players:
                    right = False
            correct[g] = right
            if right:
                phase[g], winner[g] = PHASE_OVER, me
            else:
                left = 0
                for seat in range(players):
                    if not out[g, seat] and seat != me:
                        left += 1
                if left > 0:
                    turn[g] = _next_in(out[g], turn[g], me)
                    phase[g] = PHASE_START
                out[g, me] = True
                if left == 0:
                    phase[g] = PHASE_OVER
        elif action == end_action:  # the turn passes
            kind[g] = 4
            turn[g] = _next_in(out[g], turn[g], -1)
            phase[g] = PHASE_START
        else:  # the refuter shows a card, to the asker alone
            kind[g] = 2
            card[g] = action - end_action - 1
            ev_refuter[g] = me
            cards[g, :] = suggestion[g]
            phase[g], refuter[g] = PHASE_AFTER, -1
            suggestion[g, :] = -1
        if phase[g] == PHASE_OVER:
            ended[g] = True
            loss = -1.0 / (players - 1)
            for seat in range(players):
                rewards[g, seat] = 1.0 if seat == winner[g] else loss
