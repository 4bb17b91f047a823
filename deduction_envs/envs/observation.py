"""The observation of a deduction env, built from a player's knowledge and history alone.

:class:`DeductionEnv` builds its observations with an :class:`ObservationEncoder`,
and so can anything that wants to feed a trained policy the same observation
without an env (``agents.SB3Policy``): the encoder needs the rules, the
player's information set and the queries and answers so far, never the secret.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from deduction_envs.core.information_set import InformationSet
from deduction_envs.core.rules import DeductionRules

__all__ = ["QUERY_FEATURES", "QUERY_KEY", "ObservationEncoder", "query_features"]


#: The key of the optional observation entry of per-query features, and its columns (one row per query).
QUERY_KEY = "query_features"
QUERY_FEATURES = ("could_be_secret", "expected_gain", "likeliest_answer")

#: Query features of the first few information sets of an episode (the same in every episode) kept per encoder.
QUERY_FEATURE_MEMO = 256

#: An encoder keeps every query's components (for the history) when there are at most this many entries.
ACTION_ROWS = 1 << 20


class ObservationEncoder:
    """Encodes (information set, history) as the env's ``Dict`` observation.

    ``"information_set"``: the component marginals of the secret, then the
    entropy divided by ``initial_entropy``. ``"history"``: for each of
    ``max_steps`` slots, the components of the query and of its feedback, each
    plus one (0 marks an empty slot).

    With ``query_features``, also ``"query_features"``: a ``(num_actions, 3)``
    matrix of state-dependent features of every query, computed from the
    information set alone (:data:`QUERY_FEATURES`): 1 if it could be the
    secret (0 in games whose queries never name a secret); its expected
    information gain as a share of the information set's entropy; the
    probability of its likeliest answer. Rows of queries that are not legal
    now are 0. These features tell a policy much of what ISES computes.
    """

    def __init__(
        self, rules: DeductionRules, max_steps: int, initial_entropy: float, query_features: bool = False
    ) -> None:
        self.rules = rules
        self.max_steps = max_steps
        self.initial_entropy = max(initial_entropy, 1e-12)
        self.query_features = bool(query_features)
        slot = [v + 1 for v in rules.action_nvec] + [v + 1 for v in rules.feedback_nvec]
        self._slot_size = len(slot)
        self._action_width = len(rules.action_nvec)
        self._feature_size = sum(rules.secret_nvec) + 1
        entries: dict[str, spaces.Space] = {
            "information_set": spaces.Box(0.0, 1.0, (self._feature_size,), dtype=np.float32),
            "history": spaces.MultiDiscrete(np.tile(slot, max_steps)),
        }
        if self.query_features:
            shape = (rules.num_actions, len(QUERY_FEATURES))
            entries[QUERY_KEY] = spaces.Box(0.0, 1.0, shape, dtype=np.float32)
        self.space = spaces.Dict(entries)
        # Every episode starts from the same knowledge: the features of its first steps are kept, by history.
        self._memo: dict[tuple[int, ...], np.ndarray] = {}
        # Looked up every step rather than recomputed.
        self._feedback_rows = rules.feedback_components(np.arange(rules.num_feedbacks))
        # Every query's components, looked up each step, where the table is small (most games).
        small = rules.num_actions * len(rules.action_nvec) <= ACTION_ROWS
        self._action_rows = rules.action_components(np.arange(rules.num_actions)) if small else None
        # Components of each step, -1 where unused: the observation is this plus one.
        self._codes = np.full(max_steps * self._slot_size, -1, dtype=np.int64)
        self._length = 0

    @classmethod
    def slot_size(cls, rules: DeductionRules) -> int:
        """Entries per query in ``"history"``: the query's components, then the feedback's."""
        return len(rules.action_nvec) + len(rules.feedback_nvec)

    def reset(self) -> None:
        """Forget the history (a new episode)."""
        self._codes.fill(-1)
        self._length = 0

    def record(self, action: int, feedback: int) -> None:
        """Add one answered query to the history."""
        start = self._length * self._slot_size
        middle = start + self._action_width
        rows = self._action_rows
        self._codes[start:middle] = (
            rows[action] if rows is not None else self.rules.action_components(np.array([action]))[0]
        )
        self._codes[middle : start + self._slot_size] = self._feedback_rows[feedback]
        self._length += 1

    def encode(self, knowledge: InformationSet, entropy: float | None = None) -> dict[str, Any]:
        """The observation for ``knowledge`` (``entropy``: its entropy, if already known)."""
        entropy = knowledge.entropy() if entropy is None else entropy
        features = np.empty(self._feature_size, dtype=np.float32)
        features[:-1] = knowledge.component_marginals()
        features[-1] = entropy / self.initial_entropy
        observation = {"information_set": features, "history": self._codes + 1}
        if self.query_features:
            observation[QUERY_KEY] = self._query_features(knowledge, entropy)
        return observation

    def _query_features(self, knowledge: InformationSet, entropy: float) -> np.ndarray:
        """The ``"query_features"`` entry (a fresh array), from the memo in an episode's first steps."""
        key = tuple(self._codes[: self._length * self._slot_size]) if self._length <= 1 else None
        cached = self._memo.get(key) if key is not None else None
        if cached is None:
            cached = query_features(knowledge, entropy)
            if key is not None:
                if len(self._memo) >= QUERY_FEATURE_MEMO:
                    self._memo.pop(next(iter(self._memo)))
                self._memo[key] = cached
        return cached.copy()


def query_features(knowledge: InformationSet, entropy: float | None = None) -> np.ndarray:
    """Every query's :data:`QUERY_FEATURES` under ``knowledge``, ``(num_actions, 3)`` float32 (see
    :class:`ObservationEncoder`); ``entropy``: the set's, if already known."""
    rules = knowledge.rules
    entropy = knowledge.entropy() if entropy is None else entropy
    out = np.zeros((rules.num_actions, len(QUERY_FEATURES)), dtype=np.float32)
    legal = rules.action_mask(knowledge)
    if rules.queries_name_secrets:
        out[:, 0] = rules.action_mask(knowledge, consistent=True)
    actions = np.flatnonzero(legal)
    if actions.size:
        expected, likeliest = knowledge.answer_statistics(actions)
        if entropy > 1e-12:
            out[actions, 1] = np.clip((entropy - expected) / entropy, 0.0, 1.0)
        out[actions, 2] = np.clip(likeliest, 0.0, 1.0)
    return out
