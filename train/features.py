"""Each action's static features, by game: what a policy that scores actions by their features reads
(:mod:`train.policies`: logits ``= action_features @ g(observation)``).

A training hook, so it lives on the training floor, not in the rules: :func:`action_features` dispatches on the
rules' class (``functools.singledispatch``); a new game registers its own with ``@action_features.register``.
What makes an action good in a multiplayer game is mostly not static (an Algo attack's chance to hit, a Clue
card's chance to be in the case file): the policy reads that through the observation
(:func:`train.training_envs.observation_pointers`).
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any

import numpy as np

from deduction_envs.core.rules import DeductionRules, one_hot
from deduction_envs.games.algo import AlgoRules
from deduction_envs.games.clue import ClueRules
from deduction_envs.games.clue_board import ClueBoardRules
from deduction_envs.games.generalized_clue import GeneralizedClueRules

__all__ = ["action_features"]


@singledispatch
def action_features(rules: Any) -> np.ndarray:
    """``rules``' actions' static features, ``(num_actions, k)`` float32.

    Raises:
        TypeError: no features are registered for the rules' class.
    """
    raise TypeError(
        f"{type(rules).__name__} has no action features: register them with @train.features.action_features.register"
    )


@action_features.register
def _single_player(rules: DeductionRules) -> np.ndarray:
    """The one-hot code of each of a query's components (``rules.action_components``),
    ``(num_actions, sum(action_nvec))``: a code's colour (symbol) at each peg; a Wordle guess's letter at each
    position; Low-Middle-High's two cuts; Treasure Hunt's rectangle bounds; Black Box's entry position; Fake
    Coin's counts of each knowledge class on each pan (canonical) or each coin's pan (concrete). A query's score is
    then a sum over its components, learnt once for every query that shares one."""
    return one_hot(rules.action_components(np.arange(rules.num_actions)), rules.action_nvec)


@action_features.register
def _clue(rules: ClueRules) -> np.ndarray:
    """``(num_actions, 3 * cards + 4)``: the cards a suggestion names (``cards``), the cards an accusation names
    (``cards``), the card shown (``cards``), then one column per kind (suggest, accuse, end, show). A policy's
    score of an accusation is then a sum over its three cards, the form of the log of a case file's probability
    when its cards are independent."""
    cards, triples = rules.cards, rules.num_triples
    features = np.zeros((rules.num_actions, 3 * cards + 4), dtype=np.float32)
    rows = np.arange(triples)
    for card in np.array([rules.triple(t) for t in range(triples)]).T:  # each category's card of every triple
        features[rows, card] = 1
        features[triples + rows, cards + card] = 1
    features[rules.end_action + 1 + np.arange(cards), 2 * cards + np.arange(cards)] = 1
    features[:triples, 3 * cards] = 1
    features[triples : 2 * triples, 3 * cards + 1] = 1
    features[rules.end_action, 3 * cards + 2] = 1
    features[rules.end_action + 1 :, 3 * cards + 3] = 1
    return features


@action_features.register
def _clue_board(rules: ClueBoardRules) -> np.ndarray:
    """Clue's, then a column per board action kind (roll, passage, move) and one per room a move enters."""
    base = _clue(rules)
    board = rules.board
    features = np.zeros((rules.num_actions, base.shape[1] + 3 + board.rooms), dtype=np.float32)
    features[: base.shape[0], : base.shape[1]] = base
    k = base.shape[1]
    features[rules.roll_action, k] = 1
    features[rules.passage_action, k + 1] = 1
    features[rules.move_action :, k + 2] = 1
    rooms = np.arange(board.rooms)
    features[rules.move_action + board.squares + rooms, k + 3 + rooms] = 1
    return features


@action_features.register
def _algo(rules: AlgoRules) -> np.ndarray:
    """``(num_actions, 3 + (players - 1) + 2 * max_hand + numbers)``: the kind (attack, stop, reveal), the
    attack's target (its place clockwise from the mover), the position (attacked, then revealed), the number
    attacked."""
    opponents, hand, numbers = rules.players - 1, rules.max_hand, rules.numbers
    features = np.zeros((rules.num_actions, 3 + opponents + 2 * hand + numbers), dtype=np.float32)
    attacks = np.arange(rules.num_attacks)
    target, position, number = np.unravel_index(attacks, (opponents, hand, numbers))
    features[attacks, 0] = 1
    features[attacks, 3 + target] = 1
    features[attacks, 3 + opponents + position] = 1
    features[attacks, 3 + opponents + 2 * hand + number] = 1
    features[rules.stop_action, 1] = 1
    reveals = rules.stop_action + 1 + np.arange(hand)
    features[reveals, 2] = 1
    features[reveals, 3 + opponents + hand + np.arange(hand)] = 1
    return features


@action_features.register
def _generalized_clue(rules: GeneralizedClueRules) -> np.ndarray:
    """One column per action (the actions are few)."""
    return np.eye(rules.num_actions, dtype=np.float32)
