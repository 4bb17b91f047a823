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

__all__ = ["ObservationEncoder"]


class ObservationEncoder:
    """Encodes (information set, history) as the env's ``Dict`` observation.

    ``"information_set"``: the component marginals of the secret, then the
    entropy divided by ``initial_entropy``. ``"history"``: for each of
    ``max_steps`` slots, the components of the query and of its feedback, each
    plus one (0 marks an empty slot).
    """

    def __init__(self, rules: DeductionRules, max_steps: int, initial_entropy: float) -> None:
        self.rules = rules
        self.max_steps = max_steps
        self.initial_entropy = max(initial_entropy, 1e-12)
        slot = [v + 1 for v in rules.action_nvec] + [v + 1 for v in rules.feedback_nvec]
        self._slot_size = len(slot)
        self._action_width = len(rules.action_nvec)
        self._feature_size = sum(rules.secret_nvec) + 1
        self.space = spaces.Dict(
            {
                "information_set": spaces.Box(0.0, 1.0, (self._feature_size,), dtype=np.float32),
                "history": spaces.MultiDiscrete(np.tile(slot, max_steps)),
            }
        )
        # Looked up every step rather than recomputed.
        self._feedback_rows = rules.feedback_components(np.arange(rules.num_feedbacks))
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
        self._codes[start:middle] = self.rules.action_components(action)
        self._codes[middle : start + self._slot_size] = self._feedback_rows[feedback]
        self._length += 1

    def encode(self, knowledge: InformationSet, entropy: float | None = None) -> dict[str, Any]:
        """The observation for ``knowledge`` (``entropy``: its entropy, if already known)."""
        features = np.empty(self._feature_size, dtype=np.float32)
        features[:-1] = knowledge.component_marginals()
        features[-1] = (knowledge.entropy() if entropy is None else entropy) / self.initial_entropy
        return {"information_set": features, "history": self._codes + 1}
