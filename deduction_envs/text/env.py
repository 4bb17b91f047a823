"""A single-player deduction env played in text: replies in, the game so far out."""

from __future__ import annotations

import math
import string
from typing import Any, SupportsFloat, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from deduction_envs.core.information_set import InformationSet
from deduction_envs.core.rules import check_int
from deduction_envs.envs.deduction_env import DeductionEnv
from deduction_envs.text.reply import TAIL, ReplyError
from deduction_envs.text.scoring import EPSILON, Bits, efficiency
from deduction_envs.text.single import SingleText

__all__ = ["CHARSET", "REWARDS", "TextEnv"]

#: The rewards :class:`TextEnv` can give a query.
REWARDS = ("queries", "bits", "efficiency")
#: The characters of the observations (printable ASCII and whitespace) and of the replies the action space draws.
CHARSET = string.printable


class TextEnv(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """A single-player deduction env (``gym.make("Mastermind-v0")``) played in text.

    The observation is the game so far as text (:meth:`SingleText.observation`); an action is a reply, any text:
    its answer is read as a query (:mod:`deduction_envs.text.reply`). A reply that is not a legal, new query is
    not played: the observation says what was wrong, the reward is ``invalid_reward``, ``info["invalid"]`` holds
    the message, and after ``max_invalid`` such replies in a game it ends (truncated, unsolved). The rules, for a
    system prompt, are :attr:`prompt` and ``info["prompt"]`` at reset.

    ``info`` also carries, each step, ``"query"`` (the query played, in the game's notation), ``"invalid_replies"``
    (so far this game) and the wrapped env's own keys.

    **Scoring** (``score=True``): each query is weighed against the best one from the same information set, exactly.
    ``info["bits"]`` is ``(gained, expected, best)``: the bits the query gained, the bits it was expected to gain
    (its expected entropy drop over the secrets still possible) and the most any legal query was expected to gain
    (the question exhaustive ISES asks). ``info["efficiency"]`` is the game's information efficiency so far: the
    expected bits of its queries over the best's, summed over the queries that could gain anything (1.0: every
    question as informative as the best). Scoring costs what an ISES decision costs (seconds at Wordle's first
    query).

    Args:
        env: a single-player env of this package (any wrappers around it).
        max_invalid: replies that are not a legal, new query a game allows before it ends (>= 1).
        invalid_reward: the reward of such a reply (default -1, as a wasted query).
        score: weigh each query against the best (above); needed by the rewards other than ``"queries"``.
        reward: ``"queries"`` (the env's: -1 a query), ``"bits"`` (the bits each query was expected to gain) or
            ``"efficiency"`` (each query's expected bits over the best's, 0 to 1; 1 where no query gains).
    """

    def __init__(
        self,
        env: gym.Env,
        max_invalid: int = 5,
        invalid_reward: float = -1.0,
        score: bool = True,
        reward: str = "queries",
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, max_invalid=max_invalid, invalid_reward=invalid_reward, score=score, reward=reward
        )
        super().__init__(env)
        if not isinstance(env.unwrapped, DeductionEnv):
            raise TypeError(f"TextEnv wraps a single-player deduction env, got {type(env.unwrapped).__name__}")
        self.max_invalid = check_int("max_invalid", max_invalid, low=1)
        if (
            isinstance(invalid_reward, bool)
            or not isinstance(invalid_reward, int | float)
            or not math.isfinite(invalid_reward)
        ):
            raise ValueError(f"invalid_reward must be a finite number, got {invalid_reward!r}")
        self.invalid_reward = float(invalid_reward)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if not isinstance(score, bool | np.bool_):
            raise ValueError(f"score must be True or False, got {score!r}")
        if reward != "queries" and not score:
            raise ValueError(f"reward={reward!r} is built from the scores: it needs score=True")
        self.score, self.reward = bool(score), reward
        game = self._game
        self.text = SingleText(game.rules, game.max_steps)
        self.prompt = self.text.prompt()
        longest = 60 + max(len(self.text.action_text(0)), 40) + 40  # a history line, generously
        self.observation_space = spaces.Text(max_length=400 + game.max_steps * longest, min_length=1, charset=CHARSET)
        self.action_space = spaces.Text(max_length=TAIL, min_length=0, charset=CHARSET)
        self._asked: dict[int, int] = {}
        self._invalid = 0
        self._over = True
        self._bits: list[Bits] = []

    def _weigh(self, knowledge: InformationSet, query: int) -> tuple[float, float]:
        """The bits ``query`` is expected to gain from ``knowledge``, and the most any legal query is."""
        legal = np.flatnonzero(self._game.action_masks())
        drop = knowledge.entropy() - knowledge.expected_entropy(legal)
        return max(0.0, float(drop[legal == query][0])), max(0.0, float(drop.max()))

    @property
    def _game(self) -> DeductionEnv:
        return cast(DeductionEnv, self.env.unwrapped)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict]:
        """A new game (as the wrapped env's ``reset``); the observation is the empty game as text."""
        _, info = self.env.reset(seed=seed, options=options)
        self._asked, self._invalid, self._over, self._bits = {}, 0, False, []
        return self.text.observation(()), {**info, "prompt": self.prompt, "invalid_replies": 0}

    def step(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict]:
        """Play the reply ``action`` (any text): its query if it names a legal, new one, else nothing (see the
        class)."""
        if self._over:
            raise RuntimeError("the game is over (or not begun): call reset()")
        game = self._game
        try:
            query = self.text.parse(action, game.action_masks(), self._asked)
        except ReplyError as error:
            self._invalid += 1
            truncated = self._invalid >= self.max_invalid
            self._over = truncated
            message = str(error)
            end = (
                f"The game is over: {self._invalid} replies were not a query, the most a game allows."
                if truncated
                else None
            )
            info: dict[str, Any] = {"invalid": message, "invalid_replies": self._invalid}
            return self.text.observation(game.history, message, end), self.invalid_reward, False, truncated, info
        before = game.information_set
        bits = self._weigh(before, query) if self.score else None
        _, reward, terminated, truncated, info = self.env.step(query)
        self._asked[query] = int(info["feedback"])
        self._over = terminated or truncated
        info = {**info, "query": self.text.action_text(query), "invalid_replies": self._invalid}
        if bits is not None:
            expected, best = bits
            info["bits"] = (before.entropy() - game.information_set.entropy(), expected, best)
            self._bits.append(info["bits"])
            info["efficiency"] = efficiency(self._bits)
            if self.reward == "bits":
                reward = expected
            elif self.reward == "efficiency":
                reward = expected / best if best > EPSILON else 1.0
        end = None
        if terminated:
            end = "The game is over: you found the secret." if info.get("secret_known", True) else "The game is over."
        elif truncated:
            end = "The game is over: no queries are left."
        return self.text.observation(game.history, end=end), reward, terminated, truncated, info
