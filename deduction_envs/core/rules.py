"""The rules protocol of a single-player deduction game.

A game of the Meng & Lucas framework hides one secret drawn uniformly from a
finite, enumerable set; the player asks queries and a truthful oracle answers
each with a feedback value computed deterministically from the query and the
secret. A :class:`DeductionRules` object is the immutable configuration of one
game at one size. It numbers secrets, queries and feedback values ``0..n-1``
and computes feedback for many secrets at once, so that information sets,
envs and agents never loop over secrets in Python.

Every index also has *components*, small integers that describe it to a
learner or a person (a Mastermind code is ``pegs`` colours, its feedback is
``(black, white)``). The env builds observations from components, so a new
game only declares them.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Mapping, Sequence
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np

if TYPE_CHECKING:
    from deduction_envs.core.information_set import InformationSet

__all__ = [
    "DeductionRules",
    "FEEDBACK_CACHE_BYTES",
    "MAX_ENUMERABLE_SECRETS",
    "Step",
    "check_int",
    "check_options",
    "check_seed",
    "component_offsets",
    "int_field",
    "marginal_pointers",
    "one_hot",
    "search_step_limit",
]

#: The largest secret space an enumerated information set may hold (about 4.2
#: million); the code table of such a game stays near 100 MB at worst.
MAX_ENUMERABLE_SECRETS = 1 << 22

#: Rules whose full action x secret feedback table fits in this many bytes
#: memoise each action's feedback row the first time it is asked for.
FEEDBACK_CACHE_BYTES = 64 << 20

#: One query and its answer, as kept in an episode's history.
Step = tuple[int, int]


@lru_cache(maxsize=64)
def component_offsets(nvec: tuple[int, ...]) -> np.ndarray:
    """Where each component's values start when the components of ``nvec`` are laid end to end (read-only)."""
    offsets = np.concatenate(([0], np.cumsum(nvec[:-1]))).astype(np.intp)
    offsets.flags.writeable = False
    return offsets


def one_hot(components: np.ndarray, nvec: tuple[int, ...]) -> np.ndarray:
    """``(rows, sum(nvec))`` float32: each row's components (``(rows, len(nvec))``) as one-hot codes laid end to
    end, component after component."""
    components = np.asarray(components, dtype=np.intp)
    rows = np.arange(components.shape[0])
    table = np.zeros((rows.size, sum(nvec)), dtype=np.float32)
    table[rows[:, None], components + component_offsets(tuple(nvec))] = 1.0
    return table


def search_step_limit(num_secrets: int) -> int:
    """A truncation limit for games that end when the secret is known.

    Twice the depth of a binary search over the secrets, and at least 10: a
    safety net for poor play, well above what a sensible strategy needs.
    """
    return max(10, 2 * math.ceil(math.log2(num_secrets)))


def check_int(name: str, value: object, *, low: int, high: int | None = None) -> int:
    """Return ``value`` as an int or raise a ValueError that names ``name``.

    ``low`` and ``high`` are inclusive bounds; the message says what is
    accepted, so a size error reads like ``pegs must be an integer >= 1, got 0``.
    """
    accepted = f">= {low}" if high is None else f"in [{low}, {high}]"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer {accepted}, got {value!r}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be an integer {accepted}, got {value}")
    return int(value)


def check_seed(seed: object, name: str = "seed") -> int | None:
    """``seed`` as an int (or None), or a ValueError naming ``name``: numpy's seeds are integers >= 0."""
    return None if seed is None else check_int(name, seed, low=0)


def check_options(options: object, accepted: Sequence[str] = ()) -> dict:
    """The ``options`` of a ``reset`` as a new dict, or a ValueError: a mapping (or None) of ``accepted`` keys."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"options must be a dict or None, got {options!r}")
    unknown = sorted(map(repr, set(options) - set(accepted)))
    if unknown:
        takes = f"the only options are {', '.join(map(repr, accepted))}" if accepted else "this env takes none"
        raise ValueError(f"unknown reset option(s) {', '.join(unknown)}; {takes}")
    return dict(options)


def int_field(obj: object, name: str, *, low: int, high: int | None = None) -> int:
    """Check the size field ``name`` of a frozen dataclass with :func:`check_int` and store it as a Python int.

    A numpy integer passes the check, and kept as it came it would overflow or
    confuse numpy later (``np.int64(4)`` as a code length), so every validated
    size is stored as ``int``.
    """
    value = check_int(name, getattr(obj, name), low=low, high=high)
    object.__setattr__(obj, name, value)
    return value


class DeductionRules(abc.ABC):
    """Immutable rules of a single-player deduction game at one size.

    Subclasses are frozen dataclasses whose fields are the game's size
    parameters. They set the sizes below (usually as cached properties) and
    implement the abstract methods; the base class supplies the vectorised
    :meth:`feedback` with a memo of feedback rows for small games.

    Attributes:
        name: registered name of the game, e.g. ``"Mastermind"``.
        default_max_steps: the env's truncation limit unless overridden.
        information_set_kind: ``"enumerated"`` or ``"tabular"``, the
            representation the paper uses for this game.
        num_secrets, num_actions: sizes of the secret and query spaces.
        secret_nvec, action_nvec, feedback_nvec: the number of values of each
            component of a secret, a query and a feedback value. Feedback
            indices are the row-major ravel of their components.
    """

    name: ClassVar[str]
    default_max_steps: ClassVar[int]
    information_set_kind: ClassVar[Literal["enumerated", "tabular"]] = "enumerated"

    num_secrets: int
    num_actions: int
    secret_nvec: tuple[int, ...]
    action_nvec: tuple[int, ...]
    feedback_nvec: tuple[int, ...]

    # ------------------------------------------------------------------ sizes
    @property
    def num_feedbacks(self) -> int:
        """The number of feedback indices (some may be unreachable)."""
        return math.prod(self.feedback_nvec)

    @property
    def feedback_dtype(self) -> np.dtype:
        """The smallest unsigned dtype that holds every feedback index."""
        return np.min_scalar_type(self.num_feedbacks - 1)

    @property
    def table_shape(self) -> tuple[int, ...]:
        """The shape a tabular information set gives its probability table."""
        return (self.num_secrets,)

    # --------------------------------------------------------------- feedback
    @abc.abstractmethod
    def _compute_feedback(self, action: int, secrets: np.ndarray | None) -> np.ndarray:
        """Feedback indices of ``action`` against each of ``secrets`` (no cache).

        ``secrets`` is a 1-D integer array, or None for every secret in index
        order, which a game may compute faster than by gathering them.
        """

    def feedback(self, action: int, secrets: np.ndarray | int) -> np.ndarray:
        """Feedback indices of query ``action`` against every secret in ``secrets``.

        Vectorised over ``secrets`` (an integer array of secret indices, or one
        index); the result has the same shape and dtype :attr:`feedback_dtype`. For games
        whose whole feedback table is small, each action's row over all
        secrets is computed once and then looked up.
        """
        row = self.feedback_row(action)
        if row is None:
            secrets = np.asarray(secrets)
            if secrets.ndim == 0:
                return self._compute_feedback(action, secrets.reshape(1))[0]
            return self._compute_feedback(action, secrets)
        return row[secrets]

    def feedback_row(self, action: int) -> np.ndarray | None:
        """The memo's row of query ``action``, its feedback against every secret (computed the first time), or
        None for games whose table is too large to memoise. Read it, do not write it."""
        cache = self._feedback_rows
        if cache is None:
            return None
        if not cache[1][action]:  # the scalar check keeps the env's step cheap
            self._fill_rows(cache, np.array([action]))
        return cache[0][action]

    def feedback_matrix(self, actions: np.ndarray, secrets: np.ndarray) -> np.ndarray:
        """Feedback of every query in ``actions`` (rows) against every secret in ``secrets`` (columns)."""
        actions = np.asarray(actions, dtype=np.intp)
        secrets = np.asarray(secrets, dtype=np.intp)
        cache = self._feedback_rows
        if cache is None:
            return self._compute_feedback_matrix(actions, secrets)
        self._fill_rows(cache, actions)
        # take() along each axis beats fancy indexing with np.ix_ severalfold.
        return cache[0].take(actions, axis=0).take(secrets, axis=1)

    def feedback_table(self, actions: np.ndarray) -> np.ndarray | None:
        """The memo of feedback rows, ``(num_actions, num_secrets)``, with the rows of ``actions`` filled (the
        others may be unfilled: read only those); None for games whose table is too large to memoise."""
        cache = self._feedback_rows
        if cache is None:
            return None
        self._fill_rows(cache, np.asarray(actions, dtype=np.intp))
        return cache[0]

    def _fill_rows(self, cache: tuple[np.ndarray, np.ndarray], actions: np.ndarray) -> None:
        """Compute the memoised feedback rows of ``actions`` that are not there yet."""
        table, ready = cache
        filled = ready[actions]
        if filled.all():  # the usual case, and cheaper to tell than what is missing
            return
        missing = np.unique(actions[~filled])
        if missing.size:
            table[missing] = self._compute_feedback_rows(missing)
            ready[missing] = True

    def _compute_feedback_rows(self, actions: np.ndarray) -> np.ndarray:
        """Feedback of each of ``actions`` against every secret, ``(len(actions), num_secrets)`` (no cache)."""
        return self._compute_feedback_matrix(actions, None)

    def _compute_feedback_matrix(self, actions: np.ndarray, secrets: np.ndarray | None) -> np.ndarray:
        """Feedback of each of ``actions`` (rows) against each of ``secrets`` (columns; None: every secret in
        index order), no cache.

        One :meth:`_compute_feedback` call per action; a game whose kernel is vectorised over queries too
        may override it.
        """
        rows = np.empty((actions.size, self.num_secrets if secrets is None else secrets.size), self.feedback_dtype)
        for row, action in enumerate(actions):
            rows[row] = self._compute_feedback(int(action), secrets)
        return rows

    @cached_property
    def _feedback_rows(self) -> tuple[np.ndarray, np.ndarray] | None:
        size = self.num_actions * self.num_secrets * self.feedback_dtype.itemsize
        if size > FEEDBACK_CACHE_BYTES:
            return None
        # np.zeros maps pages lazily: only rows that are filled cost memory.
        table = np.zeros((self.num_actions, self.num_secrets), dtype=self.feedback_dtype)
        return table, np.zeros(self.num_actions, dtype=bool)

    # --------------------------------------------- queries that depend on knowledge
    #: Whether a query's legality or meaning depends on the player's knowledge.
    #: Most games' queries are fixed (a Mastermind guess is a code); Fake Coin's
    #: canonical weighings say how many coins of each knowledge class go on each
    #: pan, so which coins they weigh, and which are possible, depend on it.
    knowledge_dependent_actions: ClassVar[bool] = False

    def legal_actions(self, information_set: InformationSet) -> np.ndarray | None:
        """Bool mask of the queries legal for a player who knows ``information_set``.

        None (the default) means every query is always legal.
        """
        return None

    def action_mask(self, information_set: InformationSet, consistent: bool = False) -> np.ndarray:
        """Bool mask, one per query, of :meth:`legal_actions` (never None); a fresh array.

        With ``consistent``, only the legal queries that could be the secret
        (:meth:`guess_actions` of the information set's support).
        """
        legal = self.legal_actions(information_set)
        mask = np.ones(self.num_actions, dtype=bool) if legal is None else legal.copy()
        if consistent:
            could_win = np.zeros(self.num_actions, dtype=bool)
            could_win[self.guess_actions(information_set.support)] = True
            mask &= could_win
        return mask

    def feedback_at(self, information_set: InformationSet, action: int, secrets: np.ndarray | int) -> np.ndarray:
        """:meth:`feedback` of ``action`` asked by a player who knows ``information_set``.

        Information sets and envs ask for feedback through this method, so a
        game whose queries depend on knowledge overrides it (and
        :meth:`feedback_matrix_at`); for every other game it is :meth:`feedback`.
        """
        return self.feedback(action, secrets)

    def feedback_matrix_at(
        self, information_set: InformationSet, actions: np.ndarray, secrets: np.ndarray
    ) -> np.ndarray:
        """:meth:`feedback_matrix` of ``actions`` asked by a player who knows ``information_set``."""
        return self.feedback_matrix(actions, secrets)

    def feedback_components(self, feedbacks: np.ndarray | int) -> np.ndarray:
        """Components of feedback indices, shape ``(..., len(feedback_nvec))``."""
        parts = np.unravel_index(np.asarray(feedbacks), self.feedback_nvec)
        return np.stack(parts, axis=-1)

    # ------------------------------------------------------------- components
    @abc.abstractmethod
    def secret_components(self, secrets: np.ndarray) -> np.ndarray:
        """Components of secret indices, shape ``(len(secrets), len(secret_nvec))``."""

    @abc.abstractmethod
    def action_components(self, actions: np.ndarray) -> np.ndarray:
        """Components of query indices, shape ``(len(actions), len(action_nvec))``."""

    def guess_actions(self, secrets: np.ndarray) -> np.ndarray | None:
        """The query that names each secret, or None if queries are not guesses.

        Used for the "consistent" action mask and to prefer queries that could
        win at once.
        """
        return None

    @property
    def queries_name_secrets(self) -> bool:
        """Whether some query names a secret (:meth:`guess_actions` is not None), as "consistent" masks need."""
        return self.guess_actions(np.zeros(1, dtype=np.intp)) is not None

    # ------------------------------------------------------------ termination
    @abc.abstractmethod
    def is_terminal(self, action: int, feedback: int, information_set: InformationSet) -> bool:
        """Whether the game ends after ``action`` got ``feedback``.

        ``information_set`` is the player's knowledge after the update, for
        games that end when the secret is known rather than named.
        """

    def terminal_batch(self, actions: np.ndarray, feedbacks: np.ndarray, sizes: np.ndarray) -> np.ndarray | None:
        """:meth:`is_terminal` of many games at once: ``actions`` and ``feedbacks`` of one step each, ``sizes``
        the number of secrets each game still has (uniform knowledge). None (the default) where the rule needs
        more than that; the batched env (:class:`~deduction_envs.envs.batched_env.BatchedDeductionEnv`) plays
        only games that give one."""
        return None

    # ----------------------------------------------------------- presentation
    @abc.abstractmethod
    def format_action(self, action: int) -> str:
        """A short human-readable form of a query."""

    @abc.abstractmethod
    def parse_action(self, text: str) -> int:
        """The query index of a human-readable query; ValueError if malformed."""

    def notation(self) -> str:
        """How a query and its answer are written, in a sentence or two for a player (the text layer's prompt):
        this game's sizes spelt out. Empty if the game does not say."""
        return ""

    def format_secret(self, secret: int) -> str:
        """A secret in words: the query that names it where queries name secrets, else its components."""
        guesses = self.guess_actions(np.array([secret]))
        if guesses is not None:
            return self.format_action(int(guesses[0]))
        return " ".join(str(int(c)) for c in self.secret_components(np.array([secret]))[0])

    @abc.abstractmethod
    def format_feedback(self, feedback: int) -> str:
        """A short human-readable form of a feedback index."""

    def render_text(self, history: Sequence[Step], information_set: InformationSet, max_steps: int) -> str:
        """The board as text: one line per query with its feedback, then the knowledge."""
        lines = [f"{self!r}  step {len(history)}/{max_steps}"]
        for turn, (action, feedback) in enumerate(history, start=1):
            lines.append(f"{turn:>3}  {self.format_action(action)}  ->  {self.format_feedback(feedback)}")
        lines.append(f"candidates: {information_set.size}  entropy: {information_set.entropy():.3f} bits")
        return "\n".join(lines)

    @abc.abstractmethod
    def render_rgb(self, history: Sequence[Step], information_set: InformationSet, max_steps: int) -> np.ndarray:
        """A picture of the board, uint8 of shape ``(height, width, 3)``."""

    # ---------------------------------------------------------------- pickling
    def __getstate__(self) -> dict:
        # Caches are rebuilt on demand; leaving them out keeps pickles (and the
        # copies SubprocVecEnv sends to its workers) small.
        cached = {
            name for cls in type(self).__mro__ for name, attr in vars(cls).items() if isinstance(attr, cached_property)
        }
        return {key: value for key, value in self.__dict__.items() if key not in cached}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


def marginal_pointers(rules: DeductionRules) -> np.ndarray:
    """Per query of a single-player game, the index in its observation's ``"information_set"`` entry of the
    marginal probability of each of the query's components being the secret's (the entry holds the marginals
    of the secret's components, block after block): ``(num_actions, len(action_nvec))`` int64. Defined where a
    query's components name values of the secret's components: one by one (Mastermind, Bulls and Cows, Wordle:
    ``action_nvec == secret_nvec``), or each in a one-component secret (Low-Middle-High's two cuts)."""
    action_nvec, secret_nvec = list(rules.action_nvec), list(rules.secret_nvec)
    components = rules.action_components(np.arange(rules.num_actions)).astype(np.int64)
    if action_nvec == secret_nvec:
        return components + component_offsets(tuple(secret_nvec))
    if len(secret_nvec) == 1 and all(n == secret_nvec[0] for n in action_nvec):
        return components
    raise ValueError(
        f"{rules.name}'s queries (components {action_nvec}) do not name values of its secret's components "
        f"({secret_nvec}): it has no marginal pointers"
    )
