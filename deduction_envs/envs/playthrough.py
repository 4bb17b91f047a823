"""Playthroughs of the multiplayer envs: recorded games a person can read, in the spirit of OpenSpiel's.

A playthrough is a game of random legal actions drawn from a seed, written as text: per step, the acting
seat, its legal actions, the action (decoded), and every seat's observation by named piece (only the entries
that are not zero, and only when the observation changed since that seat's last one). Each multiplayer game
of :mod:`deduction_envs.registry` declares its playthroughs (``Game.playthroughs``: env keyword arguments and a
seed); ``tests/test_playthroughs.py`` plays each again and compares the text with the file, so a change to the
rules, the knowledge or the observations shows in review as a diff of what changed.

    python -m scripts.record_playthroughs        # writes tests/data/playthroughs/<env>-<n>.txt
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from deduction_envs import registry

__all__ = ["describe", "file_name", "playthrough", "playthroughs"]


def _entries(values: np.ndarray) -> str:
    """The entries of an array that are not zero, as ``index=value`` (``index`` alone for a 1), an index of
    several dimensions written ``i.j``."""
    parts = []
    for index in zip(*np.nonzero(values), strict=True):
        value = float(values[index])
        where = ".".join(str(int(i)) for i in index)
        parts.append(where if value == 1 else f"{where}={value:.4g}")
    return " ".join(parts) if parts else "-"


def _observation(env: Any, vector: np.ndarray) -> list[str]:
    """An observation vector by named piece, a line each; a piece of three or more dimensions (Algo's hands:
    seat, position, entry) a line per leading index."""
    lines = []
    for name, piece in env.split(np.round(vector.astype(np.float64), 6)).items():
        if piece.ndim <= 2:
            lines.append(f"    {name}: {_entries(piece)}")
        else:
            lines += [f"    {name}[{i}]: {_entries(row)}" for i, row in enumerate(piece)]
    return lines


def _ranges(actions: np.ndarray) -> str:
    """Sorted action indices, runs written ``a-b``."""
    runs, start = [], None
    for i, a in enumerate(actions.tolist()):
        if start is None:
            start = a
        if i + 1 == len(actions) or actions[i + 1] != a + 1:
            runs.append(str(start) if start == a else f"{start}-{a}")
            start = None
    return " ".join(runs)


def describe(rules: Any, action: int) -> str:
    """An action as the rules write it (Clue's in card names)."""
    if hasattr(rules, "describe_action"):
        return rules.describe_action(action)
    if hasattr(rules, "format_move"):
        return rules.format_move(rules.decode(action))
    return str(rules.decode(action))


def playthrough(env_id: str, kwargs: dict[str, Any], seed: int) -> str:
    """The text of one game of ``env_id`` (built with ``kwargs``) of random legal actions drawn from ``seed``."""
    game = registry.game(env_id)
    env = game.make_raw_env(**kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = [f"# {game.env_id} {json.dumps(kwargs, sort_keys=True)}, seed {seed}: random legal actions from the seed"]
    seen: dict[str, np.ndarray] = {}
    step = 0
    while env.agents:
        agent = env.agent_selection
        observation = env.observe(agent)
        legal = np.flatnonzero(observation["action_mask"])
        action = int(rng.choice(legal))
        lines += ["", f"## step {step}: {agent}", f"  legal: {_ranges(legal)}"]
        for other in env.possible_agents:
            vector = env.observe(other)["observation"]
            if other in seen and np.array_equal(seen[other], vector):
                lines.append(f"  {other}: unchanged")
                continue
            seen[other] = vector
            lines += [f"  {other}:", *_observation(env, vector)]
        lines.append(f"  action: {action} ({describe(env.rules, action)})")
        env.step(action)
        step += 1
        if all(env.terminations.get(a, False) or env.truncations.get(a, False) for a in env.agents):
            break
    ended = "truncated" if any(env.truncations.values()) else "over"
    rewards = {a: round(float(r), 6) for a, r in env._cumulative_rewards.items()}
    lines += ["", f"## {ended} after {step} actions: rewards {json.dumps(rewards)}", ""]
    return "\n".join(lines)


def file_name(env_id: str, number: int) -> str:
    """The file of playthrough ``number`` of ``env_id``."""
    return f"{env_id}-{number}.txt"


def playthroughs() -> Iterator[tuple[str, str, dict[str, Any], int]]:
    """Every declared playthrough: ``(file name, env id, kwargs, seed)``."""
    for game in registry.games(multiplayer=True):
        for number, (kwargs, seed) in enumerate(game.playthroughs):
            yield file_name(game.env_id, number), game.env_id, dict(kwargs), seed
