"""Agents for Algo that play from their own view: the article's epsilon-greedy baseline and max-entropy agent.

The probabilities come from :class:`deduction_envs.reasoning.AlgoHandPosterior`,
exact over every deal consistent with the agent's view. The baseline's move (:func:`epsilon_greedy_move`) is a
function of a view, which SO-ISMCTS's play-outs and the training side's play-out entries use too.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from agents.multiplayer import SeatAgent
from deduction_envs.core.rules import check_int
from deduction_envs.games.algo import AlgoRules, HandView, Phase, PlayerView
from deduction_envs.reasoning import AlgoHandPosterior
from deduction_envs.reasoning.algo_hands import AlgoKnowledge, attack_probabilities

__all__ = ["AlgoEpsilonGreedy", "AlgoMaxEntropy", "attack_probabilities", "epsilon_greedy_move", "max_entropy_settings"]


def epsilon_greedy_move(
    rules,
    view: PlayerView,
    mask: np.ndarray,
    rng: np.random.Generator,
    epsilon: float,
    posterior: AlgoHandPosterior | None = None,
) -> int:
    """The article's epsilon-greedy baseline's move from ``view`` (``posterior``: ``view``'s, if already
    counted): after a hit stop with probability ``epsilon``, else attack the likeliest (position, number), the
    first in action order on ties; reveal a random own face-down card. :class:`agents.AlgoEpsilonGreedy`
    plays it, and the SO-ISMCTS play-outs and the training side's play-out entries
    (:mod:`train.training_envs`) simulate every seat with it."""
    if view.phase == Phase.REVEAL:
        return int(rng.choice(np.flatnonzero(mask)))
    if view.phase == Phase.CONTINUE and rng.random() < epsilon:
        return rules.stop_action
    hits = np.where(mask[: rules.num_attacks], attack_probabilities(rules, view, posterior), -1.0)
    return int(np.argmax(hits))


class AlgoEpsilonGreedy(SeatAgent):
    """The article's baseline: attack the most probable (position, number); after a hit, stop with probability epsilon.

    ``epsilon`` is a stop probability, not exploration: 0 attacks until a
    miss, 1 stops after every hit. Ties between equally probable attacks go to
    the first in action order. With the deck empty, a miss makes it reveal a
    random own face-down card.
    """

    rules: AlgoRules
    knowledge: AlgoKnowledge

    def __init__(self, epsilon: float = 0.1) -> None:
        super().__init__()
        if not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be a probability in [0, 1], got {epsilon}")
        self.epsilon = float(epsilon)
        self.name = f"epsilon-greedy({epsilon:g})"

    def act(self, mask: np.ndarray) -> int:
        knowledge = self.knowledge
        return epsilon_greedy_move(self.rules, knowledge.view, mask, self.rng, self.epsilon, knowledge.posterior)


def _reveal(view: PlayerView, player: int, position: int, number: int) -> PlayerView:
    """``view`` after a hit on ``player``'s ``position`` naming ``number`` (the card is then known)."""
    hand = view.hands[player]
    known = list(hand.known)
    known[position] = 2 * number + hand.colours[position]
    hands = list(view.hands)
    hands[player] = hand._replace(known=tuple(known))
    return view._replace(hands=tuple(hands))


def _entropy(p: float) -> float:
    """``-log2 p`` (0 for p = 0, whose term has weight 0), by the C library's ``log2`` (``math.log2``) as the
    compiled agent's: numpy's own ``log2`` differs from it in the last bit on some inputs on AVX-512 machines."""
    return -math.log2(p) if p > 0 else 0.0


#: The max-entropy agent's win rules and units (:class:`AlgoMaxEntropy`).
WIN_RULES = ("certain", "outright")
UNITS = ("nats", "bits")


def max_entropy_settings(depth: int, top_n: int, samples: int, win_value: float, win_rule: str,
                         units: str) -> tuple[int, int, int, float, str, str, float, str]:  # fmt: skip
    """The max-entropy agent's settings checked (a ValueError naming what is wrong), as :class:`AlgoMaxEntropy` and
    its compiled twin keep them: the options, then the unit's value of one bit and the agent's name."""
    for label, value in (("depth", depth), ("top_n", top_n), ("samples", samples)):
        check_int(label, value, low=1)
    if win_rule not in WIN_RULES:
        raise ValueError(f"win_rule must be one of {', '.join(WIN_RULES)}, got {win_rule!r}")
    if units not in UNITS:
        raise ValueError(f"units must be one of {', '.join(UNITS)}, got {units!r}")
    per_bit, name = (math.log(2), "max-entropy") if units == "nats" else (1.0, "max-entropy(bits)")
    return depth, top_n, samples, float(win_value), win_rule, units, per_bit, name


class AlgoMaxEntropy(SeatAgent):
    """The article's method: the action that maximises an expected information gain.

    For an attack k hitting with probability p_k::

        I_k = p_k (-log p_k + D_k) + (1 - p_k) (-log(1 - p_k) - S)

    and for stopping, I = -T. D_k is the best I after the hit, searched over
    the ``top_n`` most probable attacks plus stop to ``depth`` levels (0
    beyond). D_k is ``win_value`` instead when the hit wins: with
    ``win_rule="certain"`` (the article's, default) when after it no attack
    is left or the ``top_n`` most probable attacks are all certain (the win
    can be taken without risk); with ``"outright"`` (this project's rule
    before) only when the hit leaves no opponent a face-down card.
    S and T are the information the opponents gain about my hand when my drawn
    card goes face up (a miss) or face down (a stop): from each opponent's view
    of my hand, the log of the consistent hands before minus after, averaged
    over ``samples`` determinisations of the opponents' hands drawn from my
    own posterior, and summed over the opponents still in the game (the
    article's game has one). An attack of probability 1 has I = D (no risk).
    With the deck empty there is no drawn card: S = T = 0, and a miss makes it
    reveal a random own face-down card.

    ``units``: ``"nats"`` (default), the article's code (``np.log`` and a win
    value of 10); or ``"bits"`` (``log2`` with the same win value: this
    project's form before issue 64, whose bonus weighs 1/ln 2 = 1.44 times
    less against the information terms), named ``max-entropy(bits)``.
    :attr:`last_values` holds the I of each action considered, in ``units``.
    """

    rules: AlgoRules
    knowledge: AlgoKnowledge

    WIN_RULES, UNITS = WIN_RULES, UNITS

    def __init__(
        self,
        depth: int = 2,
        top_n: int = 5,
        samples: int = 8,
        win_value: float = 10.0,
        win_rule: str = "certain",
        units: str = "nats",
    ) -> None:
        super().__init__()
        settings = max_entropy_settings(depth, top_n, samples, win_value, win_rule, units)
        self.depth, self.top_n, self.samples, self.win_value, self.win_rule, self.units, self._per_bit, self.name = (
            settings
        )
        self.last_values: dict[int, float] = {}

    def act(self, mask: np.ndarray) -> int:
        view = self.knowledge.view
        if view.phase == Phase.REVEAL:
            return int(self.rng.choice(np.flatnonzero(mask)))
        posterior = self.knowledge.posterior
        revealed, hidden = (bits * self._per_bit for bits in self._disclosure(view, posterior))
        values = self._values(view, revealed, hidden, self.depth, view.phase == Phase.CONTINUE, posterior)
        self.last_values = values
        return max(values, key=values.__getitem__)

    def _values(
        self,
        view: PlayerView,
        revealed: float,
        hidden: float,
        depth: int,
        can_stop: bool,
        posterior: AlgoHandPosterior | None = None,
        hits: np.ndarray | None = None,
    ) -> dict[int, float]:
        """I of the ``top_n`` most probable attacks and, when allowed, of stopping (``posterior``: ``view``'s;
        ``hits``: its attack probabilities, if already computed)."""
        rules = self.rules
        hits = attack_probabilities(rules, view, posterior) if hits is None else hits
        order = self._candidates(hits)
        values = {}
        for action in order:
            p = float(hits[action])
            move = rules.decode(int(action))
            after = _reveal(view, rules.target_player(view.player, move.target), move.position, move.number)
            after_hits = None
            if self.win_rule == "outright":
                won = all(k >= 0 for q, hand in enumerate(after.hands) if q != view.player for k in hand.known)
            else:  # the article: nothing left to attack, or every candidate attack certain
                after_hits = attack_probabilities(rules, after)
                won = bool((after_hits[self._candidates(after_hits)] >= 1).all())
            if won:
                best = self.win_value
            elif depth > 1:
                best = max(self._values(after, revealed, hidden, depth - 1, can_stop=True, hits=after_hits).values())
            else:
                best = 0.0
            if p >= 1:
                values[int(action)] = best
            else:
                surprise, missed = _entropy(p) * self._per_bit, _entropy(1 - p) * self._per_bit
                values[int(action)] = p * (surprise + best) + (1 - p) * (missed - revealed)
        if can_stop:
            values[rules.stop_action] = -hidden
        return values

    def _candidates(self, hits: np.ndarray) -> np.ndarray:
        """The ``top_n`` most probable attacks that may hit, most probable first (ties in action order)."""
        order = np.flatnonzero(hits > 0)
        return order[np.argsort(-hits[order], kind="stable")][: self.top_n]

    def _disclosure(self, view: PlayerView, posterior: AlgoHandPosterior | None = None) -> tuple[float, float]:
        """(S, T): bits the opponents learn about my hand from my drawn card placed face up, face down (summed
        over the opponents still in the game).

        ``posterior`` is ``view``'s, if already built.
        """
        if view.drawn < 0:
            return 0.0, 0.0
        me = view.hands[view.player]
        position = bisect.bisect_left(view.own, view.drawn)
        colour = view.drawn % 2

        def placed(known: int) -> HandView:
            return HandView(
                (*me.colours[:position], colour, *me.colours[position:]),
                (*me.known[:position], known, *me.known[position:]),
                (*me.excluded[:position], frozenset(), *me.excluded[position:]),
            )

        posterior = posterior or AlgoHandPosterior(view, self.rules.numbers)
        opponents = [q for q in range(self.rules.players) if q != view.player and q in posterior.players]
        hands_after = [list(view.hands), list(view.hands)]
        for column, known in enumerate((view.drawn, -1)):
            hands_after[column][view.player] = placed(known)
        gains = np.zeros((self.samples, 2))
        for s in range(self.samples):
            hands = posterior.sample(self.rng)
            for opponent in opponents:
                # The opponent's view: its own (sampled) hand, mine as everyone sees it, my drawn card unseen.
                theirs = view._replace(player=opponent, own=tuple(hands[opponent]), drawn=-1)
                before = math.log2(AlgoHandPosterior(theirs, self.rules.numbers).count)
                for column in (0, 1):
                    after = AlgoHandPosterior(theirs._replace(hands=tuple(hands_after[column])), self.rules.numbers)
                    gains[s, column] += before - math.log2(after.count)
        revealed, hidden = gains.mean(axis=0)
        return float(revealed), float(hidden)
