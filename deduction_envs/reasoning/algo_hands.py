"""Exact probabilities of the face-down cards of Algo, from one player's view.

Model
-----
A player knows its own cards, the colour of every card, the number of every
face-up card and, for each card, the numbers that missed attacks named
against it. Every assignment of the unseen cards to the opponents'
face-down positions that agrees with all of that is equally likely: the deck
was shuffled, and each agreeing assignment leaves the same number of cards
elsewhere (the deck, a drawn card), so each has the same number of
completions. (Opponents' choices of attack are not used as evidence, as in
the article behind the game's agents.)

Algorithm
---------
A hand is sorted by card id (:mod:`deduction_envs.games.algo`), so an
assignment is a walk through the ids ``0 .. N-1`` in order in which each card
either fills the next position of one opponent's hand or lies elsewhere. The
walk's state is how many positions of each opponent are filled, at most
``prod(len(hand) + 1)`` states, so the number of assignments is a dynamic
programme over cards, and forward and backward counts give the probability
of every card at every position exactly, in ``O(N * states * opponents)``
compiled work (numba); the backward counts are computed only when
probabilities are asked for. Sampling walks the forward counts backwards.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from numba import njit

from deduction_envs.games.algo import AlgoDeal, AlgoEvent, AlgoRules, AlgoState, PlayerView

__all__ = ["AlgoHandPosterior", "AlgoKnowledge", "attack_probabilities"]


@njit(cache=True)
def forward_pass(moves: np.ndarray, strides: np.ndarray, skips: np.ndarray, forward: np.ndarray) -> None:
    """``forward[c + 1]`` from ``forward[c]`` for every card: card ``c`` lies elsewhere (if it may) or fills the
    next position of an opponent ``j`` (``moves[j, c, s]``), moving state ``s`` to ``s + strides[j]``. A state
    whose hand ``j`` is full has no move, so ``s + stride`` never wraps into another hand's count."""
    states = forward.shape[1]
    for c in range(skips.size):
        before, after = forward[c], forward[c + 1]
        for s in range(states):
            after[s] = before[s] if skips[c] else 0
        for j in range(moves.shape[0]):
            stride = strides[j]
            for s in range(states - stride):
                if moves[j, c, s]:
                    after[s + stride] += before[s]


@njit(cache=True)
def backward_pass(moves: np.ndarray, strides: np.ndarray, skips: np.ndarray, backward: np.ndarray) -> None:
    """``backward[c]`` from ``backward[c + 1]``, last card first: the walks that finish from each state."""
    states = backward.shape[1]
    for c in range(skips.size - 1, -1, -1):
        after, before = backward[c + 1], backward[c]
        for s in range(states):
            before[s] = after[s] if skips[c] else 0
        for j in range(moves.shape[0]):
            stride = strides[j]
            for s in range(states - stride):
                if moves[j, c, s]:
                    before[s] += after[s + stride]


@njit(cache=True)
def position_ways(
    forward: np.ndarray, backward: np.ndarray, moves: np.ndarray, stride: int, filled: np.ndarray, ways: np.ndarray
) -> None:
    """``ways[i, c]``: the walks that put card ``c`` in position ``i`` of one opponent's hand: they reach a state
    ``s`` with ``i`` of its positions filled before ``c``, put ``c`` next (``moves[c, s]``), and still finish."""
    cards, states = moves.shape
    for c in range(cards):
        for s in range(states - stride):
            if moves[c, s]:
                ways[filled[s], c] += forward[c, s] * backward[c + 1, s + stride]


_COLOUR_MASKS: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _bits(cards: set[int]) -> int:
    """The cards as bits of an int64."""
    return sum(1 << int(card) for card in cards)


@njit(cache=True)
def posterior_tables(sizes, colours, cards, excluded, seen, placed, deck):  # pragma: no cover - compiled
    """The walk's tables of a view for :class:`AlgoHandPosterior`, from arrays: for each opponent ``j`` with a card
    face down (``sizes[j]`` positions), each position's colour, its card if known (-1 if not) and the numbers missed
    attacks excluded there (bits); ``seen``, the cards the viewer can place (bits), and ``placed``, those lying face
    up in those opponents' hands. Returns the mixed-radix ``strides`` and ``final`` state, ``moves[j, c, s]`` (card
    ``c`` may fill opponent ``j``'s next position from state ``s``), ``filled[j, s]`` (its positions filled in
    ``s``), ``accepts[j, c, i]`` (position ``i`` may hold card ``c``; a last column for a full hand) and ``skips[c]``
    (card ``c`` may lie elsewhere)."""
    count = sizes.size
    strides = np.zeros(count, dtype=np.int64)
    states, final = 1, 0
    for j in range(count):
        strides[j] = states
        states *= sizes[j] + 1
    for j in range(count):
        final += strides[j] * sizes[j]
    width = 0
    for j in range(count):
        width = max(width, sizes[j])
    accepts = np.zeros((count, deck, width + 1), dtype=np.bool_)
    filled = np.zeros((count, states), dtype=np.int64)
    moves = np.zeros((count, deck, states), dtype=np.bool_)
    for j in range(count):
        for i in range(sizes[j]):
            if cards[j, i] >= 0:
                accepts[j, cards[j, i], i] = True
            else:
                for c in range(colours[j, i], deck, 2):
                    if not (seen >> c & 1) and not (excluded[j, i] >> (c // 2) & 1):
                        accepts[j, c, i] = True
        for s in range(states):
            f = (s // strides[j]) % (sizes[j] + 1)
            filled[j, s] = f
            if f < sizes[j]:
                for c in range(deck):
                    moves[j, c, s] = accepts[j, c, f]
    skips = np.ones(deck, dtype=np.bool_)
    for c in range(deck):
        if placed >> c & 1:
            skips[c] = False
    return strides, final, moves, filled, accepts, skips


def _colour_masks(deck: int) -> tuple[np.ndarray, np.ndarray]:
    """The cards of each colour in a deck of ``deck`` cards (card ``c`` has colour ``c % 2``), read-only."""
    masks = _COLOUR_MASKS.get(deck)
    if masks is None:
        cards = np.arange(deck)
        masks = _COLOUR_MASKS[deck] = (cards % 2 == 0, cards % 2 == 1)
        for mask in masks:
            mask.flags.writeable = False
    return masks


class AlgoHandPosterior:
    """The consistent assignments of a :class:`~deduction_envs.games.algo.PlayerView`, counted exactly.

    Args:
        view: what the player knows (``AlgoRules.view``).
        numbers: card numbers per colour (``AlgoRules.numbers``).

    Raises:
        ValueError: no assignment agrees with the view (it contradicts itself).
    """

    def __init__(self, view: PlayerView, numbers: int = 12) -> None:
        self.view = view
        self.numbers = numbers
        self.deck_size = 2 * numbers
        n = self.deck_size
        # Opponents with a face-down card; every other card the player can place is "seen".
        self.players = [q for q, hand in enumerate(view.hands) if q != view.player and any(k < 0 for k in hand.known)]
        seen = set(view.own) | ({view.drawn} if view.drawn >= 0 else set())
        placed = set()
        for q, hand in enumerate(view.hands):
            known = {k for k in hand.known if k >= 0}
            seen |= known
            if q in self.players:
                placed |= known
        count = len(self.players)
        width = max((len(view.hands[q].known) for q in self.players), default=0)
        sizes = np.array([len(view.hands[q].known) for q in self.players], dtype=np.int64)
        colours = np.zeros((count, width), dtype=np.int64)
        cards = np.full((count, width), -1, dtype=np.int64)
        excluded = np.zeros((count, width), dtype=np.int64)
        for j, q in enumerate(self.players):
            hand = view.hands[q]
            for i, (colour, card, numbers_out) in enumerate(zip(hand.colours, hand.known, hand.excluded, strict=True)):
                colours[j, i], cards[j, i] = colour, card
                excluded[j, i] = sum(1 << int(number) for number in numbers_out)
        tables = posterior_tables(sizes, colours, cards, excluded, _bits(seen), _bits(placed), n)
        self._strides, self._final, self._moves, filled, accepts, self._skips = tables
        self._states = int(filled.shape[1]) if count else 1
        self._filled, self._accepts = list(filled), list(accepts)

        self._forward = np.zeros((n + 1, self._states), dtype=np.int64)
        self._forward[0, 0] = 1
        forward_pass(self._moves, self._strides, self._skips, self._forward)
        self.count = int(self._forward[n, self._final])
        if self.count == 0:
            raise ValueError(f"no deal agrees with player {view.player}'s view: it contradicts itself")

    @cached_property
    def _backward(self) -> np.ndarray:
        """``[c, s]``: the walks that finish from state ``s`` before card ``c`` (for probabilities only)."""
        backward = np.zeros((self.deck_size + 1, self._states), dtype=np.int64)
        backward[self.deck_size, self._final] = 1
        backward_pass(self._moves, self._strides, self._skips, backward)
        return backward

    def card_probabilities(self, player: int) -> np.ndarray:
        """``(positions, cards)``: the probability that each position of ``player``'s hand holds each card.

        Face-up cards (and the hands of players with none face down, and the
        player's own hand) are certain.
        """
        hand = self.view.hands[player]
        table = np.zeros((len(hand.known), self.deck_size))
        if player not in self.players:
            cards = self._certain_cards(player)
            table[np.arange(len(cards)), list(cards)] = 1.0
            return table
        j = self.players.index(player)
        ways = np.zeros((len(hand.known) + 1, self.deck_size), dtype=np.int64)
        position_ways(self._forward, self._backward, self._moves[j], int(self._strides[j]), self._filled[j], ways)
        return ways[:-1] / self.count

    def _certain_cards(self, player: int) -> tuple[int, ...]:
        """The cards of a hand the player knows whole: its own, or one with no card face down."""
        return self.view.own if player == self.view.player else self.view.hands[player].known

    def number_probabilities(self, player: int) -> np.ndarray:
        """``(positions, numbers)``: the probability of each number at each position of ``player``'s hand."""
        if player not in self.players:  # certain: one number per position
            cards = self._certain_cards(player)
            table = np.zeros((len(cards), self.numbers))
            table[np.arange(len(cards)), np.array(cards) // 2] = 1.0
            return table
        by_card = self.card_probabilities(player)
        return by_card.reshape(len(by_card), self.numbers, 2).sum(axis=2)

    def sample(self, rng: np.random.Generator) -> dict[int, list[int]]:
        """A uniformly random consistent assignment: every opponent's whole hand, by player."""
        hands = {q: list(self.view.hands[q].known) for q in self.players}
        state = self._final
        for c in range(self.deck_size - 1, -1, -1):
            options, weights = [], []
            if self._skips[c]:
                options.append(-1)
                weights.append(self._forward[c, state])
            for j, stride in enumerate(self._strides):
                filled = self._filled[j][state]
                if filled > 0 and self._accepts[j][c, filled - 1]:
                    options.append(j)
                    weights.append(self._forward[c, state - stride])
            weights_array = np.asarray(weights, dtype=float)
            j = options[rng.choice(len(options), p=weights_array / weights_array.sum())]
            if j >= 0:
                state -= int(self._strides[j])
                hands[self.players[j]][self._filled[j][state]] = c
        return hands


class AlgoKnowledge:
    """One Algo seat's knowledge, kept from the events projected for it (the multiplayer ``Knowledge``).

    :attr:`view` is the seat's :class:`~deduction_envs.games.algo.PlayerView`
    and :attr:`posterior` its :class:`AlgoHandPosterior`, counted once per
    view and shared by whoever reads it (the env's observation, an agent).
    """

    def __init__(self, rules: AlgoRules, player: int) -> None:
        self.rules = rules
        self.player = player
        self._view: PlayerView | None = None
        self._posterior: AlgoHandPosterior | None = None

    @classmethod
    def from_view(cls, rules: AlgoRules, view: PlayerView) -> AlgoKnowledge:
        """The knowledge of a seat whose view is ``view`` (a position set up by hand, a person's game)."""
        knowledge = cls(rules, view.player)
        knowledge._view = view
        return knowledge

    @property
    def view(self) -> PlayerView:
        if self._view is None:
            raise ValueError("the knowledge has seen no deal yet")
        return self._view

    def update(self, event: AlgoDeal | AlgoEvent) -> None:
        """Take the next event projected for this seat (the deal first)."""
        if isinstance(event, AlgoDeal):
            self._view = self.rules.first_view(event, self.player)
        else:
            self._view = self.rules.next_view(self.view, event)
        self._posterior = None

    @property
    def posterior(self) -> AlgoHandPosterior:
        """The exact posterior over the opponents' face-down cards (counted on first use after each event)."""
        if self._posterior is None:
            self._posterior = AlgoHandPosterior(self.view, self.rules.numbers)
        return self._posterior

    def entropy(self) -> float:
        """Bits of the seat's uncertainty: log2 of the deals consistent with its view (all equally likely)."""
        return float(np.log2(self.posterior.count))

    def drawn_bits(self) -> float:
        """Bits the seat's own drawn card tells it about the others' face-down cards (0 without one): the entropy
        of its view with the drawn card unseen, less its entropy. A private draw, nobody's action: an analysis of
        who learns from whose turn counts it apart (:mod:`train.experiments.multiplayer_analysis`)."""
        view = self.view
        if view.drawn < 0:
            return 0.0
        return float(np.log2(AlgoHandPosterior(view._replace(drawn=-1), self.rules.numbers).count)) - self.entropy()

    def determinise(self, rng: np.random.Generator) -> AlgoState:
        """A whole state consistent with the view: the hidden hands drawn uniformly, the unseen rest as the deck."""
        view, rules = self.view, self.rules
        sampled = self.posterior.sample(rng)
        hands = []
        for seat, hand in enumerate(view.hands):
            if seat == view.player:
                hands.append(list(view.own))
            else:
                hands.append(list(sampled.get(seat, hand.known)))
        placed = {c for h in hands for c in h} | ({view.drawn} if view.drawn >= 0 else set())
        deck = [c for c in range(rules.deck_size) if c not in placed]
        rng.shuffle(deck)
        # The deck size is public; a mover without a drawn card met an empty deck.
        return rules.state_of_view(view, hands, deck[: view.deck])


def attack_probabilities(rules, view: PlayerView, posterior: AlgoHandPosterior | None = None) -> np.ndarray:
    """The probability that each attack action hits (0 for face-up positions and players who are out)."""
    posterior = posterior or AlgoHandPosterior(view, rules.numbers)
    hits = np.zeros(rules.num_attacks)
    table = hits.reshape(rules.players - 1, rules.max_hand, rules.numbers)
    for target in range(rules.players - 1):
        player = rules.target_player(view.player, target)
        hand = view.hands[player]
        hidden = [i for i, known in enumerate(hand.known) if known < 0]
        if hidden:
            table[target, hidden] = posterior.number_probabilities(player)[hidden]
    return hits
