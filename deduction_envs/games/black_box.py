"""Black Box: locate hidden atoms by firing rays into a grid.

Rules
-----
``atoms`` atoms are hidden in distinct cells of a ``size`` x ``size`` grid,
every layout equally likely. A query fires a ray into the grid from one of
the ``4 * size`` edge positions; the ray travels straight, cell by cell,
and before each move it looks at the cell ahead and at the two cells
diagonally ahead:

* **hit**: an atom is in the cell ahead; the ray is absorbed.
* **deflection**: the cell ahead is empty but one diagonal cell holds an
  atom; the ray turns 90 degrees away from that atom (and keeps looking).
* **reflection**: both diagonal cells hold atoms; the ray turns back.
* otherwise it moves into the cell ahead; if that is off the grid, the ray
  leaves the grid there.

Edge rule: if an atom is next to the entry cell along the edge (so it is
diagonally ahead of the ray before it enters), the ray is reflected without
entering; an atom in the entry cell itself is a hit.

The answer is **hit**, **reflection** (the ray came back out where it went
in, however it got there), or the edge position where it **exits**.

Worked diagrams (5 x 5, ``O`` atom, ``*`` the ray's path, entering from the
left at row 3 unless said; columns and rows numbered from 1, the top left
cell is column 1, row 1)::

    . . . . .        a ray from the left at row 3 meets the atom in
    . . O . .        column 3, row 2 diagonally ahead when it is in
    * * . . .        column 2 (the atom is up and ahead), so it turns
    . * . . .        down, away from it, and leaves through the bottom
    . * . . .        edge at column 2: "exit at B2" (B: bottom).

    . . . . .        the atoms in column 3, rows 2 and 4, are both
    . . O . .        diagonally ahead when the ray is in column 2: it
    * * . . .        turns back and leaves where it came in:
    . . O . .        "reflection".
    . . . . .

    O . . . .        a ray from the left at row 2 would enter the cell
    . . . . .        in column 1, row 2, and the atom in column 1, row 1
    . . . . .        is next to that entry cell on the edge: "reflection"
                     before entering (edge rule).

Some layouts cannot be told apart by any ray (an atom hidden behind
others). The episode ends when every layout still possible answers every
ray the same way (the env's ``info["secret_known"]`` then says whether the
layout is uniquely known).

Indexing
--------
A layout is the sorted tuple of its atoms' cells (cell = ``row * size +
col``); layouts are numbered in lexicographic order of those tuples.
Edge positions (queries) go round the grid: top edge columns left to right
(``T1``..), right edge rows top to bottom (``R1``..), bottom edge columns
left to right (``B1``..), left edge rows top to bottom (``L1``..), which is
``0..4*size-1``. Feedback 0 is a hit, 1 a reflection, ``2 + p`` an exit at
edge position ``p``.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np
from numba import njit

from deduction_envs.core.raster import Canvas
from deduction_envs.core.rules import MAX_ENUMERABLE_SECRETS, DeductionRules, Step, int_field

if TYPE_CHECKING:
    from deduction_envs.core.information_set import InformationSet

__all__ = ["BlackBox", "trace_rays"]

HIT, REFLECTION = 0, 1
#: Layouts are bitmasks of one 64-bit word.
MAX_SIZE = 8
_EDGES = "TRBL"


def _combinations(n: int, k: int) -> np.ndarray:
    """Every sorted k-subset of ``range(n)`` in lexicographic order, int8 of shape ``(C(n, k), k)``."""
    count = math.comb(n, k)
    flat = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(n), k)), np.int8, count * k)
    return flat.reshape(count, k)


def trace_rays(size: int, entry: int, masks: np.ndarray) -> np.ndarray:
    """The answer to the ray fired from edge position ``entry`` in each layout (bitmasks of atom cells).

    Compiled (numba): each layout's ray is followed cell by cell, which the
    tests check against a slow reference on every layout of the small boards.
    """
    result = np.empty(np.asarray(masks).size, dtype=np.int16)
    _trace(size, entry, np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1), result)
    return result


@njit(cache=True)
def _split_by_a_row(table: np.ndarray, traced: np.ndarray, support: np.ndarray) -> bool:
    """Whether a traced row of the feedback memo answers two layouts of ``support`` differently (the first 64
    layouts looked at first: they usually tell)."""
    for stop in (min(64, support.size), support.size):
        for action in range(table.shape[0]):
            if traced[action]:
                first = table[action, support[0]]
                for i in range(1, stop):
                    if table[action, support[i]] != first:
                        return True
    return False


@njit(cache=True)
def _atom(bits: np.uint64, size: int, row: int, col: int) -> bool:
    """Whether an atom sits at (row, col); False outside the grid."""
    if row < 0 or row >= size or col < 0 or col >= size:
        return False
    return (bits >> np.uint64(row * size + col)) & np.uint64(1) == np.uint64(1)


@njit(cache=True)
def _trace(size: int, entry: int, masks: np.ndarray, result: np.ndarray) -> None:
    side, offset = entry // size, entry % size
    # Start one cell outside the grid, heading in.
    if side == 0:
        r0, c0, dr0, dc0 = -1, offset, 1, 0
    elif side == 1:
        r0, c0, dr0, dc0 = offset, size, 0, -1
    elif side == 2:
        r0, c0, dr0, dc0 = size, offset, -1, 0
    else:
        r0, c0, dr0, dc0 = offset, -1, 0, 1
    for i in range(masks.size):
        bits = masks[i]
        r, c, dr, dc = r0, c0, dr0, dc0
        answer = -1
        for _ in range(4 * size * size + 4):  # a ray visits each (cell, heading) at most once
            ar, ac = r + dr, c + dc
            outside_now = r < 0 or r >= size or c < 0 or c >= size
            ahead_inside = 0 <= ar < size and 0 <= ac < size
            pr, pc = dc, dr  # a perpendicular of the heading; the diagonal cells ahead are ahead +- it
            plus, minus = _atom(bits, size, ar + pr, ac + pc), _atom(bits, size, ar - pr, ac - pc)
            if _atom(bits, size, ar, ac):
                answer = HIT
                break
            if not outside_now and not ahead_inside:
                # Leaving through the edge: top when heading up, right when heading right, and so on.
                if dr < 0:
                    position = c
                elif dc > 0:
                    position = size + r
                elif dr > 0:
                    position = 2 * size + c
                else:
                    position = 3 * size + r
                answer = REFLECTION if position == entry else 2 + position
                break
            if outside_now and (plus or minus):
                answer = REFLECTION
                break
            if plus and minus:
                dr, dc = -dr, -dc
            elif plus:
                dr, dc = -pr, -pc
            elif minus:
                dr, dc = pr, pc
            else:
                r, c = ar, ac
        result[i] = answer


@dataclass(frozen=True)
class BlackBox(DeductionRules):
    """Black Box with ``atoms`` atoms on a ``size`` x ``size`` grid; see the module docstring."""

    size: int = 8
    atoms: int = 4

    name: ClassVar[str] = "BlackBox"
    information_set_kind: ClassVar[Literal["enumerated", "tabular"]] = "enumerated"

    def __post_init__(self) -> None:
        int_field(self, "size", low=2, high=MAX_SIZE)
        int_field(self, "atoms", low=1, high=self.size * self.size - 1)
        count = math.comb(self.size * self.size, self.atoms)
        if count > MAX_ENUMERABLE_SECRETS:
            raise ValueError(
                f"BlackBox with size={self.size}, atoms={self.atoms} has {count:,} layouts; "
                f"at most {MAX_ENUMERABLE_SECRETS:,} can be enumerated"
            )

    # ------------------------------------------------------------------ sizes
    @property
    def default_max_steps(self) -> int:  # type: ignore[override]
        """Every edge position once: a ray fired twice tells nothing new."""
        return 4 * self.size

    @property
    def num_secrets(self) -> int:  # type: ignore[override]
        return math.comb(self.size * self.size, self.atoms)

    @property
    def num_actions(self) -> int:  # type: ignore[override]
        return 4 * self.size

    @property
    def secret_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        # The atoms' cells in ascending order: the observation is where the k-th atom is.
        return (self.size * self.size,) * self.atoms

    @property
    def action_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        return (4 * self.size,)

    @property
    def feedback_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        return (4 * self.size + 2,)

    @cached_property
    def layouts(self) -> np.ndarray:
        """The atoms' cells of every layout, in index order, int8 of shape ``(num_secrets, atoms)``."""
        layouts = _combinations(self.size * self.size, self.atoms)
        layouts.flags.writeable = False
        return layouts

    @cached_property
    def _masks(self) -> np.ndarray:
        return np.bitwise_or.reduce(np.left_shift(np.uint64(1), self.layouts.astype(np.uint64)), axis=1)

    def index_of(self, cells: Sequence[int]) -> int:
        """The index of the layout with atoms in ``cells`` (any order)."""
        key = sorted(int(c) for c in cells)
        if len(key) != self.atoms or len(set(key)) != self.atoms or not all(0 <= c < self.size**2 for c in key):
            raise ValueError(f"a layout is {self.atoms} distinct cells in [0, {self.size**2}), got {list(cells)!r}")
        # Rank of a combination in lexicographic order.
        n, index, previous = self.size * self.size, 0, -1
        for i, cell in enumerate(key):
            for skipped in range(previous + 1, cell):
                index += math.comb(n - skipped - 1, self.atoms - i - 1)
            previous = cell
        return index

    # --------------------------------------------------------------- feedback
    # A ray's answers are traced for every layout the first time it is fired (about 20 ms compiled, for the
    # 635,376 layouts of 8 x 8 with 4 atoms) and kept in the base class's memo; sizes whose memo would be too
    # large trace the layouts asked about each time.
    def _compute_feedback(self, action: int, secrets: np.ndarray | None) -> np.ndarray:
        masks = self._masks if secrets is None else self._masks[secrets]
        return trace_rays(self.size, action, masks).astype(self.feedback_dtype)

    def secret_components(self, secrets: np.ndarray) -> np.ndarray:
        return self.layouts[secrets]

    def action_components(self, actions: np.ndarray) -> np.ndarray:
        return np.asarray(actions).reshape(-1, 1)

    def indistinguishable(self, information_set: InformationSet) -> bool:
        """Whether every layout still possible answers every ray the same way."""
        support = information_set.support
        if support.size == 1:
            return True
        untraced: Sequence[int] | np.ndarray = range(self.num_actions)
        cache = self._feedback_rows
        if cache is not None:  # the memo's rows traced so far, in one compiled pass (every row, once played)
            table, traced = cache
            if _split_by_a_row(table, traced, support):
                return False
            untraced = np.flatnonzero(~traced)  # the rows just checked are not asked again
        # A few layouts usually tell that rays still split them; only then trace them all.
        for sample in (support[:64], support):
            for action in untraced:
                answers = self.feedback(action, sample)
                if (answers != answers[0]).any():
                    return False
        return True

    def is_terminal(self, action: int, feedback: int, information_set: InformationSet) -> bool:
        return self.indistinguishable(information_set)

    # ---------------------------------------------------------- conversions
    def format_action(self, action: int) -> str:
        side, offset = divmod(int(action), self.size)
        return f"{_EDGES[side]}{offset + 1}"

    def parse_action(self, text: str) -> int:
        """The index of an edge position written like ``"T3"`` (top, column 3) or ``"L1"``."""
        match = re.fullmatch(r"\s*([TRBLtrbl])\s*(\d+)\s*", str(text))
        if match and 1 <= int(match[2]) <= self.size:
            return _EDGES.index(match[1].upper()) * self.size + int(match[2]) - 1
        raise ValueError(f"an edge position is T, R, B or L and a number in [1, {self.size}] (e.g. 'T3'), got {text!r}")

    def notation(self) -> str:
        return (f"A query fires a ray in from an edge position: T (top), R (right), B (bottom) or L (left) and a "
                f"number from 1 to {self.size} (the column for T and B, the row for L and R), e.g. 'T3'. Its answer "
                "is 'hit', 'reflection' or 'exit at' the edge position where the ray leaves, e.g. 'exit at R5'.")

    def format_feedback(self, feedback: int) -> str:
        feedback = int(feedback)
        if feedback == HIT:
            return "hit"
        if feedback == REFLECTION:
            return "reflection"
        return f"exit at {self.format_action(feedback - 2)}"

    # ---------------------------------------------------------------- boards
    def render_text(self, history: Sequence[Step], information_set: InformationSet, max_steps: int) -> str:
        """The ray log, then each cell's probability of holding an atom (``.`` never, ``#`` surely)."""
        text = super().render_text(history, information_set, max_steps)
        occupancy = self.atom_probabilities(information_set)
        shades = " .:-=+*%#"
        rows = []
        for r in range(self.size):
            cells = occupancy[r * self.size : (r + 1) * self.size]
            rows.append(" ".join("." if p == 0 else "#" if p == 1 else shades[1 + int(p * 7)] for p in cells))
        return text + "\n" + "\n".join(rows)

    def atom_probabilities(self, information_set: InformationSet) -> np.ndarray:
        """The probability that each cell holds an atom, shape ``(size * size,)``."""
        marginals = information_set.component_marginals().reshape(self.atoms, self.size * self.size)
        return np.clip(marginals.sum(axis=0), 0.0, 1.0)

    def render_rgb(self, history: Sequence[Step], information_set: InformationSet, max_steps: int) -> np.ndarray:
        """The grid shaded by each cell's atom probability, with the edge positions fired marked."""
        cell, margin = 36, 24
        n = self.size
        canvas = Canvas(2 * margin + n * cell, 2 * margin + n * cell, background=(30, 30, 30))
        for index, p in enumerate(self.atom_probabilities(information_set)):
            r, c = divmod(index, n)
            shade = int(60 + 180 * (1 - p))
            colour = (shade, shade, int(shade * 0.9))
            canvas.rect(margin + r * cell + 1, margin + c * cell + 1, cell - 2, cell - 2, colour)
        colours = {HIT: (213, 94, 0), REFLECTION: (240, 228, 66)}
        for action, feedback in history:
            side, offset = divmod(action, n)
            colour = colours.get(feedback, (0, 158, 115))
            top = {0: 2, 1: margin + offset * cell + 8, 2: margin + n * cell + 2, 3: margin + offset * cell + 8}[side]
            left = {0: margin + offset * cell + 8, 1: margin + n * cell + 2, 2: margin + offset * cell + 8, 3: 2}[side]
            canvas.rect(top, left, 20, 20, colour)
        return canvas.pixels
