"""Treasure Hunt: find the cell that hides the treasure with rectangle queries.

Rules
-----
A treasure lies in one cell of a ``width`` x ``height`` grid, every cell
equally likely. A query selects an axis-aligned rectangle of cells (any
rectangle, from one cell to the whole grid); the oracle answers whether the
treasure is inside it. The game ends when the treasure's cell is known, that
is, when one candidate cell is left (naming it is not needed).

Each query has two answers, so no strategy can be sure to finish in fewer than
``ceil(log2(width * height))`` queries; halving the candidates every time
reaches that bound, and the entropy of the information set then falls by one
bit per query, in a straight line (Meng & Lucas 2024, Figure 4).

Indexing
--------
Cell ``(row, col)`` is secret ``row * width + col``; cells are written as a
column letter and a row number from 1, like a spreadsheet (``B3`` is row 2,
column 1). A rectangle is ``(top, left, bottom, right)`` with inclusive
bounds; rectangles are numbered in lexicographic order of that tuple and
written ``A1:B2``. Feedback 0 is "outside", 1 is "inside".

Example on the default 4 x 4 grid: the treasure is at ``C2``. The query
``A1:D2`` (the top two rows) answers inside, leaving 8 cells; ``C1:D2``
answers inside (4 left); ``C1:C2`` inside (2 left); ``C2:C2`` inside: found in
4 queries, as for every cell of the 4 x 4 grid under halving.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np

from deduction_envs.core.raster import Canvas
from deduction_envs.core.rules import DeductionRules, Step, check_int, int_field, search_step_limit

if TYPE_CHECKING:
    from deduction_envs.core.information_set import InformationSet

__all__ = ["TreasureHunt"]

_COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: Rectangles are enumerated and memoised, so grids are kept to a size where
#: that stays cheap (26 x 26 has 123,201 rectangles).
MAX_SIDE = len(_COLUMNS)


@dataclass(frozen=True)
class TreasureHunt(DeductionRules):
    """Treasure Hunt on a ``width`` x ``height`` grid; see the module docstring."""

    width: int = 4
    height: int = 4

    name: ClassVar[str] = "TreasureHunt"
    information_set_kind: ClassVar[Literal["enumerated", "tabular"]] = "enumerated"

    def __post_init__(self) -> None:
        int_field(self, "width", low=1, high=MAX_SIDE)
        int_field(self, "height", low=1, high=MAX_SIDE)
        if self.width * self.height < 2:
            raise ValueError("a Treasure Hunt grid needs at least 2 cells (width * height >= 2)")

    # ------------------------------------------------------------------ sizes
    @property
    def default_max_steps(self) -> int:  # type: ignore[override]
        return search_step_limit(self.width * self.height)

    @property
    def num_secrets(self) -> int:  # type: ignore[override]
        return self.width * self.height

    @property
    def num_actions(self) -> int:  # type: ignore[override]
        return len(self.rectangles)

    @property
    def secret_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        # One component over all cells: the observation is the whole distribution.
        return (self.width * self.height,)

    @property
    def action_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        return (self.height, self.width, self.height, self.width)

    @property
    def feedback_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        return (2,)

    @cached_property
    def rectangles(self) -> np.ndarray:
        """Every rectangle ``(top, left, bottom, right)`` in index order (read-only)."""
        h, w = self.height, self.width
        rows = [(t, b) for t in range(h) for b in range(t, h)]
        cols = [(left, r) for left in range(w) for r in range(left, w)]
        rects = np.array([(t, left, b, r) for t, b in rows for left, r in cols], dtype=np.int16)
        # Lexicographic in (top, left, bottom, right).
        rects = rects[np.lexsort(rects.T[::-1])]
        rects.flags.writeable = False
        return rects

    # --------------------------------------------------------------- feedback
    def _compute_feedback(self, action: int, secrets: np.ndarray | None) -> np.ndarray:
        if secrets is None:
            secrets = np.arange(self.num_secrets)
        row, col = np.divmod(secrets, self.width)
        top, left, bottom, right = (int(v) for v in self.rectangles[action])
        inside = (row >= top) & (row <= bottom) & (col >= left) & (col <= right)
        return inside.astype(self.feedback_dtype)

    def secret_components(self, secrets: np.ndarray) -> np.ndarray:
        return np.asarray(secrets).reshape(-1, 1)

    def action_components(self, actions: np.ndarray) -> np.ndarray:
        return self.rectangles[actions]

    @cached_property
    def _single_cells(self) -> np.ndarray:
        # In cell order, since rectangles are sorted by their top-left corner.
        rects = self.rectangles
        return np.flatnonzero((rects[:, 0] == rects[:, 2]) & (rects[:, 1] == rects[:, 3]))

    def guess_actions(self, secrets: np.ndarray) -> np.ndarray:
        """The one-cell rectangle of each cell."""
        return self._single_cells[np.asarray(secrets)]

    def is_terminal(self, action: int, feedback: int, information_set: InformationSet) -> bool:
        return information_set.size == 1

    def terminal_batch(self, actions: np.ndarray, feedbacks: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        return np.asarray(sizes) == 1

    # ---------------------------------------------------------- conversions
    def cell_name(self, cell: int) -> str:
        """The spreadsheet name of a cell index, e.g. ``"B3"``."""
        row, col = divmod(check_int("cell", cell, low=0, high=self.num_secrets - 1), self.width)
        return f"{_COLUMNS[col]}{row + 1}"

    def parse_cell(self, text: str) -> int:
        """The index of a cell written like ``"B3"``."""
        match = re.fullmatch(r"\s*([A-Za-z])(\d+)\s*", str(text))
        if match:
            col, row = _COLUMNS.index(match[1].upper()), int(match[2]) - 1
            if col < self.width and 0 <= row < self.height:
                return row * self.width + col
        last = self.cell_name(self.num_secrets - 1)
        raise ValueError(f"a cell is a column letter and a row number, from A1 to {last}, got {text!r}")

    def format_action(self, action: int) -> str:
        top, left, bottom, right = (int(v) for v in self.rectangles[action])
        return f"{self.cell_name(top * self.width + left)}:{self.cell_name(bottom * self.width + right)}"

    def parse_action(self, text: str) -> int:
        """The index of a rectangle written ``"A1:B2"`` (corners in any order) or one cell ``"C3"``."""
        corners = str(text).split(":")
        if len(corners) not in (1, 2):
            raise ValueError(f"a rectangle is two cells like 'A1:B2', got {text!r}")
        (r0, c0), (r1, c1) = (divmod(self.parse_cell(c), self.width) for c in (corners[0], corners[-1]))
        key = (min(r0, r1), min(c0, c1), max(r0, r1), max(c0, c1))
        return int(np.flatnonzero((self.rectangles == key).all(axis=1))[0])

    def notation(self) -> str:
        last = self.cell_name(self.num_secrets - 1)
        return (f"Cells are named by column letter and row number, A1 to {last}. A query is a rectangle written by "
                "two opposite corners, e.g. 'A1:B2' (one cell: 'C3'); its answer is 'inside' or 'outside'.")

    def format_secret(self, secret: int) -> str:
        row, col = divmod(int(secret), self.width)
        return f"row {row + 1}, column {col + 1}"

    def format_feedback(self, feedback: int) -> str:
        return ("outside", "inside")[int(feedback)]

    # ---------------------------------------------------------------- boards
    def render_text(self, history: Sequence[Step], information_set: InformationSet, max_steps: int) -> str:
        """The query log, then the grid: ``?`` for a possible cell, ``.`` for a ruled-out one."""
        lines = [super().render_text(history, information_set, max_steps)]
        possible = np.zeros(self.num_secrets, dtype=bool)
        possible[information_set.support] = True
        lines.append("   " + " ".join(_COLUMNS[: self.width]))
        for row in range(self.height):
            cells = possible[row * self.width : (row + 1) * self.width]
            lines.append(f"{row + 1:>2} " + " ".join("?" if p else "." for p in cells))
        return "\n".join(lines)

    def render_rgb(self, history: Sequence[Step], information_set: InformationSet, max_steps: int) -> np.ndarray:
        """The grid shaded by each cell's probability, with the last query's rectangle outlined."""
        cell = 40
        canvas = Canvas(self.height * cell + 8, self.width * cell + 8, background=(60, 60, 60))
        probability = np.zeros(self.num_secrets)
        probability[information_set.support] = information_set.probabilities()
        top_p = probability.max()
        for index in range(self.num_secrets):
            row, col = divmod(index, self.width)
            shade = probability[index] / top_p
            color = (int(240 - 40 * shade), int(230 - 60 * shade), int(200 - 170 * shade)) if shade else (150,) * 3
            canvas.rect(4 + row * cell + 1, 4 + col * cell + 1, cell - 2, cell - 2, color)
        if history:
            top, left, bottom, right = (int(v) for v in self.rectangles[history[-1][0]])
            color = (0, 158, 115) if history[-1][1] else (213, 94, 0)
            height, width = (bottom - top + 1) * cell, (right - left + 1) * cell
            canvas.frame(4 + top * cell, 4 + left * cell, height, width, color)
        return canvas.pixels
