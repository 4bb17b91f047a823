"""Generalized Clue's rules for many games at once, in arrays (issue 61): the batched twin of
:class:`~deduction_envs.games.generalized_clue.GeneralizedClueRules`.

As :class:`~deduction_envs.games.clue_batched.BatchedClueRules` does for Clue: ``n`` games as a struct of arrays
in PGX's style, one :meth:`~BatchedGeneralizedClueRules.step` taking an action for each game's player to act
(the sub-steps included: choosing whom to ask or to guess, adding a card, submitting, showing a card), compiled
(numba). The same deal for the same seed (``GeneralizedClueRules.new_game``), the same legal actions, events,
end and rewards, checked against ``GeneralizedClueRules`` on random seeded games
(``tests/test_conformance.py``). The last event of every game is left in arrays
(:attr:`~BatchedGeneralizedClueRules.event`) for the seats' knowledge.

    from deduction_envs.games.generalized_clue import GeneralizedClueRules
    from deduction_envs.games.generalized_clue_batched import BatchedGeneralizedClueRules

    games = BatchedGeneralizedClueRules(GeneralizedClueRules(14, 2, 3), 1024)
    games.reset(seeds=range(1024))
    masks = games.legal_masks()                        # (1024, 19) bool, for the player to act in each game
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deduction_envs.games.batched import BatchedRules
from deduction_envs.games.clue import deal
from deduction_envs.games.clue_batched import batch_deals
from deduction_envs.games.generalized_clue import GeneralizedCluePhase, GeneralizedClueRules

__all__ = ["EVENT_KINDS", "BatchedGeneralizedClueRules"]

#: The kinds of :attr:`BatchedGeneralizedClueRules.event` ``["kind"]``, by code (the event kinds).
EVENT_KINDS = ("deal", "step", "ask", "show", "guess")
_START, _ASKING, _GUESSING, _SHOW, _OVER = (int(p) for p in GeneralizedCluePhase)


class BatchedGeneralizedClueRules(BatchedRules):
    """``n`` games of ``rules``, stepped together; see the module docstring.

    Args:
        rules: the game (a :class:`GeneralizedClueRules`).
        n: the number of games.
        seed: seeds the batch's own generator, which deals the games reset without a seed of their own.

    The arrays (one row a game): ``places`` (each card's place, ``players`` for the case file), ``turn`` (whose
    turn it is), ``phase`` (:class:`GeneralizedCluePhase`), ``target`` (the player asked, -1 if none),
    ``chosen`` (the list or guess being built, a bit a card), ``asked`` (the list the target answers, bits),
    ``turns`` and ``out`` (by seat), ``right`` (by seat: its place among the right guessers, from 0; -1 if
    none), ``halted`` (stopped from outside the rules, :meth:`stop`).
    """

    rules_class, phases = GeneralizedClueRules, GeneralizedCluePhase

    def __init__(self, rules: GeneralizedClueRules, n: int, seed: int | None = None) -> None:
        super().__init__(rules, n, seed)
        n = self.n
        players, cards = rules.players, rules.cards
        self.places = np.zeros((n, cards), dtype=np.int64)
        self.turn = np.zeros(n, dtype=np.int64)
        self.target = np.full(n, -1, dtype=np.int64)
        self.chosen = np.zeros(n, dtype=np.int64)
        self.asked = np.zeros(n, dtype=np.int64)
        self.turns = np.zeros((n, players), dtype=np.int64)
        self.out = np.zeros((n, players), dtype=np.bool_)
        self.right = np.full((n, players), -1, dtype=np.int64)
        #: The last event of every game: its kind (an index of :data:`EVENT_KINDS`), the player (the asker for
        #: an ask and a show, the builder of a step, the guesser), the target (the player asked or showing; for
        #: a step the one chosen, -1 for a guess), the cards (an ask's list or a guess, bits), the card (added
        #: or shown; -1), whether an ask was answered yes, whether a guess was right, the guesser's hand (bits).
        self.event: dict[str, np.ndarray] = {
            "kind": np.zeros(n, dtype=np.int64),
            "player": np.zeros(n, dtype=np.int64),
            "target": np.full(n, -1, dtype=np.int64),
            "cards": np.zeros(n, dtype=np.int64),
            "card": np.full(n, -1, dtype=np.int64),
            "answered": np.zeros(n, dtype=np.bool_),
            "correct": np.zeros(n, dtype=np.bool_),
            "hand": np.zeros(n, dtype=np.int64),
        }

    # ------------------------------------------------------------------ dealing
    def _deal_drawn(self, games: np.ndarray) -> None:
        rules = self.rules
        self.deal(games, batch_deals([rules.cards], [rules.hidden], rules.players, self.rng, games.size))

    def _deal_seeded(self, games: np.ndarray, seeds: list[int | None]) -> None:
        rules = self.rules
        places = [deal([rules.cards], [rules.hidden], rules.players, np.random.default_rng(s)) for s in seeds]
        self.deal(games, np.array(places, dtype=np.int64).reshape(games.size, rules.cards))

    def deal(self, games: np.ndarray, places: np.ndarray) -> None:
        """Start the games ``games`` (indices) on the deals ``places`` (a row a game: each card's place), seat 0
        first.

        Raises:
            ValueError: a row is not a deal of this game (a hand or the case file of the wrong size).
        """
        games, places = np.asarray(games, dtype=np.int64), np.asarray(places)
        rules = self.rules
        if places.shape != (games.size, rules.cards) or not np.issubdtype(places.dtype, np.integer):
            raise ValueError(f"places must be {games.size} rows of {rules.cards} integers, got shape {places.shape}")
        sizes = [*rules.hand_sizes, rules.hidden]
        wrong = [(places == seat).sum(axis=1) != size for seat, size in enumerate(sizes)]
        if places.size and (places.min() < 0 or places.max() > rules.players or np.any(wrong)):
            raise ValueError(f"a deal gives each player its hand ({list(rules.hand_sizes)} cards) and the case file "
                             f"{rules.hidden}")  # fmt: skip
        self.places[games] = places
        self.turn[games], self.phase[games], self.target[games] = 0, _START, -1
        self.chosen[games], self.asked[games], self.turns[games] = 0, 0, 0
        self.out[games], self.right[games], self.halted[games] = False, -1, False
        self.event["kind"][games], self.event["player"][games] = 0, 0

    # ------------------------------------------------------------------ playing
    @property
    def mover(self) -> np.ndarray:
        """The seat to act in every game (the target while it chooses a card to show)."""
        return np.where(self.phase == _SHOW, self.target, self.turn)

    def legal_masks(self) -> np.ndarray:
        """``(n, num_actions)`` bool: what each game's player to act may do (all False in a game that is over).
        The array is reused by the next call."""
        rules = self.rules
        _legal_masks(self.phase, self.places, self.turn, self.target, self.chosen, self.asked, self.turns,
                     self.out, rules.hidden, rules.rounds, self._masks)  # fmt: skip
        self._masks[self.halted] = False
        return self._masks

    def _play(self, actions: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`step` without its checks: ``actions`` (int64) legal in every game ``live`` marks."""
        rules = self.rules
        rewards = np.zeros((self.n, rules.players))
        ended = np.zeros(self.n, dtype=np.bool_)
        event = self.event
        _step(actions, live, self.places, self.turn, self.phase, self.target, self.chosen, self.asked,
              self.turns, self.out, self.right, rules.cards, rules.hidden, rewards, ended, event["kind"],
              event["player"], event["target"], event["cards"], event["card"], event["answered"],
              event["correct"], event["hand"])  # fmt: skip
        return rewards, ended


@njit(cache=True)
def _legal_masks(phase, places, mover, target, chosen, asked, turns, out, hidden, rounds, masks):  # pragma: no cover
    players = out.shape[1]
    cards = places.shape[1]
    for g in range(phase.size):
        mask = masks[g]
        mask[:] = False
        if phase[g] == _START:
            mask[cards + players] = True  # guess
            if turns[g, mover[g]] < rounds:
                for q in range(players):
                    mask[cards + q] = q != mover[g] and not out[g, q]
        elif phase[g] == _ASKING or phase[g] == _GUESSING:
            count = 0
            for c in range(cards):
                count += chosen[g] >> c & 1
            if phase[g] == _ASKING or count < hidden:
                for c in range(cards):
                    mask[c] = not (chosen[g] >> c & 1)
            mask[cards + players + 1] = count != 0 if phase[g] == _ASKING else count == hidden
        elif phase[g] == _SHOW:
            for c in range(cards):
                if asked[g] >> c & 1 and places[g, c] == target[g]:
                    mask[c] = True


@njit(cache=True)
def _next_in(out_row, mover, leaving):  # pragma: no cover - compiled
    """The next player still in after ``mover``, ``leaving`` (a guesser) counted out too; -1 if nobody is."""
    players = out_row.size
    gone = 0
    for seat in range(players):
        if out_row[seat] or seat == leaving:
            gone += 1
    if gone == players:
        return -1
    seat = (mover + 1) % players
    while out_row[seat] or seat == leaving:
        seat = (seat + 1) % players
    return seat


@njit(cache=True)
def _step(actions, live, places, mover, phase, target, chosen, asked, turns, out, right, cards, hidden, rewards,
          ended, kind, player, ev_target, ev_cards, card, answered, correct, hand):  # pragma: no cover  # fmt: skip
    players = out.shape[1]
    for g in range(actions.size):
        if not live[g]:
            continue
        action = actions[g]
        me = target[g] if phase[g] == _SHOW else mover[g]
        player[g], ev_target[g], ev_cards[g], card[g] = me, -1, 0, -1
        answered[g], correct[g], hand[g] = False, False, 0
        next_mover = -1
        turn_over = False
        if phase[g] == _START:  # whom to ask, or a guess: the build starts
            kind[g] = 1
            if action == cards + players:
                phase[g], target[g] = _GUESSING, -1
            else:
                phase[g], target[g] = _ASKING, action - cards
            ev_target[g] = target[g]
            chosen[g] = 0
        elif phase[g] == _SHOW:  # the target shows a card to the asker, whose turn ends
            kind[g] = 3
            player[g], ev_target[g], ev_cards[g], card[g] = mover[g], me, asked[g], action
            next_mover = _next_in(out[g], mover[g], -1)
            turn_over = True
        elif action < cards:  # a card added to the list or the guess
            kind[g] = 1
            ev_target[g], card[g] = target[g], action
            chosen[g] |= np.int64(1) << action
        elif phase[g] == _ASKING:  # the list submitted: yes (the target will show a card) or no
            kind[g] = 2
            ev_target[g], ev_cards[g] = target[g], chosen[g]
            yes = False
            for c in range(cards):
                if chosen[g] >> c & 1 and places[g, c] == target[g]:
                    yes = True
            answered[g] = yes
            if yes:
                phase[g], asked[g] = _SHOW, chosen[g]
            else:
                next_mover = _next_in(out[g], mover[g], -1)
                turn_over = True
            chosen[g] = 0
        else:  # the guess submitted: the guesser leaves, its hand public, its verdict its own
            kind[g] = 4
            ev_cards[g] = chosen[g]
            right_guess = True
            for c in range(cards):
                if chosen[g] >> c & 1:
                    if places[g, c] != players:
                        right_guess = False
                if places[g, c] == me:
                    hand[g] |= np.int64(1) << c
            correct[g] = right_guess
            next_mover = _next_in(out[g], mover[g], me)
            out[g, me] = True
            if right_guess:
                count = 0
                for seat in range(players):
                    if right[g, seat] >= 0:
                        count += 1
                right[g, me] = count
            turn_over = True
        if turn_over:
            turns[g, player[g]] += 1
            target[g], chosen[g], asked[g] = -1, 0, 0
            everyone = True
            for seat in range(players):
                if not out[g, seat]:
                    everyone = False
            if everyone:
                phase[g] = _OVER
        if next_mover >= 0:
            mover[g], phase[g] = next_mover, _START
        if phase[g] == _OVER:
            ended[g] = True
            rights = 0
            for seat in range(players):
                if right[g, seat] >= 0:
                    rights += 1
            rest = players - rights
            for seat in range(players):
                rank = right[g, seat] + 1.0 if right[g, seat] >= 0 else rights + (rest + 1) / 2.0
                rewards[g, seat] = 1.0 - 2.0 * (rank - 1.0) / (players - 1)
