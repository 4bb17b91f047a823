"""Algo as a PettingZoo AEC env: ``algo_v0``.

A whole game of random legal actions::

    from deduction_envs.envs import algo_v0

    env = algo_v0.env(players=2, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"] if not (termination or truncation) else None
        action = None if mask is None else env.action_space(agent).sample(mask)
        env.step(action)

The rules are in :mod:`deduction_envs.games.algo`; this module only adapts
them to :class:`~deduction_envs.envs.multiplayer_env.MultiplayerAECEnv`, and
each seat's observation comes from its own
:class:`~deduction_envs.reasoning.AlgoKnowledge`, kept from the events
projected for it. Agents are ``player_0`` .. ``player_{n-1}``; the agent to act is the
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
the share of the deck left (:func:`observation_pieces` names the pieces).
The training layer can add entries of a small search to it (the training env the registry entry names:
``python -m train --size exposure=K --size playouts=N``).

Rewards
-------
At the end: +1 for the winner, -1 for the player out first, and linearly in
between by the order of going out (two players: +1 and -1). ``max_cycles``
actions truncate the game (0 for everyone). A masked action ends the game
with -1 for its player and 0 for the others
(:mod:`deduction_envs.envs.multiplayer_env`; ``illegal_action="raise"`` raises instead).

Arguments
---------
``players`` (2-4), ``hand_size``, ``numbers`` (see ``AlgoRules``),
``probabilities`` (default True), ``max_cycles`` (default 2,000),
``render_mode`` (``"ansi"``, ``"human"`` or ``"rgb_array"``), ``illegal_action`` (``"end"`` or ``"raise"``,
default ``"end"``; ``strict`` its deprecated alias).

Version History
---------------
* v0: first version. Since the multiplayer layer, the raw env ends the game
  on a masked action itself (it raised before; ``env()`` ended it already).
  The ``exposure`` and ``playouts`` options were added (off by default), then moved to the training layer
  (the training env of the registry entry, which ``python -m train --size exposure=K`` builds); the
  observation without them is unchanged, so the id stays ``v0``.
  ``illegal_action`` (``"end"`` or ``"raise"``) names the strict mode as the Gymnasium envs do; ``strict`` is
  its deprecated alias, for one version.
  ``state()`` is PettingZoo's global view (every seat's observation vector, in ``state_space``); it was a
  property holding the table's whole state, which is ``env.table.state``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv

from deduction_envs.core.raster import Canvas
from deduction_envs.envs.multiplayer_env import MultiplayerAECEnv, ObservationPieces, Observer, wrap
from deduction_envs.games.algo import AlgoRules, Phase, PlayerView, format_card
from deduction_envs.reasoning.algo_hands import AlgoHandPosterior, AlgoKnowledge

__all__ = ["AlgoObserver", "encode_view", "env", "observation_pieces", "observation_size", "raw_env"]


def observation_size(rules: AlgoRules) -> int:
    """Length of :func:`encode_view`'s vector."""
    return rules.players * rules.max_hand * (3 + 3 * rules.numbers) + (2 + rules.numbers) + 3 + 1


def observation_pieces(rules: AlgoRules) -> ObservationPieces:
    """The named pieces of :func:`encode_view`'s vector: per seat in turn order from the observer's and
    position, the card's 3 + 3 * numbers entries (present, white, face up, its number, numbers ruled out,
    probabilities); the drawn card; the phase; the deck's share."""
    n = rules.numbers
    return ObservationPieces([("hands", (rules.players, rules.max_hand, 3 + 3 * n)), ("drawn", (2 + n,)),
                              ("phase", (3,)), ("deck", (1,))])  # fmt: skip


def encode_view(
    rules: AlgoRules, view: PlayerView, probabilities: bool = True, posterior: AlgoHandPosterior | None = None
) -> np.ndarray:
    """The observation vector of a player's view (see the module docstring); needs no env.

    ``posterior`` is the view's, if already counted.
    """
    n, k = rules.numbers, rules.max_hand
    width = 3 + 3 * n
    out = np.zeros(observation_size(rules), dtype=np.float32)
    ones: list[int] = []  # every entry that is 1, gathered in Python and set at once: hands are short
    if probabilities and posterior is None:
        posterior = AlgoHandPosterior(view, n)
    elif not probabilities:
        posterior = None
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
            if excluded:
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


class AlgoObserver(Observer):
    """A seat's observation of Algo (see the module docstring), from its :class:`AlgoKnowledge` alone."""

    rules: AlgoRules

    def __init__(self, rules: AlgoRules, probabilities: bool = True) -> None:
        super().__init__(rules, probabilities)
        self.pieces = observation_pieces(rules)

    def encode(self, knowledge: AlgoKnowledge) -> np.ndarray:
        posterior = knowledge.posterior if self.probabilities else None
        return encode_view(self.rules, knowledge.view, self.probabilities, posterior)


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` in the standard wrapper (PettingZoo's order checks)."""
    return wrap(raw_env(**kwargs))


class raw_env(MultiplayerAECEnv):
    """Algo for 2 to 4 players; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {**MultiplayerAECEnv.metadata, "name": "algo_v0"}
    rules: AlgoRules

    def __init__(
        self,
        players: int = 2,
        hand_size: int | None = None,
        numbers: int = 12,
        probabilities: bool = True,
        max_cycles: int = 2000,
        render_mode: str | None = None,
        illegal_action: str = "end",
        strict: bool | None = None,
    ) -> None:
        rules = AlgoRules(players, hand_size, numbers)
        super().__init__(rules, probabilities, max_cycles, render_mode, illegal_action, strict)

    def make_observer(self, rules: AlgoRules, probabilities: bool, max_cycles: int) -> AlgoObserver:
        return AlgoObserver(rules, probabilities)

    def render_text(self) -> str:
        """A spectator's view: every hand (``[B3]`` face down, ``B3`` face up), the deck and the last event."""
        table = self.dealt_table()
        state = table.state
        lines = []
        for player, hand in enumerate(state.hands):
            cards = " ".join(format_card(c) if c in state.revealed[player] else f"[{format_card(c)}]" for c in hand)
            marker = "*" if player == state.mover and state.phase != Phase.OVER else " "
            lines.append(f"{marker} player_{player}: {cards}")
        drawn = "-" if state.drawn is None else format_card(state.drawn)
        lines.append(f"deck {len(state.deck)}, drawn {drawn}, phase {state.phase.name.lower()}")
        if table.actions:
            last = table.last_event
            lines.append(f"last: {last.move}, {'hit' if last.hit else 'no hit'}")
        return "\n".join(lines)

    def render_rgb(self) -> np.ndarray:
        """A spectator's view: rows of black or white cards, a red corner when face down, the number as a bar."""
        cell, gap = 24, 6
        state = self.dealt_table().state
        canvas = Canvas(
            gap + self.rules.players * (2 * cell + gap), gap + self.rules.max_hand * (cell + gap), (0, 110, 60)
        )
        for player, hand in enumerate(state.hands):
            top = gap + player * (2 * cell + gap)
            for i, c in enumerate(hand):
                left = gap + i * (cell + gap)
                face, ink = ((20, 20, 20), (240, 240, 240)) if c % 2 == 0 else ((240, 240, 240), (20, 20, 20))
                canvas.rect(top, left, 2 * cell, cell, face)
                bar = int(2 * cell * (c // 2 + 1) / (self.rules.numbers + 1))
                canvas.rect(top + 2 * cell - bar, left + cell // 3, bar, cell // 3, ink)
                if c not in state.revealed[player]:
                    canvas.rect(top, left, cell // 3, cell // 3, (220, 40, 40))
        return canvas.pixels
