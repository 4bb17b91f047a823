"""Mastermind, Simple Mastermind and Bulls and Cows: the code-breaking family.

Rules
-----
A secret *code* is a row of ``P`` symbols drawn from ``S`` symbols. The player
guesses a code of the same form, and the oracle scores the guess:

* **black** pegs: positions where guess and secret hold the same symbol;
* **white** pegs: symbols that are in both codes but not in the same position,
  each secret peg matched at most once. Formally
  ``white = sum_s min(count_guess(s), count_secret(s)) - black``.

The game ends when a guess equals the secret (``black == P``).

* :class:`Mastermind` (``pegs`` x ``colors``, repeats allowed): feedback is
  (black, white). Classic Mastermind is 4 pegs of 6 colours, 1296 codes.
* :class:`SimpleMastermind`: the same codes, but feedback is black only (the
  "Simple Mastermind" of Meng & Lucas, 2024).
* :class:`BullsAndCows` (``digits`` distinct symbols out of ``symbols``):
  secrets and guesses never repeat a symbol; feedback is (bulls, cows), which
  is (black, white) for such codes. Classic is 4 of 10, 5040 codes.

A worked example with repeated colours: secret ``AABB`` and guess ``ABBA``
agree at positions 1 and 3 (black 2); the guess's remaining ``B`` and ``A``
each find an unmatched partner in the secret (white 2).

Indexing
--------
Codes, and so secrets and queries, are numbered ``0..N-1`` in lexicographic
order of their symbol values, first peg most significant. For Mastermind the
index is the code read as a base-``colors`` number (``AAAA`` = 0, ``AAAB`` = 1,
..., ``FFFF`` = 1295); for Bulls and Cows it is the rank among codes with
distinct digits (``0123`` = 0, ``0124`` = 1, ..., ``9876`` = 5039).
:meth:`CodeGame.code_of`, :meth:`CodeGame.index_of`, :meth:`CodeGame.format_code`
and :meth:`CodeGame.parse_code` convert. Feedback index is ``black * (P + 1) + white``
(``black`` alone for Simple Mastermind).
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
from numpy.typing import ArrayLike

from deduction_envs.core.raster import Canvas, palette
from deduction_envs.core.rules import MAX_ENUMERABLE_SECRETS, DeductionRules, Step, check_int, int_field

if TYPE_CHECKING:
    from deduction_envs.core.information_set import InformationSet

__all__ = ["BullsAndCows", "CodeGame", "Mastermind", "SimpleMastermind", "score_codes", "symbol_counts"]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DIGITS_AND_LETTERS = "0123456789" + _LETTERS


def symbol_counts(codes: np.ndarray, symbols: int) -> np.ndarray:
    """How often each symbol occurs in each code.

    ``codes`` is position-major, ``(P, ...)``; the result is symbol-major,
    uint8 of shape ``(symbols, ...)``.
    """
    codes = np.asarray(codes)
    return np.stack([np.equal(codes, s).sum(axis=0, dtype=np.uint8) for s in range(symbols)])


@njit(cache=True, boundscheck=False, error_model="numpy")
def _score(guess_codes, guess_counts, secret_codes, secret_counts, whites, out) -> None:
    """The one feedback kernel of the code-breaking family: ``out[i, j]`` is the feedback index of guess ``i``
    against secret ``j``.

    Guesses are code-major, ``(A, P)`` codes and ``(A, S)`` :func:`symbol_counts`; secrets position-major,
    ``(P, M)`` and ``(S, M)``, so that every inner loop runs over contiguous secrets (and compiles to vector
    instructions). ``white = sum_s min(count_guess(s), count_secret(s)) - black``.
    """
    pegs, n = secret_codes.shape
    common = np.empty(n, dtype=np.uint8)
    for i in range(guess_codes.shape[0]):
        row = out[i]
        row[:] = 0
        for p in range(pegs):
            symbol = guess_codes[i, p]
            secret_pegs = secret_codes[p]
            for j in range(n):
                row[j] += np.uint8(secret_pegs[j] == symbol)
        if whites:
            common[:] = 0
            for s in range(secret_counts.shape[0]):
                count = guess_counts[i, s]
                secret_count = secret_counts[s]
                for j in range(n):
                    c = secret_count[j]
                    common[j] += c if c < count else count
            for j in range(n):
                row[j] = row[j] * (pegs + 1) + common[j] - row[j]


def score_codes(guesses: ArrayLike, secrets: ArrayLike, symbols: int, *, whites: bool = True) -> np.ndarray:
    """Feedback index of every guess (rows) against every secret (columns).

    ``guesses`` ``(A, P)`` and ``secrets`` ``(M, P)`` hold symbol values ``0..symbols-1``; the index is
    ``black * (P + 1) + white``, or ``black`` when ``whites`` is false.
    """
    symbols = check_int("symbols", symbols, low=1, high=255)
    guesses, secrets = np.atleast_2d(guesses), np.atleast_2d(secrets)
    for name, codes in (("guesses", guesses), ("secrets", secrets)):
        if codes.ndim != 2 or not np.issubdtype(codes.dtype, np.integer):
            raise ValueError(f"{name} must be integer codes of shape (count, pegs), got {codes.dtype} {codes.shape}")
        if codes.size and (codes.min() < 0 or codes.max() >= symbols):
            raise ValueError(f"{name} must hold symbols 0..{symbols - 1}, got {codes.min()}..{codes.max()}")
    if guesses.shape[1] != secrets.shape[1]:
        raise ValueError(f"guesses have {guesses.shape[1]} pegs and secrets {secrets.shape[1]}")
    guesses, secrets = guesses.astype(np.uint8), secrets.astype(np.uint8)
    pegs = guesses.shape[1]
    out = np.empty((guesses.shape[0], secrets.shape[0]), dtype=np.min_scalar_type((pegs + 1) ** 2 - 1))
    by_peg = np.ascontiguousarray(secrets.T)
    _score(
        guesses,
        np.ascontiguousarray(symbol_counts(guesses.T, symbols).T),
        by_peg,
        symbol_counts(by_peg, symbols),
        whites,
        out,
    )
    return out


class CodeGame(DeductionRules):
    """Shared rules of the code-breaking family; see the module docstring.

    Subclasses set :attr:`code_length`, :attr:`num_symbols`, whether symbols
    may repeat and whether whites are scored.
    """

    information_set_kind: ClassVar[Literal["enumerated", "tabular"]] = "enumerated"
    alphabet: ClassVar[str] = _LETTERS
    distinct_symbols: ClassVar[bool] = False
    count_whites: ClassVar[bool] = True
    feedback_words: ClassVar[tuple[str, ...]] = ("black", "white")

    code_length: int
    num_symbols: int

    def _check_sizes(self, length_name: str, symbols_name: str) -> None:
        # At least two symbols, so a code longer than log2 of the enumeration limit is refused before counting.
        int_field(self, length_name, low=1, high=MAX_ENUMERABLE_SECRETS.bit_length() - 1)
        int_field(self, symbols_name, low=2, high=len(self.alphabet))
        if self.distinct_symbols and self.code_length > self.num_symbols:
            raise ValueError(
                f"{length_name} ({self.code_length}) must not exceed {symbols_name} ({self.num_symbols}): "
                "a code uses distinct symbols"
            )
        count = self.num_codes
        if count > MAX_ENUMERABLE_SECRETS:
            raise ValueError(
                f"{self.name} with {length_name}={self.code_length}, {symbols_name}={self.num_symbols} "
                f"has {count:,} codes; at most {MAX_ENUMERABLE_SECRETS:,} can be enumerated"
            )

    # ------------------------------------------------------------------ sizes
    @cached_property
    def num_codes(self) -> int:
        """The number of codes, computed without building them."""
        if self.distinct_symbols:
            return math.perm(self.num_symbols, self.code_length)
        return self.num_symbols**self.code_length

    @property
    def num_secrets(self) -> int:  # type: ignore[override]
        return self.num_codes

    @property
    def num_actions(self) -> int:  # type: ignore[override]
        return self.num_codes

    @cached_property
    def secret_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        return (self.num_symbols,) * self.code_length

    @property
    def action_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        return self.secret_nvec

    @property
    def feedback_nvec(self) -> tuple[int, ...]:  # type: ignore[override]
        pegs = self.code_length + 1
        return (pegs, pegs) if self.count_whites else (pegs,)

    @cached_property
    def codes(self) -> np.ndarray:
        """Every code in index order, uint8 of shape ``(N, P)`` (read-only)."""
        p, s = self.code_length, self.num_symbols
        if self.distinct_symbols:
            flat = itertools.chain.from_iterable(itertools.permutations(range(s), p))
            codes = np.fromiter(flat, dtype=np.uint8, count=self.num_codes * p).reshape(-1, p)
        else:
            index = np.arange(self.num_codes)
            powers = s ** np.arange(p - 1, -1, -1)
            codes = ((index[:, None] // powers) % s).astype(np.uint8)
        codes.flags.writeable = False
        return codes

    @cached_property
    def _code_values(self) -> np.ndarray:
        # Codes read as base-S numbers; sorted because codes are lexicographic.
        powers = self.num_symbols ** np.arange(self.code_length - 1, -1, -1, dtype=np.int64)
        return self.codes @ powers

    # --------------------------------------------------------------- feedback
    @cached_property
    def solved_feedback(self) -> int:
        """The feedback index of a guess equal to the secret."""
        return self.code_length * (self.code_length + 1) if self.count_whites else self.code_length

    @cached_property
    def _codes_by_peg(self) -> np.ndarray:
        return np.ascontiguousarray(self.codes.T)

    @cached_property
    def _counts_by_symbol(self) -> np.ndarray:
        return symbol_counts(self._codes_by_peg, self.num_symbols)

    @cached_property
    def _guess_counts(self) -> np.ndarray:
        return np.ascontiguousarray(self._counts_by_symbol.T)

    def _compute_feedback(self, action: int, secrets: np.ndarray | None) -> np.ndarray:
        return self._compute_feedback_matrix(np.array([action]), secrets)[0]

    def _compute_feedback_matrix(self, actions: np.ndarray, secrets: np.ndarray | None) -> np.ndarray:
        codes, counts = self._codes_by_peg, self._counts_by_symbol
        if secrets is not None:
            codes, counts = codes.take(secrets, axis=1), counts.take(secrets, axis=1)
        out = np.empty((actions.size, codes.shape[1]), dtype=self.feedback_dtype)
        guesses = self.codes.take(actions, axis=0)
        _score(guesses, self._guess_counts.take(actions, axis=0), codes, counts, self.count_whites, out)
        return out

    def secret_components(self, secrets: np.ndarray) -> np.ndarray:
        return self.codes[secrets]

    def action_components(self, actions: np.ndarray) -> np.ndarray:
        return self.secret_components(actions)  # a query is a code

    def guess_actions(self, secrets: np.ndarray) -> np.ndarray:
        return np.asarray(secrets)

    def is_terminal(self, action: int, feedback: int, information_set: InformationSet) -> bool:
        return feedback == self.solved_feedback

    def terminal_batch(self, actions: np.ndarray, feedbacks: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        return np.asarray(feedbacks) == self.solved_feedback

    # ---------------------------------------------------------- conversions
    def code_of(self, index: int) -> tuple[int, ...]:
        """The symbol values of the code with this index."""
        check_int("index", index, low=0, high=self.num_codes - 1)
        return tuple(int(v) for v in self.codes[index])

    def index_of(self, code: Sequence[int] | str) -> int:
        """The index of a code given as symbol values or as text like ``"AABB"``."""
        if isinstance(code, str):
            return self.parse_code(code)
        values = np.asarray(code)
        if values.shape != (self.code_length,) or not np.issubdtype(values.dtype, np.integer):
            raise ValueError(f"a code is {self.code_length} integers in [0, {self.num_symbols}), got {code!r}")
        if values.min() < 0 or values.max() >= self.num_symbols:
            raise ValueError(f"code symbols must be in [0, {self.num_symbols}), got {code!r}")
        value = int(values @ (self.num_symbols ** np.arange(self.code_length - 1, -1, -1, dtype=np.int64)))
        index = int(np.searchsorted(self._code_values, value))
        if index == self.num_codes or self._code_values[index] != value:
            raise ValueError(f"{code!r} is not a code of {self!r}: its symbols must be distinct")
        return index

    def format_code(self, index: int) -> str:
        """The code with this index as text, e.g. ``"AABB"``."""
        return "".join(self.alphabet[v] for v in self.code_of(index))

    def parse_code(self, text: str) -> int:
        """The index of a code written as text; spaces and commas are ignored."""
        symbols = self.alphabet[: self.num_symbols]
        cleaned = re.sub(r"[\s,]", "", str(text)).upper()
        example = self.format_code(min(1, self.num_codes - 1))
        if len(cleaned) != self.code_length or any(ch not in symbols for ch in cleaned):
            raise ValueError(f"a code is {self.code_length} symbols from {symbols!r} (e.g. {example!r}), got {text!r}")
        return self.index_of([symbols.index(ch) for ch in cleaned])

    def format_action(self, action: int) -> str:
        return self.format_code(action)

    def notation(self) -> str:
        symbols = self.alphabet[: self.num_symbols]
        distinct = ", all different" if self.distinct_symbols else " (repeats allowed)"
        example = self.format_code(min(1, self.num_codes - 1))
        answer = " and ".join(self.feedback_words) + (" counts" if len(self.feedback_words) > 1 else " count")
        return (f"A query is a code of {self.code_length} symbols from {symbols!r}{distinct}, written together, "
                f"e.g. {example!r}. Its answer gives the {answer}, e.g. "
                f"{self.format_feedback(int(self.feedback(0, np.array([self.num_codes - 1]))[0]))!r}.")  # fmt: skip

    def parse_action(self, text: str) -> int:
        return self.parse_code(text)

    def format_feedback(self, feedback: int) -> str:
        parts = [int(v) for v in self.feedback_components(feedback)]
        return ", ".join(f"{word} {value}" for word, value in zip(self.feedback_words, parts, strict=True))

    # ---------------------------------------------------------------- picture
    def render_rgb(self, history: Sequence[Step], information_set: InformationSet, max_steps: int) -> np.ndarray:
        """Rows of coloured pegs, one per query, with black/white key pegs to the right."""
        row, peg, key = 36, 32, 11
        key_cols = (self.code_length + 1) // 2
        width = 12 + self.code_length * peg + 12 + key_cols * key + 12
        canvas = Canvas(12 + max_steps * row + 8, width, background=(181, 136, 99))
        colors = palette(self.num_symbols)
        for turn in range(max_steps):
            cy = 12 + turn * row + row / 2
            played = turn < len(history)
            code = self.codes[history[turn][0]] if played else None
            for i in range(self.code_length):
                cx = 12 + i * peg + peg / 2
                if code is None:
                    canvas.disc(cy, cx, 4, (120, 84, 55))
                else:
                    canvas.disc(cy, cx, peg / 2 - 3, colors[code[i]], outline=(60, 40, 25))
            if not played:
                continue
            counts = [int(v) for v in self.feedback_components(history[turn][1])]
            keys = [(20, 20, 20)] * counts[0] + [(250, 250, 250)] * (counts[1] if len(counts) > 1 else 0)
            left = 24 + self.code_length * peg
            for k, color in enumerate(keys):
                ky = cy + (k % 2 - 0.5) * key
                kx = left + (k // 2) * key + key / 2
                canvas.disc(ky, kx, key / 2 - 1, color, outline=(60, 40, 25))
        return canvas.pixels


@dataclass(frozen=True)
class Mastermind(CodeGame):
    """Mastermind: ``pegs`` pegs of ``colors`` colours, repeats allowed; black and white feedback."""

    pegs: int = 4
    colors: int = 6

    name: ClassVar[str] = "Mastermind"
    default_max_steps: ClassVar[int] = 12

    def __post_init__(self) -> None:
        self._check_sizes("pegs", "colors")

    @property
    def code_length(self) -> int:  # type: ignore[override]
        return self.pegs

    @property
    def num_symbols(self) -> int:  # type: ignore[override]
        return self.colors


@dataclass(frozen=True)
class SimpleMastermind(Mastermind):
    """Mastermind scored with black pegs only (the paper's Simple Mastermind)."""

    name: ClassVar[str] = "SimpleMastermind"
    default_max_steps: ClassVar[int] = 10
    count_whites: ClassVar[bool] = False
    feedback_words: ClassVar[tuple[str, ...]] = ("black",)


@dataclass(frozen=True)
class BullsAndCows(CodeGame):
    """Bulls and Cows: ``digits`` distinct symbols out of ``symbols``; bulls and cows feedback."""

    digits: int = 4
    symbols: int = 10

    name: ClassVar[str] = "BullsAndCows"
    default_max_steps: ClassVar[int] = 10
    alphabet: ClassVar[str] = _DIGITS_AND_LETTERS
    distinct_symbols: ClassVar[bool] = True
    feedback_words: ClassVar[tuple[str, ...]] = ("bulls", "cows")

    def __post_init__(self) -> None:
        self._check_sizes("digits", "symbols")

    @property
    def code_length(self) -> int:  # type: ignore[override]
        return self.digits

    @property
    def num_symbols(self) -> int:  # type: ignore[override]
        return self.symbols
