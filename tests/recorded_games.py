"""Recorded multiplayer games: how they are played, so that a replay can be compared with the record.

``record(game)`` plays every game of ``GAMES[game]`` and returns what
``tests/data/<game>_games.json`` holds; ``scripts/record_games.py`` writes it
and ``tests/test_recorded_games.py`` checks that a replay gives it again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np


class _Logged:
    """An agent that logs every action it chooses to a shared list and is otherwise the agent it wraps."""

    def __init__(self, agent: Any, log: list[int]) -> None:
        self._agent, self._log = agent, log

    def act(self, *args: Any, **kwargs: Any) -> int:
        action = int(self._agent.act(*args, **kwargs))
        self._log.append(action)
        return action

    def __getattr__(self, name: str) -> Any:
        return getattr(self._agent, name)


def _digest(observation: dict[str, np.ndarray]) -> str:
    """A short digest of an observation, rounded so that the last bit of a float does not matter."""
    data = np.round(observation["observation"].astype(np.float64), 6).tobytes()
    return hashlib.sha1(data + observation["action_mask"].astype(np.int8).tobytes()).hexdigest()[:16]


def uniform(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniformly random legal action."""
    return int(rng.choice(np.flatnonzero(mask)))


def rarely_accusing(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A random legal Clue action that accuses one time in twenty (games then last)."""
    legal = np.flatnonzero(mask)
    accusations = legal[(legal >= 324) & (legal < 648)]
    others = legal[(legal < 324) | (legal >= 648)]
    return int(rng.choice(accusations if (accusations.size and rng.random() < 0.05) or not others.size else others))


def env_game(
    make_env: Callable[..., Any],
    kwargs: dict[str, Any],
    seed: int,
    choose: Callable[[np.random.Generator, np.ndarray], int] = uniform,
) -> dict[str, Any]:
    """A game of random legal actions (drawn from ``seed`` by ``choose``) in the env; every observation digested."""
    env = make_env(**kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, digests = [], []
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        rewards[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        digests.append(_digest(observation))
        action = choose(rng, observation["action_mask"])
        actions.append(action)
        env.step(action)
    return {"kwargs": kwargs, "seed": seed, "actions": actions, "digests": digests, "rewards": rewards}


def agent_game(rules: Any, agents: list[Any], seed: int) -> dict[str, Any]:
    """A game between ``agents`` through ``play_game``, every action logged."""
    from agents.multiplayer import play_game

    actions: list[int] = []
    result = play_game(rules, [_Logged(agent, actions) for agent in agents], seed=seed)
    return {"agents": [a.name for a in agents], "seed": seed, "actions": actions, "winner": result.winner}


def _algo() -> dict[str, Any]:
    from agents.algo_agents import AlgoEpsilonGreedy, AlgoMaxEntropy
    from agents.multiplayer import RandomSeatAgent
    from agents.multiplayer_ismcts import SOISMCTS
    from deduction_envs.envs import algo_v0
    from deduction_envs.games.algo import AlgoRules

    envs = [
        env_game(algo_v0.env, {"players": players, "probabilities": probabilities}, seed)
        for players in (2, 3, 4)
        for seed, probabilities in ((players, True), (10 + players, False))
    ]
    matches = [
        (AlgoRules(2), lambda: [AlgoEpsilonGreedy(0.1), AlgoMaxEntropy(samples=2)], 1),
        (AlgoRules(3), lambda: [SOISMCTS(iterations=20), RandomSeatAgent(), AlgoEpsilonGreedy(0.5)], 2),
        (
            AlgoRules(4),
            lambda: [RandomSeatAgent(), AlgoEpsilonGreedy(0.0), AlgoMaxEntropy(samples=2), AlgoEpsilonGreedy(1)],
            3,
        ),
    ]
    games = [dict(agent_game(rules, make(), seed), players=rules.players) for rules, make, seed in matches]
    return {"env_games": envs, "agent_games": games}


def _clue() -> dict[str, Any]:
    from agents.clue_agents import ClueDeductionSheet
    from agents.multiplayer import RandomSeatAgent
    from deduction_envs.envs import clue_v0
    from deduction_envs.games.clue import ClueRules

    # Without the probability table: the facts and counts alone, which no change of counting budget alters.
    envs = [
        env_game(clue_v0.env, {"players": players, "probabilities": False}, seed, rarely_accusing)
        for players, seed in ((3, 1), (4, 2), (5, 3), (6, 4))
    ]
    matches = [
        (ClueRules(3), lambda: [ClueDeductionSheet() for _ in range(3)], 1),
        (ClueRules(4), lambda: [ClueDeductionSheet(), RandomSeatAgent(), ClueDeductionSheet(), RandomSeatAgent()], 2),
        (ClueRules(6), lambda: [ClueDeductionSheet() for _ in range(6)], 3),
    ]
    games = [dict(agent_game(rules, make(), seed), players=rules.players) for rules, make, seed in matches]
    return {"env_games": envs, "agent_games": games}


GAMES: dict[str, Callable[[], dict[str, Any]]] = {"algo": _algo, "clue": _clue}


def record(game: str) -> dict[str, Any]:
    """Play the recorded games of ``game`` and return their records."""
    return GAMES[game]()
