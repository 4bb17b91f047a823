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
the share of the deck left. With ``exposure=K`` (K > 0), :data:`EXPOSURE`
more entries, :func:`exposure_features`: when the seat may stop, what the
next player would know of its hand after it stops and after a miss,
averaged over K determinisations of the seat's information set (zeros at
every other decision). With ``playouts=N`` (N > 0), :data:`PLAYOUTS` more
after those, :func:`playout_features`: when the seat may stop, the mean
outcome of stopping and of attacking the likeliest card, each played out from
N determinisations of its information set by the epsilon-greedy(0.1)
baseline in every seat. That is a small search with a model of every player
built into the observation (what SO-ISMCTS values at its root), for
experiments on what a policy needs to choose when to stop.

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
``probabilities`` (default True), ``exposure`` and ``playouts`` (default 0: none; at most
:data:`MAX_SAMPLES`, since each costs about a millisecond a stop decision), ``max_cycles`` (default 2,000),
``render_mode`` (``"ansi"``, ``"human"`` or ``"rgb_array"``), ``illegal_action`` (``"end"`` or ``"raise"``;
``strict`` its deprecated alias)
(default False).

Version History
---------------
* v0: first version. Since the multiplayer layer, the raw env ends the game
  on a masked action itself (it raised before; ``env()`` ended it already).
  The ``exposure`` and ``playouts`` options (off by default: observations without them are unchanged).
  ``illegal_action`` (``"end"`` or ``"raise"``) names the strict mode as the Gymnasium envs do; ``strict`` is
  its deprecated alias, for one version.
"""

from __future__ import annotations

import hashlib
from collections import deque
from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv

from deduction_envs.core.raster import Canvas
from deduction_envs.core.rules import check_int
from deduction_envs.envs.multiplayer_env import MultiplayerAECEnv, ObservationPieces, wrap
from deduction_envs.games.algo import AlgoRules, AlgoState, Phase, PlayerView, format_card
from deduction_envs.reasoning.algo_hands import (
    AlgoHandPosterior,
    AlgoKnowledge,
    attack_probabilities,
    epsilon_greedy_move,
)

__all__ = [
    "EXPOSURE",
    "PLAYOUTS",
    "PLAYOUT_EPSILON",
    "encode_view",
    "env",
    "exposure_features",
    "observation_pieces",
    "observation_size",
    "playout_features",
    "raw_env",
]

#: The most determinisations ``exposure`` and ``playouts`` may ask for (1,000 play-outs: over a second a stop
#: decision).
MAX_SAMPLES = 1000
#: Entries of :func:`exposure_features`: five after stopping, then the same five after a miss.
EXPOSURE = 10
#: Entries of :func:`playout_features`: the mean outcome of stopping, then of attacking the likeliest card.
PLAYOUTS = 2
#: The stop probability of the epsilon-greedy baseline that plays every seat in :func:`playout_features`.
PLAYOUT_EPSILON = 0.1


def observation_size(rules: AlgoRules) -> int:
    """Length of :func:`encode_view`'s vector."""
    return rules.players * rules.max_hand * (3 + 3 * rules.numbers) + (2 + rules.numbers) + 3 + 1


def observation_pieces(rules: AlgoRules, exposure: bool = False, playouts: bool = False) -> ObservationPieces:
    """The named pieces of :func:`encode_view`'s vector (and the exposure and play-out entries when asked for):
    per seat in turn order from the observer's and position, the card's 3 + 3 * numbers entries (present,
    white, face up, its number, numbers ruled out, probabilities); the drawn card; the phase; the deck's share."""
    n = rules.numbers
    pieces = [("hands", (rules.players, rules.max_hand, 3 + 3 * n)), ("drawn", (2 + n,)), ("phase", (3,)),
              ("deck", (1,))]  # fmt: skip
    return ObservationPieces(
        [
            *pieces,
            *([("exposure", (EXPOSURE,))] if exposure else []),
            *([("playouts", (PLAYOUTS,))] if playouts else []),
        ]
    )


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


def _exposure(rules: AlgoRules, state: AlgoState, seat: int) -> list[float]:
    """What the next player after ``seat`` still in the game knows of ``seat``'s face-down cards in ``state``:
    its best chance to hit one, those chances summed, the cards it is sure of and its entropy over them
    (nats), and how many there are; the sums per ``max_hand`` and the entropy per ``max_hand * ln(numbers)``,
    so that all lie in [0, 1]."""
    following = [(seat + i) % rules.players for i in range(1, rules.players)]
    viewer = next((p for p in following if p not in state.out), following[0])
    probabilities = AlgoHandPosterior(rules.view(state, viewer), rules.numbers).number_probabilities(seat)
    hidden = np.array([card not in state.revealed[seat] for card in state.hands[seat]])
    if not hidden.any():
        return [0.0] * (EXPOSURE // 2)
    best = probabilities.max(axis=1)[hidden]
    entropy = -(probabilities * np.log(np.clip(probabilities, 1e-12, 1.0))).sum(axis=1)[hidden]
    k = rules.max_hand
    return [best.max(), best.sum() / k, (best > 1 - 1e-9).sum() / k, entropy.sum() / (k * np.log(rules.numbers)),
            hidden.sum() / k]  # fmt: skip


def _hits(rules: AlgoRules, state: AlgoState, attack: int) -> bool:
    """Whether the mover's ``attack`` names the card it points at."""
    move = rules.decode(attack)
    return state.hands[(state.mover + 1 + move.target) % rules.players][move.position] // 2 == move.number


def _view_seed(rules: AlgoRules, view: PlayerView) -> int:
    """A seed from a seat's own observation (its view, probabilities aside): the same view, the same seed."""
    digest = hashlib.blake2b(encode_view(rules, view, probabilities=False).tobytes(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def exposure_features(rules: AlgoRules, knowledge: AlgoKnowledge, samples: int) -> np.ndarray:
    """When the seat of ``knowledge`` may stop (after a hit), what the next player would know of its hand
    if it stops (its drawn card joins it face down) and if it attacks and misses (face up; with the deck
    empty there is no drawn card, and the state is the one before the seat reveals a card), :data:`EXPOSURE`
    entries (five each, see ``_exposure``), each the mean over ``samples`` determinisations of the seat's
    information set; zeros at any other decision.

    A function of the information set alone: the determinisations are seeded by the seat's own observation,
    so that the same view always gives the same features, whatever the hidden cards.
    """
    check_int("samples", samples, low=1)
    view = knowledge.view
    features = np.zeros(EXPOSURE, dtype=np.float32)
    if view.phase != Phase.CONTINUE or view.mover != view.player:
        return features
    rng = np.random.default_rng(_view_seed(rules, view))
    for _ in range(samples):
        state = knowledge.determinise(rng)
        stopped = state.copy()
        rules.apply(stopped, rules.stop_action)
        missed = state.copy()
        attacks = np.flatnonzero(rules.legal_mask(state)[: rules.num_attacks])
        rules.apply(missed, next(int(a) for a in attacks if not _hits(rules, state, int(a))))
        features += _exposure(rules, stopped, view.player) + _exposure(rules, missed, view.player)
    return features / samples


def playout_features(rules: AlgoRules, knowledge: AlgoKnowledge, playouts: int) -> np.ndarray:
    """When the seat of ``knowledge`` may stop (after a hit), how the game goes on if it stops and if it
    attacks the likeliest card (the first in action order on ties): :data:`PLAYOUTS` entries, each option's
    mean reward over ``playouts`` determinisations of the seat's information set, each played to the end once
    after either option by the epsilon-greedy(:data:`PLAYOUT_EPSILON`) baseline in every seat (the seat's own
    later turns too), as ``(reward + 1) / 2`` in [0, 1]; zeros at any other decision.

    A one-step look-ahead by simulation: what :class:`agents.SOISMCTS` with ``AlgoSearchPolicy`` estimates at
    its root, with a model of every player (the baseline) built in. A function of the information set alone:
    the determinisations and play-outs are seeded by the seat's own observation.
    """
    check_int("playouts", playouts, low=1)
    view = knowledge.view
    features = np.zeros(PLAYOUTS, dtype=np.float32)
    if view.phase != Phase.CONTINUE or view.mover != view.player:
        return features
    rng = np.random.default_rng([_view_seed(rules, view), 1])  # another stream than the exposure entries'
    # Chances are 0 only where an attack is illegal or certain to miss, and some attack may hit: the first
    # best is legal.
    options = (rules.stop_action, int(np.argmax(attack_probabilities(rules, view, knowledge.posterior))))
    for _ in range(playouts):
        state = knowledge.determinise(rng)
        for column, action in enumerate(options):
            game = state.copy()
            rules.apply(game, action)
            while game.phase != Phase.OVER:
                mask = rules.legal_mask(game)
                rules.apply(game, epsilon_greedy_move(rules, rules.view(game, game.mover), mask, rng, PLAYOUT_EPSILON))
            features[column] += rules.rewards(game)[view.player]
    return (features / playouts + 1) / 2


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` in the standard wrapper (PettingZoo's order checks)."""
    return wrap(raw_env(**kwargs))


class raw_env(MultiplayerAECEnv):
    """Algo for 2 to 4 players; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {**MultiplayerAECEnv.metadata, "name": "algo_v0"}

    def __init__(
        self,
        players: int = 2,
        hand_size: int | None = None,
        numbers: int = 12,
        probabilities: bool = True,
        exposure: int = 0,
        playouts: int = 0,
        max_cycles: int = 2000,
        render_mode: str | None = None,
        illegal_action: str = "end",
        strict: bool | None = None,
    ) -> None:
        self.exposure = check_int("exposure", exposure, low=0, high=MAX_SAMPLES)
        self.playouts = check_int("playouts", playouts, low=0, high=MAX_SAMPLES)
        self._recent: deque[tuple[PlayerView, np.ndarray]] = deque(maxlen=8)  # see _stop_entries
        rules = AlgoRules(players, hand_size, numbers)
        self.pieces = observation_pieces(rules, bool(self.exposure), bool(self.playouts))
        super().__init__(rules, probabilities, max_cycles, render_mode, illegal_action, strict)

    def observation_size(self) -> int:
        return self.pieces.size

    def encode(self, knowledge: AlgoKnowledge) -> np.ndarray:
        posterior = knowledge.posterior if self.probabilities else None
        vector = encode_view(self.rules, knowledge.view, self.probabilities, posterior)
        if not (self.exposure or self.playouts):
            return vector
        return np.concatenate([vector, self._stop_entries(knowledge)])

    def _stop_entries(self, knowledge: AlgoKnowledge) -> np.ndarray:
        """The exposure and play-out entries of the knowledge's view, computed once per view: they cost
        milliseconds (BENCHMARKS.md), and a loop may observe a state more than once (``last()``, then
        ``observe()``). They are a function of the view alone, and a view is immutable and replaced at every
        event, so the last few are kept by the view object they belong to."""
        view = knowledge.view
        for kept, entries in self._recent:
            if kept is view:
                return entries
        parts = []
        if self.exposure:
            parts.append(exposure_features(self.rules, knowledge, self.exposure))
        if self.playouts:
            parts.append(playout_features(self.rules, knowledge, self.playouts))
        entries = np.concatenate(parts)
        self._recent.append((view, entries))
        return entries

    def observation_pointers(self) -> np.ndarray:
        """Per action, the index in the observation vector of its probability of hitting (-1 for stop and
        reveals), ``(num_actions, 1)`` int64: where a policy that scores actions by their features reads the
        state-dependent one (``train.policies``). Needs ``probabilities=True``. With ``exposure`` and
        ``playouts``, :data:`EXPOSURE` and :data:`PLAYOUTS` more columns: the stop action's read those
        entries."""
        if not self.probabilities:
            raise ValueError("observation_pointers need the probabilities in the observation (probabilities=True)")
        rules = self.rules
        width = 3 + 3 * rules.numbers
        pointers = np.full((rules.num_actions, 1), -1, dtype=np.int64)
        attacks = np.arange(rules.num_attacks)
        target, position, number = np.unravel_index(attacks, (rules.players - 1, rules.max_hand, rules.numbers))
        row = 1 + target  # the observation's seats run clockwise from the observer; target t is seat 1 + t
        pointers[attacks, 0] = (row * rules.max_hand + position) * width + 3 + 2 * rules.numbers + number
        extra = self.observation_size() - observation_size(rules)  # the exposure and play-out entries
        if extra:
            pointers = np.c_[pointers, np.full((rules.num_actions, extra), -1, dtype=np.int64)]
            pointers[rules.stop_action, 1:] = observation_size(rules) + np.arange(extra)
        return pointers

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
        last = self.table.last_event
        if self.table.actions:
            lines.append(f"last: {last.move}, {'hit' if last.hit else 'no hit'}")
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
