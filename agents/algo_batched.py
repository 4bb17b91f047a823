"""Algo's reference opponents inside the batch (issues 61 and 83): the random agent
(:class:`agents.batched.BatchedRandom`), the article's epsilon-greedy baseline and its max-entropy agent, compiled.

:class:`BatchedEpsilonGreedy` is :class:`agents.algo_agents.AlgoEpsilonGreedy` for many games of a
:class:`~deduction_envs.envs.algo_batched.BatchedAlgoSeats`: the hit probability of every attack from the seat's
exact hand posterior (:meth:`~deduction_envs.envs.algo_batched.BatchedAlgoSeats.number_probabilities`, counted as
the Python agent's posterior counts it), the likeliest attack (the first in action order on ties), a stop after
a hit with probability ``epsilon``, a random own card to reveal. Fed the same random draws it decides as the
Python agent (``tests/test_conformance.py``).

:class:`BatchedMaxEntropy` is :class:`agents.algo_agents.AlgoMaxEntropy` compiled whole: the disclosure terms S
and T from determinisations drawn from the seat's posterior (the same walk backwards, each card's option picked
from one uniform number as ``rng.choice`` with probabilities picks it), then the information values of the
``top_n`` likeliest attacks to ``depth`` levels over hypothetical reveals, each counted exactly
(:func:`~deduction_envs.reasoning.algo_hands.view_numbers`), and stopping. Its logarithm is the C library's
``log2``, as the Python agent's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from agents.algo_agents import max_entropy_settings
from agents.batched import BatchedAgent, BatchedRandom, checked, named_agent, pick_legal
from deduction_envs.games.algo import Phase
from deduction_envs.games.algo_batched import seat_view
from deduction_envs.reasoning.algo_hands import posterior_tables, sample_walk, view_numbers, view_walk

__all__ = ["BATCHED_AGENTS", "BatchedEpsilonGreedy", "BatchedMaxEntropy", "batched_agent"]

_ATTACK, _CONTINUE, _REVEAL = int(Phase.ATTACK), int(Phase.CONTINUE), int(Phase.REVEAL)


class BatchedEpsilonGreedy:
    """The epsilon-greedy baseline deciding for many games at once; see the module docstring.

    Args:
        epsilon: the probability of stopping after a hit (0.1, the roster's).
    """

    def __init__(self, epsilon: float = 0.1) -> None:
        if not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be a probability in [0, 1], got {epsilon}")
        self.epsilon = float(epsilon)
        self.name = f"epsilon-greedy({epsilon:g})"

    def draws(self, rules: Any) -> int:
        return 1

    def act(self, seats: Any, games: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        batch, rules = seats.games, seats.games.rules
        games, uniforms = checked(seats, games, uniforms, 1)
        attacking = games & (batch.phase != _REVEAL)
        table = seats.number_probabilities(attacking, batch.mover)
        actions = np.zeros(batch.n, dtype=np.int64)
        _epsilon_greedy(games, batch.phase, batch.legal_masks(), table, rules.max_hand, rules.numbers,
                        rules.num_attacks, self.epsilon, uniforms[:, 0], actions)  # fmt: skip
        return actions


class BatchedMaxEntropy:
    """The article's max-entropy agent deciding for many games at once; the arguments are
    :class:`agents.algo_agents.AlgoMaxEntropy`'s, and so is the decision on the same draws (see the module
    docstring). It reads ``samples * deck_size`` uniform numbers a decision (one for a reveal)."""

    def __init__(
        self,
        depth: int = 2,
        top_n: int = 5,
        samples: int = 8,
        win_value: float = 10.0,
        win_rule: str = "certain",
        units: str = "nats",
    ) -> None:
        settings = max_entropy_settings(depth, top_n, samples, win_value, win_rule, units)
        self.depth, self.top_n, self.samples, self.win_value, self.win_rule, self.units, self._per_bit, self.name = (
            settings
        )

    def draws(self, rules: Any) -> int:
        return max(1, self.samples * rules.deck_size)

    def act(self, seats: Any, games: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        batch, rules = seats.games, seats.games.rules
        games, uniforms = checked(seats, games, uniforms, self.draws(rules))
        actions = np.zeros(batch.n, dtype=np.int64)
        _max_entropy(games, batch.phase, batch.legal_masks(), batch.hands, batch.revealed, batch.ruled_out,
                     batch.drawn, batch.turn, rules.max_hand, rules.numbers, self.depth, self.top_n, self.samples,
                     self.win_value, self.win_rule == "certain", self._per_bit, uniforms, actions)  # fmt: skip
        return actions


#: The compiled twins, by the roster's names (:mod:`agents.roster`).
BATCHED_AGENTS: dict[str, type] = {
    "random": BatchedRandom,
    "epsilon_greedy": BatchedEpsilonGreedy,
    "max_entropy": BatchedMaxEntropy,
}


def batched_agent(name: str) -> BatchedAgent:
    """A compiled reference agent of Algo by its roster name (ValueError naming the choices if none)."""
    return named_agent(BATCHED_AGENTS, "Algo", name)


@njit(cache=True)
def _epsilon_greedy(games, phase, masks, table, max_hand, numbers, attacks, epsilon, uniforms,
                    actions):  # pragma: no cover - compiled  # fmt: skip
    for g in range(games.size):
        if not games[g]:
            continue
        if phase[g] == _REVEAL:  # a random own face-down card (rng.choice of the legal reveals)
            actions[g] = pick_legal(masks[g], uniforms[g])
            continue
        if phase[g] == _CONTINUE and uniforms[g] < epsilon:  # stop after a hit
            actions[g] = attacks
            continue
        best, best_value = 0, -2.0
        for a in range(attacks):  # the likeliest legal attack, the first on ties (argmax)
            value = -1.0
            if masks[g, a]:
                number = a % numbers
                rest = a // numbers
                target, position = rest // max_hand, rest % max_hand
                value = table[g, target + 1, position, number]
            if value > best_value:
                best, best_value = a, value
        actions[g] = best


@njit(cache=True)
def _hits(viewer, sizes, colours, cards, excluded, seen, max_hand, numbers):  # pragma: no cover - compiled
    """``attack_probabilities`` of a view given as arrays: the probability that each attack action hits (0 on face-up
    positions and hands all face up)."""
    players = sizes.size
    table = np.zeros((players, max_hand, numbers))
    view_numbers(viewer, sizes, colours, cards, excluded, np.int64(0), seen, numbers, table)
    hits = np.zeros((players - 1) * max_hand * numbers)
    for target in range(players - 1):
        q = (viewer + 1 + target) % players
        for position in range(sizes[q]):
            if cards[q, position] < 0:
                for number in range(numbers):
                    hits[(target * max_hand + position) * numbers + number] = table[target + 1, position, number]
    return hits


@njit(cache=True)
def _candidates(hits, top_n):  # pragma: no cover - compiled
    """The ``top_n`` likeliest attacks that may hit, likeliest first, ties in action order (a stable sort's)."""
    chosen = np.full(top_n, -1, dtype=np.int64)
    taken = np.zeros(hits.size, dtype=np.bool_)
    count = 0
    for k in range(top_n):
        best, best_value = -1, 0.0
        for a in range(hits.size):
            if not taken[a] and hits[a] > best_value:
                best, best_value = a, hits[a]
        if best < 0:
            break
        taken[best] = True
        chosen[k] = best
        count += 1
    return chosen[:count]


@njit(cache=True)
def _one_hand_left(viewer, sizes, cards):  # pragma: no cover - compiled
    """Whether at most one opponent of ``viewer`` has cards face down in a view (whose cards are ``cards``)."""
    holder = -1
    for r in range(sizes.size):
        for i in range(sizes[r]):
            if r != viewer and cards[r, i] < 0:
                if holder >= 0 and holder != r:
                    return False
                holder = r
    return True


@njit(cache=True)
def _certain_win(viewer, sizes, colours, cards, excluded, seen, deck, top_n):  # pragma: no cover - compiled
    """The article's win in a view where at most one opponent has cards face down (:func:`_one_hand_left`): every
    one of the ``top_n`` likeliest attacks certain, decided without counting. The deck holds any card nobody shows,
    so one hand's positions constrain only each other: position ``i`` may hold an accepted card above the least card
    position ``i - 1`` can hold (each position in turn taking the least it accepts above the last) and below the
    greatest position ``i + 1`` can (from the end); a position is certain when one card is left, and its attack
    then hits with probability exactly 1. The win: every hidden position certain, or ``top_n`` of them. Returns 1
    (won), 0 (not), or -1 where several opponents have cards face down (the hands then compete for cards)."""
    if not _one_hand_left(viewer, sizes, cards):
        return -1
    holder = -1
    for r in range(sizes.size):
        for i in range(sizes[r]):
            if r != viewer and cards[r, i] < 0:
                holder = r
    if holder < 0:  # nothing left to attack
        return 1
    size = sizes[holder]
    accepts = posterior_tables(sizes, colours, cards, excluded, np.array([holder]), seen, np.int64(0), deck)[0][0]
    earliest, latest = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
    card = -1
    for i in range(size):
        card += 1
        while card < deck and not accepts[card, i]:
            card += 1
        earliest[i] = card
    card = deck
    for i in range(size - 1, -1, -1):
        card -= 1
        while card >= 0 and not accepts[card, i]:
            card -= 1
        latest[i] = card
    hidden, sure = 0, 0
    for i in range(size):
        if cards[holder, i] >= 0:
            continue
        hidden += 1
        low = earliest[i - 1] if i > 0 else -1
        high = latest[i + 1] if i + 1 < size else deck
        options = 0
        for c in range(low + 1, high):
            if accepts[c, i]:
                options += 1
                if options > 1:
                    break
        sure += options == 1
    return 1 if sure == hidden or sure >= top_n else 0


@njit(cache=True)
def _information(p):  # pragma: no cover - compiled
    """``-log2 p`` (0 for p = 0), as the Python agent's ``_entropy``."""
    return -math.log2(p) if p > 0 else 0.0


@njit(cache=True)
def _best(viewer, sizes, colours, cards, excluded, seen, hits, depth, can_stop, revealed, hidden, max_hand, numbers,
          top_n, win_value, certain, per_bit):  # pragma: no cover - compiled  # fmt: skip
    """The best action over the ``top_n`` likeliest attacks (``hits``: the view's) and, if ``can_stop``, stopping:
    ``AlgoMaxEntropy._values`` and the first of the best in its order (attacks likeliest first, then stop). Its
    recursion over hypothetical hits runs on a stack of levels (numba's cache cannot hold a recursive function)."""
    players, attacks = sizes.size, hits.size
    views = np.empty((depth + 1, players, cards.shape[1]), dtype=np.int64)  # each level's view: the cards known
    known = np.empty(depth + 1, dtype=np.int64)  # and the cards the viewer can place
    chances = np.empty((depth + 1, attacks))
    options = np.empty((depth, top_n), dtype=np.int64)
    counts, at = np.zeros(depth, dtype=np.int64), np.zeros(depth, dtype=np.int64)
    best_values, best_actions = np.full(depth, -np.inf), np.full(depth, -1, dtype=np.int64)
    views[0], known[0], chances[0] = cards, seen, hits
    # The views reached by the same hits in another order are one view: their probabilities counted once, found by
    # the cards known and the positions hit (bits of the attack's target and position, below 63), then the view
    # itself (two hands may take the same two cards either way round).
    hit = np.zeros(depth + 1, dtype=np.int64)
    room = min(1024, sum([top_n**level for level in range(1, depth + 1)]))
    memo_known, memo_hit = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
    memo_views = np.empty((room, players, cards.shape[1]), dtype=np.int64)
    memo_chances, memos = np.empty((room, attacks)), 0
    chosen = _candidates(hits, top_n)
    counts[0] = chosen.size
    options[0, : chosen.size] = chosen
    d = 0
    while True:
        if at[d] == counts[d]:  # every candidate of this level valued: stopping last, then its best to the parent
            if (d > 0 or can_stop) and -hidden > best_values[d]:
                best_values[d], best_actions[d] = -hidden, attacks
            if d == 0:
                return best_actions[0]
            value = best_values[d]
            d -= 1
        else:  # the next candidate's hit, hypothetically
            action = options[d, at[d]]
            number, rest = action % numbers, action // numbers
            q = (viewer + 1 + rest // max_hand) % players
            position = rest % max_hand
            card = 2 * number + colours[q, position]
            views[d + 1] = views[d]
            views[d + 1, q, position] = card
            known[d + 1] = known[d] | np.int64(1) << card
            hit[d + 1] = hit[d] | np.int64(1) << rest
            # Two levels of the search need the view's probabilities; the last needs only whether the article's
            # win holds, which one opponent with cards face down lets one decide without counting.
            verdict = -1
            if certain and depth - d == 1:
                verdict = _certain_win(viewer, sizes, colours, views[d + 1], excluded, known[d + 1], 2 * numbers, top_n)
            won, decided = verdict == 1, verdict >= 0
            if not decided and (certain or depth - d > 1):  # the view's probabilities, counted or found
                found = -1
                for m in range(memos):
                    if memo_known[m] == known[d + 1] and memo_hit[m] == hit[d + 1]:
                        if (memo_views[m] == views[d + 1]).all():
                            found = m
                            break
                if found >= 0:
                    chances[d + 1] = memo_chances[found]
                else:
                    chances[d + 1] = _hits(viewer, sizes, colours, views[d + 1], excluded, known[d + 1], max_hand,
                                           numbers)  # fmt: skip
                    if memos < room:
                        memo_known[memos], memo_hit[memos] = known[d + 1], hit[d + 1]
                        memo_views[memos], memo_chances[memos] = views[d + 1], chances[d + 1]
                        memos += 1
            if decided:
                pass
            elif certain:  # the article: nothing left to attack, or every candidate attack certain
                won = True
                for other in _candidates(chances[d + 1], top_n):
                    if chances[d + 1, other] < 1:
                        won = False
            else:  # no opponent has a card face down
                won = True
                for r in range(players):
                    for i in range(sizes[r]):
                        if r != viewer and views[d + 1, r, i] < 0:
                            won = False
            if won:
                value = win_value
            elif depth - d > 1:  # one level down: its candidates valued first
                d += 1
                chosen = _candidates(chances[d], top_n)
                counts[d], at[d] = chosen.size, 0
                options[d, : chosen.size] = chosen
                best_values[d], best_actions[d] = -np.inf, -1
                continue
            else:
                value = 0.0
        # ``value``: the best after the hit of this level's current candidate; its I, then the next candidate.
        action = options[d, at[d]]
        p = chances[d, action]
        if p < 1:
            surprise, missed = _information(p) * per_bit, _information(1 - p) * per_bit
            value = p * (surprise + value) + (1 - p) * (missed - revealed)
        if value > best_values[d]:
            best_values[d], best_actions[d] = value, action
        at[d] += 1


@njit(cache=True)
def _disclosure(viewer, sizes, colours, cards, excluded, seen, drawn, own, numbers, samples,
                uniforms):  # pragma: no cover - compiled  # fmt: skip
    """(S, T) in bits, as ``AlgoMaxEntropy._disclosure``: the opponents' gain about my hand when my drawn card goes
    face up, face down, averaged over ``samples`` determinisations of their hands, each drawn backwards through my
    walk with one uniform number a card (as ``posterior.sample`` draws with ``rng.choice``)."""
    deck = 2 * numbers
    players, count, tables, forward, _ = view_walk(viewer, sizes, colours, cards, excluded, seen, deck)
    # My hand with the drawn card placed, face up (column 0) and face down (column 1).
    me = sizes[viewer]
    at = 0
    for c in range(drawn):
        at += own >> c & 1
    width = cards.shape[1]
    placed_sizes = sizes.copy()
    placed_sizes[viewer] = me + 1
    placed_colours, placed_excluded = colours.copy(), excluded.copy()
    up, down = cards.copy(), cards.copy()
    for i in range(min(me, width - 1), at, -1):
        placed_colours[viewer, i] = colours[viewer, i - 1]
        placed_excluded[viewer, i] = excluded[viewer, i - 1]
        up[viewer, i] = down[viewer, i] = cards[viewer, i - 1]
    placed_colours[viewer, at] = drawn % 2
    placed_excluded[viewer, at] = 0
    up[viewer, at], down[viewer, at] = drawn, -1
    public = np.int64(0)  # every face-up card
    for q in range(sizes.size):
        for i in range(sizes[q]):
            if cards[q, i] >= 0:
                public |= np.int64(1) << cards[q, i]
    revealed, hidden = 0.0, 0.0
    gains = np.zeros((samples, 2))
    seen_players = np.zeros(samples * count, dtype=np.int64)  # the opponents' hands counted, and their gains
    seen_hands = np.zeros(samples * count, dtype=np.int64)
    seen_gains = np.zeros((samples * count, 2))
    counted = 0
    walk_sizes = sizes[players[:count]]
    sampled = np.zeros((count, cards.shape[1]), dtype=np.int64)
    for s in range(samples):
        sample_walk(*tables, forward, walk_sizes, uniforms[s * deck : (s + 1) * deck], sampled)
        hands = np.zeros(sizes.size, dtype=np.int64)  # each opponent's whole hand, bits
        for j in range(count):
            for i in range(walk_sizes[j]):
                hands[players[j]] |= np.int64(1) << sampled[j, i]
        for j in range(count):
            opponent = players[j]
            for k in range(counted):  # an opponent's hand drawn before: its gains again
                if seen_hands[k] == hands[opponent] and seen_players[k] == opponent:
                    break
            else:
                theirs = hands[opponent] | public
                before = math.log2(_count(opponent, sizes, colours, cards, excluded, theirs, deck))
                after_up = math.log2(_count(opponent, placed_sizes, placed_colours, up, placed_excluded,
                                            theirs | np.int64(1) << drawn, deck))  # fmt: skip
                after_down = math.log2(_count(opponent, placed_sizes, placed_colours, down, placed_excluded, theirs,
                                              deck))  # fmt: skip
                k = counted
                seen_players[k], seen_hands[k] = opponent, hands[opponent]
                seen_gains[k, 0], seen_gains[k, 1] = before - after_up, before - after_down
                counted += 1
            gains[s, 0] += seen_gains[k, 0]
            gains[s, 1] += seen_gains[k, 1]
    for s in range(samples):
        revealed += gains[s, 0]
        hidden += gains[s, 1]
    return revealed / samples, hidden / samples


@njit(cache=True)
def _count(viewer, sizes, colours, cards, excluded, seen, deck):  # pragma: no cover - compiled
    """The deals consistent with a view given as arrays."""
    return view_walk(viewer, sizes, colours, cards, excluded, seen, deck)[4]


@njit(cache=True)
def _max_entropy(games, phase, masks, hands, revealed, ruled_out, drawn, turn, max_hand, numbers, depth, top_n,
                 samples, win_value, certain, per_bit, uniforms, actions):  # pragma: no cover - compiled  # fmt: skip
    for g in range(games.size):
        if not games[g]:
            continue
        if phase[g] == _REVEAL:  # a random own face-down card (rng.choice of the legal reveals)
            actions[g] = pick_legal(masks[g], uniforms[g, 0])
            continue
        s = turn[g]
        sizes, colours, cards, excluded, own, seen = seat_view(g, s, hands, revealed, ruled_out, drawn, turn, max_hand)
        revealed_bits, hidden_bits = 0.0, 0.0
        if drawn[g] >= 0:
            revealed_bits, hidden_bits = _disclosure(s, sizes, colours, cards, excluded, seen, drawn[g], own, numbers,
                                                     samples, uniforms[g])  # fmt: skip
        hits = _hits(s, sizes, colours, cards, excluded, seen, max_hand, numbers)
        actions[g] = _best(s, sizes, colours, cards, excluded, seen, hits, depth, phase[g] == _CONTINUE,
                           revealed_bits * per_bit, hidden_bits * per_bit, max_hand, numbers, top_n, win_value,
                           certain, per_bit)  # fmt: skip
