"""Generalized Clue's reference opponents inside the batch (issue 61): the random agent and the course report's
scoreboard player, compiled.

:class:`BatchedGeneralizedClueRandom` is :class:`agents.generalized_clue_agents.GeneralizedClueRandom` (a random
opponent asked about a random list of random size; a guess of cards outside its hand only when it must), not the
uniform choice among legal steps of :class:`agents.batched.BatchedRandom`, which plays another game of chance in
Generalized Clue's sub-steps.

:class:`BatchedScoreboard` is :class:`agents.generalized_clue_agents.GeneralizedClueScoreboard` with its
defaults (padded asks, the report's spoof, no interrogation-pattern rule) for many games of a
:class:`~deduction_envs.envs.generalized_clue_batched.BatchedGeneralizedClueSeats`: its scoreboard re-derived
from the seat's history at each decision (the seats' log of asks, the cards shown to it, the guessers' hands),
"poor man's logic" to a fixed point, the same choice of whom to ask and what, the same guesses and the same card
shown; fed the same random draws, it decides as the Python agent (``tests/test_conformance.py``).
A whole move is decided at the start of a turn and its steps are played on the following calls, as the Python
agent queues them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.batched import BatchedAgent, checked, named_agent, pick, pick_many, popcount, reshown
from deduction_envs.games.generalized_clue import GeneralizedCluePhase

__all__ = ["BATCHED_AGENTS", "BatchedGeneralizedClueRandom", "BatchedScoreboard", "batched_agent"]

_START, _ASKING, _GUESSING, _SHOW, _OVER = (int(p) for p in GeneralizedCluePhase)


class _Planner:
    """An agent that decides a whole move at the start of a turn and plays its steps on the following calls: its
    plan, ``[game, seat]``, the cards of the move being played, as bits."""

    def __init__(self) -> None:
        self._plan: np.ndarray | None = None

    def draws(self, rules: Any) -> int:
        raise NotImplementedError

    def _start(self, seats: Any, games: np.ndarray, uniforms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The games and draws checked, the plan sized for the batch: ``(games, uniforms)``."""
        batch, rules = seats.games, seats.games.rules
        games, uniforms = checked(seats, games, uniforms, self.draws(rules))
        if self._plan is None or self._plan.shape != (batch.n, rules.players):
            self._plan = np.zeros((batch.n, rules.players), dtype=np.int64)
        return games, uniforms


class BatchedScoreboard(_Planner):
    """The scoreboard player (padded asks, spoof) deciding for many games at once; see the module docstring."""

    name = "scoreboard"

    def draws(self, rules: Any) -> int:
        return rules.cards + 1

    def act(self, seats: Any, games: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        batch, rules = seats.games, seats.games.rules
        games, uniforms = self._start(seats, games, uniforms)
        actions = np.zeros(batch.n, dtype=np.int64)
        sizes = np.array(rules.hand_sizes, dtype=np.int64)
        ok = _scoreboard_actions(games, batch.mover, batch.turn, batch.phase, batch.chosen, batch.asked, batch.turns,
                                 batch.out, seats.hand, seats.record, seats.asks, seats.ask_count, seats.shown_to,
                                 seats.revealed, sizes, rules.hidden, rules.rounds, uniforms, self._plan,
                                 actions)  # fmt: skip
        if not ok:
            raise RuntimeError("the scoreboard found nothing to ask (the Python agent raises here too)")
        return actions


class BatchedGeneralizedClueRandom(_Planner):
    """Generalized Clue's random agent deciding for many games at once; see the module docstring. Its draws, as
    the Python agent's: a guess, ``hidden`` cards of those outside its hand; an ask, its size (``1 + int(u *
    cards)``), its cards one after another, then whom it asks (among those it may, in turn order after it)."""

    name = "random"

    def draws(self, rules: Any) -> int:
        return rules.cards + 2

    def act(self, seats: Any, games: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        batch, rules = seats.games, seats.games.rules
        games, uniforms = self._start(seats, games, uniforms)
        actions = np.zeros(batch.n, dtype=np.int64)
        _random_actions(games, batch.mover, batch.turn, batch.phase, batch.chosen, batch.asked, batch.legal_masks(),
                        seats.hand, seats.record, rules.hidden, uniforms, self._plan, actions)  # fmt: skip
        return actions


#: The compiled twins, by the roster's names (:mod:`agents.roster`).
BATCHED_AGENTS: dict[str, type] = {"random": BatchedGeneralizedClueRandom, "scoreboard": BatchedScoreboard}


def batched_agent(name: str) -> BatchedAgent:
    """A compiled reference agent of Generalized Clue by its roster name (ValueError naming the choices if none)."""
    return named_agent(BATCHED_AGENTS, "Generalized Clue", name)


@njit(cache=True)
def _board(g, me, hand, asks, count, shown_to, revealed, out, sizes, full):  # pragma: no cover - compiled
    """The scoreboard of seat ``me``: per player the cards it holds and does not hold (bits), from the history
    ("poor man's logic" to a fixed point, as ``agents.generalized_clue_agents.Scoreboard``)."""
    players = sizes.size
    held = np.zeros(players, dtype=np.int64)
    lacked = np.zeros(players, dtype=np.int64)
    held[me], lacked[me] = hand[g, me], full & ~hand[g, me]
    yes_target = np.zeros(count[g], dtype=np.int64)
    yes_cards = np.zeros(count[g], dtype=np.int64)
    yes = 0
    for a in range(count[g]):
        asker, target, cards, answered = asks[g, a, 0], asks[g, a, 1], asks[g, a, 2], asks[g, a, 3]
        if not answered:
            lacked[target] |= cards
        elif asker != me and target != me:
            yes_target[yes], yes_cards[yes] = target, cards
            yes += 1
    for q in range(players):
        held[q] |= shown_to[g, me, q]
        if q != me and out[g, q]:
            held[q] |= revealed[g, q]
            lacked[q] |= full & ~revealed[g, q]
    changed = True
    while changed:
        changed = False
        for k in range(yes):
            t, cards = yes_target[k], yes_cards[k]
            if held[t] & cards:
                continue
            unknown = cards & ~lacked[t]
            if popcount(unknown) == 1 and not held[t] & unknown:
                held[t] |= unknown
                changed = True
        anyone = np.int64(0)
        for q in range(players):
            anyone |= held[q]
        for q in range(players):
            more = anyone & ~held[q] & ~lacked[q]
            if popcount(held[q]) == sizes[q]:
                more |= full & ~held[q] & ~lacked[q]
            if more:
                lacked[q] |= more
                changed = True
    return held, lacked


@njit(cache=True)
def _planned_step(phase, mine, shown, asker, u, rest, submit):  # pragma: no cover - compiled
    """The action of a seat whose turn has not just begun, or -1 if it has (a move to decide): asked to show, a
    card of the list it holds (``mine``), reshown to the asker, else to anyone, else any, at ``u``; building its
    move, the next card of the move decided (``rest``: the plan's cards not yet chosen), then ``submit``."""
    if phase == _SHOW:
        return reshown(mine, shown, asker, u)
    if phase == _ASKING or phase == _GUESSING:
        return pick(rest, 0.0) if rest else submit
    return -1


@njit(cache=True)
def _scoreboard_actions(games, mover, turn, phase, chosen, asked, turns, out, hand, record, asks, count, shown_to,
                        revealed, sizes, hidden, rounds, uniforms, plan, actions):  # pragma: no cover  # fmt: skip
    players, cards = sizes.size, record.shape[4]
    full = (np.int64(1) << cards) - 1
    for g in range(games.size):
        if not games[g]:
            continue
        s = mover[g]
        step = _planned_step(phase[g], asked[g] & hand[g, s], record[g, s, 0], turn[g], uniforms[g, 0],
                             plan[g, s] & ~chosen[g], cards + players + 1)  # fmt: skip
        if step >= 0:
            actions[g] = step
            continue
        held, lacked = _board(g, s, hand, asks, count, shown_to, revealed, out, sizes, full)
        anyone = np.int64(0)
        nobody = full
        for q in range(players):
            anyone |= held[q]
            nobody &= lacked[q]
        case = np.int64(-1)
        if popcount(nobody) == hidden:
            case = nobody
        elif popcount(anyone) == cards - hidden:
            case = full & ~anyone
        target, fewest = -1, cards + 1
        if turns[g, s] < rounds:  # whom it may ask: in turn order after it, the least known first
            for i in range(1, players):
                q = (s + i) % players
                if not out[g, q] and popcount(held[q]) < fewest:
                    target, fewest = q, popcount(held[q])
        if case >= 0 or target < 0:
            if case < 0:  # must guess: cards nobody is known to hold
                case = pick_many(full & ~anyone, uniforms[g], 0, hidden)
            plan[g, s] = case
            actions[g] = cards + players
            continue
        own_turn = turns[g, s] + 1
        first = -1  # whom it asked first (its second turn: the spoof asks it again)
        if own_turn == 2:
            for a in range(count[g]):
                if asks[g, a, 0] == s:
                    first = asks[g, a, 1]
                    break
        if own_turn == 1:  # every card: tells nobody anything
            plan[g, s] = full
        elif own_turn == 2 and first >= 0 and not out[g, first]:  # the report's spoof: every card but one of its own
            target = first
            plan[g, s] = full & ~(np.int64(1) << pick(hand[g, s], uniforms[g, 0]))
        else:  # enough of the target's unknown cards to be sure to learn one, padded with located cards
            unknown = full & ~held[target] & ~lacked[target]
            left = sizes[target] - popcount(held[target])
            k = min(max(1, popcount(unknown) - left + 1), popcount(unknown))
            others = anyone & ~held[target]
            plan[g, s] = pick_many(unknown, uniforms[g], 0, k) | pick_many(others, uniforms[g], k,
                                                                            popcount(others) // 2)  # fmt: skip
            if not plan[g, s]:
                return False
        actions[g] = cards + target
    return True


@njit(cache=True)
def _random_actions(games, mover, turn, phase, chosen, asked, masks, hand, record, hidden, uniforms, plan,
                    actions):  # pragma: no cover  # fmt: skip
    players, cards = hand.shape[1], record.shape[4]
    full = (np.int64(1) << cards) - 1
    for g in range(games.size):
        if not games[g]:
            continue
        s = mover[g]
        step = _planned_step(phase[g], asked[g] & hand[g, s], record[g, s, 0], turn[g], uniforms[g, 0],
                             plan[g, s] & ~chosen[g], cards + players + 1)  # fmt: skip
        if step >= 0:
            actions[g] = step
            continue
        targets = 0
        for i in range(1, players):
            targets += masks[g, cards + (s + i) % players]
        if targets == 0:  # must guess: cards outside its hand
            plan[g, s] = pick_many(full & ~hand[g, s], uniforms[g], 0, hidden)
            actions[g] = cards + players
            continue
        size = 1 + int(uniforms[g, 0] * cards)
        plan[g, s] = pick_many(full, uniforms[g], 1, size)
        at = int(uniforms[g, 1 + size] * targets)
        for i in range(1, players):
            q = (s + i) % players
            if masks[g, cards + q]:
                if at == 0:
                    actions[g] = cards + q
                    break
                at -= 1
