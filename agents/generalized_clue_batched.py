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

:class:`BatchedGeneralizedClueExact` is :class:`agents.generalized_clue_agents.GeneralizedClueExact` (the roster's
``exact``, every option of it): its sheet and case-file distribution from the twin's exact count of the seat's deals
(:meth:`~deduction_envs.envs.generalized_clue_batched.BatchedGeneralizedClueSeats.solve`, so for the games whose
deals it enumerates, :data:`~deduction_envs.envs.generalized_clue_batched.DEAL_LIMIT`), its asks scored over the
deals :func:`~deduction_envs.reasoning.clue_suggestions.score_asks` draws from the same number, in one compiled
loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.batched import BatchedAgent, checked, named_agent, pick, pick_many, popcount, reshown
from deduction_envs.core.rules import check_int
from deduction_envs.envs.clue_batched import settled
from deduction_envs.envs.generalized_clue_batched import DEAL_LIMIT
from deduction_envs.games.generalized_clue import GeneralizedCluePhase
from deduction_envs.reasoning.clue_facts import facts_of
from deduction_envs.reasoning.clue_suggestions import score_asks
from deduction_envs.reasoning.clue_sweep import CONTRADICTION, EXACT, SWEEP_WORK, deal_seat

__all__ = ["BATCHED_AGENTS", "BatchedGeneralizedClueExact", "BatchedGeneralizedClueRandom", "BatchedScoreboard",
           "batched_agent"]

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


class BatchedGeneralizedClueExact(_Planner):
    """:class:`agents.generalized_clue_agents.GeneralizedClueExact` for many games at once, deciding as it does on
    the same draws (its arguments are the Python agent's):

    * the sheet and the likeliest case file (the first in sorted order on ties) from the twin's exact count of the
      seat's deals, :meth:`~deduction_envs.envs.generalized_clue_batched.BatchedGeneralizedClueSeats.solve` (the
      Python agent's ``knowledge.solution()``): it
      guesses when certain, when it may ask nobody, at ``threshold``, or with ``race`` when rivals near on the
      public record make waiting dearer than the gamble;
    * else the candidate asks of :func:`~deduction_envs.reasoning.clue_suggestions.ask_candidates` (a draw a card
      of each target's shuffle), only those sure to learn with ``sure`` if any, each scored over ``samples`` deals
      drawn from the number it draws next, ``int(u * 2**53)``, by the compiled sweep
      (:func:`~deduction_envs.reasoning.clue_sweep.deal_seat`), as
      :func:`~deduction_envs.reasoning.clue_suggestions.score_asks` scores them (the case file's expected entropy,
      or the sum of each card's, with ``listeners`` times the public answer's); the best made (ties within 1e-9
      drawn), padded with ``pad``. Past the sweep's budget the scores come from ``score_asks`` given that number.

    It counts a seat's deals whole, so it plays the games whose first view has at most
    :data:`~deduction_envs.envs.generalized_clue_batched.DEAL_LIMIT` deals (the 12- and 14-card games of three
    and four players); larger games are refused with a ValueError.
    """

    name = "exact"

    def __init__(self, threshold: float = 1.0, samples: int = 1000, listeners: float = 0.5, race: bool = True,
                 pad: bool = False, sure: bool = False) -> None:  # fmt: skip
        super().__init__()
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold <= 1:
            raise ValueError(f"threshold must be a probability in (0, 1], got {threshold!r}")
        if isinstance(listeners, bool) or not isinstance(listeners, int | float) or not listeners >= 0:
            raise ValueError(f"listeners must be a weight >= 0, got {listeners!r}")
        for flag, value in (("race", race), ("pad", pad), ("sure", sure)):
            if not isinstance(value, bool):
                raise ValueError(f"{flag} must be True or False, got {value!r}")
        self.threshold, self.listeners = float(threshold), float(listeners)
        self.samples = check_int("samples", samples, low=1)
        self.race, self.pad, self.sure = race, pad, sure
        self._work: dict[str, np.ndarray] = {}
        self._engine: Any = None

    def draws(self, rules: Any) -> int:
        return (rules.players - 1) * rules.cards + 2

    def refusal(self, seats: Any) -> str | None:
        """Why it cannot play the games of ``seats`` (their deals past the twin's count), or None if it can."""
        if seats.deal_bound <= DEAL_LIMIT:
            return None
        return (f"the compiled exact agent counts a seat's deals whole: {seats.deal_bound:,} from a first view "
                f"here, over the {DEAL_LIMIT:,} the twin enumerates (the Python agent plays these sizes)")  # fmt: skip

    def act(self, seats: Any, games: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        batch, rules = seats.games, seats.games.rules
        why = self.refusal(seats)
        if why:
            raise ValueError(why)
        games, uniforms = self._start(seats, games, uniforms)
        work = self._sized(seats)
        deciding = games & (batch.phase == _START)
        probabilities, cases = seats.solve(deciding, batch.mover)
        masks = batch.legal_masks()
        actions = np.zeros(batch.n, dtype=np.int64)
        sizes = np.array(rules.hand_sizes, dtype=np.int64)
        sweep_sizes, category_masks, case_counts, _ = self._engine._model.sweep_table
        work["given"][:] = False
        while games.any():  # past the sweep's budget: scored in Python from the same number, and decided again
            work["pending"][:] = False
            if not _exact_actions(games, batch.mover, batch.turn, batch.phase, batch.chosen, batch.asked, batch.out,
                                  seats.hand, seats.record, seats.asks, seats.ask_count, seats.revealed,
                                  seats.required, seats.forbidden, seats.clauses, seats.dirty, seats._full,
                                  seats._groups, masks, probabilities, cases, seats._binomials, sizes, rules.hidden,
                                  uniforms, self._plan, actions, self.threshold, self.samples, self.listeners,
                                  self.race, self.pad, self.sure, sweep_sizes, category_masks, case_counts,
                                  SWEEP_WORK, work["deals"], work["held_by"], work["values"], work["table"],
                                  work["counted"], work["singles"], work["cand_q"], work["cand_bits"],
                                  work["cand_n"], work["scores"], work["given"], work["pending"],
                                  work["seeds"]):  # fmt: skip
                raise RuntimeError("a seat's facts contradict: the batched game and its events disagree")
            for g in np.flatnonzero(work["pending"]):
                s = int(batch.mover[g])
                facts = facts_of(seats.required[g, s], seats.forbidden[g, s], seats.clauses[g, s])
                sheet = np.where(probabilities[g] == 1.0, 1, np.where(probabilities[g] == 0.0, 0, -1))
                asks = [(int(q), tuple(int(c) for c in range(rules.cards) if bits >> c & 1))
                        for q, bits in zip(work["cand_q"][g, : work["cand_n"][g]],
                                           work["cand_bits"][g, : work["cand_n"][g]], strict=True)]  # fmt: skip
                found = score_asks(self._engine.with_facts(facts), asks, self.samples, sheet=sheet.astype(np.int8),
                                   listeners=self.listeners, seed=int(work["seeds"][g]))  # fmt: skip
                work["scores"][g, : len(asks)] = found
                work["given"][g] = True
            games = work["pending"].copy()
        return actions

    def _sized(self, seats: Any) -> dict[str, np.ndarray]:
        """The working arrays for this batch (made anew when the batch or the game changes)."""
        batch, rules = seats.games, seats.games.rules
        n, players, cards = batch.n, rules.players, rules.cards
        most = (players - 1) * (cards + 3)  # candidates: per target each card, all, a half, the sure-to-learn list
        shape = (n, most, self.samples, cards, players, rules.hidden)
        width = max(cards + 1, self.samples // 4)  # an outcome's row: by case file, or by card and its total
        if self._work.get("shape") is None or tuple(self._work["shape"]) != shape:
            self._engine = seats.observer.new_knowledge(0).engine
            self._work = {
                "shape": np.array(shape),
                "deals": np.zeros((self.samples, cards), dtype=np.int64),
                "held_by": np.zeros((self.samples, players + 1), dtype=np.int64),
                "values": np.zeros((self.samples, rules.hidden), dtype=np.int64),
                "table": np.zeros((cards + 1) * width),
                "counted": np.zeros(players, dtype=np.bool_),
                "singles": np.zeros((players, cards, width)),
                "cand_q": np.zeros((n, most), dtype=np.int64),
                "cand_bits": np.zeros((n, most), dtype=np.int64),
                "cand_n": np.zeros(n, dtype=np.int64),
                "scores": np.zeros((n, most)),
                "given": np.zeros(n, dtype=np.bool_),
                "pending": np.zeros(n, dtype=np.bool_),
                "seeds": np.zeros(n, dtype=np.int64),
            }
        return self._work


#: The compiled twins, by the roster's names (:mod:`agents.roster`).
BATCHED_AGENTS: dict[str, type] = {
    "random": BatchedGeneralizedClueRandom,
    "scoreboard": BatchedScoreboard,
    "exact": BatchedGeneralizedClueExact,
}


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


@njit(cache=True)
def _exact_actions(games, mover, turn, phase, chosen, asked, out, hand, record, asks, count, revealed, required,
                   forbidden, clauses, dirty, full, groups, masks, probabilities, cases, binomials, sizes, hidden,
                   uniforms, plan, actions, threshold, samples, listeners, race, pad, sure, sweep_sizes,
                   category_masks, case_counts, budget, deals, held_by, values, table, counted, singles, cand_q,
                   cand_bits, cand_n, scores, given, pending, seeds):  # pragma: no cover - compiled  # fmt: skip
    """:class:`BatchedGeneralizedClueExact`'s action in each game ``games`` marks; False if a seat's facts
    contradict. A game whose deals are past the sweep's budget is marked ``pending`` (its candidates and number
    kept) and decided again once its ``scores`` are ``given``."""
    players, cards = sizes.size, record.shape[4]
    for g in range(games.size):
        if not games[g]:
            continue
        s = mover[g]
        step = _planned_step(phase[g], asked[g] & hand[g, s], record[g, s, 0], turn[g], uniforms[g, 0],
                             plan[g, s] & ~chosen[g], cards + players + 1)  # fmt: skip
        if step >= 0:
            actions[g] = step
            continue
        held = np.zeros(players + 1, dtype=np.int64)  # the exact sheet: certainly there, certainly not
        lacked = np.zeros(players + 1, dtype=np.int64)
        for c in range(cards):
            for p in range(players + 1):
                if probabilities[g, c, p] == 1.0:
                    held[p] |= np.int64(1) << c
                elif probabilities[g, c, p] == 0.0:
                    lacked[p] |= np.int64(1) << c
        if popcount(held[players]) == hidden:  # certain: guess the case file
            plan[g, s] = held[players]
            actions[g] = cards + players
            continue
        likeliest, chance = _likeliest(cases[g], binomials, cards, hidden)
        targets = 0
        for q in range(players):
            if masks[g, cards + q]:
                targets += 1
        if targets == 0 or (threshold < 1.0 and chance >= threshold) or (
            race and _rush(g, s, chance, asks, count, revealed, out, sizes, cards, hidden)
        ):
            plan[g, s] = likeliest
            actions[g] = cards + players
            continue
        # The candidate asks (ask_candidates), for each target in turn order after it.
        n = 0
        at = 0
        first = -1
        for i in range(1, players):
            q = (s + i) % players
            if not masks[g, cards + q]:
                continue
            if first < 0:
                first = q
            maybe = full & ~held[q] & ~lacked[q]
            size = popcount(maybe)
            if size == 0:
                continue
            left = sizes[q] - popcount(held[q])
            for c in range(cards):
                if maybe >> c & 1:
                    n = _candidate(cand_q[g], cand_bits[g], n, q, np.int64(1) << c)
            n = _candidate(cand_q[g], cand_bits[g], n, q, maybe)
            rest, half, enough = maybe, np.int64(0), np.int64(0)
            k = max(1, size - left + 1)
            for j in range(size):  # rng.permutation(maybe): each card drawn from those left
                c = pick(rest, uniforms[g, at])
                at += 1
                rest &= ~(np.int64(1) << c)
                if j < size // 2:
                    half |= np.int64(1) << c
                if j < k:
                    enough |= np.int64(1) << c
            if size > 1:
                n = _candidate(cand_q[g], cand_bits[g], n, q, half)
            if k < size:
                n = _candidate(cand_q[g], cand_bits[g], n, q, enough)
        if sure:  # only the asks sure to show a new card, if there are any
            kept = 0
            for i in range(n):
                q, bits = cand_q[g, i], cand_bits[g, i]
                maybe = full & ~held[q] & ~lacked[q]
                left = sizes[q] - popcount(held[q])
                if left > 0 and bits & ~maybe == 0 and popcount(bits) > popcount(maybe) - left:
                    cand_q[g, kept], cand_bits[g, kept] = q, bits
                    kept += 1
            if kept > 0:
                n = kept
        cand_n[g] = n
        if n == 0:  # nothing to learn from anyone still in: the first about every card
            plan[g, s] = full
            actions[g] = cards + first
            continue
        seed = np.int64(uniforms[g, at] * 9007199254740992.0)  # rng.integers(2**53)
        at += 1
        if not given[g]:
            if not settled(g, s, required, forbidden, clauses, dirty, full, groups):
                return False
            status, _, _ = deal_seat(required[g, s], forbidden[g, s], clauses[g, s], sweep_sizes, category_masks,
                                     case_counts, full, budget, seed, 0, deals)  # fmt: skip
            if status == CONTRADICTION:
                return False
            if status != EXACT:
                pending[g] = True
                seeds[g] = seed
                continue
            _score_asks(deals, players, cards, hidden, full & ~lacked[players], binomials, samples, listeners,
                        cand_q[g], cand_bits[g], n, held_by, values, table, counted, singles, scores[g])  # fmt: skip
        best = np.inf
        for i in range(n):
            best = min(best, scores[g, i])
        ties = 0
        for i in range(n):
            if scores[g, i] <= best + 1e-9:
                ties += 1
        chosen_tie = int(uniforms[g, at] * ties)
        pick_i = 0
        for i in range(n):
            if scores[g, i] <= best + 1e-9:
                if chosen_tie == 0:
                    pick_i = i
                    break
                chosen_tie -= 1
        q, bits = cand_q[g, pick_i], cand_bits[g, pick_i]
        if pad:  # every card it knows another player holds, its own hand among them
            for p in range(players):
                if p != q:
                    bits |= held[p]
        plan[g, s] = bits
        actions[g] = cards + q
    return True


@njit(cache=True)
def _candidate(cand_q, cand_bits, n, q, bits):  # pragma: no cover - compiled
    """The ask (``q``, ``bits``) added after the ``n`` candidates unless one of them is it: the new count."""
    for i in range(n):
        if cand_q[i] == q and cand_bits[i] == bits:
            return n
    cand_q[n], cand_bits[n] = q, bits
    return n + 1


@njit(cache=True)
def _likeliest(cases, binomials, cards, hidden):  # pragma: no cover - compiled
    """The case file with the most deals (bits; the first in sorted order on ties, as ``np.argmax`` over the
    solution's sorted case files) and its probability, from the deals of each case file ranked colex."""
    combo = np.arange(hidden)
    total = 0
    for r in range(cases.size):
        total += cases[r]
    best, best_count = np.int64(0), -1
    while True:
        rank = 0
        for j in range(hidden):
            rank += binomials[combo[j], j + 1]
        if cases[rank] > best_count:
            best_count = cases[rank]
            best = np.int64(0)
            for j in range(hidden):
                best |= np.int64(1) << combo[j]
        j = hidden - 1  # the next combination in lexicographic order
        while j >= 0 and combo[j] == cards - hidden + j:
            j -= 1
        if j < 0:
            break
        combo[j] += 1
        for i in range(j + 1, hidden):
            combo[i] = combo[i - 1] + 1
    return best, float(best_count) / float(total)


@njit(cache=True)
def _rank_reward(rank, players):  # pragma: no cover - compiled
    return 1.0 - 2.0 * (rank - 1.0) / (players - 1)


@njit(cache=True)
def _rush(g, s, chance, asks, count, revealed, out, sizes, cards, hidden):  # pragma: no cover - compiled
    """``GeneralizedClueExact._rush``: whether guessing now, right with probability ``chance``, beats waiting
    while the rivals near on the public record (each knows its hand, a card for each of its asks answered yes and
    the hands of the players gone) guess first."""
    players = sizes.size
    yes = np.zeros(players, dtype=np.int64)
    for a in range(count[g]):
        if asks[g, a, 3]:
            yes[asks[g, a, 0]] += 1
    gone, outs = 0, 0
    for q in range(players):
        if out[g, q]:
            gone += popcount(revealed[g, q])
            outs += 1
    rivals = 0
    for q in range(players):
        if q != s and not out[g, q] and sizes[q] + yes[q] + gone >= cards - hidden:
            rivals += 1
    if rivals == 0:
        return False
    place = 1 + outs
    right, wrong = _rank_reward(place, players), _rank_reward(players, players)
    return chance * right + (1 - chance) * wrong > _rank_reward(min(place + rivals, players), players)


@njit(cache=True)
def _binary_bits(p):  # pragma: no cover - compiled
    return -p * np.log2(p) - (1 - p) * np.log2(1 - p) if 0.0 < p < 1.0 else 0.0


@njit(cache=True)
def _score_asks(deals, players, cards, hidden, possible, binomials, samples, listeners, cand_q, cand_bits, n,
                held_by, values, table, counted, singles, scores):  # pragma: no cover - compiled  # fmt: skip
    """``score_asks`` over the drawn ``deals`` for the ``n`` candidates, into ``scores``: the case file's
    expected entropy after the answer ("no", or each matching card shown with equal chance), Miller-Madow per
    outcome, keyed by the case file's rank among the ``possible`` cards' when those case files are at most a
    quarter of the deals; else the sum over the cards of each one's entropy of being hidden; plus ``listeners``
    times the entropy of the public yes. ``table`` holds each outcome's weights by case file (or by card, and the
    outcome's total last). An ask of one card is scored from counts made once a target (``singles[q, c]``: the
    deals in which ``q`` holds ``c``, by case file or hidden card, and their number last; ``counted[q]``: made),
    its "no" the rest of the deals: the same whole numbers as deal by deal."""
    m = deals.shape[0]
    index = np.zeros(cards, dtype=np.int64)  # each possible card's place among them
    k = 0
    for c in range(cards):
        index[c] = k
        if possible >> c & 1:
            k += 1
    keyed = binomials[k, hidden] <= samples // 4
    width = binomials[k, hidden] if keyed else cards + 1
    every = np.zeros(width)  # the deals by case file (or by hidden card, and their number last)
    for d in range(m):
        held_by[d, :] = 0
        for c in range(cards):
            held_by[d, deals[d, c]] |= np.int64(1) << c
        rank, taken, case = 0, 0, held_by[d, players]
        for c in range(cards):
            if case >> c & 1:
                if not keyed:  # the case file's cards
                    values[d, taken] = c
                    every[c] += 1.0
                taken += 1
                rank += binomials[index[c], taken]
        if keyed:  # the case file's colex rank among the possible cards' (it orders as the case file's bits)
            values[d, 0] = rank
            every[rank] += 1.0
        else:
            every[cards] += 1.0
    counted[:] = False
    for i in range(n):
        q, bits = cand_q[i], cand_bits[i]
        rows = bits << 1 | 1  # the outcomes: "no" (row 0) and each card shown (row 1 + card)
        for o in range(cards + 1):
            if rows >> o & 1:
                table[o * width : (o + 1) * width] = 0.0
        if popcount(bits) == 1:
            if not counted[q]:
                _count_singles(held_by, values, q, keyed, hidden, cards, width, singles)
                counted[q] = True
            c = pick(bits, 0.0)
            for v in range(width):
                table[(1 + c) * width + v] = singles[q, c, v]
                table[v] = every[v] - singles[q, c, v]
            yes = singles[q, c, cards] if not keyed else 0.0
            if keyed:
                for v in range(width):
                    yes += singles[q, c, v]
        else:
            yes = 0.0
            for d in range(m):
                mine = held_by[d, q] & bits
                matching = popcount(mine)
                yes += matching > 0
                w = 1.0 / matching if matching else 1.0
                while True:  # outcome 0 ("no") once, or each matching card's, 1 + card, with its share
                    outcome = 0
                    if matching:
                        c = pick(mine, 0.0)
                        mine &= ~(np.int64(1) << c)
                        outcome = 1 + c
                    row = outcome * width
                    if keyed:
                        table[row + values[d, 0]] += w
                    else:
                        table[row + cards] += w
                        for j in range(hidden):
                            table[row + values[d, j]] += w
                    if not mine:
                        break
        score = 0.0
        if keyed:  # sum_o n_o log n_o - sum_oc n_oc log n_oc, over the total, and Miller-Madow's term
            both, single, total, seen = 0.0, 0.0, 0.0, 0
            for o in range(cards + 1):
                if not rows >> o & 1:
                    continue
                n_o, k_o = 0.0, 0
                for v in range(width):
                    x = table[o * width + v]
                    if x > 0.0:
                        n_o += x
                        k_o += 1
                        both += x * np.log2(x)
                if n_o > 0.0:
                    single += n_o * np.log2(n_o)
                    total += n_o
                    seen += k_o - 1
            score = max((single - both) / total + seen / (2 * total * np.log(2.0)), 0.0)
        else:  # each outcome's weight times the sum of each card's binary entropy of being hidden given it
            for o in range(cards + 1):
                n_o = table[o * width + cards]
                if rows >> o & 1 and n_o > 0.0:
                    bits_o = 0.0
                    for c in range(cards):
                        bits_o += _binary_bits(min(max(table[o * width + c] / n_o, 0.0), 1.0))
                    score += n_o * bits_o
            score /= m
        scores[i] = score + listeners * _binary_bits(yes / m)


@njit(cache=True)
def _count_singles(held_by, values, q, keyed, hidden, cards, width, singles):  # pragma: no cover - compiled
    """``singles[q, c]``: the deals in which ``q`` holds card ``c``, by case file (keyed) or by hidden card and
    their number last."""
    singles[q, :, :width] = 0.0
    for d in range(held_by.shape[0]):
        mine = held_by[d, q]
        while mine:
            c = pick(mine, 0.0)
            mine &= ~(np.int64(1) << c)
            if keyed:
                singles[q, c, values[d, 0]] += 1.0
            else:
                singles[q, c, cards] += 1.0
                for j in range(hidden):
                    singles[q, c, values[d, j]] += 1.0
