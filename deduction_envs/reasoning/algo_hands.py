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
def forward_pass(accepts: np.ndarray, filled: np.ndarray, strides: np.ndarray, skips: np.ndarray,
                 forward: np.ndarray) -> None:  # fmt: skip
    """``forward[c + 1]`` from ``forward[c]`` for every card: card ``c`` lies elsewhere (if it may) or fills the
    next position of an opponent ``j`` (if ``accepts[j, c, filled[j, s]]``), moving state ``s`` to ``s +
    strides[j]``. A state whose hand ``j`` is full accepts nothing there (the table's last column), so ``s +
    stride`` never wraps into another hand's count."""
    states = forward.shape[1]
    for c in range(skips.size):
        before, after = forward[c], forward[c + 1]
        for s in range(states):
            after[s] = before[s] if skips[c] else 0
        for j in range(accepts.shape[0]):
            stride, accept, level = strides[j], accepts[j, c], filled[j]
            for s in range(states - stride):
                if before[s] and accept[level[s]]:
                    after[s + stride] += before[s]


@njit(cache=True)
def backward_pass(accepts: np.ndarray, filled: np.ndarray, strides: np.ndarray, skips: np.ndarray,
                  backward: np.ndarray) -> None:  # fmt: skip
    """``backward[c]`` from ``backward[c + 1]``, last card first: the walks that finish from each state."""
    states = backward.shape[1]
    for c in range(skips.size - 1, -1, -1):
        after, before = backward[c + 1], backward[c]
        for s in range(states):
            before[s] = after[s] if skips[c] else 0
        for j in range(accepts.shape[0]):
            stride, accept, level = strides[j], accepts[j, c], filled[j]
            for s in range(states - stride):
                if after[s + stride] and accept[level[s]]:
                    before[s] += after[s + stride]


@njit(cache=True)
def position_ways(
    forward: np.ndarray, backward: np.ndarray, accepts: np.ndarray, filled: np.ndarray, stride: int, ways: np.ndarray
) -> None:
    """``ways[i, c]``: the walks that put card ``c`` in position ``i`` of one opponent's hand (``accepts`` and
    ``filled``: its tables): they reach a state ``s`` with ``i`` of its positions filled before ``c``, put ``c``
    next, and still finish."""
    cards, states = accepts.shape[0], forward.shape[1]
    for c in range(cards):
        accept = accepts[c]
        for s in range(states - stride):
            if forward[c, s] and accept[filled[s]]:
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
    up in those opponents' hands. Returns the mixed-radix ``strides`` and ``final`` state, ``filled[j, s]`` (opponent
    ``j``'s positions filled in state ``s``), ``accepts[j, c, i]`` (its position ``i`` may hold card ``c``; False
    from ``sizes[j]`` on, a full hand's column) and ``skips[c]`` (card ``c`` may lie elsewhere): card ``c`` may fill
    ``j``'s next position from ``s`` if ``accepts[j, c, filled[j, s]]``."""
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
    for j in range(count):
        for i in range(sizes[j]):
            if cards[j, i] >= 0:
                accepts[j, cards[j, i], i] = True
            else:
                for c in range(colours[j, i], deck, 2):
                    if not (seen >> c & 1) and not (excluded[j, i] >> (c // 2) & 1):
                        accepts[j, c, i] = True
        for s in range(states):
            filled[j, s] = (s // strides[j]) % (sizes[j] + 1)
    skips = np.ones(deck, dtype=np.bool_)
    for c in range(deck):
        if placed >> c & 1:
            skips[c] = False
    return strides, final, filled, accepts, skips


@njit(cache=True)
def view_walk(viewer, sizes, colours, cards, excluded, seen, deck):  # pragma: no cover - compiled
    """The walk of a view given as arrays over every hand (player ``q``: ``sizes[q]`` positions, each one's colour,
    its card if face up or -1, the numbers missed attacks excluded there as bits) and ``seen``, the cards ``viewer``
    can place (its own, its drawn card, every face-up card; bits). Returns the opponents with a card face down
    (``players[:count]``, the walk's order), :func:`posterior_tables` of them and the forward counts, whose
    ``forward[deck, final]`` is the number of consistent deals (0: the view contradicts itself)."""
    hands = sizes.size
    players = np.zeros(hands, dtype=np.int64)
    count = 0
    for q in range(hands):
        if q == viewer:
            continue
        for i in range(sizes[q]):
            if cards[q, i] < 0:
                players[count] = q
                count += 1
                break
    placed = np.int64(0)
    for j in range(count):
        for i in range(sizes[players[j]]):
            if cards[players[j], i] >= 0:
                placed |= np.int64(1) << cards[players[j], i]
    who = players[:count]
    tables = posterior_tables(sizes[who], colours[who], cards[who], excluded[who], seen, placed, deck)
    strides, final, filled, accepts, skips = tables
    forward = np.zeros((deck + 1, filled.shape[1] if count else 1), dtype=np.int64)
    forward[0, 0] = 1
    forward_pass(accepts, filled, strides, skips, forward)
    return players, count, strides, final, filled, accepts, skips, forward


@njit(cache=True)
def view_numbers(viewer, sizes, colours, cards, excluded, own, seen, numbers, table):  # pragma: no cover - compiled
    """``table[row, position, number]``: the probability of each number at each position of every hand (rows in
    turn order from ``viewer``, whose own cards are ``own``, bits), as :meth:`AlgoHandPosterior.number_probabilities`
    gives them, from the view's arrays (:func:`view_walk`'s). Returns the consistent deals (0: the view contradicts
    itself, and the table is left unwritten)."""
    deck = 2 * numbers
    players, count, strides, final, filled, accepts, skips, forward = view_walk(
        viewer, sizes, colours, cards, excluded, seen, deck
    )
    total = forward[deck, final]
    if total == 0:
        return total
    backward = np.zeros_like(forward)
    backward[deck, final] = 1
    backward_pass(accepts, filled, strides, skips, backward)
    hands = sizes.size
    for row in range(hands):
        q = (viewer + row) % hands
        j = -1
        for k in range(count):
            if players[k] == q:
                j = k
        if j < 0:  # certain: the viewer's own hand, or a hand all face up
            if q == viewer:
                bits, card, position = own, 0, 0
                while bits:
                    if bits & 1:
                        table[row, position, card // 2] = 1.0
                        position += 1
                    bits >>= 1
                    card += 1
            else:
                for position in range(sizes[q]):
                    table[row, position, cards[q, position] // 2] = 1.0
            continue
        ways = np.zeros((sizes[q] + 1, deck), dtype=np.int64)
        position_ways(forward, backward, accepts[j], filled[j], strides[j], ways)
        for position in range(sizes[q]):
            for number in range(numbers):  # by card, then summed over the colours, as number_probabilities
                black, white = ways[position, 2 * number], ways[position, 2 * number + 1]
                table[row, position, number] = black / total + white / total
    return total


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
        self._strides, self._final, self._filled, self._accepts, self._skips = tables
        self._states = int(self._filled.shape[1]) if count else 1

        self._forward = np.zeros((n + 1, self._states), dtype=np.int64)
        self._forward[0, 0] = 1
        forward_pass(self._accepts, self._filled, self._strides, self._skips, self._forward)
        self.count = int(self._forward[n, self._final])
        if self.count == 0:
            raise ValueError(f"no deal agrees with player {view.player}'s view: it contradicts itself")

    @cached_property
    def _backward(self) -> np.ndarray:
        """``[c, s]``: the walks that finish from state ``s`` before card ``c`` (for probabilities only)."""
        backward = np.zeros((self.deck_size + 1, self._states), dtype=np.int64)
        backward[self.deck_size, self._final] = 1
        backward_pass(self._accepts, self._filled, self._strides, self._skips, backward)
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
        position_ways(self._forward, self._backward, self._accepts[j], self._filled[j], int(self._strides[j]), ways)
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
