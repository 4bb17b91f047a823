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

Before each card, each opponent's filled positions lie between two bounds (its
positions filled as early as their accepted cards allow, and as late), so only
a box of states can be both reached and finished: the counts are stored box by
box (:func:`posterior_tables`), about a tenth of the states at 4 players.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from numba import njit

from deduction_envs.games.algo import AlgoDeal, AlgoEvent, AlgoRules, AlgoState, PlayerView

__all__ = ["AlgoHandPosterior", "AlgoKnowledge", "attack_probabilities"]


#: The most opponents a walk has (Algo seats four players): the passes loop over three levels, unused ones fixed at 0.
DIMENSIONS = 3


@njit(cache=True)
def forward_pass(accepts, skips, low, high, radix, offsets, forward):  # pragma: no cover - compiled
    """``forward`` over every layer from its first state (the walk's tables: :func:`posterior_tables`'): card ``c``
    lies elsewhere (if ``skips[c]``) or fills the next position of an opponent ``j`` (if ``accepts[j, c,
    levels[j]]``, False for a full hand). ``forward``: zeros, the walk's length; only the states of each layer's box
    are walked (the others cannot both be reached and finish)."""
    count = accepts.shape[0]
    if offsets[1] > offsets[0]:
        forward[0] = 1
    for c in range(skips.size):
        k, d = offsets[c], c + 1
        for l2 in range(low[2, c], high[2, c] + 1):
            in2, up2 = low[2, d] <= l2 <= high[2, d], low[2, d] <= l2 + 1 <= high[2, d]
            at2 = offsets[d] + (l2 - low[2, d]) * radix[2, d]
            for l1 in range(low[1, c], high[1, c] + 1):
                in1, up1 = low[1, d] <= l1 <= high[1, d], low[1, d] <= l1 + 1 <= high[1, d]
                at1 = at2 + (l1 - low[1, d]) * radix[1, d]
                for l0 in range(low[0, c], high[0, c] + 1):
                    ways = forward[k]
                    k += 1
                    if ways == 0:
                        continue
                    in0, up0 = low[0, d] <= l0 <= high[0, d], low[0, d] <= l0 + 1 <= high[0, d]
                    at = at1 + (l0 - low[0, d]) * radix[0, d]
                    if skips[c] and in0 and in1 and in2:
                        forward[at] += ways
                    if count > 0 and up0 and in1 and in2 and accepts[0, c, l0]:
                        forward[at + radix[0, d]] += ways
                    if count > 1 and in0 and up1 and in2 and accepts[1, c, l1]:
                        forward[at + radix[1, d]] += ways
                    if count > 2 and in0 and in1 and up2 and accepts[2, c, l2]:
                        forward[at + radix[2, d]] += ways


@njit(cache=True)
def backward_pass(accepts, skips, low, high, radix, offsets, backward):  # pragma: no cover - compiled
    """``backward``, last card first: the walks that finish from each state (zeros, the walk's length)."""
    count, deck = accepts.shape[0], skips.size
    if offsets[deck + 1] > offsets[deck]:
        backward[offsets[deck + 1] - 1] = 1  # the box before no card is the final state alone
    for c in range(deck - 1, -1, -1):
        k, d = offsets[c], c + 1
        for l2 in range(low[2, c], high[2, c] + 1):
            in2, up2 = low[2, d] <= l2 <= high[2, d], low[2, d] <= l2 + 1 <= high[2, d]
            at2 = offsets[d] + (l2 - low[2, d]) * radix[2, d]
            for l1 in range(low[1, c], high[1, c] + 1):
                in1, up1 = low[1, d] <= l1 <= high[1, d], low[1, d] <= l1 + 1 <= high[1, d]
                at1 = at2 + (l1 - low[1, d]) * radix[1, d]
                for l0 in range(low[0, c], high[0, c] + 1):
                    in0, up0 = low[0, d] <= l0 <= high[0, d], low[0, d] <= l0 + 1 <= high[0, d]
                    at = at1 + (l0 - low[0, d]) * radix[0, d]
                    ways = backward[at] if skips[c] and in0 and in1 and in2 else 0
                    if count > 0 and up0 and in1 and in2 and accepts[0, c, l0]:
                        ways += backward[at + radix[0, d]]
                    if count > 1 and in0 and up1 and in2 and accepts[1, c, l1]:
                        ways += backward[at + radix[1, d]]
                    if count > 2 and in0 and in1 and up2 and accepts[2, c, l2]:
                        ways += backward[at + radix[2, d]]
                    backward[k] = ways
                    k += 1


@njit(cache=True)
def position_ways(accepts, skips, low, high, radix, offsets, forward, backward, j, ways):  # pragma: no cover - compiled
    """``ways[i, c]``: the walks that put card ``c`` in position ``i`` of opponent ``j``'s hand: they reach a state
    with ``i`` of its positions filled before ``c``, put ``c`` next, and still finish."""
    for c in range(skips.size):
        k, d = offsets[c], c + 1
        for l2 in range(low[2, c], high[2, c] + 1):
            in2, up2 = low[2, d] <= l2 <= high[2, d], low[2, d] <= l2 + 1 <= high[2, d]
            at2 = offsets[d] + (l2 - low[2, d]) * radix[2, d]
            for l1 in range(low[1, c], high[1, c] + 1):
                in1, up1 = low[1, d] <= l1 <= high[1, d], low[1, d] <= l1 + 1 <= high[1, d]
                at1 = at2 + (l1 - low[1, d]) * radix[1, d]
                for l0 in range(low[0, c], high[0, c] + 1):
                    here = forward[k]
                    k += 1
                    if here == 0:
                        continue
                    in0, up0 = low[0, d] <= l0 <= high[0, d], low[0, d] <= l0 + 1 <= high[0, d]
                    at = at1 + (l0 - low[0, d]) * radix[0, d]
                    if j == 0 and up0 and in1 and in2 and accepts[0, c, l0]:
                        ways[l0, c] += here * backward[at + radix[0, d]]
                    elif j == 1 and in0 and up1 and in2 and accepts[1, c, l1]:
                        ways[l1, c] += here * backward[at + radix[1, d]]
                    elif j == 2 and in0 and in1 and up2 and accepts[2, c, l2]:
                        ways[l2, c] += here * backward[at + radix[2, d]]


@njit(cache=True)
def sample_walk(accepts, skips, low, high, radix, offsets, forward, sizes, uniforms,
                hands):  # pragma: no cover - compiled  # fmt: skip
    """A uniformly random walk, drawn backwards from the final state: ``hands[j, i]``, opponent ``j``'s card at
    position ``i`` (every position; a face-up card is its own). Card ``c``'s option (lie elsewhere, then each
    opponent it may end) is drawn from ``uniforms[deck - 1 - c]`` as numpy's ``Generator.choice`` with
    probabilities draws from its uniform number: the first whose cumulative probability, normalised by the last,
    passes it."""
    count, deck = accepts.shape[0], skips.size
    levels = sizes.copy()
    options = np.zeros(count + 1, dtype=np.int64)
    weights = np.zeros(count + 1)
    for c in range(deck - 1, -1, -1):
        k = 0
        if skips[c]:
            options[k], weights[k] = -1, _weight(low, high, radix, offsets, c, levels, count, forward)
            k += 1
        for j in range(count):
            if levels[j] > 0 and accepts[j, c, levels[j] - 1]:
                levels[j] -= 1
                options[k], weights[k] = j, _weight(low, high, radix, offsets, c, levels, count, forward)
                levels[j] += 1
                k += 1
        total = 0.0
        for i in range(k):
            total += weights[i]
        last = 0.0
        for i in range(k):
            last += weights[i] / total
        pick, cumulative = k - 1, 0.0
        for i in range(k):
            cumulative += weights[i] / total
            if cumulative / last > uniforms[deck - 1 - c]:
                pick = i
                break
        j = options[pick]
        if j >= 0:
            levels[j] -= 1
            hands[j, levels[j]] = c


@njit(cache=True)
def _weight(low, high, radix, offsets, c, levels, count, forward):  # pragma: no cover - compiled
    """The walks reaching ``levels`` before card ``c`` (0 outside that layer's box)."""
    index = offsets[c]
    for j in range(count):
        if not low[j, c] <= levels[j] <= high[j, c]:
            return 0.0
        index += (levels[j] - low[j, c]) * radix[j, c]
    return float(forward[index])


_COLOUR_MASKS: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _bits(cards: set[int]) -> int:
    """The cards as bits of an int64."""
    return sum(1 << int(card) for card in cards)


@njit(cache=True)
def posterior_tables(sizes, colours, cards, excluded, who, seen, placed, deck):  # pragma: no cover - compiled
    """The walk's tables of a view for :class:`AlgoHandPosterior`, from arrays: for each opponent ``j`` with a card
    face down (row ``who[j]`` of the arrays: ``sizes`` positions, each position's colour, its card if known, -1 if
    not, and the numbers missed attacks excluded there, bits); ``seen``, the cards the viewer can place (bits), and
    ``placed``, those lying face up in those opponents' hands.

    Returns ``(accepts, skips, low, high, radix, offsets)``: ``accepts[j, c, i]``, position ``i`` of opponent ``j``
    may hold card ``c`` (False from its size on, a full hand's column); ``skips[c]``, card ``c`` may lie elsewhere.
    A state of the walk before card ``c`` is each opponent's filled positions ``levels[j]``; only those between
    ``low[j, c]`` and ``high[j, c]`` can be both reached and finished (the positions filled earliest, each with the
    least card it accepts above the last, fill the most below ``c``; filled latest, the fewest: bounds that ignore
    the other hands), a box whose states are stored from ``offsets[c]`` in mixed radix ``radix[j, c]``.
    """
    count = who.size
    if count > DIMENSIONS:
        raise ValueError("a walk has at most three opponents")
    width = 0
    for j in range(count):
        width = max(width, sizes[who[j]])
    accepts = np.zeros((count, deck, width + 1), dtype=np.bool_)
    for j in range(count):
        q = who[j]
        for i in range(sizes[q]):
            if cards[q, i] >= 0:
                accepts[j, cards[q, i], i] = True
            else:
                for c in range(colours[q, i], deck, 2):
                    if not (seen >> c & 1) and not (excluded[q, i] >> (c // 2) & 1):
                        accepts[j, c, i] = True
    skips = np.ones(deck, dtype=np.bool_)
    for c in range(deck):
        if placed >> c & 1:
            skips[c] = False
    bounds = np.zeros((3, DIMENSIONS, deck + 1), dtype=np.int64)  # rows past the opponents: levels fixed at 0
    low, high, radix = bounds[0], bounds[1], bounds[2]
    for j in range(count):
        size, feasible = sizes[who[j]], True
        card, done = -1, 0  # high[j, c]: the positions whose earliest card is below c
        for i in range(size):
            card += 1
            while card < deck and not accepts[j, card, i]:
                card += 1
            if card >= deck:
                feasible = False
                break
            for c in range(done, card + 1):
                high[j, c] = i
            done = card + 1
        for c in range(done, deck + 1):
            high[j, c] = size
        card, top = deck, deck  # low[j, c]: the positions whose latest card is below c
        for i in range(size - 1, -1, -1):
            card -= 1
            while card >= 0 and not accepts[j, card, i]:
                card -= 1
            if card < 0:
                feasible = False
                break
            for c in range(card + 1, top + 1):
                low[j, c] = i + 1
            top = card
        if not feasible:  # the hand cannot be filled: no state at all
            for c in range(deck + 1):
                low[j, c], high[j, c] = 1, 0
    offsets = np.zeros(deck + 2, dtype=np.int64)
    for c in range(deck + 1):
        size = 1
        for j in range(DIMENSIONS):
            radix[j, c] = size
            size *= max(0, high[j, c] - low[j, c] + 1)
        offsets[c + 1] = offsets[c] + size
    return accepts, skips, low, high, radix, offsets


@njit(cache=True)
def view_walk(viewer, sizes, colours, cards, excluded, seen, deck):  # pragma: no cover - compiled
    """The walk of a view given as arrays over every hand (player ``q``: ``sizes[q]`` positions, each one's colour,
    its card if face up or -1, the numbers missed attacks excluded there as bits) and ``seen``, the cards ``viewer``
    can place (its own, its drawn card, every face-up card; bits). Returns the opponents with a card face down
    (``players[:count]``, the walk's order), :func:`posterior_tables` of them and the forward counts, and the number
    of consistent deals (0: the view contradicts itself)."""
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
    tables = posterior_tables(sizes, colours, cards, excluded, players[:count], seen, placed, deck)
    offsets = tables[5]
    forward = np.zeros(offsets[-1], dtype=np.int64)
    forward_pass(*tables, forward)
    total = forward[offsets[-1] - 1] if offsets[-1] > offsets[-2] else 0
    return players, count, tables, forward, total


@njit(cache=True)
def view_numbers(viewer, sizes, colours, cards, excluded, own, seen, numbers, table):  # pragma: no cover - compiled
    """``table[row, position, number]``: the probability of each number at each position of every hand (rows in
    turn order from ``viewer``, whose own cards are ``own``, bits), as :meth:`AlgoHandPosterior.number_probabilities`
    gives them, from the view's arrays (:func:`view_walk`'s). Returns the consistent deals (0: the view contradicts
    itself, and the table is left unwritten)."""
    deck = 2 * numbers
    players, count, tables, forward, total = view_walk(viewer, sizes, colours, cards, excluded, seen, deck)
    if total == 0:
        return total
    backward = np.zeros_like(forward)
    backward_pass(*tables, backward)
    hands = sizes.size
    ways = np.zeros((cards.shape[1] + 1, deck), dtype=np.int64)
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
        ways[:] = 0
        position_ways(*tables, forward, backward, j, ways)
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
        self._sizes = sizes
        rows = np.arange(count)
        self._tables = posterior_tables(sizes, colours, cards, excluded, rows, _bits(seen), _bits(placed), n)
        offsets = self._tables[5]
        self._forward = np.zeros(offsets[-1], dtype=np.int64)
        forward_pass(*self._tables, self._forward)
        self.count = int(self._forward[-1]) if offsets[-1] > offsets[-2] else 0
        if self.count == 0:
            raise ValueError(f"no deal agrees with player {view.player}'s view: it contradicts itself")

    @cached_property
    def _backward(self) -> np.ndarray:
        """The walks that finish from each state of the walk (for probabilities only)."""
        backward = np.zeros_like(self._forward)
        backward_pass(*self._tables, backward)
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
        position_ways(*self._tables, self._forward, self._backward, j, ways)
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
        """A uniformly random consistent assignment: every opponent's whole hand, by player (one uniform number a
        card of the deck, :func:`sample_walk`)."""
        hands = np.full((len(self.players), max(self._sizes, default=0)), -1, dtype=np.int64)
        sample_walk(*self._tables, self._forward, self._sizes, rng.random(self.deck_size), hands)
        return {q: hands[j, : self._sizes[j]].tolist() for j, q in enumerate(self.players)}


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
