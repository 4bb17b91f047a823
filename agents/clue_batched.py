"""Clue's reference opponents inside the batch (issue 61): compiled twins of the random agent and the
deduction-sheet player, deciding for many games of a
:class:`~deduction_envs.envs.clue_batched.BatchedClueSeats` at once.

Each reads only what its seat knows in each game (the seat's facts, hand and record, the public position and its
legal actions; never the deal) and makes the decision of its Python agent (:class:`agents.multiplayer.
RandomSeatAgent`, :class:`agents.clue_agents.ClueDeductionSheet`) from the same information: its random draws
are given as uniform numbers, ``uniforms[g, k]`` for the ``k``-th draw of game ``g``'s decision, where the Python
agent draws ``rng.integers(k)`` or ``rng.choice(pool)``; fed the same numbers, the two decide alike
(``tests/test_conformance.py``).

    import numpy as np

    from agents.batched import DRAWS
    from agents.clue_batched import batched_agent
    from deduction_envs.envs.clue_batched import BatchedClueSeats
    from deduction_envs.games.clue import ClueRules
    from deduction_envs.games.clue_batched import BatchedClueRules

    seats = BatchedClueSeats(BatchedClueRules(ClueRules(4), 256))
    seats.reset(seeds=range(256))
    sheet, rng = batched_agent("deduction_sheet"), np.random.default_rng(0)
    actions = sheet.act(seats, seats.games.mover == 0, rng.random((256, DRAWS)))  # where seat 0 is to act
"""

from __future__ import annotations

import math
import weakref

import numpy as np
from numba import njit

from agents.batched import DRAWS, BatchedAgent, BatchedRandom, checked, named_agent, pick, popcount, reshown
from agents.clue_velma import SCORES, VELMA_THRESHOLD
from deduction_envs.core.rules import check_int
from deduction_envs.envs.clue_batched import BatchedClueSeats, settled
from deduction_envs.games.clue import CluePhase
from deduction_envs.games.clue_board import TWO_DICE
from deduction_envs.games.clue_board_batched import reach_nodes
from deduction_envs.reasoning.clue_facts import DEAD, facts_of, propagate_masks
from deduction_envs.reasoning.clue_suggestions import score_deals, score_suggestions, sixths_table, suggestion_table
from deduction_envs.reasoning.clue_sweep import CONTRADICTION, EXACT, SWEEP_WORK, deal_seat, solve_seat

__all__ = ["BATCHED_AGENTS", "BatchedDeductionSheet", "BatchedEntropyAgent", "BatchedVelma", "BatchedVelmaRate",
           "batched_agent"]

_START, _SHOW = int(CluePhase.START), int(CluePhase.SHOW)


class BatchedDeductionSheet:
    """:class:`agents.clue_agents.ClueDeductionSheet` (its own rule for the card to show) for many games: it
    accuses when its facts name the case file, else suggests a card of unknown place per category (else one of
    its own, else any), ends its turn after a suggestion, and refutes with a card already shown to the asker, else
    to anyone, else any it holds. On the board it heads for the nearest room whose place it does not know (else
    one of its own or the case file's), as :func:`agents.clue_moves.head_for`: the passage if it leads there, else
    the roll, then the room if the roll reaches it, else the reachable square nearest it; it suggests in the
    room it enters (or was summoned to), naming that room."""

    name = "deduction-sheet"

    def draws(self, rules: object) -> int:
        return DRAWS

    def act(self, seats: BatchedClueSeats, games: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        games, uniforms = checked(seats, games, uniforms)
        batch, rules = seats.games, seats.games.rules
        actions = np.zeros(batch.n, dtype=np.int64)
        starts = np.array(rules.category_starts, dtype=np.int64)
        sizes = np.array(rules.category_sizes, dtype=np.int64)
        if seats.board:
            board, masks = rules.board, batch.legal_masks()
            moves = (batch.positions, batch.roll, batch.moved, masks, board.room_rolls, board.distances,
                     batch._passages, board.squares, rules.roll_action)  # fmt: skip
        else:
            none = np.zeros((1, 1), dtype=np.int64)
            moves = (none, none[0], np.zeros(1, dtype=np.bool_), np.zeros((1, 1), dtype=np.bool_),
                     np.zeros((1, 1)), none, none[0], 0, 0)  # fmt: skip
        ok = _sheet_actions(games, batch.mover, batch.phase, batch.turn, batch.suggestion, seats.hand,
                            seats.required, seats.forbidden, seats.clauses, seats.dirty, seats.record, seats._full,
                            seats._groups, starts, sizes, rules.num_triples, rules.end_action, uniforms, actions,
                            seats.board, getattr(rules, "accusations", "anywhere") == "room", *moves)  # fmt: skip
        if not ok:
            raise RuntimeError("a seat's facts contradict: the batched game and its events disagree")
        return actions


class BatchedEntropyAgent:
    """:class:`agents.clue_agents.ClueEntropyAgent` as the roster seats it (``"entropy"``: the uniform refuter
    model, accusing only when its exact sheet names the case file, Velma's card to show) for many games, with and
    without the board, deciding as it does on the same draws.

    Its sheet is the twin's count of the seat's deals (:meth:`BatchedClueSeats.count`, the AEC seat's
    ``solution()``). Its suggestion scores are made as the Python agent makes them, once each time the seat's
    facts change (or a new game is dealt): the deals from the number it draws first, ``int(u * 2**53)`` (every
    consistent deal when at most ``enumerate_limit``, else ``samples`` uniform ones:
    :func:`~deduction_envs.reasoning.clue_sweep.deal_seat`), each suggestion's expected entropy after its answer
    over them (:func:`~deduction_envs.reasoning.clue_suggestions.score_deals`); then the best allowed suggestion
    (ties within 1e-9 bits drawn), or on the board the move toward the room of its best suggestion
    (:func:`agents.clue_moves.head_for`). Where the seat's facts are past the sweep's budget (rare: 6 players),
    its scores come from :func:`~deduction_envs.reasoning.clue_suggestions.score_suggestions` given that number,
    as the Python agent's do.

    Args:
        samples: deals drawn to score suggestions when they are not all listed (the Python agent's ``samples``).
        enumerate_limit: the largest exact count of deals that is listed whole (the Python agent's, 500).
        threshold: the probability of the likeliest case file at which it accuses: 1 (the default) when its
            exact sheet names the case file, else when the seat's case-file distribution
            (:func:`~deduction_envs.reasoning.clue_sweep.solve_seat`, the AEC seat's ``solution()``) reaches it.
    """

    name = "entropy"
    #: How it moves on the board: toward its best suggestion (0), or as Velma (:class:`BatchedVelma`) with
    #: pyvelma's sum (1) or rate (2).
    velma = 0

    def __init__(self, samples: int = 2000, enumerate_limit: int = 500, threshold: float = 1.0) -> None:
        self.samples = check_int("samples", samples, low=1)
        self.enumerate_limit = check_int("enumerate_limit", enumerate_limit, low=0)
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold <= 1:
            raise ValueError(f"threshold must be a probability in (0, 1], got {threshold!r}")
        self.threshold = float(threshold)
        self.remoteness = 1.0
        #: Per seats object (held weakly): the scores of each (game, seat) and what they were made from.
        self._memory: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def draws(self, rules: object) -> int:
        return DRAWS

    def act(self, seats: BatchedClueSeats, games: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        games, uniforms = checked(seats, games, uniforms)
        batch = seats.games
        memory = self._memory.get(seats)
        if memory is None:
            memory = self._memory[seats] = _ScoreMemory(seats, max(self.samples, self.enumerate_limit))
        memory.fit(seats)
        masks = batch.legal_masks()
        deciding = games & (batch.phase != _SHOW)
        seats.count(deciding, batch.mover)  # the exact sheets (the engine's where the sweep is over its budget)
        actions = np.zeros(batch.n, dtype=np.int64)
        memory.scored_now[:] = False
        if self.threshold < 1.0:  # the likeliest case file of each seat to decide (the engine's past the budget)
            memory.pending[:] = False
            table = seats._table
            if not _likeliest_cases(deciding, batch.mover, seats.required, seats.forbidden, seats.clauses,
                                    seats.dirty, seats._full, seats._groups, seats.dealt, memory.case_keys[0],
                                    memory.case_keys[1], memory.case_keys[2], memory.case_keys[3], *table,
                                    SWEEP_WORK, memory.sizes, memory.case_scratch, memory.likeliest, memory.likeliest_p,
                                    memory.pending):  # fmt: skip
                raise RuntimeError("a seat's facts contradict: the batched game and its events disagree")
            for g in np.flatnonzero(memory.pending):
                s = int(batch.mover[g])
                solution = seats.counted(int(g), s)[1]
                best = int(np.argmax(solution.case_file_probabilities))
                index = 0
                for card, start, size in zip(solution.case_files[best], memory.starts, memory.sizes, strict=True):
                    index = index * int(size) + int(card) - int(start)
                memory.likeliest[g, s], memory.likeliest_p[g, s] = index, solution.case_file_probabilities[best]
        arguments = self._arguments(seats, memory, masks, uniforms, actions)
        deciding = games.copy()
        while deciding.any():  # past the sweep's budget: the Python scoring, from the same number, and again
            memory.pending[:] = False
            if not _entropy_actions(deciding, *arguments):
                raise RuntimeError("a seat's facts contradict: the batched game and its events disagree")
            for g in np.flatnonzero(memory.pending):
                s = int(batch.mover[g])
                facts = facts_of(seats.required[g, s], seats.forbidden[g, s], seats.clauses[g, s])
                found = score_suggestions(seats._engine.with_facts(facts), s, samples=self.samples,
                                          enumerate_limit=self.enumerate_limit, seed=int(memory.seeds[g]))
                memory.expected[g, s], memory.now[g, s] = found.expected_entropy, found.entropy
            deciding = memory.pending.copy()
        return actions

    def _arguments(self, seats: BatchedClueSeats, memory: _ScoreMemory, masks: np.ndarray, uniforms: np.ndarray,
                   actions: np.ndarray) -> tuple:  # fmt: skip
        batch, rules = seats.games, seats.games.rules
        if seats.board:
            board = rules.board
            moves = (batch.positions, batch.roll, batch.moved, board.room_rolls, board.distances, batch._passages,
                     board.squares, rules.roll_action, batch._offsets, batch._neighbours, TWO_DICE,
                     np.zeros(board.nodes, dtype=np.bool_))  # fmt: skip
        else:
            none = np.zeros((1, 1), dtype=np.int64)
            moves = (none, none[0], np.zeros(1, dtype=np.bool_), np.zeros((1, 1)), none, none[0], 0, 0, none[0],
                     none[0], np.zeros(13), np.zeros(1, dtype=np.bool_))  # fmt: skip
        sweep_sizes, category_masks, case_counts = seats._table
        return (batch.mover, batch.phase, batch.turn, batch.suggestion, seats.hand, seats.required,
                seats.forbidden, seats.clauses, seats.dirty, seats.record, seats._full, seats._groups,
                seats._sheet, seats.dealt, memory.starts, memory.sizes, memory.triples, rules.num_triples,
                rules.end_action, masks, uniforms, actions, memory.key_dealt, memory.key_required,
                memory.key_forbidden, memory.key_clauses, memory.expected, memory.scored_now, memory.pending,
                memory.seeds, memory.deals, memory.xlogx, self.samples, self.enumerate_limit, sweep_sizes,
                category_masks, case_counts, SWEEP_WORK, self.threshold, memory.likeliest, memory.likeliest_p,
                self.velma, self.remoteness, memory.now, seats._probabilities, seats.board,
                getattr(rules, "accusations", "anywhere") == "room", *moves)  # fmt: skip


class _ScoreMemory:
    """What a compiled entropy agent keeps for one seats object: each (game, seat)'s suggestion scores and the
    facts and deal they were made from (``key_*``; ``key_dealt`` -1: none yet), and its working arrays."""

    def __init__(self, seats: BatchedClueSeats, rows: int) -> None:
        rules = seats.games.rules
        n, players = seats.games.n, rules.players
        self.starts = np.array(rules.category_starts, dtype=np.int64)
        self.sizes = np.array(rules.category_sizes, dtype=np.int64)
        self.triples = suggestion_table(seats._engine)
        self.expected = np.zeros((n, players, rules.num_triples))
        self.key_dealt = np.full((n, players), -1, dtype=np.int64)
        self.key_required = np.zeros_like(seats.required)
        self.key_forbidden = np.zeros_like(seats.forbidden)
        self.key_clauses = np.zeros_like(seats.clauses)
        self.scored_now = np.zeros(n, dtype=np.bool_)  # the seat's scores were made this decision (a draw taken)
        self.pending = np.zeros(n, dtype=np.bool_)  # past the sweep's budget: scored in Python
        self.seeds = np.zeros(n, dtype=np.int64)
        self.deals = np.zeros((rows, rules.cards), dtype=np.int64)
        self.xlogx = sixths_table(rows)
        #: The case file's entropy over each seat's deals (Velma's entropy now), kept with its scores.
        self.now = np.zeros((n, players))
        #: Each seat's likeliest case file (in triple order) and its probability, and the facts they are of.
        self.likeliest = np.zeros((n, players), dtype=np.int64)
        self.likeliest_p = np.zeros((n, players))
        self.case_scratch = np.zeros((rules.cards, players + 1))
        self.case_keys = (np.full((n, players), -1, dtype=np.int64), np.zeros_like(seats.required),
                          np.zeros_like(seats.forbidden), np.zeros_like(seats.clauses))  # fmt: skip

    def fit(self, seats: BatchedClueSeats) -> None:
        """The kept clause tables as long as the seats' (which double when a seat's open clauses fill them), the
        rows added dead: the same live clauses, so the same facts."""
        rows = seats.clauses.shape[2]
        if self.key_clauses.shape[2] != rows:
            self.key_clauses = _longer_table(self.key_clauses, rows)
            self.case_keys = (*self.case_keys[:3], _longer_table(self.case_keys[3], rows))


def _longer_table(table: np.ndarray, rows: int) -> np.ndarray:
    """A clause table ``(n, players, r, 3)`` with ``rows`` rows, the new ones dead."""
    longer = np.full((*table.shape[:2], rows, table.shape[3]), DEAD, dtype=table.dtype)
    longer[:, :, : table.shape[2]] = table
    return longer


class BatchedVelma(BatchedEntropyAgent):
    """:class:`agents.clue_velma.ClueVelma` as the roster seats it (``"velma"``: pyvelma's sum of the entropy in
    nats and the remoteness, accusing at probability 0.79) for many games, deciding as it does on the same draws:
    the entropy agent's scores, sheet and card to show (:class:`BatchedEntropyAgent`), the likeliest case file
    from the seat's case-file distribution, and on the board every destination scored by the entropy after its
    room's best suggestion (or the entropy now, over the same deals) plus its expected rolls to the murder room:
    the best reachable node after the roll (ties drawn), and before it the roll (its expected best score over the
    sums of two dice), the passage or the summoned suggestion, whichever scores best.

    Args:
        score: ``"sum"`` (pyvelma's, the default) or ``"rate"`` (the expected entropy reduction per expected turn,
            :func:`agents.clue_velma.destination_scores`; the roster's ``velma_rate``).
        samples, enumerate_limit: as :class:`BatchedEntropyAgent`'s.
        threshold: the likeliest case file's probability at which it accuses (default 0.79, Velma's).
        remoteness: the weight of the remoteness (default 1, pyvelma's).
    """

    name = "velma"

    def __init__(self, score: str = "sum", samples: int = 2000, enumerate_limit: int = 500,
                 threshold: float = VELMA_THRESHOLD, remoteness: float = 1.0) -> None:  # fmt: skip
        super().__init__(samples, enumerate_limit, threshold)
        if score not in SCORES:
            raise ValueError(f"score must be one of {', '.join(SCORES)}, got {score!r}")
        if isinstance(remoteness, bool) or not isinstance(remoteness, int | float) or not 0 <= remoteness < np.inf:
            raise ValueError(f"remoteness must be a weight >= 0, got {remoteness!r}")
        self.remoteness = float(remoteness)
        self.velma = 1 + SCORES.index(score)
        self.name = "velma" if score == "sum" else "velma_rate"


class BatchedVelmaRate(BatchedVelma):
    """:class:`BatchedVelma` with the rate score, as the roster's ``velma_rate`` (``ClueVelma(score="rate")``)."""

    def __init__(self, samples: int = 2000, enumerate_limit: int = 500, threshold: float = VELMA_THRESHOLD,
                 remoteness: float = 1.0) -> None:  # fmt: skip
        super().__init__("rate", samples, enumerate_limit, threshold, remoteness)


#: The compiled twins, by the roster's names (:mod:`agents.roster`).
BATCHED_AGENTS: dict[str, type] = {
    "random": BatchedRandom,
    "deduction_sheet": BatchedDeductionSheet,
    "entropy": BatchedEntropyAgent,
    "velma": BatchedVelma,
    "velma_rate": BatchedVelmaRate,
}


def batched_agent(name: str) -> BatchedAgent:
    """A compiled reference agent of Clue by its roster name (ValueError naming the choices if none)."""
    return named_agent(BATCHED_AGENTS, "Clue", name)


@njit(cache=True)
def _sheet_actions(games, mover, phase, turn, suggestion, hand, required, forbidden, clauses, dirty, record, full,
                   groups, starts, sizes, triples, end_action, uniforms, actions, board, room_rule, positions,
                   roll, moved, masks, room_rolls, distances, passages, squares, roll_action
                   ):  # pragma: no cover  # fmt: skip
    players = required.shape[1]
    rooms = sizes[-1]
    for g in range(games.size):
        if not games[g]:
            continue
        s = mover[g]
        if phase[g] == _SHOW:  # a card it holds of the suggestion: reshown to the asker, else to anyone, else any
            held = _held(hand[g, s], suggestion[g])
            actions[g] = end_action + 1 + reshown(held, record[g, s, 0], turn[g], uniforms[g, 0])
            continue
        if dirty[g, s]:
            if not propagate_masks(required[g, s], forbidden[g, s], full, groups, clauses[g, s]):
                return False
            dirty[g, s] = False
        case_file = required[g, s, players]
        rolled = board and phase[g] == _START and roll[g] > 0 and not moved[g]  # only a move is legal
        only = -1  # the one room to head for: the case file's, where the rule keeps the accusation to it
        if popcount(case_file) == starts.size:  # the sheet names the case file: accuse
            index = 0
            for k in range(starts.size):
                card = pick(case_file & (((np.int64(1) << sizes[k]) - 1) << starts[k]), 0.0)
                index = index * sizes[k] + card - starts[k]
            if not rolled and (not room_rule or masks[g, triples + index]):
                actions[g] = triples + index
                continue
            if room_rule:
                only = index % rooms  # the room is the fastest index
        known = 0
        for place in range(players + 1):
            known |= required[g, s, place]
        if board and phase[g] == _START and not moved[g]:
            wanted = _sheet_rooms(known, required[g, s, s] | case_file, only, starts[-1], rooms)
            move = _head_for(g, s, wanted, 0, positions, roll, masks, room_rolls, distances, passages, squares,
                             triples, roll_action, uniforms)  # fmt: skip
            if move >= 0:
                actions[g] = move
                continue
        if phase[g] != _START:  # after its suggestion: end the turn
            actions[g] = end_action
            continue
        allowed = np.int64(0)  # the rooms it may name (on the board, one or none)
        for r in range(rooms):
            if not board or masks[g, r]:
                allowed |= np.int64(1) << (starts[-1] + r)
        if allowed == 0:  # on the board, moved where it cannot suggest: end the turn
            actions[g] = end_action
            continue
        index = 0
        for k in range(starts.size):
            category = ((np.int64(1) << sizes[k]) - 1) << starts[k]
            if k == starts.size - 1:
                category &= allowed
            pool = category & ~known
            if not pool:
                pool = category & hand[g, s]
            if not pool:
                pool = category
            index = index * sizes[k] + pick(pool, uniforms[g, k]) - starts[k]
        actions[g] = index
    return True


@njit(cache=True)
def _sheet_rooms(known, mine, only, first_room, rooms):  # pragma: no cover - compiled
    """The deduction sheet's rooms to head for: those whose place it does not know (``known``: bits), else one of
    its own or the case file's (``mine``), or room ``only`` if it is not -1 (``clue_moves.to_accuse``)."""
    wanted = np.zeros(rooms, dtype=np.bool_)
    for r in range(rooms):
        wanted[r] = not (known >> (first_room + r) & 1) if only < 0 else r == only
    if not wanted.any():
        for r in range(rooms):
            wanted[r] = mine >> (first_room + r) & 1
    return wanted


@njit(cache=True)
def _head_for(g, s, wanted, at, positions, roll, masks, room_rolls, distances, passages, squares, triples,
              roll_action, uniforms):  # pragma: no cover - compiled  # fmt: skip
    """``agents.clue_moves.head_for`` toward the nearest of the rooms ``wanted`` marks (every room if none), its
    draws from ``uniforms[g, at]`` on, or -1 where seat ``s`` should suggest where it stands (summoned into such
    a room at the start of its turn)."""
    rooms = wanted.size
    if not wanted.any():
        wanted = np.ones(rooms, dtype=np.bool_)
    here_node = positions[g, s]
    here = here_node - squares if here_node >= squares else -1
    if roll[g] == 0 and masks[g, :triples].any() and here >= 0 and wanted[here]:
        return -1
    best = np.inf  # nearest_room: fewest expected rolls, ties at random
    for r in range(rooms):
        if wanted[r] and room_rolls[here_node, r] < best:
            best = room_rolls[here_node, r]
    ties = 0
    for r in range(rooms):
        if wanted[r] and room_rolls[here_node, r] <= best + 1e-9:
            ties += 1
    chosen = int(uniforms[g, at] * ties)
    target = 0
    for r in range(rooms):
        if wanted[r] and room_rolls[here_node, r] <= best + 1e-9:
            if chosen == 0:
                target = r
                break
            chosen -= 1
    goal = squares + target
    move_action = roll_action + 2
    if roll[g] == 0:  # the start of the turn: the passage if it leads there, else the roll
        if masks[g, roll_action + 1] and passages[here_node] == goal:
            return roll_action + 1
        return roll_action
    if masks[g, move_action + goal]:
        return move_action + goal
    nodes = distances.shape[0]
    any_square = False
    for node in range(squares):
        if masks[g, move_action + node]:
            any_square = True
    nearest = np.iinfo(np.int64).max
    for node in range(nodes):
        if masks[g, move_action + node] and (node < squares or not any_square) and distances[node, goal] < nearest:
            nearest = distances[node, goal]
    ties = 0
    for node in range(nodes):
        if masks[g, move_action + node] and (node < squares or not any_square) and distances[node, goal] == nearest:
            ties += 1
    chosen = int(uniforms[g, at + 1] * ties)
    for node in range(nodes):
        if masks[g, move_action + node] and (node < squares or not any_square) and distances[node, goal] == nearest:
            if chosen == 0:
                return move_action + node
            chosen -= 1
    return move_action + here_node


@njit(cache=True)
def _held(hand, suggestion):  # pragma: no cover - compiled
    """The cards of a suggestion (three card ids) in a ``hand`` (bits), as bits: those it may show."""
    held = np.int64(0)
    for k in range(3):
        if hand >> suggestion[k] & 1:
            held |= np.int64(1) << suggestion[k]
    return held


@njit(cache=True)
def _taken_anew(g, s, dealt, key_dealt, required, forbidden, clauses, key_required, key_forbidden, key_clauses):
    # pragma: no cover - compiled
    """Whether seat ``s`` of game ``g`` has other facts or another deal than when ``key_*`` were last taken (taken
    now if so): what a seat has counted or scored is kept while its facts are the same, as the Python agent keeps
    its answers while its engine's facts do not change."""
    if _same_facts(g, s, dealt, key_dealt, required, forbidden, clauses, key_required, key_forbidden, key_clauses):
        return False
    key_dealt[g, s] = dealt[g]
    key_required[g, s] = required[g, s]
    key_forbidden[g, s] = forbidden[g, s]
    key_clauses[g, s] = clauses[g, s]
    return True


@njit(cache=True)
def _same_facts(g, s, dealt, key_dealt, required, forbidden, clauses, key_required, key_forbidden, key_clauses):
    # pragma: no cover - compiled
    """Whether seat ``s`` of game ``g`` has the facts (masks, and the set of live clauses) and the deal it had
    when ``key_*`` were taken."""
    if key_dealt[g, s] != dealt[g]:
        return False
    for p in range(required.shape[2]):
        if required[g, s, p] != key_required[g, s, p] or forbidden[g, s, p] != key_forbidden[g, s, p]:
            return False
    for a, b in ((clauses, key_clauses), (key_clauses, clauses)):  # each live clause of one among the other's
        for i in range(a.shape[2]):
            if a[g, s, i, 2] == DEAD:
                continue
            found = False
            for j in range(b.shape[2]):
                if b[g, s, j, 2] == a[g, s, i, 2] and b[g, s, j, 0] == a[g, s, i, 0] and b[g, s, j, 1] == a[g, s, i, 1]:
                    found = True
                    break
            if not found:
                return False
    return True


@njit(cache=True)
def _entropy_actions(games, mover, phase, turn, suggestion, hand, required, forbidden, clauses, dirty, record, full,
                     groups, sheet, dealt, starts, sizes, triple_cards, triples, end_action, masks, uniforms, actions,
                     key_dealt, key_required, key_forbidden, key_clauses, expected, scored_now, pending, seeds,
                     deals, xlogx, samples, enumerate_limit, sweep_sizes, category_masks, case_counts, budget,
                     threshold, likeliest, likeliest_p, velma, remoteness, now, probabilities, board, room_rule,
                     positions, roll, moved, room_rolls, distances, passages, squares, roll_action, offsets,
                     neighbours, two_dice, seen):  # pragma: no cover - compiled  # fmt: skip
    """:class:`BatchedEntropyAgent`'s decisions (``ClueEntropyAgent.act``) for the games ``games`` marks; a game
    whose scores the sweep cannot make is marked ``pending`` (its number in ``seeds``) and left undecided. False
    if a seat's facts contradict."""
    players = required.shape[1]
    categories = starts.size
    rooms = sizes[-1]
    for g in range(games.size):
        if not games[g]:
            continue
        s = mover[g]
        if phase[g] == _SHOW:  # Velma's card to show: reshown to the asker, else to the most seats, else any
            held = _held(hand[g, s], suggestion[g])
            actions[g] = end_action + 1 + reshown(held, record[g, s, 0], turn[g], uniforms[g, 0], True)
            continue
        if not settled(g, s, required, forbidden, clauses, dirty, full, groups):
            return False
        stage = board and phase[g] == _START and not moved[g]  # a board decision (clue_moves.board_stage)
        index = likeliest[g, s]  # the case file to accuse, if the rule says so (clue_moves.to_accuse)
        accuse = likeliest_p[g, s] >= threshold
        if threshold >= 1.0:  # only when certain: the exact sheet names it
            certain = 0
            index = 0
            for k in range(categories):
                for card in range(starts[k], starts[k] + sizes[k]):
                    if sheet[g, s, card, players] == 1:
                        certain += 1
                        index = index * sizes[k] + card - starts[k]
            accuse = certain == categories
        if accuse:
            if masks[g, triples + index]:
                actions[g] = triples + index
                continue
            if stage and room_rule:  # toward the accused room first
                wanted = np.zeros(rooms, dtype=np.bool_)
                wanted[index % rooms] = True  # the room is the fastest index
                move = _head_for(g, s, wanted, 0, positions, roll, masks, room_rolls, distances, passages, squares,
                                 triples, roll_action, uniforms)  # fmt: skip
                if move >= 0:
                    actions[g] = move
                    continue
        suggesting = phase[g] == _START and masks[g, :triples].any()
        if not stage and not suggesting:
            if masks[g, end_action]:
                actions[g] = end_action
            else:
                for a in range(masks.shape[1]):
                    if masks[g, a]:
                        actions[g] = a
                        break
            continue
        if _taken_anew(g, s, dealt, key_dealt, required, forbidden, clauses, key_required, key_forbidden,
                       key_clauses):  # fmt: skip
            seed = np.int64(uniforms[g, 0] * 9007199254740992.0)  # rng.integers(2**53)
            scored_now[g] = True
            status, count, listed = deal_seat(required[g, s], forbidden[g, s], clauses[g, s], sweep_sizes,
                                              category_masks, case_counts, full, budget, seed, enumerate_limit,
                                              deals)  # fmt: skip
            if status == CONTRADICTION:
                return False
            if status != EXACT:
                pending[g] = True
                seeds[g] = seed
                continue
            exact = count <= enumerate_limit
            now[g, s] = score_deals(deals[:listed] if exact else deals[:samples], s, players, triple_cards, starts,
                                    sizes, not exact, expected[g, s], xlogx)  # fmt: skip
        at = 1 if scored_now[g] else 0  # the draws after the number of the deals
        if stage and velma:  # every destination scored (clue_velma.destination_scores)
            move = _velma_move(g, s, at, velma == 2, expected[g, s], now[g, s],
                               probabilities[g, s, starts[-1]:, players], remoteness, positions, roll, masks,
                               room_rolls, passages, squares, triples, roll_action, offsets, neighbours, two_dice,
                               seen, uniforms)  # fmt: skip
            if move >= 0:
                actions[g] = move
                continue
        elif stage:  # toward the room of its best suggestion, or that suggestion where it was summoned
            after = _room_after(expected[g, s], rooms)
            least = after.min()
            wanted = after <= least + 1e-9
            move = _head_for(g, s, wanted, at, positions, roll, masks, room_rolls, distances, passages, squares,
                             triples, roll_action, uniforms)  # fmt: skip
            if move >= 0:
                actions[g] = move
                continue
        least = np.inf  # the best allowed suggestion, ties within 1e-9 bits drawn (SuggestionScores.best)
        for t in range(triples):
            if masks[g, t] and expected[g, s, t] < least:
                least = expected[g, s, t]
        ties = 0
        for t in range(triples):
            if masks[g, t] and expected[g, s, t] <= least + 1e-9:
                ties += 1
        chosen = int(uniforms[g, at] * ties)
        for t in range(triples):
            if masks[g, t] and expected[g, s, t] <= least + 1e-9:
                if chosen == 0:
                    actions[g] = t
                    break
                chosen -= 1
    return True


@njit(cache=True)
def _likeliest_cases(games, mover, required, forbidden, clauses, dirty, full, groups, dealt, key_dealt, key_required,
                     key_forbidden, key_clauses, sweep_sizes, category_masks, case_counts, budget, sizes, scratch,
                     likeliest, likeliest_p, pending):  # pragma: no cover - compiled  # fmt: skip
    """Each deciding seat's likeliest case file (its index in triple order, the first of equals, as the AEC seat's
    ``solution()`` lists them) and its probability, counted where its facts changed; ``pending`` where the sweep
    is over its budget (the engine's, by the caller). False if a seat's facts contradict."""
    combinations = 1
    for k in range(sizes.size):
        combinations *= sizes[k]
    cases = np.zeros(combinations)
    for g in range(games.size):
        if not games[g]:
            continue
        s = mover[g]
        if not settled(g, s, required, forbidden, clauses, dirty, full, groups):
            return False
        if not _taken_anew(g, s, dealt, key_dealt, required, forbidden, clauses, key_required, key_forbidden,
                           key_clauses):  # fmt: skip
            continue
        status, _, _ = solve_seat(required[g, s], forbidden[g, s], clauses[g, s], sweep_sizes, category_masks,
                                  case_counts, full, budget, scratch, cases)  # fmt: skip
        if status == CONTRADICTION:
            return False
        if status != EXACT:
            pending[g] = True
            continue
        best = 0
        for c in range(cases.size):
            if cases[c] > cases[best]:
                best = c
        likeliest[g, s], likeliest_p[g, s] = best, cases[best]
    return True


@njit(cache=True)
def _room_after(expected, rooms):  # pragma: no cover - compiled
    """Per room, the least expected entropy of the suggestions naming it (the room is the fastest index)."""
    after = np.full(rooms, np.inf)
    for t in range(expected.size):
        after[t % rooms] = min(after[t % rooms], expected[t])
    return after


@njit(cache=True)
def _node_score(node, start, rate, after, now, remote, room_rolls, squares):  # pragma: no cover - compiled
    """``clue_velma.destination_scores`` of one node reached from ``start`` (-1: none): pyvelma's sum, or with
    ``rate`` the best over rooms of the expected entropy reduction per expected turn."""
    entered = node >= squares and node != start
    if not rate:
        entropy = after[node - squares] if entered else now
        return -(entropy * math.log(2) + remote[node])
    best = -np.inf
    for r in range(after.size):
        turns = 1.0 + room_rolls[node, r] + remote[squares + r]
        if entered and r == node - squares:
            turns = 1.0 + remote[squares + r]
        if node == start and start >= squares and r == start - squares:  # no suggestion by staying
            turns = np.inf
        best = max(best, max(now - after[r], 0.0) / turns)
    return best


@njit(cache=True)
def _velma_move(g, s, at, rate, expected, now, murder, remoteness, positions, roll, masks, room_rolls, passages,
                squares, triples, roll_action, offsets, neighbours, two_dice, seen,
                uniforms):  # pragma: no cover - compiled  # fmt: skip
    """``ClueVelma.board_action``'s choice: the move, the roll or the passage, or -1 for the summoned suggestion."""
    nodes, rooms = room_rolls.shape
    after = _room_after(expected, rooms)
    total = 0.0
    for r in range(rooms):
        total += murder[r]
    total = max(total, 1e-12)
    remote = np.zeros(nodes)  # per node, the expected rolls to the murder room (room_rolls @ murder)
    for node in range(nodes):
        for r in range(rooms):
            remote[node] += room_rolls[node, r] * (murder[r] / total)
        remote[node] *= remoteness
    here = positions[g, s]
    move_action = roll_action + 2
    if roll[g] > 0:  # after the roll: the best reachable node, ties drawn
        scores = np.full(nodes, -np.inf)
        best = -np.inf
        for node in range(nodes):
            if masks[g, move_action + node]:
                scores[node] = _node_score(node, here, rate, after, now, remote, room_rolls, squares)
                best = max(best, scores[node])
        ties = 0
        for node in range(nodes):
            if masks[g, move_action + node] and scores[node] >= best - 1e-12:
                ties += 1
        chosen = int(uniforms[g, at] * ties)
        for node in range(nodes):
            if masks[g, move_action + node] and scores[node] >= best - 1e-12:
                if chosen == 0:
                    return move_action + node
                chosen -= 1
    value = 0.0  # the roll: the expected best score over the sums of two dice (clue_velma.roll_value)
    for dice in range(2, 13):
        reach_nodes(here, dice, s, positions[g], offsets, neighbours, squares, seen)
        best = -np.inf
        for node in range(nodes):
            if seen[node]:
                best = max(best, _node_score(node, here, rate, after, now, remote, room_rolls, squares))
        value += two_dice[dice] * best
    passage = summoned = -np.inf
    if masks[g, roll_action + 1]:  # the passage
        passage = _node_score(passages[here], here, rate, after, now, remote, room_rolls, squares)
    if masks[g, :triples].any():  # summoned: suggesting here counts as entering the room
        summoned = _node_score(here, -1, rate, after, now, remote, room_rolls, squares)
    best = max(value, passage, summoned)  # the first of the best (within float noise): roll, passage, summoned
    if value >= best - 1e-12:
        return roll_action
    return roll_action + 1 if passage >= best - 1e-12 else -1
