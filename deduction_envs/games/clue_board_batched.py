"""Clue on the board for many games at once (issue 61): :class:`BatchedClueBoardRules`.

:class:`~deduction_envs.games.clue_batched.BatchedClueRules` with the board of
:class:`~deduction_envs.games.clue_board.ClueBoardRules`: every game's tokens (one a suspect), weapons (one room
each), the mover's roll, whether it has moved and the room it entered, and who was summoned by another's
suggestion. The start of a turn, the roll, the move (a breadth-first search among the other tokens, compiled),
the secret passages and the rooms a suggestion may name are ``ClueBoardRules``' own; the suggestion, the show and
the accusation are Clue's (the parent's kernel), and a suggestion then moves its suspect's token and its weapon
into the room. The dice of each game are drawn by its own generator, seeded at the deal as
``ClueBoardRules.new_game`` seeds them, so a game dealt for a seed rolls what the AEC env rolls (tested against
``ClueBoardRules`` on random seeded games, ``tests/test_conformance.py``).

    from deduction_envs.games.clue_board import ClueBoardRules
    from deduction_envs.games.clue_board_batched import BatchedClueBoardRules

    games = BatchedClueBoardRules(ClueBoardRules(3), 1024)
    games.reset(seeds=range(1024))
    masks = games.legal_masks()                        # (1024, 672 + nodes) bool
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deduction_envs.games.clue import ClueRules, deal
from deduction_envs.games.clue_batched import PHASE_AFTER, PHASE_START, BatchedClueRules, legal_masks
from deduction_envs.games.clue_board import ClueBoardRules

__all__ = ["BOARD_EVENT_KINDS", "BatchedClueBoardRules", "batched_clue_rules", "reach_nodes"]

#: The board's event kinds in :attr:`BatchedClueRules.event` ``["kind"]``, after Clue's five (codes 5, 6, 7).
BOARD_EVENT_KINDS = ("roll", "passage", "move")
_ROLL, _PASSAGE, _MOVE = 5, 6, 7



def batched_clue_rules(rules: ClueRules, n: int, seed: int | None = None) -> BatchedClueRules:
    """``n`` games of ``rules`` stepped together: a :class:`BatchedClueBoardRules` on the board, else a
    :class:`BatchedClueRules` (the registry's factory of Clue's twin)."""
    if isinstance(rules, ClueBoardRules):
        return BatchedClueBoardRules(rules, n, seed)
    return BatchedClueRules(rules, n, seed)

class BatchedClueBoardRules(BatchedClueRules):
    """``n`` games of ``rules`` (a :class:`ClueBoardRules`), stepped together; see the module docstring.

    Args: those of :class:`BatchedClueRules`.

    The board's arrays (one row a game): ``positions`` (each suspect's node), ``weapons`` (each weapon's room),
    ``roll`` (the mover's dice, 0 before the roll), ``moved``, ``entered`` (the room entered this turn, -1),
    ``summoned`` (by suspect), and the last event's ``dice`` and ``node`` (a roll's two dice; a move's node).
    """

    rules_class = ClueBoardRules

    def __init__(self, rules: ClueBoardRules, n: int, seed: int | None = None) -> None:
        super().__init__(rules, n, seed)
        board, suspects = rules.board, rules.category_sizes[0]
        n = self.n
        self.positions = np.zeros((n, suspects), dtype=np.int64)
        self.weapons = np.zeros((n, rules.category_sizes[1]), dtype=np.int64)
        self.roll = np.zeros(n, dtype=np.int64)
        self.moved = np.zeros(n, dtype=np.bool_)
        self.entered = np.full(n, -1, dtype=np.int64)
        self.summoned = np.zeros((n, suspects), dtype=np.bool_)
        self.event["dice"] = np.zeros((n, 2), dtype=np.int64)
        self.event["node"] = np.full(n, -1, dtype=np.int64)
        self._dice_seeds = [0] * n
        self._dice: list[np.random.Generator | None] = [None] * n  # made at a game's first roll, as the table's
        self._starts = np.array(board.starts[:suspects], dtype=np.int64)
        counts = np.array([len(x) for x in board.neighbours], dtype=np.int64)
        self._offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self._neighbours = np.array([m for x in board.neighbours for m in x], dtype=np.int64)
        self._passages = np.full(board.nodes, -1, dtype=np.int64)
        for a, b in board.passages.items():
            self._passages[a] = b
        self._seen = np.zeros((n, board.nodes), dtype=np.bool_)  # the breadth-first searches' scratch

    # ------------------------------------------------------------------ dealing
    def _deal_drawn(self, games: np.ndarray) -> None:
        rooms, weapons = self.rules.board.rooms, self.rules.category_sizes[1]
        places = self._deals(games.size)
        order = np.argsort(self.rng.random((games.size, rooms)), axis=1)[:, :weapons]
        seeds = self.rng.integers(2**63, size=games.size)
        self._set_board(games, places, order, [int(s) for s in seeds])

    def _deal_seeded(self, games: np.ndarray, seeds: list[int | None]) -> None:
        rules = self.rules
        places, weapons, dice = [], [], []
        for seed in seeds:  # ClueBoardRules.new_game's draws, in its order, without building its state
            rng = np.random.default_rng(seed)
            places.append(deal(rules.category_sizes, [1] * len(rules.categories), rules.players, rng))
            weapons.append(rng.permutation(rules.board.rooms)[: rules.category_sizes[1]])
            dice.append(int(rng.integers(2**63)))
        self.deal(games, np.array(places, dtype=np.int64).reshape(games.size, rules.cards), np.array(weapons), dice)

    def deal(self, games: np.ndarray, places: np.ndarray, weapons: np.ndarray | None = None,
             dice_seeds: list[int] | None = None) -> None:  # fmt: skip
        """Start the games ``games`` on the deals ``places`` (checked as :meth:`BatchedClueRules.deal` checks
        them), the weapons in the rooms ``weapons`` (a row a game, distinct rooms; default weapon ``w`` in room
        ``w``, as ``ClueBoardRules.state_of_deal``) and the dice seeded by ``dice_seeds`` (default as
        ``state_of_deal`` seeds them: by the deal).

        Raises:
            ValueError: a row is not a deal of this table, or the weapons are not distinct rooms.
        """
        games = np.asarray(games, dtype=np.int64)
        super().deal(games, places)  # checks and sets the deal
        rules = self.rules
        count, rooms = rules.category_sizes[1], rules.board.rooms
        if weapons is None:
            weapons = np.tile(np.arange(count), (games.size, 1))
        weapons = np.asarray(weapons)
        if (weapons.shape != (games.size, count) or not np.issubdtype(weapons.dtype, np.integer)
                or weapons.min(initial=0) < 0 or weapons.max(initial=0) >= rooms
                or any(len(set(row)) != count for row in weapons.tolist())):  # fmt: skip
            raise ValueError(f"weapons must be {games.size} rows of {count} distinct rooms in [0, {rooms - 1}]")
        if dice_seeds is None:
            dice_seeds = [hash(tuple(int(p) for p in row)) & (2**63 - 1) for row in np.asarray(places)]
        if len(dice_seeds) != games.size:
            raise ValueError(f"give one dice seed a game: {games.size} games, {len(dice_seeds)} seeds")
        self._set_board(games, np.asarray(places, dtype=np.int64), weapons, dice_seeds)

    def _set_board(self, games: np.ndarray, places: np.ndarray, weapons: np.ndarray, dice_seeds: list[int]) -> None:
        """Start the games ``games``: the deal (known to be one of this table), the tokens on their start
        squares, the weapons in their rooms, the dice seeded."""
        self._set(games, places)
        self.positions[games] = self._starts
        self.weapons[games] = weapons
        self.roll[games], self.moved[games], self.entered[games], self.summoned[games] = 0, False, -1, False
        for g, seed in zip(games.tolist(), dice_seeds, strict=True):
            self._dice_seeds[g], self._dice[g] = int(seed), None

    # ------------------------------------------------------------------ playing
    def legal_masks(self) -> np.ndarray:
        """``(n, num_actions)`` bool: what each game's player to act may do (``ClueBoardRules.legal_mask``;
        all False in a game that is over). The array is reused by the next call."""
        rules = self.rules
        legal_masks(self.phase, self.places, self.refuter, self.suggestion, rules.num_triples, rules.end_action,
                     self._masks)  # fmt: skip
        self._board_masks(np.ones(self.n, dtype=np.bool_), self._masks)
        if rules.accusations == "room":
            _room_accusations(self.phase, self.turn, self.positions, self.roll, self.moved, self.entered,
                              self.summoned, rules.board.squares, rules.num_triples, rules.category_sizes[-1],
                              self._masks)  # fmt: skip
        self._masks[self.halted] = False
        return self._masks

    def _board_masks(self, games: np.ndarray, masks: np.ndarray) -> None:
        """Rewrite the masks of the games ``games`` marks whose turn is at its start (the board's turn)."""
        rules = self.rules
        _start_masks(games, self.phase, self.turn, self.positions, self.roll, self.moved, self.entered,
                     self.summoned, self._offsets, self._neighbours, self._passages, rules.board.squares,
                     rules.num_triples, rules.category_sizes[-1], rules.end_action, rules.roll_action, self._seen,
                     masks)  # fmt: skip

    def reachable(self) -> np.ndarray:
        """``(n, nodes)`` bool: where each game's mover may move with its roll (``ClueBoardRules.reachable``),
        in the games where it has rolled and not moved; all False elsewhere."""
        rules = self.rules
        masks = np.zeros((self.n, rules.num_actions), dtype=np.bool_)
        rolled = (self.phase == PHASE_START) & (self.roll > 0) & ~self.moved
        self._board_masks(rolled, masks)
        return masks[:, rules.move_action :]

    def _illegal(self, actions: np.ndarray, live: np.ndarray) -> np.ndarray:
        masks = self.legal_masks()
        rows = np.arange(self.n)
        inside = (actions >= 0) & (actions < self.rules.num_actions)
        legal = np.zeros(self.n, dtype=np.bool_)
        legal[inside] = masks[rows[inside], actions[inside]]
        return live & ~legal

    def _play(self, actions: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rules = self.rules
        board = live & (actions >= rules.roll_action)
        clue = live & ~board
        rewards, ended = super()._play(actions, clue)
        rolling = np.flatnonzero(board & (actions == rules.roll_action))
        for g in rolling.tolist():  # each game's own dice, as the table throws them
            if self._dice[g] is None:
                self._dice[g] = np.random.default_rng(self._dice_seeds[g])
            self.event["dice"][g] = self._dice[g].integers(1, 7, size=2)
        _board_step(actions, board, clue, rules.players, self.turn, self.phase, self.positions, self.weapons,
                    self.roll, self.moved, self.entered, self.summoned, self._passages, rules.board.squares,
                    rules.roll_action, rules.passage_action, rules.move_action,
                    np.array(rules.category_starts, dtype=np.int64), self.event["kind"], self.event["player"],
                    self.event["cards"], self.event["dice"], self.event["node"])  # fmt: skip
        return rewards, ended


@njit(cache=True)
def reach_nodes(start, roll, me, positions, offsets, neighbours, squares, seen):  # pragma: no cover - compiled
    """``ClueBoard.reachable`` in ``seen`` (zeroed here): the nodes the token at ``start`` may end on with
    ``roll``, the other tokens' corridor squares blocked; the start itself if nothing else. Returns the count."""
    seen[:] = False
    seen[start] = True
    frontier = np.empty(seen.size, dtype=np.int64)
    nxt = np.empty(seen.size, dtype=np.int64)
    size = 1
    frontier[0] = start
    for _ in range(roll):
        found = 0
        for f in range(size):
            node = frontier[f]
            for k in range(offsets[node], offsets[node + 1]):
                other = neighbours[k]
                if seen[other]:
                    continue
                blocked = False
                if other < squares:
                    for s in range(positions.size):
                        if s != me and positions[s] == other:
                            blocked = True
                if blocked:
                    continue
                seen[other] = True
                if other < squares:  # a room ends the move: reached, not crossed
                    nxt[found] = other
                    found += 1
        frontier, nxt = nxt, frontier
        size = found
        if size == 0:
            break
    seen[start] = False
    count = 0
    for node in range(seen.size):
        if seen[node]:
            count += 1
    if count == 0:
        seen[start] = True
        count = 1
    return count


@njit(cache=True)
def _start_masks(games, phase, turn, positions, roll, moved, entered, summoned, offsets, neighbours, passages,
                 squares, triples, rooms, end_action, roll_action, seen, masks):  # pragma: no cover  # fmt: skip
    """``ClueBoardRules.legal_mask`` at the start of a turn, for the games ``games`` marks in that phase."""
    move_action = roll_action + 2
    for g in range(phase.size):
        if not games[g] or phase[g] != PHASE_START:
            continue
        mask = masks[g]
        mask[:] = False
        me = turn[g]
        if roll[g] > 0 and not moved[g]:  # after the roll: only the move
            reach_nodes(positions[g, me], roll[g], me, positions[g], offsets, neighbours, squares, seen[g])
            for node in range(seen.shape[1]):
                if seen[g, node]:
                    mask[move_action + node] = True
            continue
        mask[triples : 2 * triples] = True  # the accusations
        if moved[g]:
            mask[end_action] = True
            room = entered[g]
        else:
            mask[roll_action] = True
            if passages[positions[g, me]] >= 0:
                mask[roll_action + 1] = True
            room = positions[g, me] - squares if summoned[g, me] and positions[g, me] >= squares else -1
        if room >= 0:  # the suggestions naming that room (the room is the fastest index)
            for t in range(room, triples, rooms):
                mask[t] = True


@njit(cache=True)
def _room_accusations(phase, turn, positions, roll, moved, entered, summoned, squares, triples, rooms, masks
                      ):  # pragma: no cover - compiled  # fmt: skip
    """``accusations="room"``: in every game at the start of a turn or after a suggestion, the accusations cut
    to those naming the room of this turn (``ClueBoardRules.allowed_rooms``: the room entered, or the room a
    summoned token stands in before its roll)."""
    for g in range(phase.size):
        if phase[g] != PHASE_START and phase[g] != PHASE_AFTER:
            continue
        masks[g, triples : 2 * triples] = False
        me = turn[g]
        if moved[g]:
            room = entered[g]
        elif roll[g] == 0 and summoned[g, me] and positions[g, me] >= squares:
            room = positions[g, me] - squares
        else:
            room = -1
        if room >= 0:
            for t in range(room, triples, rooms):
                masks[g, triples + t] = True


@njit(cache=True)
def _board_step(actions, board, clue, players, turn, phase, positions, weapons, roll, moved, entered, summoned,
                passages, squares, roll_action, passage_action, move_action, category_starts, kind, player, cards,
                dice, node):  # pragma: no cover - compiled  # fmt: skip
    """The board's part of a step: its own actions in the games ``board`` marks; in the games ``clue`` marks
    (played by Clue's kernel), a suggestion's tokens and weapon, and the turn's board state spent when the turn
    passed."""
    for g in range(actions.size):
        if board[g]:
            me = turn[g]
            player[g], cards[g, :], node[g] = me, -1, -1
            action = actions[g]
            if action == roll_action:
                kind[g] = _ROLL
                roll[g] = dice[g, 0] + dice[g, 1]
            else:
                target = passages[positions[g, me]] if action == passage_action else action - move_action
                kind[g] = _PASSAGE if action == passage_action else _MOVE
                node[g] = target
                stayed = positions[g, me] == target
                positions[g, me] = target
                moved[g] = True
                entered[g] = -1 if stayed or target < squares else target - squares
        elif clue[g]:
            if kind[g] == 1:  # a suggestion moves its suspect's token and its weapon into the room
                suspect = cards[g, 0] - category_starts[0]
                weapon = cards[g, 1] - category_starts[1]
                room = cards[g, 2] - category_starts[2]
                room_node = squares + room
                if suspect < players and suspect != player[g] and positions[g, suspect] != room_node:
                    summoned[g, suspect] = True
                positions[g, suspect] = room_node
                weapons[g, weapon] = room
            if (kind[g] == 3 or kind[g] == 4) and phase[g] == PHASE_START:  # the turn passed: its board state is spent
                roll[g], moved[g], entered[g] = 0, False, -1
                summoned[g, player[g]] = False
