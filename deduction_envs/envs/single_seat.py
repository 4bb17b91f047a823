"""One seat of a multiplayer AEC env as a Gymnasium env, the other seats played by agents inside ``step()``.

    from agents import ClueDeductionSheet
    from deduction_envs.envs import clue_v0
    from deduction_envs.envs.single_seat import SingleSeatEnv

    env = SingleSeatEnv(clue_v0.raw_env(players=4), [ClueDeductionSheet() for _ in range(3)])
    observation, info = env.reset(seed=0)
    mask = env.action_masks().astype("int8")  # Gymnasium samples from an int8 mask
    observation, reward, terminated, truncated, info = env.step(env.action_space.sample(mask))

What the PettingZoo tutorial's SB3 wrapper gets wrong, this holds:

* Control returns at every decision of the learner, whatever it is
  (choosing a card to show included), with the *learner's* observation.
* The learner's terminal reward is always delivered, whoever ends the game
  (rewards of every env step inside ``step()`` are summed for the learner).
* The other seats are agents with the :class:`~agents.multiplayer.SeatAgent`
  contract (``reset(rules, seat, seed)``, ``observe(event)``, ``act(mask)``),
  fed only the events projected for their seat, exactly as in
  :func:`~agents.multiplayer.play_game`.

The learner's seat is ``seat`` or, if None, drawn each episode from the
env's seeded generator. ``opponents`` is a list of ``players - 1`` agents, or a
callable that gets the generator and returns such a list each episode (a
league's pool). ``action_masks()`` gives MaskablePPO the learner's legal
actions; ``info["action_mask"]`` carries it too. A masked action follows the
AEC env's policy (the game ends, -1 to the learner). A game the other seats
end before the learner's first decision (a lucky first accusation) is dealt
again: the learner has nothing to learn from it. The last step's ``info`` has
the learner's ``rank`` (1 = first, tied seats sharing the mean of their
places, by the final rewards) and ``won`` (1.0 if it is alone first). With
``entropy=True`` every ``info`` has the learner's ``entropy`` in bits (of its
own knowledge), so that :class:`~deduction_envs.wrappers.EntropyRewardWrapper`
shapes its rewards by what it learns. The env is built anew in
each process of a ``SubprocVecEnv`` from a function that makes it.

``shadow``, a :class:`~agents.multiplayer.SeatAgent`, sits in the learner's
seat without playing it: reset at that seat each episode, it sees exactly the
learner's events, and :meth:`shadow_action` is what it would do at the
learner's decision (an expert's labels for behaviour cloning). Step the
env with that action to follow the expert; an agent that plans over several
decisions (a Generalized Clue move's sub-steps) expects to be followed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from deduction_envs.core.multiplayer import ranks_from_rewards
from deduction_envs.core.rules import check_int
from deduction_envs.envs.multiplayer_env import MultiplayerAECEnv

__all__ = ["SingleSeatEnv"]


class SingleSeatEnv(gym.Env):
    """The learner's seat of ``env`` (a raw :class:`MultiplayerAECEnv`); see the module docstring."""

    action_space: gym.spaces.Discrete

    def __init__(
        self,
        env: MultiplayerAECEnv,
        opponents: Sequence[Any] | Callable[[np.random.Generator], Sequence[Any]],
        seat: int | None = None,
        entropy: bool = False,
        shadow: Any | None = None,
    ) -> None:
        if not isinstance(env, MultiplayerAECEnv):
            raise ValueError(f"env must be one of the multiplayer envs, unwrapped (raw_env), got {type(env).__name__}")
        if not isinstance(entropy, bool):
            raise ValueError(f"entropy must be True or False, got {entropy!r}")
        self.env, self.entropy = env, entropy
        if shadow is not None and not all(callable(getattr(shadow, m, None)) for m in ("reset", "observe", "act")):
            raise ValueError(f"shadow must be a SeatAgent (reset, observe, act), got {type(shadow).__name__}")
        self.shadow = shadow
        players = env.rules.players
        self.seat = None if seat is None else check_int("seat", seat, low=0, high=players - 1)
        if not callable(opponents):
            self._check_opponents(opponents)
            if shadow is not None and any(agent is shadow for agent in opponents):
                raise ValueError("the shadow must not be one of the opponents (each agent keeps one seat's knowledge)")
        self.opponents = opponents
        first = env.possible_agents[0]
        space = env.observation_space(first)
        assert isinstance(space, gym.spaces.Dict)
        self.observation_space = space["observation"]
        action_space = env.action_space(first)
        assert isinstance(action_space, gym.spaces.Discrete)
        self.action_space = action_space
        self.render_mode = env.render_mode
        self.metadata = {"render_modes": env.metadata["render_modes"], "name": f"single_seat({env.metadata['name']})"}
        self.learner = 0
        self.seated: dict[int, Any] = {}

    def _check_opponents(self, opponents: Sequence[Any]) -> list[Any]:
        opponents = list(opponents)
        if len(opponents) != self.env.rules.players - 1:
            raise ValueError(f"the game has {self.env.rules.players - 1} other seats, got {len(opponents)} opponents")
        if len({id(a) for a in opponents}) != len(opponents):
            raise ValueError("opponents must be distinct objects, one per seat (each keeps its own knowledge)")
        return opponents

    # ------------------------------------------------------------------ Gymnasium's API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new game (seeded by ``seed``) and play the other seats up to the learner's first turn."""
        super().reset(seed=seed)
        rng, env = self.np_random, self.env
        players = env.rules.players
        self.learner = int(rng.integers(players)) if self.seat is None else self.seat
        pool = self.opponents(rng) if callable(self.opponents) else self.opponents
        others = [s for s in range(players) if s != self.learner]
        self.seated = dict(zip(others, self._check_opponents(pool), strict=True))
        watching = {**self.seated, **({} if self.shadow is None else {self.learner: self.shadow})}
        for seat, agent in watching.items():
            agent.reset(env.rules, seat, int(rng.integers(2**63)))
        env.seat_listeners = {seat: agent.observe for seat, agent in watching.items()}
        for _ in range(100):
            env.reset(seed=int(rng.integers(2**63)))
            self._advance()
            if not self._done():
                return self._observation(), self._info()
            for seat, agent in watching.items():  # over before the learner's first decision: deal again
                agent.reset(env.rules, seat, int(rng.integers(2**63)))
        raise RuntimeError("100 games in a row ended before the learner's first decision")

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play the learner's ``action``, then the other seats up to its next turn or the game's end.

        Raises:
            RuntimeError: the episode is over.
        """
        env = self.env
        if self._done():
            raise RuntimeError("the episode is over: call reset()")
        learner = env.possible_agents[self.learner]
        env.step(action)
        reward = float(env.rewards.get(learner, 0.0)) + self._advance()
        info = self._info()
        if "illegal_action" in env.infos.get(learner, {}):
            info["illegal_action"] = env.infos[learner]["illegal_action"]
        terminated = bool(env.terminations[learner])
        truncated = bool(env.truncations[learner]) and not terminated
        return self._observation(), reward, terminated, truncated, info

    def add_opponent(self, entry: Any) -> None:
        """Add ``entry`` to the opponents' pool (a league's new snapshot): the pool must have ``add(entry)``."""
        if not hasattr(self.opponents, "add"):
            raise TypeError("the opponents are not a pool with add(); give SingleSeatEnv such a pool to grow it")
        self.opponents.add(entry)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (all False once the episode is over)."""
        table = self.env.table
        if self._done() or table is None or table.mover != self.learner:
            return np.zeros(self.action_space.n, dtype=bool)
        return table.legal_mask().copy()

    def shadow_action(self) -> int:
        """What the ``shadow`` agent would do at the learner's decision now."""
        if self.shadow is None:
            raise RuntimeError("this env has no shadow agent: give SingleSeatEnv(shadow=...)")
        if self._done():
            raise RuntimeError("the episode is over: call reset()")
        return int(self.shadow.act(self.action_masks()))

    def render(self) -> Any:
        return self.env.render()

    def close(self) -> None:
        self.env.close()

    # ------------------------------------------------------------------ the other seats
    def _done(self) -> bool:
        learner = self.env.possible_agents[self.learner]
        return bool(self.env.terminations[learner] or self.env.truncations[learner])

    def _advance(self) -> float:
        """Play the other seats until the learner must decide or the episode ends; the learner's rewards meanwhile."""
        env, learner, reward = self.env, self.env.possible_agents[self.learner], 0.0
        table = env.table
        assert table is not None, "reset() deals first"
        while not self._done() and table.mover != self.learner:
            env.step(self.seated[table.mover].act(table.legal_mask()))
            reward += float(env.rewards.get(learner, 0.0))
        return reward

    def _observation(self) -> np.ndarray:
        return self.env.observe(self.env.possible_agents[self.learner])["observation"]

    def _info(self) -> dict:
        info = {"seat": self.learner, "action_mask": self.action_masks()}
        if self.entropy:  # the learner's uncertainty in bits, what EntropyRewardWrapper shapes the reward with
            info["entropy"] = self.env.entropy(self.env.possible_agents[self.learner])
        if self._done():  # the learner's place: 1 = first, tied seats sharing (also what Monitor's info_keywords log)
            rank = ranks_from_rewards(list(self.env.rewards.values()))[self.learner]
            info["rank"], info["won"] = rank, float(rank == 1.0)
        return info
