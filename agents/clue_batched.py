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

import numpy as np
from numba import njit

from agents.batched import DRAWS, BatchedAgent, BatchedRandom, checked, named_agent, pick, popcount, reshown
from deduction_envs.envs.clue_batched import BatchedClueSeats
from deduction_envs.games.clue import CluePhase
from deduction_envs.reasoning.clue_facts import propagate_masks

__all__ = ["BATCHED_AGENTS", "BatchedDeductionSheet", "batched_agent"]

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


#: The compiled twins, by the roster's names (:mod:`agents.roster`).
BATCHED_AGENTS: dict[str, type] = {"random": BatchedRandom, "deduction_sheet": BatchedDeductionSheet}


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
            held = np.int64(0)
            for k in range(3):
                if hand[g, s] >> suggestion[g, k] & 1:
                    held |= np.int64(1) << suggestion[g, k]
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
            move = _head_for(g, s, known, required[g, s, s] | case_file, only, starts[-1], rooms, positions, roll,
                             masks, room_rolls, distances, passages, squares, triples, roll_action, uniforms)
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
def _head_for(g, s, known, mine, only, first_room, rooms, positions, roll, masks, room_rolls, distances, passages,
              squares, triples, roll_action, uniforms):  # pragma: no cover - compiled  # fmt: skip
    """``agents.clue_moves.head_for`` toward the nearest room whose place seat ``s`` does not know (else one of
    its own or the case file's: ``mine``), or toward room ``only`` if it is not -1 (``clue_moves.to_accuse``),
    or -1 where it should suggest where it stands (summoned into such a room at the start of its turn)."""
    wanted = np.zeros(rooms, dtype=np.bool_)
    for r in range(rooms):
        wanted[r] = not (known >> (first_room + r) & 1) if only < 0 else r == only
    if not wanted.any():
        for r in range(rooms):
            wanted[r] = mine >> (first_room + r) & 1
    if not wanted.any():
        wanted[:] = True
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
    chosen = int(uniforms[g, 0] * ties)
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
    chosen = int(uniforms[g, 1] * ties)
    for node in range(nodes):
        if masks[g, move_action + node] and (node < squares or not any_square) and distances[node, goal] == nearest:
            if chosen == 0:
                return move_action + node
            chosen -= 1
    return move_action + here_node
