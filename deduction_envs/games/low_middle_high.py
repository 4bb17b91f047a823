"""Low-Middle-High: find a secret number with two cut points per query.

Rules
-----
The secret is an integer in ``1..n``, every value equally likely. A query
names two cut points ``a <= b`` (each in ``1..n``); the oracle answers

* **low** if the secret is below ``a``,
* **middle** if ``a <= secret <= b``,
* **high** if the secret is above ``b``.

The game ends when the secret is known (one candidate left; naming it is not
needed). With three answers per query no strategy is sure to finish in fewer
than ``ceil(log3 n)`` queries, and cutting the candidates into thirds reaches
that bound.

Example with ``n = 81`` and secret 50: ``28-54`` answers middle (27 left),
``37-45`` high (9 left: 46..54), ``49-51`` middle (3 left), ``50-50`` middle:
found in 4 = log3 81 queries.

Indexing
--------
Secret ``i`` is the number ``i + 1``. Queries are the pairs ``(a, b)`` with
``1 <= a <= b <= n`` in lexicographic order (``(1, 1)`` = 0, ``(1, 2)`` = 1,
...), written ``a-b``. Feedback 0 is low, 1 middle, 2 high.
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

__all__ = ["LowMiddleHigh"]

#: The largest range: its cut pairs (about 2 million) still fit a Discrete action space comfortably.
MAX_N = 2048

_ANSWERS = ("low", "middle", "high")


@dataclass(frozen=True)
class LowMiddleHigh(DeductionRules):
    """Low-Middle-High over ``1..n``; see the module docstring."""

    n: int = 81

    name: ClassVar[str] = "LowMiddleHigh"
    information_set_kind: ClassVar[Literal["enumerated", "tabular"]] = "enumerated"

    def __post_init__(self) -> None:
        int_field(self, "n", low=2, high=MAX_N)

    @property
    def optimal_queries(self) -> int:
        """``ceil(log3 n)``: the fewest queries that find every secret."""
        queries, reach = 0, 1
        while reach < self.n:  # integer arithmetic: math.log can round 3^k up
            queries, reach = queries + 1, reach * 3
        return queries

    # ------------------------------------------------------------------ sizes
    @property
    def default_max_steps(self) -> int:  # type: ignore[override]
        return search_step_limit(self.n)

    @property
    def num_secrets(self) -> int:  # type: ignore[override]
        return self.n

    @property
    def num_actions(self) -> int:  # type: ignore[override]
        return self.n * (self.n + 1) // 2

    @property
    def secret_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        return (self.n,)

    @property
    def action_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        return (self.n, self.n)

    @property
    def feedback_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        return (3,)

    @cached_property
    def cuts(self) -> np.ndarray:
        """Every query's cut points ``(a, b)`` (1-based) in index order, shape ``(num_actions, 2)``."""
        a, b = np.triu_indices(self.n)
        cuts = np.stack((a + 1, b + 1), axis=1).astype(np.int32)
        cuts.flags.writeable = False
        return cuts

    def action_of(self, a: int, b: int) -> int:
        """The index of the query with cut points ``a <= b``."""
        a = check_int("a", a, low=1, high=self.n)
        b = check_int("b", b, low=a, high=self.n)
        # Rows before a hold n, n-1, ..., n-a+2 pairs.
        return (a - 1) * self.n - (a - 1) * (a - 2) // 2 + (b - a)

    # --------------------------------------------------------------- feedback
    def _compute_feedback(self, action: int, secrets: np.ndarray | None) -> np.ndarray:
        values = (np.arange(self.n) if secrets is None else np.asarray(secrets)) + 1
        a, b = (int(v) for v in self.cuts[action])
        return ((values >= a).astype(self.feedback_dtype) + (values > b)).astype(self.feedback_dtype)

    def secret_components(self, secrets: np.ndarray) -> np.ndarray:
        return np.asarray(secrets).reshape(-1, 1)

    def action_components(self, actions: np.ndarray) -> np.ndarray:
        return self.cuts[actions] - 1

    def guess_actions(self, secrets: np.ndarray) -> np.ndarray:
        """The query ``v-v`` of each number ``v``."""
        a = np.asarray(secrets, dtype=np.int64)
        return a * self.n - a * (a - 1) // 2

    def is_terminal(self, action: int, feedback: int, information_set: InformationSet) -> bool:
        return information_set.size == 1

    def terminal_batch(self, actions: np.ndarray, feedbacks: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        return np.asarray(sizes) == 1

    # ---------------------------------------------------------- conversions
    def format_action(self, action: int) -> str:
        a, b = (int(v) for v in self.cuts[action])
        return f"{a}-{b}"

    def parse_action(self, text: str) -> int:
        """The index of a query written ``"a-b"`` (or ``"a b"``, ``"a,b"``) with ``1 <= a <= b <= n``."""
        match = re.fullmatch(r"\s*(\d+)\s*[-, ]\s*(\d+)\s*", str(text))
        if match:
            a, b = int(match[1]), int(match[2])
            if 1 <= a <= b <= self.n:
                return self.action_of(a, b)
        raise ValueError(f"a query is two cut points 'a-b' with 1 <= a <= b <= {self.n}, got {text!r}")

    def format_secret(self, secret: int) -> str:
        return str(int(secret) + 1)

    def format_feedback(self, feedback: int) -> str:
        return _ANSWERS[int(feedback)]

    def notation(self) -> str:
        return (f"The secret is a number from 1 to {self.n}. A query is a range 'a-b' with 1 <= a <= b <= {self.n}, "
                "e.g. '28-54'; its answer is 'low' (the secret is below a), 'middle' (from a to b) or 'high' "
                "(above b).")

    # ---------------------------------------------------------------- boards
    def render_text(self, history: Sequence[Step], information_set: InformationSet, max_steps: int) -> str:
        """The query log, then the interval of numbers still possible."""
        support = information_set.support + 1
        text = super().render_text(history, information_set, max_steps)
        return f"{text}\npossible: {support.min()}..{support.max()}"

    def render_rgb(self, history: Sequence[Step], information_set: InformationSet, max_steps: int) -> np.ndarray:
        """A number line per query (possible values light, cut points dark), newest at the bottom."""
        scale = max(1, 480 // self.n)
        row = 14
        canvas = Canvas(8 + (max_steps + 1) * row, 8 + self.n * scale, background=(40, 40, 40))
        possible = np.zeros(self.n, dtype=bool)
        possible[information_set.support] = True
        for value in range(self.n):
            color = (240, 228, 66) if possible[value] else (110, 110, 110)
            canvas.rect(4, 4 + value * scale, row - 2, scale, color)
        for turn, (action, feedback) in enumerate(history, start=1):
            a, b = (int(v) - 1 for v in self.cuts[action])
            y = 4 + turn * row
            canvas.rect(y, 4, row - 2, self.n * scale, (90, 90, 90))
            canvas.rect(y, 4 + a * scale, row - 2, (b - a + 1) * scale, (0, 114, 178))
            # The answer: the values below a, from a to b, or above b.
            low, high = ((0, a), (a, b + 1), (b + 1, self.n))[int(feedback)]
            canvas.rect(y + row // 3, 4 + low * scale, row // 3, (high - low) * scale, (0, 158, 115))
        return canvas.pixels
