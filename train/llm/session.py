"""One game for a text player, whoever drives it: a chat client (:mod:`train.llm.evaluate`), a verifiers
environment (:mod:`train.llm.verifiers_env`) or an OpenEnv server (:mod:`train.llm.openenv_server`).

A session holds the game and everything the player does not play: :attr:`~GameSession.prompt` (the rules, for a
system message), :attr:`~GameSession.observation` (what the player sees now), :meth:`~GameSession.reply` (its
next reply, any text) and, once :attr:`~GameSession.done`, :meth:`~GameSession.outcome`. In a multiplayer game
the other seats are reference agents, played between the player's replies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "GameSession",
    "SeatSession",
    "check_session",
    "say_preparing",
    "scored",
    "session",
    "strict_json",
]


class GameSession:
    """A single-player game (``env_id`` a single-player id) through :class:`~deduction_envs.text.TextEnv`.

    Args:
        env_id: the env's id; ``sizes`` its keyword arguments.
        reset: the keyword arguments of its reset (``{"seed": 3}``, ``{"options": {"secret": 17}}``).
        max_invalid: replies that are not a legal new query a game allows.
    """

    def __init__(self, env_id: str, sizes: dict[str, Any] | None = None, reset: dict[str, Any] | None = None,
                 max_invalid: int = 5) -> None:  # fmt: skip
        import gymnasium as gym

        import deduction_envs  # noqa: F401  (registers the envs in a fresh worker)
        from deduction_envs.text import TextEnv

        self.env = TextEnv(gym.make(env_id, **(sizes or {})), max_invalid=max_invalid)
        self.observation, info = self.env.reset(**(reset or {}))
        self.prompt: str = info["prompt"]
        self.done = False
        self.reward = 0.0
        self._solved = False
        self._bits: list[tuple[float, float, float]] = []
        self._invalid = 0

    def reply(self, text: str) -> None:
        """Play the player's reply (one query, or a reply that is not one: then nothing is played)."""
        if self.done:
            raise RuntimeError("the game is over")
        self.observation, reward, terminated, truncated, info = self.env.step(text)
        self.reward += float(reward)
        self._invalid = int(info["invalid_replies"])
        if "bits" in info:
            self._bits.append(tuple(float(b) for b in info["bits"]))  # type: ignore[arg-type]
        self.done = bool(terminated or truncated)
        self._solved = bool(terminated and info.get("secret_known", True))

    def outcome(self) -> dict[str, Any]:
        """``solved``, ``queries``, ``invalid`` replies, ``efficiency`` (NaN before any query), each query's
        ``bits`` and the env's ``reward`` summed."""
        from deduction_envs.text.scoring import efficiency

        return {
            "solved": self._solved,
            "queries": len(self.env.unwrapped.history),  # type: ignore[attr-defined]
            "invalid": self._invalid,
            "efficiency": efficiency(self._bits) if self._bits else math.nan,
            "bits": list(self._bits),
            "reward": self.reward,
        }


class SeatSession:
    """A multiplayer game with the text player in one seat and reference agents in the others.

    Game ``game`` is dealt from ``(seed, game)``, the player sits in seat ``game mod players`` and the other seats
    are ``opponents`` (roster names, cycled in turn order after the player's seat), each seeded from the same
    numbers. With ``player`` a roster name, that agent plays the seat instead (the whole game is played at once):
    the same deal, seat and opponents' seeds as the text player's game ``game``.

    The observation is the seat's whole game so far as text (:class:`~deduction_envs.text.TextAECEnv`), ending with
    what it must do and, after a reply that was not a legal move, what was wrong with it. A game ended by
    ``max_invalid`` such replies is a forfeit: the outcome's reward is the game's lowest (its rules' ``reward_range``),
    not the env's truncation reward 0.
    """

    def __init__(self, env_id: str, sizes: dict[str, Any] | None, opponents: Sequence[str], game: int, seed: int,
                 player: str | None = None, max_invalid: int = 5) -> None:  # fmt: skip
        from agents.roster import seat_agent
        from deduction_envs import registry
        from deduction_envs.text import TextAECEnv

        if not opponents:
            raise ValueError("opponents names at least one reference agent for the other seats")
        self.env = env = TextAECEnv(registry.game(env_id).make_env(**(sizes or {})), max_invalid=max_invalid,
                                    score=True)  # fmt: skip
        raw = env.unwrapped
        players = raw.rules.players
        self.seat = game % players
        self.name = raw.possible_agents[self.seat]
        streams = np.random.SeedSequence((seed, game)).spawn(players + 1)
        self.agents: dict[int, Any] = {}
        for other in range(players):
            if other != self.seat or player is not None:
                after = (other - self.seat) % players - 1  # the opponents in turn order after the seat: 0, 1, ...
                name = player if other == self.seat else opponents[after % len(opponents)]
                self.agents[other] = seat_agent(env_id, str(name))
                self.agents[other].reset(raw.rules, other, int(streams[other + 1].generate_state(1)[0]))
        env.listeners = {other: agent.observe for other, agent in self.agents.items()}
        env.reset(seed=int(streams[0].generate_state(1)[0]))
        self.prompt: str = env.prompt(self.name)
        self.reward = 0.0
        self._iterator = iter(env.agent_iter())
        self.done = False
        self.observation = ""
        self._advance()

    def _advance(self) -> None:
        """Play the agents' moves until the text player must reply or the game is over."""
        env, raw = self.env, self.env.unwrapped
        for agent in self._iterator:
            _, reward, terminated, truncated, _ = env.last(observe=False)
            if agent == self.name:
                self.reward += float(reward)
            if terminated or truncated:
                env.step(None)
                continue
            mover = raw.table.mover
            if mover in self.agents:
                env.play_action(self.agents[mover].act(raw.table.legal_mask()))
                continue
            self.observation = env.observe(self.name)
            return
        self.done = True
        self.observation = env.observe(self.name)

    def reply(self, text: str) -> None:
        """Play the player's reply (a legal move, or a reply that is not one: then it is asked again)."""
        if self.done:
            raise RuntimeError("the game is over")
        self.env.step(text)
        self._advance()

    def outcome(self) -> dict[str, Any]:
        """The seat's ``reward`` (a forfeit: the lowest), ``won``, ``forfeit``, ``truncated`` (the env's
        ``max_cycles``: nobody won), ``invalid`` replies, ``efficiency`` (NaN without a question) and each
        question's ``bits``."""
        env, raw = self.env, self.env.unwrapped
        forfeit = env.forfeited
        bits = env.bits(self.name)
        return {
            "seat": self.seat,
            "reward": raw.rules.reward_range[0] if forfeit else self.reward,
            "won": raw.rules.winner(raw.table.state) == self.seat and not forfeit,
            "forfeit": forfeit,
            "truncated": not raw.table.over and not forfeit,
            "invalid": env.invalid_replies,
            "efficiency": env.efficiency(self.name) if bits else math.nan,
            "bits": bits,
        }


def say_preparing(env_id: str) -> None:
    """Say on standard error what a command does before its first game, which is slow the first time: importing
    the frameworks, and for a multiplayer game compiling its knowledge engine with numba (cached after)."""
    import sys

    from deduction_envs import registry

    first = " (the first run after an install compiles its engine with numba: about 25 s on 2 cores; later ones, a " \
            "second or two)" if registry.game(env_id).multiplayer else ""  # fmt: skip
    print(f"preparing {env_id}{first}...", file=sys.stderr, flush=True)


def check_session(env_id: str, sizes: dict[str, Any] | None = None, opponents: Sequence[str] | None = None) -> None:
    """Refuse, before any game, what :func:`session` would refuse in every game: an unknown game, sizes it does not
    take, a game the text layer does not play (Clue on its board), opponents that are not its roster's agents.

    Raises:
        ValueError: what is wrong, named.
    """
    from agents.roster import agent_names
    from deduction_envs import registry

    known = registry.game(env_id)
    try:
        env = known.make_env(**(sizes or {}))
        if known.multiplayer:
            from deduction_envs.text import TextAECEnv

            TextAECEnv(env)
        else:
            from deduction_envs.text import TextEnv

            TextEnv(env)
    except TypeError as error:
        raise ValueError(str(error)) from None
    if opponents is not None:
        if not known.multiplayer:
            raise ValueError(f"opponents are for the multiplayer games; {env_id} is played alone")
        names = agent_names(env_id)
        if not opponents or any(name not in names for name in opponents):
            given = ", ".join(map(str, opponents)) or "none"
            raise ValueError(f"{env_id}'s agents are {', '.join(names)}, got {given}")


def session(env_id: str, sizes: dict[str, Any] | None = None, game: int = 0, seed: int = 0,
            opponents: Sequence[str] | None = None, max_invalid: int = 5,
            secret: int | None = None) -> GameSession | SeatSession:  # fmt: skip
    """A session of ``env_id``'s game ``game`` for a text player: a single-player game on the secret the reference
    agents' evaluation draws for its episode ``game`` (seed ``seed``; or secret number ``secret``), or a seat of a
    multiplayer game against ``opponents`` (default: the game's usual opponent)."""
    from deduction_envs import registry

    known = registry.game(env_id)
    if known.multiplayer:
        if secret is not None:
            raise ValueError(f"secret is for the single-player games; {env_id} deals from game and seed")
        return SeatSession(env_id, sizes, opponents or (known.opponent,), game, seed, max_invalid=max_invalid)
    if secret is not None:
        return GameSession(env_id, sizes, {"options": {"secret": secret}}, max_invalid)
    from agents.evaluation import episode_plan

    reset, _ = episode_plan(game + 1, "sample", seed)[game]
    return GameSession(env_id, sizes, reset, max_invalid)


def scored(record: Any) -> bool:
    """A game that ended (not stopped by the endpoint's errors): kept, while a stopped one is played again when the
    command is run again."""
    return record.error is None


def strict_json(value: Any) -> Any:
    """``value`` with every float that JSON cannot hold (NaN, infinities) as None, so that ``json.dumps(...,
    allow_nan=False)`` writes strict JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: strict_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(item) for item in value]
    return value
