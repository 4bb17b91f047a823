"""What the training side reads from and adds to the multiplayer envs' observations.

The envs of :mod:`deduction_envs.envs` hold the game and a seat's information set. What only training needs
lives here, in the env each game's registry entry names as its ``training_env`` (the env
:func:`train.multiplayer.raw_env` builds, and so ``python -m train``, ``train.evaluate`` and the league):

* **observation pointers**: per action, where in the observation vector a policy that scores actions by their
  features (:mod:`train.policies`) reads the state-dependent ones (an Algo attack's chance to hit, a Clue
  card's chance to be in the case file): :func:`observation_pointers`;
* **Algo's search entries** (:class:`AlgoTrainingEnv`): with ``exposure=K``, :data:`EXPOSURE` entries more,
  :func:`exposure_features` (when the seat may stop, what the next player would know of its hand after it
  stops and after a miss, averaged over K determinisations of the seat's information set); with
  ``playouts=N``, :data:`PLAYOUTS` more, :func:`playout_features` (the mean outcome of stopping and of
  attacking the likeliest card, each played out from N determinisations by the epsilon-greedy(0.1) baseline
  in every seat): a small search with a model of every player built into the observation, for experiments
  on what a policy needs to choose when to stop. ``python -m train --env algo_v0 --size exposure=8 --size
  playouts=20`` trains with both.

Each is a function of the seat's information set alone, so a seat agent (:class:`agents.SB3SeatPolicy`) that
encodes its own knowledge with the same env sees what training saw.
"""

from __future__ import annotations

import hashlib
from collections import deque
from typing import Any

import numpy as np

from agents.algo_agents import epsilon_greedy_move
from deduction_envs.core.rules import check_int
from deduction_envs.envs import algo, clue, generalized_clue
from deduction_envs.envs.algo import encode_view, observation_size
from deduction_envs.envs.multiplayer_env import ObservationPieces
from deduction_envs.games.algo import AlgoRules, AlgoState, Phase, PlayerView
from deduction_envs.reasoning.algo_hands import AlgoHandPosterior, AlgoKnowledge, attack_probabilities

__all__ = [
    "EXPOSURE",
    "MAX_SAMPLES",
    "PLAYOUTS",
    "PLAYOUT_EPSILON",
    "AlgoTrainingEnv",
    "AlgoTrainingObserver",
    "ClueTrainingEnv",
    "GeneralizedClueTrainingEnv",
    "case_file_entries",
    "exposure_features",
    "observation_pointers",
    "playout_features",
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


def observation_pointers(env: Any) -> np.ndarray | None:
    """Per action, indices into ``env``'s observation vector of its state-dependent features (-1: none), or
    None if the env has none (its game's ``training_env`` defines ``observation_pointers``)."""
    pointers = getattr(env, "observation_pointers", None)
    return None if pointers is None else pointers()


def case_file_entries(env: clue.SheetEnv) -> np.ndarray:
    """Per card, the index in a Clue-family observation of its probability of being in the case file (what
    the Clue and Generalized Clue pointers point at); needs ``probabilities=True``."""
    if not env.probabilities:
        raise ValueError("observation_pointers need the probabilities in the observation (probabilities=True)")
    places = env.rules.players + 1
    return env.pieces.slices["probabilities"].start + np.arange(env.rules.cards) * places + env.rules.players


def case_file_facts(env: clue.SheetEnv) -> tuple[np.ndarray, np.ndarray]:
    """Per card, the indices in a Clue-family observation of the facts "in the case file" and "not in the case
    file" (the sheet's ``held`` and ``not_held`` columns of the case file: what propagation proved)."""
    places, cards = env.rules.players + 1, np.arange(env.rules.cards)
    slices = env.pieces.slices
    return (slices["held"].start + cards * places + env.rules.players,
            slices["not_held"].start + cards * places + env.rules.players)  # fmt: skip


class ClueTrainingEnv(clue.raw_env):
    """``clue_v0`` with its observation pointers."""

    def observation_pointers(self) -> np.ndarray:
        """Per action, indices in the observation vector of what it reads of its cards, ``(num_actions, 6)``
        int64 (-1: none): columns 0-2 a suggestion's three cards, 3-5 an accusation's. With the probabilities
        on, each card's probability of being in the case file; observed without them (``probabilities=False``,
        as the batched twins are), ``(num_actions, 12)``: each card's facts instead, "in the case file" (columns
        0-2, 6-8) and "not in it" (3-5, 9-11)."""
        rules = self.rules
        triples = np.array([rules.triple(t) for t in range(rules.num_triples)])
        reads = [case_file_entries(self)] if self.probabilities else list(case_file_facts(self))
        pointers = np.full((rules.num_actions, 6 * len(reads)), -1, dtype=np.int64)
        for k, entries in enumerate(reads):
            pointers[: rules.num_triples, 3 * k : 3 * k + 3] = entries[triples]
            pointers[rules.num_triples : 2 * rules.num_triples, 3 * (k + len(reads)) : 3 * (k + len(reads)) + 3] = (
                entries[triples]
            )
        return pointers


class GeneralizedClueTrainingEnv(generalized_clue.raw_env):
    """``generalized_clue_v0`` with its observation pointers."""

    def observation_pointers(self) -> np.ndarray:
        """Per action, indices in the observation vector of what a card action reads of its card (-1 for the
        other actions), ``(num_actions, m)`` int64, in the observer's order of places: the case file first, then
        each seat from the observer on. What adding the card to a guess needs (the case file's entry) and what
        adding it to an ask of a given seat does (that seat's entry: a card the seat surely lacks, or surely
        holds, asks nothing new). With the probabilities on, the card's probability at each place, ``m = players
        + 1``. Observed without them (``probabilities=False``, as the batched twin is), every fact the seat's
        sheet holds of the card, ``m = 2 * (players + 1)``: "in the case file" and "not in it" (columns 0 and
        1), then "held by" and "not held by" each seat (columns 2 to players + 1, then players + 2 to 2 *
        players + 1)."""
        places, cards = self.rules.players + 1, np.arange(self.rules.cards)
        slices, case = self.pieces.slices, self.rules.players
        if self.probabilities:
            read = [slices["probabilities"].start + cards[:, None] * places + np.arange(places)]
        else:
            read = [slices[name].start + cards[:, None] * places + np.arange(places) for name in ("held", "not_held")]
        columns = [r[:, case] for r in read] + [r[:, seat] for r in read for seat in range(case)]
        pointers = np.full((self.rules.num_actions, len(columns)), -1, dtype=np.int64)
        pointers[: self.rules.cards] = np.stack(columns, axis=1)
        return pointers


class AlgoTrainingObserver(algo.AlgoObserver):
    """Algo's observer with the search entries (see the module docstring): ``exposure`` and ``playouts``
    determinisations (0: none; at most :data:`MAX_SAMPLES`, each costs about a millisecond a stop decision)."""

    def __init__(self, rules: AlgoRules, probabilities: bool = True, exposure: int = 0, playouts: int = 0) -> None:
        self.exposure = check_int("exposure", exposure, low=0, high=MAX_SAMPLES)
        self.playouts = check_int("playouts", playouts, low=0, high=MAX_SAMPLES)
        self._recent: deque[tuple[PlayerView, np.ndarray]] = deque(maxlen=8)  # see _stop_entries
        super().__init__(rules, probabilities)
        self.pieces = ObservationPieces([  # the game's pieces, then the entries asked for
            *self.pieces.shapes.items(),
            *([("exposure", (EXPOSURE,))] if self.exposure else []),
            *([("playouts", (PLAYOUTS,))] if self.playouts else []),
        ])  # fmt: skip

    def encode(self, knowledge: AlgoKnowledge) -> np.ndarray:
        vector = super().encode(knowledge)
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


class AlgoTrainingEnv(algo.raw_env):
    """``algo_v0`` with its observation pointers and, on request, the search entries
    (:class:`AlgoTrainingObserver`'s ``exposure`` and ``playouts``). The other arguments are ``algo_v0``'s."""

    def __init__(self, *args: Any, exposure: int = 0, playouts: int = 0, **kwargs: Any) -> None:
        self._search = (exposure, playouts)  # checked by the observer
        super().__init__(*args, **kwargs)

    def make_observer(self, rules: AlgoRules, probabilities: bool, max_cycles: int) -> AlgoTrainingObserver:
        return AlgoTrainingObserver(rules, probabilities, *self._search)

    @property
    def exposure(self) -> int:
        return self.observer.exposure

    @property
    def playouts(self) -> int:
        return self.observer.playouts

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
