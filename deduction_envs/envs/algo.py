"""Algo as a PettingZoo AEC env: ``algo_v0``.

    from deduction_envs.envs import algo_v0

    env = algo_v0.env(players=2, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"] if not (termination or truncation) else None
        action = None if mask is None else env.action_space(agent).sample(mask)
        env.step(action)

The rules are in :mod:`deduction_envs.games.algo`; this module only adapts
them. Agents are ``player_0`` .. ``player_{n-1}``; the agent to act is the
player whose turn it is.

Action space
------------
``Discrete(AlgoRules.num_actions)``: attacks ``(opponent, position, number)``,
then stop, then reveal one's own ``position`` (``AlgoRules.decode``).
``observation["action_mask"]`` marks the legal ones.

Observation space
-----------------
``{"observation": Box, "action_mask": Box}``. The observation is the acting
player's information set, seats in turn order starting with its own; for
every position of every hand (up to ``max_hand``): present, white, face up,
the number one-hot if the player knows it (its own cards and face-up ones),
the numbers ruled out by missed attacks, and (with ``probabilities=True``)
the exact probability of each number there
(:class:`~deduction_envs.reasoning.AlgoHandPosterior`). Then its drawn card
(present, white, number one-hot), the phase (attack, continue, reveal) and
the share of the deck left.

Rewards
-------
At the end: +1 for the winner, -1 for the player out first, and linearly in
between by the order of going out (two players: +1 and -1). ``max_cycles``
actions truncate the game (0 for everyone).

Arguments
---------
``players`` (2-4), ``hand_size``, ``numbers`` (see ``AlgoRules``),
``probabilities`` (default True), ``max_cycles`` (default 2,000),
``render_mode`` (``"ansi"``, ``"human"`` or ``"rgb_array"``).

Version History
---------------
* v0: first version.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from deduction_envs.core.raster import Canvas
from deduction_envs.games.algo import AlgoEvent, AlgoRules, AlgoState, Phase, PlayerView, format_card
from deduction_envs.reasoning.algo_hands import AlgoHandPosterior

__all__ = ["encode_view", "env", "observation_size", "raw_env"]


def observation_size(rules: AlgoRules) -> int:
    """Length of :func:`encode_view`'s vector."""
    return rules.players * rules.max_hand * (3 + 3 * rules.numbers) + (2 + rules.numbers) + 3 + 1


def encode_view(rules: AlgoRules, view: PlayerView, probabilities: bool = True) -> np.ndarray:
    """The observation vector of a player's view (see the module docstring); needs no env."""
    n, k = rules.numbers, rules.max_hand
    width = 3 + 3 * n
    out = np.zeros(observation_size(rules), dtype=np.float32)
    ones: list[int] = []  # every entry that is 1, gathered in Python and set at once: hands are short
    posterior = AlgoHandPosterior(view, n) if probabilities else None
    for row in range(rules.players):
        seat = (view.player + row) % rules.players
        hand = view.hands[seat]
        known = view.own if seat == view.player else hand.known
        cards = zip(hand.colours, hand.known, known, hand.excluded, strict=True)
        for i, (colour, shown, card, excluded) in enumerate(cards):
            cell = (row * k + i) * width
            ones.append(cell)
            if colour:
                ones.append(cell + 1)
            if shown >= 0:
                ones.append(cell + 2)
            if card >= 0:
                ones.append(cell + 3 + card // 2)
            ones.extend(cell + 3 + n + e for e in excluded)
        if posterior is not None and hand.colours:
            start = row * k * width
            cells = out[start : start + len(hand.colours) * width].reshape(-1, width)
            cells[:, 3 + 2 * n :] = posterior.number_probabilities(seat)
    tail = rules.players * k * width
    if view.drawn >= 0:
        ones += [tail, tail + 2 + view.drawn // 2] + ([tail + 1] if view.drawn % 2 else [])
    if view.phase != Phase.OVER:
        ones.append(tail + 2 + n + int(view.phase))
    out[ones] = 1.0
    out[-1] = view.deck / rules.deck_size
    return out


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` in PettingZoo's standard wrappers (illegal actions and order checks)."""
    aec = raw_env(**kwargs)
    aec = wrappers.TerminateIllegalWrapper(aec, illegal_reward=-1)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    return wrappers.OrderEnforcingWrapper(aec)


class raw_env(AECEnv):
    """Algo for 2 to 4 players; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "algo_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 2,
        hand_size: int | None = None,
        numbers: int = 12,
        probabilities: bool = True,
        max_cycles: int = 2000,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = AlgoRules(players, hand_size, numbers)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1:
            raise ValueError(f"max_cycles must be an integer >= 1, got {max_cycles!r}")
        self.probabilities = bool(probabilities)
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.possible_agents = [f"player_{p}" for p in range(players)]
        size = observation_size(self.rules)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (self.rules.num_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(self.rules.num_actions) for agent in self.possible_agents}
        self.state: AlgoState | None = None
        self.history: list[AlgoEvent] = []
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = self.rules.new_game(self._rng)
        self.history = []
        self._cycles = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.state.mover]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self.possible_agents.index(agent)
        view = self.rules.view(self.state, player)
        mask = self.rules.legal_mask(self.state) if player == self.state.mover else np.zeros(self.rules.num_actions)
        return {
            "observation": encode_view(self.rules, view, self.probabilities),
            "action_mask": mask.astype(np.int8),
        }

    def entropy(self, agent: str) -> float:
        """Bits of ``agent``'s uncertainty: log2 of the deals consistent with its view (all equally likely)."""
        view = self.rules.view(self.state, self.possible_agents.index(agent))
        return float(np.log2(AlgoHandPosterior(view, self.rules.numbers).count))

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.history.append(self.rules.apply(self.state, int(action)))
        self._cycles += 1
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.state.phase == Phase.OVER:
            self.rewards = dict(zip(self.possible_agents, self.rules.rewards(self.state), strict=True))
            self.terminations = dict.fromkeys(self.agents, True)
        elif self._cycles >= self.max_cycles:
            self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[self.state.mover]
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render_text())

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            return self.render_rgb()
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_text(self) -> str:
        """A spectator's view: every hand (``[B3]`` face down, ``B3`` face up), the deck and the last event."""
        state = self.state
        lines = []
        for player, hand in enumerate(state.hands):
            cards = " ".join(format_card(c) if c in state.revealed[player] else f"[{format_card(c)}]" for c in hand)
            marker = "*" if player == state.mover and state.phase != Phase.OVER else " "
            lines.append(f"{marker} player_{player}: {cards}")
        drawn = "-" if state.drawn is None else format_card(state.drawn)
        lines.append(f"deck {len(state.deck)}, drawn {drawn}, phase {state.phase.name.lower()}")
        if self.history:
            lines.append(f"last: {self.history[-1].move}, {'hit' if self.history[-1].hit else 'no hit'}")
        return "\n".join(lines)

    def render_rgb(self) -> np.ndarray:
        """A spectator's view: rows of black or white cards, a red corner when face down, the number as a bar."""
        cell, gap = 24, 6
        canvas = Canvas(
            gap + self.rules.players * (2 * cell + gap), gap + self.rules.max_hand * (cell + gap), (0, 110, 60)
        )
        for player, hand in enumerate(self.state.hands):
            top = gap + player * (2 * cell + gap)
            for i, c in enumerate(hand):
                left = gap + i * (cell + gap)
                face, ink = ((20, 20, 20), (240, 240, 240)) if c % 2 == 0 else ((240, 240, 240), (20, 20, 20))
                canvas.rect(top, left, 2 * cell, cell, face)
                bar = int(2 * cell * (c // 2 + 1) / (self.rules.numbers + 1))
                canvas.rect(top + 2 * cell - bar, left + cell // 3, bar, cell // 3, ink)
                if c not in self.state.revealed[player]:
                    canvas.rect(top, left, cell // 3, cell // 3, (220, 40, 40))
        return canvas.pixels

    def close(self) -> None:
        pass
