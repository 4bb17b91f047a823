"""Fake Coin: find the counterfeit coin, and whether it is heavy or light, with a balance.

Rules
-----
There are ``coins`` coins, numbered from 1. Exactly one is counterfeit, and
it is either heavier or lighter than the others, which all weigh the same;
the secret is the pair (coin, heavy or light), so there are ``2 * coins``
secrets, all equally likely. A query is a weighing: two disjoint, non-empty
sets of coins with the same number of coins, on the left and right pans of a
balance. The answer is **left heavier**, **balance** or **right heavier**: the
counterfeit on the left tips the balance its way (left heavier if it is
heavy, right heavier if it is light), on the right the opposite, off the
balance nothing. The game ends when both the coin and its weight are known
(one secret left).

Each answer has three values, so ``k`` weighings tell at most ``3**k``
secrets apart. Dyson (1946) showed that ``(3**k - 3) / 2`` coins can always be
solved in ``k`` weighings, and no more: 12 coins in 3, 39 in 4.

Information set
---------------
The paper's table (Meng & Lucas 2024, Figure 2): for every coin, whether it
can still be the heavy counterfeit and whether it can still be the light one
(:class:`~deduction_envs.core.information_set.TabularInformationSet` with
``table_shape == (coins, 2)``). Each coin is then in one of four *knowledge
classes*: **U** unknown (heavy or light), **H** possibly heavy only, **L**
possibly light only, **G** known genuine.

Action spaces
-------------
``weighings="canonical"`` (default). Coins of the same class are
interchangeable: swapping two of them changes nothing the player can tell.
A weighing is therefore given, exactly, by how many coins of each class go
on each pan. A canonical weighing is six counts ``(U left, U right, H left,
H right, L left, L right)``, and the pan with fewer coins is filled up with
genuine coins, since genuine coins on both pans cancel out. From the start of
a game the classes present are either U and G (no weighing has tipped yet) or
H, L and G (one has), so the action space holds the weighings of U coins and
those of H and L coins, numbered in that order, lexicographically in the six
counts: ``(coins+1)(coins+2)/2 - 1 + C(coins+4, 4) - 1`` actions, 1,909 for 12
coins and 124,228 for 39. A weighing is legal when the state has the coins it
asks for, genuine ones included (:meth:`FakeCoin.legal_actions`); the env
masks the others. It weighs concrete coins by taking the lowest-numbered
coins of each class, left pan first (:meth:`FakeCoin.concrete_weighing`), so
what a canonical action does depends on the knowledge, and its feedback is
asked for with :meth:`FakeCoin.feedback_at`.

``weighings="concrete"``. Every ordered pair of disjoint equal-size pans, by
pan size, then the left pan's coins, then the right's, lexicographically:
73,788 weighings for 12 coins, all always legal; offered up to
:data:`MAX_CONCRETE_WEIGHINGS`.

Text forms: a canonical weighing is written ``"4U v 4U"`` or
``"2H+1L v 1H+2G"`` (a pan's counts per class, the genuine fill included); a
concrete one ``"1 2 3 v 4 5 6"`` (coin numbers).
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

from deduction_envs.core.raster import Canvas
from deduction_envs.core.rules import DeductionRules, Step, int_field

if TYPE_CHECKING:
    from deduction_envs.core.information_set import InformationSet

__all__ = ["MAX_CONCRETE_WEIGHINGS", "FakeCoin"]

#: The concrete encoding is offered while it has at most this many weighings (13 coins).
MAX_CONCRETE_WEIGHINGS = 1 << 18
#: The canonical encoding's size grows as coins^4 / 24; 64 coins give 816,528 weighings.
MAX_COINS = 64

OFF, LEFT, RIGHT = 0, 1, 2
LEFT_HEAVIER, BALANCE, RIGHT_HEAVIER = 0, 1, 2
HEAVY, LIGHT = 0, 1
#: The answer, indexed by [pan of the counterfeit, its weight].
_ANSWER = np.array([[BALANCE, BALANCE], [LEFT_HEAVIER, RIGHT_HEAVIER], [RIGHT_HEAVIER, LEFT_HEAVIER]], dtype=np.uint8)
_ANSWER_TEXT = ("left heavier", "balance", "right heavier")

#: The knowledge classes, in the order of a canonical action's counts.
CLASSES = "UHLG"


def count_weighings(coins: int) -> int:
    """The number of concrete weighings (ordered disjoint equal non-empty pans) of ``coins`` coins."""
    return sum(math.comb(coins, k) * math.comb(coins - k, k) for k in range(1, coins // 2 + 1))


def _bounded_tuples(length: int, total: int) -> np.ndarray:
    """Every tuple of ``length`` non-negative integers with sum at most ``total``, lexicographically."""
    if length == 1:
        return np.arange(total + 1, dtype=np.int16)[:, None]
    blocks = []
    for first in range(total + 1):
        rest = _bounded_tuples(length - 1, total - first)
        blocks.append(np.column_stack((np.full(len(rest), first, dtype=np.int16), rest)))
    return np.concatenate(blocks)


@dataclass(frozen=True)
class FakeCoin(DeductionRules):
    """The fake-coin game with ``coins`` coins; see the module docstring."""

    coins: int = 12
    weighings: Literal["canonical", "concrete"] = "canonical"

    name: ClassVar[str] = "FakeCoin"
    default_max_steps: ClassVar[int] = 10
    information_set_kind: ClassVar[Literal["enumerated", "tabular"]] = "tabular"

    def __post_init__(self) -> None:
        int_field(self, "coins", low=3, high=MAX_COINS)
        if self.weighings not in ("canonical", "concrete"):
            raise ValueError(f"weighings must be 'canonical' or 'concrete', got {self.weighings!r}")
        if self.weighings == "concrete" and count_weighings(self.coins) > MAX_CONCRETE_WEIGHINGS:
            raise ValueError(
                f"weighings='concrete' with {self.coins} coins has {count_weighings(self.coins):,} actions; "
                f"it is offered up to {MAX_CONCRETE_WEIGHINGS:,} (13 coins): use weighings='canonical'"
            )

    # ------------------------------------------------------------------ sizes
    @property
    def canonical(self) -> bool:
        """Whether actions are canonical weighings (class counts) rather than concrete pans."""
        return self.weighings == "canonical"

    @property
    def knowledge_dependent_actions(self) -> bool:  # type: ignore[override]
        return self.canonical

    @property
    def num_secrets(self) -> int:  # type: ignore[override]
        return 2 * self.coins

    @property
    def num_actions(self) -> int:  # type: ignore[override]
        return len(self.class_counts) if self.canonical else len(self.pans)

    @property
    def table_shape(self) -> tuple[int, ...]:
        return (self.coins, 2)

    @property
    def secret_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        # One component over (coin, weight): the observation is the paper's whole table.
        return (2 * self.coins,)

    @property
    def action_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        return (self.coins + 1,) * 6 if self.canonical else (3,) * self.coins

    @property
    def feedback_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        return (3,)

    @cached_property
    def class_counts(self) -> np.ndarray:
        """Canonical weighings: ``(U left, U right, H left, H right, L left, L right)`` per action."""
        unknown = _bounded_tuples(2, self.coins)[1:]  # [0] is the empty weighing
        split = _bounded_tuples(4, self.coins)[1:]
        counts = np.zeros((len(unknown) + len(split), 6), dtype=np.int16)
        counts[: len(unknown), :2] = unknown
        counts[len(unknown) :, 2:] = split
        counts.flags.writeable = False
        return counts

    @cached_property
    def pans(self) -> np.ndarray:
        """Concrete weighings: the pan of each coin (0 off, 1 left, 2 right) per action."""
        rows = []
        coins = range(self.coins)
        for k in range(1, self.coins // 2 + 1):
            for left in itertools.combinations(coins, k):
                rest = [c for c in coins if c not in left]
                for right in itertools.combinations(rest, k):
                    row = np.zeros(self.coins, dtype=np.uint8)
                    row[list(left)] = LEFT
                    row[list(right)] = RIGHT
                    rows.append(row)
        pans = np.array(rows, dtype=np.uint8)
        pans.flags.writeable = False
        return pans

    # ----------------------------------------------------------- knowledge
    def coin_classes(self, information_set: InformationSet) -> np.ndarray:
        """The knowledge class of every coin, as an index into :data:`CLASSES` (0 U, 1 H, 2 L, 3 G); read-only."""
        key = information_set.support.tobytes()
        classes = self._memo.get(key)
        if classes is None:
            possible = np.zeros(self.num_secrets, dtype=bool)
            possible[information_set.support] = True
            heavy, light = possible[0::2], possible[1::2]
            classes = np.where(heavy & light, 0, np.where(heavy, 1, np.where(light, 2, 3))).astype(np.intp)
            classes.flags.writeable = False
            self._remember(key, classes)
        return classes

    @cached_property
    def _memo(self) -> dict:
        """Knowledge classes by support, and each class pattern's pans and legal weighings (rebuilt on unpickling:
        :meth:`__getstate__` leaves cached properties out)."""
        return {}

    def _remember(self, key: object, value: object) -> None:
        if len(self._memo) >= 100_000:  # random play visits few states; a bound all the same
            self._memo.clear()
        self._memo[key] = value

    def legal_actions(self, information_set: InformationSet) -> np.ndarray | None:
        if not self.canonical:
            return None
        classes = self.coin_classes(information_set)
        key = ("legal", classes.tobytes())
        legal = self._memo.get(key)
        if legal is None:
            available = np.bincount(classes, minlength=4)
            legal = np.asarray((self._coins_needed <= available).all(axis=1))
            legal.flags.writeable = False
            self._remember(key, legal)
        return legal

    @cached_property
    def _coins_needed(self) -> np.ndarray:
        """The U, H, L and genuine coins each canonical weighing puts on the balance."""
        counts = self.class_counts.astype(np.int64)
        fill = np.abs(counts[:, 0::2].sum(1) - counts[:, 1::2].sum(1))
        return np.column_stack((counts[:, 0::2] + counts[:, 1::2], fill))

    def concrete_weighing(self, action: int, information_set: InformationSet) -> tuple[list[int], list[int]]:
        """The coins (numbered from 1) on the left and right pans when ``action`` is played with this knowledge."""
        pans = self._pans_at(information_set, np.array([action]))[0]
        return (np.flatnonzero(pans == LEFT) + 1).tolist(), (np.flatnonzero(pans == RIGHT) + 1).tolist()

    def _pans_at(self, information_set: InformationSet, actions: np.ndarray) -> np.ndarray:
        """The pan of every coin for each action, shape ``(len(actions), coins)``."""
        actions = np.asarray(actions, dtype=np.intp)
        if not self.canonical:
            return self.pans[actions]
        classes = self.coin_classes(information_set)
        # Each coin's rank among the coins of its class, lowest number first.
        order = np.argsort(classes, kind="stable")
        first = np.searchsorted(classes[order], np.arange(4))
        rank = np.empty(self.coins, dtype=np.int64)
        rank[order] = np.arange(self.coins) - first[classes[order]]
        counts = self.class_counts[actions].astype(np.int64)
        left_total, right_total = counts[:, 0::2].sum(1), counts[:, 1::2].sum(1)
        fill = np.abs(left_total - right_total)
        # Per action and class: coins [0, left) go left, [left, left + right) go right.
        left = np.concatenate((counts[:, 0::2], np.where(left_total < right_total, fill, 0)[:, None]), axis=1)
        right = np.concatenate((counts[:, 1::2], np.where(left_total > right_total, fill, 0)[:, None]), axis=1)
        coin_left, coin_right = left[:, classes], right[:, classes]
        pans = np.where(rank < coin_left, LEFT, np.where(rank < coin_left + coin_right, RIGHT, OFF))
        return pans.astype(np.uint8)

    # --------------------------------------------------------------- feedback
    def _answers(self, pans: np.ndarray, secrets: np.ndarray) -> np.ndarray:
        coin, weight = np.divmod(secrets, 2)
        return _ANSWER[pans[..., coin], weight]

    def _compute_feedback(self, action: int, secrets: np.ndarray | None) -> np.ndarray:
        if self.canonical:
            raise TypeError(
                "a canonical weighing weighs different coins depending on what the player knows: "
                "ask for its feedback with feedback_at(information_set, action, secrets)"
            )
        secrets = np.arange(self.num_secrets) if secrets is None else np.asarray(secrets)
        return self._answers(self.pans[action], secrets)

    def _compute_feedback_rows(self, actions: np.ndarray) -> np.ndarray:
        if self.canonical:
            return self._compute_feedback(int(actions[0]), None)  # raises the same error
        return self._answers(self.pans[actions], np.arange(self.num_secrets))

    def feedback_at(self, information_set: InformationSet, action: int, secrets: np.ndarray | int) -> np.ndarray:
        if not self.canonical:
            return self.feedback(action, secrets)
        key = ("pans", self.coin_classes(information_set).tobytes(), int(action))
        pans = self._memo.get(key)
        if pans is None:
            pans = self._pans_at(information_set, np.array([action]))[0]
            self._remember(key, pans)
        return self._answers(pans, np.asarray(secrets, dtype=np.intp))

    def feedback_matrix_at(
        self, information_set: InformationSet, actions: np.ndarray, secrets: np.ndarray
    ) -> np.ndarray:
        if not self.canonical:
            return self.feedback_matrix(actions, secrets)
        pans = self._pans_at(information_set, actions)
        return self._answers(pans, np.asarray(secrets, dtype=np.intp))

    def secret_components(self, secrets: np.ndarray) -> np.ndarray:
        return np.asarray(secrets).reshape(-1, 1)

    def action_components(self, actions: np.ndarray) -> np.ndarray:
        return self.class_counts[actions] if self.canonical else self.pans[actions]

    def is_terminal(self, action: int, feedback: int, information_set: InformationSet) -> bool:
        return information_set.size == 1

    # ---------------------------------------------------------- conversions
    def format_action(self, action: int) -> str:
        if not self.canonical:
            pans = self.pans[action]
            left, right = (" ".join(str(c + 1) for c in np.flatnonzero(pans == side)) for side in (LEFT, RIGHT))
            return f"{left} v {right}"
        counts = [int(v) for v in self.class_counts[action]]
        fill = sum(counts[0::2]) - sum(counts[1::2])
        on_left = dict(zip("UHL", counts[0::2], strict=True)) | {"G": max(-fill, 0)}
        on_right = dict(zip("UHL", counts[1::2], strict=True)) | {"G": max(fill, 0)}
        return " v ".join("+".join(f"{n}{c}" for c, n in pan.items() if n) for pan in (on_left, on_right))

    def parse_action(self, text: str) -> int:
        """The index of a weighing written like :meth:`format_action` writes it (``"4U v 4U"``, ``"1 2 v 3 4"``)."""
        sides = re.split(r"\s+v\s+|\s*\|\s*", str(text).strip())
        if len(sides) != 2:
            raise ValueError(f"a weighing is two pans separated by ' v ', e.g. {self.format_action(0)!r}, got {text!r}")
        if self.canonical:
            return self._parse_canonical(sides, text)
        pans = np.zeros(self.coins, dtype=np.uint8)
        for side, pan in zip(sides, (LEFT, RIGHT), strict=True):
            for word in side.replace(",", " ").split():
                if not word.isdigit() or not 1 <= int(word) <= self.coins or pans[int(word) - 1]:
                    raise ValueError(f"a pan lists distinct coin numbers in [1, {self.coins}], got {text!r}")
                pans[int(word) - 1] = pan
        found = np.flatnonzero((self.pans == pans).all(axis=1))
        if found.size == 0:
            raise ValueError(f"the pans of a weighing must hold the same number of coins (at least one), got {text!r}")
        return int(found[0])

    def _parse_canonical(self, sides: list[str], text: str) -> int:
        pans = []
        for side in sides:
            pan = dict.fromkeys(CLASSES, 0)
            for term in side.replace(" ", "").split("+"):
                match = re.fullmatch(r"(\d+)([UHLG])", term.upper())
                if not match or pan[match[2]]:
                    raise ValueError(f"a pan is counts per class like '2H+1L+1G' (classes U, H, L, G), got {text!r}")
                pan[match[2]] = int(match[1])
            pans.append(pan)
        left, right = pans
        counts = (left["U"], right["U"], left["H"], right["H"], left["L"], right["L"])
        fill = sum(counts[0::2]) - sum(counts[1::2])
        if (left["G"], right["G"]) != (max(-fill, 0), max(fill, 0)):
            raise ValueError(
                f"genuine coins (G) only even up the pans, so the lighter-counted pan gets {abs(fill)}G: got {text!r}"
            )
        found = np.flatnonzero((self.class_counts == counts).all(axis=1))
        if found.size == 0:
            raise ValueError(
                f"{text!r} is not a canonical weighing of {self.coins} coins: it weighs U coins only or H and L "
                "coins only, at most as many as there are coins, and at least one"
            )
        return int(found[0])

    def format_secret(self, secret: int) -> str:
        return f"coin {secret // 2 + 1}, {'light' if secret % 2 else 'heavy'}"

    def format_feedback(self, feedback: int) -> str:
        return _ANSWER_TEXT[int(feedback)]

    def notation(self) -> str:
        answer = f"Its answer is {_ANSWER_TEXT[0]!r}, {_ANSWER_TEXT[1]!r} or {_ANSWER_TEXT[2]!r}."
        if not self.canonical:
            return (f"A query is a weighing: the coin numbers (1 to {self.coins}) on the left pan, 'v', those on the "
                    f"right, as many on each, e.g. '1 2 3 v 4 5 6'. {answer}")  # fmt: skip
        return ("A query is a weighing written by how many coins of each knowledge class go on each pan, left 'v' "
                "right: U (could be heavy or light), H (could only be heavy), L (could only be light), G (known "
                "genuine; they fill up the pan with fewer coins), e.g. '2U v 2U' or '2H+1L v 1H+2G'. At the start "
                f"every coin is U; after a weighing tips, the coins are H, L and G. {answer}")

    # ---------------------------------------------------------------- boards
    def _replay(self, history: Sequence[Step]) -> list[tuple[list[int], list[int]]]:
        """The concrete pans of each weighing in ``history``, replayed from the start of the game."""
        from deduction_envs.core.information_set import TabularInformationSet  # the core layer, imported late

        knowledge: InformationSet = TabularInformationSet(self)
        weighings = []
        for action, feedback in history:
            weighings.append(self.concrete_weighing(action, knowledge))
            knowledge = knowledge.update(action, feedback)
        return weighings

    def render_text(self, history: Sequence[Step], information_set: InformationSet, max_steps: int) -> str:
        """Each weighing with the coins it put on the pans, then every coin's class."""
        lines = [f"{self!r}  step {len(history)}/{max_steps}"]
        weighings = self._replay(history)
        for turn, ((_, feedback), (left, right)) in enumerate(zip(history, weighings, strict=True), start=1):
            pans = f"{' '.join(map(str, left))} v {' '.join(map(str, right))}"
            lines.append(f"{turn:>3}  {pans}  ->  {self.format_feedback(feedback)}")
        classes = self.coin_classes(information_set)
        lines.append("coin:  " + " ".join(f"{c + 1:>2}" for c in range(self.coins)))
        lines.append("class: " + " ".join(f"{CLASSES[k]:>2}" for k in classes))
        lines.append(f"candidates: {information_set.size}  entropy: {information_set.entropy():.3f} bits")
        return "\n".join(lines)

    def render_rgb(self, history: Sequence[Step], information_set: InformationSet, max_steps: int) -> np.ndarray:
        """Coins coloured by class (grey U, red H, blue L, white G); the last weighing's pans underlined."""
        size = 28
        canvas = Canvas(size + 24, self.coins * size + 8, background=(50, 50, 50))
        colors = {0: (150, 150, 150), 1: (213, 94, 0), 2: (0, 114, 178), 3: (245, 245, 245)}
        for coin, cls in enumerate(self.coin_classes(information_set)):
            canvas.disc(4 + size / 2, 4 + coin * size + size / 2, size / 2 - 2, colors[int(cls)], outline=(20, 20, 20))
        if history:
            left, right = self._replay(history)[-1]
            for coins, color in ((left, (240, 228, 66)), (right, (0, 158, 115))):
                for coin in coins:
                    canvas.rect(size + 10, 4 + (coin - 1) * size + 2, 6, size - 4, color)
        return canvas.pixels
