"""The deduction games as an OpenEnv ``Environment``: its action, observation and environment classes, served by
:mod:`train.llm.openenv_server` (whose docstring says how to use them)."""

from __future__ import annotations

import uuid
from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

__all__ = ["DeductionAction", "DeductionEnvironment", "DeductionObservation", "RefusedRequest"]


class RefusedRequest(ValueError):
    """A reset or step the environment refuses (bad arguments, no game in progress): the server answers it with
    ``status`` and the message, not a 500 and a traceback."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class DeductionAction(Action):
    """The player's reply: any text; its answer is read as its move."""

    reply: str = Field(description="the player's reply: a move in the game's notation, or text ending with one")


class DeductionObservation(Observation):
    """What the player sees, and at the end how the game went."""

    text: str = Field(default="", description="the game so far as the player has seen it, and what to do")
    prompt: str = Field(default="", description="the rules, for a system prompt (at reset)")
    outcome: dict[str, Any] = Field(default_factory=dict, description="how the game went (once done)")


class DeductionEnvironment(Environment[DeductionAction, DeductionObservation, State]):
    """One game at a time of ``env_id`` for a text player (see the module docstring).

    Args:
        env_id: an env id of this package; ``sizes`` its keyword arguments.
        opponents: roster agents in a multiplayer game's other seats (default the game's usual opponent).
        max_invalid: replies that are not a legal move a game allows.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, env_id: str = "Mastermind-v0", sizes: dict[str, Any] | None = None,
                 opponents: list[str] | None = None, max_invalid: int = 5) -> None:  # fmt: skip
        super().__init__()
        from train.llm.session import check_session

        check_session(env_id, sizes, opponents)  # at start, not at every reset
        self.env_id, self.sizes, self.opponents, self.max_invalid = env_id, dict(sizes or {}), opponents, max_invalid
        self._session: Any = None
        self._state = State()

    def reset(self, seed: int | None = None, episode_id: str | None = None, game: int = 0,
              secret: int | None = None, **kwargs: Any) -> DeductionObservation:  # fmt: skip
        """A new game: game ``game`` of the evaluation seeded ``seed`` (default 0), or single-player ``secret``."""
        from deduction_envs.core.rules import check_int
        from train.llm.session import session

        if kwargs:
            raise RefusedRequest(f"reset takes seed, episode_id, game and secret, got {', '.join(kwargs)}")
        try:
            game = check_int("game", game, low=0)
            seed = 0 if seed is None else check_int("seed", seed, low=0)
            self._session = session(self.env_id, self.sizes, game, seed, self.opponents, self.max_invalid, secret)
        except (ValueError, TypeError) as error:
            raise RefusedRequest(str(error)) from None
        self._state = State(episode_id=episode_id or str(uuid.uuid4()), step_count=0)
        return self._observe(prompt=self._session.prompt)

    def step(self, action: DeductionAction, timeout_s: float | None = None, **kwargs: Any) -> DeductionObservation:
        """Play the player's reply."""
        if self._session is None or self._session.done:
            raise RefusedRequest("no game in progress: reset() first", 409)
        if not isinstance(getattr(action, "reply", None), str):
            raise RefusedRequest("an action is the player's reply: {'reply': TEXT}")
        before = self._session.reward
        self._session.reply(action.reply)
        self._state.step_count += 1
        if self._session.done and "won" in (outcome := self._session.outcome()):
            return self._observe(reward=outcome["reward"] - before)  # a forfeit's lowest reward, not 0
        return self._observe(reward=self._session.reward - before)

    def _observe(self, reward: float | None = None, prompt: str = "") -> DeductionObservation:
        done = bool(self._session.done)
        return DeductionObservation(text=self._session.observation, prompt=prompt, done=done, reward=reward,
                                    outcome=self._session.outcome() if done else {})  # fmt: skip

    @property
    def state(self) -> State:
        return self._state
