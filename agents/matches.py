"""Recorded matches: games between reference agents, written as text a person can read.

Each multiplayer game of :mod:`deduction_envs.registry` declares its matches (``Game.matches``: rules keyword
arguments, the agents' roster names by seat, and a seed). A match is played by :func:`agents.play_game` and
written one decision a line (the seat, its agent, the action and what it means), then the winner and the
rewards. ``tests/test_playthroughs.py`` plays each again and compares the text with
``tests/data/matches/<env>-<n>.txt``, so a change to the rules, the knowledge or an agent that alters a game
shows in review as the decision where the game went another way.

    python -m scripts.record_playthroughs        # writes the playthroughs and the matches
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from agents.multiplayer import Logged, play_game
from agents.roster import seat_agent
from deduction_envs import registry
from deduction_envs.envs.playthrough import describe, file_name

__all__ = ["match", "matches"]


def match(env_id: str, kwargs: Mapping[str, Any], names: Sequence[str], seed: int) -> str:
    """The text of one game of ``env_id``'s rules (built with ``kwargs``) between the roster agents ``names``
    (by seat, seat 0 first), dealt and seeded from ``seed``."""
    game = registry.game(env_id)
    rules = game.make_rules(**kwargs)
    log: list[tuple[int, int, float]] = []
    agents = [Logged(seat_agent(env_id, name), log) for name in names]
    record = play_game(rules, agents, seed=seed)
    lines = [f"# {game.env_id} {json.dumps(dict(kwargs), sort_keys=True)}, seed {seed}: {', '.join(names)}", ""]
    lines += [f"{n:4d} seat {seat} ({names[seat]}): {action} ({describe(rules, action)})" for n, (seat, action, _) in
              enumerate(log)]  # fmt: skip
    winner = "nobody" if record.winner is None else f"seat {record.winner} ({names[record.winner]})"
    rewards = [round(float(r), 6) for r in record.rewards]
    lines += ["", f"won by {winner} after {len(log)} decisions: rewards {json.dumps(rewards)}", ""]
    return "\n".join(lines)


def matches() -> Iterator[tuple[str, str, dict[str, Any], tuple[str, ...], int]]:
    """Every declared match: ``(file name, env id, kwargs, agent names, seed)``."""
    for game in registry.games(multiplayer=True):
        for number, (kwargs, names, seed) in enumerate(game.matches):
            yield file_name(game.env_id, number), game.env_id, dict(kwargs), tuple(names), seed
