"""What a Clue suggestion is expected to tell its asker: the case file's entropy after the answer.

Velma's idea (``pyvelma``), done exactly where it can be. A suggestion names one
card per category; the players to the asker's left are asked in order and the
first holding any of the cards shows the asker one. The asker sees an
*outcome*: nobody refuted, or refuter ``r`` showed card ``c``. Over the deals
consistent with the asker's knowledge (each equally likely), the suggestion's
expected entropy of the case file after the answer is

    E = sum_o P(o) H(case file | o)

and the best suggestion leaves the least ``E``. It is computed for every
suggestion at once from a set of deals: each deal gives every suggestion's
refuter and matching cards (numpy over deals x suggestions x cards), and the
joint weights of (outcome, case file) give ``E`` through
:func:`~deduction_envs.core.entropy.conditional_entropy_bits`.

Which card a refuter with a choice shows is a model (``refuter``):

* ``"uniform"``: each of its matching cards with equal probability (a deal
  with two matching cards counts half for each outcome).
* ``"adversarial"``: the card that tells the asker least, as Velma assumes:
  the one whose outcome leaves the most entropy, each outcome's entropy taken
  under the uniform model (one step towards the fixed point; a refuter cannot
  know more than that about the asker's view).

The deals: when the asker's knowledge counts exactly at most
``enumerate_limit`` deals, all of them, and the figures are exact. Otherwise
``samples`` uniform deals, and each outcome's entropy is the Miller-Madow
estimate, so that suggestions with many outcomes,
whose outcomes are each seen in fewer deals, are not favoured by the
plug-in estimate's bias. The compiled sweep over card types lists or draws
them (:func:`~deduction_envs.reasoning.clue_sweep.deal_seat`, seeded by one
number of the caller's generator); past its budget the engine does, from a
generator of that number (drawn until every deal has been seen, checked against
the count, when enumerating).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from deduction_envs.core.entropy import binary_entropy_bits, conditional_entropy_bits, grouped_conditional_entropy_bits
from deduction_envs.core.rules import check_int
from deduction_envs.reasoning.clue_knowledge import ClueKnowledge
from deduction_envs.reasoning.clue_sweep import EXACT, SWEEP_WORK, deal_seat

__all__ = [
    "REFUTER_MODELS",
    "SuggestionScores",
    "ask_candidates",
    "score_asks",
    "score_deals",
    "score_suggestions",
    "sixths_table",
    "sure_to_learn",
]

#: How a refuter holding several of the suggested cards chooses the one to show.
REFUTER_MODELS = ("uniform", "adversarial")


@dataclass(frozen=True)
class SuggestionScores:
    """Every suggestion's expected case-file entropy after its answer, for one asker and state.

    Attributes:
        suggestions: ``(n, categories)`` card ids, one suggestion a row, in
            :class:`~deduction_envs.games.clue.ClueRules`' triple order (the
            last category fastest).
        expected_entropy: ``(n,)`` bits left after each suggestion's answer.
        entropy: bits of the case file now, from the same deals.
        exact: whether every consistent deal was used (else ``deals`` samples).
        deals: the deals behind the figures.
    """

    suggestions: np.ndarray
    expected_entropy: np.ndarray
    entropy: float
    exact: bool
    deals: int

    @property
    def gain(self) -> np.ndarray:
        """Expected information gain in bits of each suggestion (its expected entropy off the entropy now)."""
        return self.entropy - self.expected_entropy

    def best(self, allowed: np.ndarray | None = None, rng: np.random.Generator | None = None) -> int:
        """The index of the suggestion leaving the least expected entropy (ties within 1e-9 bits at random).

        ``allowed``: bool mask over the suggestions (a room constraint); default all.
        """
        values = self.expected_entropy if allowed is None else np.where(allowed, self.expected_entropy, np.inf)
        if not np.isfinite(values).any():
            raise ValueError("no suggestion is allowed")
        ties = np.flatnonzero(values <= values.min() + 1e-9)
        return int(ties[0] if rng is None else rng.choice(ties))

    def top(self, k: int, allowed: np.ndarray | None = None) -> np.ndarray:
        """The indices of the ``k`` suggestions leaving the least expected entropy, best first."""
        values = self.expected_entropy if allowed is None else np.where(allowed, self.expected_entropy, np.inf)
        order = np.argsort(values, kind="stable")
        return order[: min(check_int("k", k, low=1), int(np.isfinite(values).sum()))]


def suggestion_table(knowledge: ClueKnowledge) -> np.ndarray:
    """Every suggestion (one card per category), ``(n, categories)`` card ids in triple order."""
    return np.array(list(itertools.product(*knowledge.categories)), dtype=np.int64)


def score_suggestions(
    knowledge: ClueKnowledge,
    asker: int,
    refuter: str = "uniform",
    samples: int = 2000,
    rng: np.random.Generator | int | None = None,
    enumerate_limit: int = 500,
    seed: int | None = None,
) -> SuggestionScores:
    """Score every suggestion ``asker`` could make, from ``asker``'s ``knowledge``; see the module docstring.

    Args:
        knowledge: the asker's knowledge (a classic deck: one card of each category in the case file).
        asker: the asker's seat.
        refuter: ``"uniform"`` or ``"adversarial"``.
        samples: deals to draw when not enumerating.
        rng: seed or generator of the draws: one number, ``rng.integers(2**53)``, that makes the deals.
        enumerate_limit: the largest exact count of deals that is enumerated.
        seed: that number, given instead of ``rng`` (a compiled agent scoring as its Python agent, which drew it).
    """
    if refuter not in REFUTER_MODELS:
        raise ValueError(f"refuter must be one of {REFUTER_MODELS}, got {refuter!r}")
    asker = check_int("asker", asker, low=0, high=knowledge.players - 1)
    samples = check_int("samples", samples, low=1)
    enumerate_limit = check_int("enumerate_limit", enumerate_limit, low=0)
    if any(size != 1 for size in knowledge.case_file_sizes):
        raise ValueError("suggestions name one card per category: the case file must hold one of each")
    deals, exact = _deals(knowledge, samples, enumerate_limit, _seed(rng, seed))
    suggestions = suggestion_table(knowledge)
    joint = _joint(deals, suggestions, knowledge, asker, refuter, sampled=not exact)
    case = joint[0].sum(axis=0, keepdims=True)  # the case file's weights, the same under every suggestion
    return SuggestionScores(
        suggestions=suggestions,
        expected_entropy=np.asarray(conditional_entropy_bits(joint, sampled=not exact)),
        entropy=float(conditional_entropy_bits(case, sampled=not exact)),
        exact=exact,
        deals=deals.shape[0],
    )


def _seed(rng: Any, seed: int | None) -> int:
    """The number the deals are made from: ``seed`` if given, else the first draw of ``rng`` (a generator, a
    stand-in that draws as one, :class:`agents.batched.UniformDraws`, or a generator's seed)."""
    if seed is None:
        source: Any = rng if hasattr(rng, "integers") else np.random.default_rng(rng)
        seed = int(source.integers(2**53))
    return check_int("seed", seed, low=0, high=2**63 - 1)


def _deals(knowledge: ClueKnowledge, samples: int, enumerate_limit: int, seed: int) -> tuple[np.ndarray, bool]:
    """Every consistent deal when the exact count is at most ``enumerate_limit``, else ``samples`` uniform ones:
    dealt by the compiled sweep (:func:`~deduction_envs.reasoning.clue_sweep.deal_seat`), or by the engine where
    the sweep is over its budget, either way from the one number ``seed`` (so that a compiled agent given that
    number deals the same)."""
    store = knowledge.trusted_facts()
    required, forbidden = store.masks()
    model = knowledge._model
    deals = np.zeros((max(samples, enumerate_limit), model.cards), dtype=np.int64)
    status, count, dealt = deal_seat(required, forbidden, store.clauses, *model.sweep_table, SWEEP_WORK, seed,
                                     enumerate_limit, deals)  # fmt: skip
    if status == EXACT:
        exact = count <= enumerate_limit
        return deals[:dealt] if exact else deals[:samples], exact
    rng = np.random.default_rng(seed)
    solution = knowledge.solve() if enumerate_limit else None
    if solution is not None and solution.method == "exact" and solution.count <= enumerate_limit:
        # 20 draws per deal miss a given deal with probability e**-20: all are seen, which the count checks.
        deals = np.unique(knowledge.sample(20 * int(solution.count), rng), axis=0)
        if deals.shape[0] == solution.count:
            return deals, True
    return knowledge.sample(samples, rng), False


def _joint(
    deals: np.ndarray, suggestions: np.ndarray, knowledge: ClueKnowledge, asker: int, refuter: str, sampled: bool
) -> np.ndarray:
    """``(suggestions, outcomes, case files)`` weights of each suggestion's outcome with the deal's case file.

    Outcome 0 is "nobody refutes"; ``1 + 3 * (r - 1) + j`` is the ``r``-th
    player to the asker's left showing the suggestion's ``j``-th card.
    """
    players = knowledge.players
    n, width = deals.shape[0], suggestions.shape[1]
    sizes = [len(c) for c in knowledge.categories]
    # The case file of each deal, as an index in triple order.
    case = np.zeros(n, dtype=np.int64)
    for ids, size in zip(knowledge.categories, sizes, strict=True):
        case = case * size + np.argmax(deals[:, list(ids)] == players, axis=1)
    cases = int(np.prod(sizes))
    # Each suggested card's holder as a turn after the asker (1 = the next player); 0 for the asker and the case file.
    places = deals[:, suggestions]  # (deals, suggestions, cards)
    turn = np.where(places == players, 0, (places - asker) % players)
    turn = np.where(turn == 0, players, turn)  # nobody shows those
    first = turn.min(axis=2)  # the refuter's turn, ``players`` for nobody
    matching = turn == first[:, :, None]
    refuted = first < players
    outcome = np.where(refuted[:, :, None], 1 + width * (first[:, :, None] - 1) + np.arange(width), 0)
    outcomes = 1 + width * (players - 1)
    weight = np.where(refuted[:, :, None], matching / matching.sum(axis=2, keepdims=True), 0.0)
    weight[:, :, 0] += ~refuted  # nobody: the whole deal on outcome 0 (card slot 0)
    rows = np.arange(suggestions.shape[0])[None, :, None]

    def tally(weights: np.ndarray) -> np.ndarray:
        index = (rows * outcomes + outcome) * cases + case[:, None, None]
        flat = np.bincount(index.ravel(), weights.ravel(), minlength=suggestions.shape[0] * outcomes * cases)
        return flat.reshape(suggestions.shape[0], outcomes, cases)

    joint = tally(weight)
    if refuter == "adversarial":
        # Each outcome's entropy under the uniform model; the refuter shows the matching card whose outcome leaves most.
        seen = joint.copy()
        seen[:, :, 0] += seen.sum(axis=2) == 0  # an outcome no deal gives: any entropy will do, none is chosen
        left = np.asarray(conditional_entropy_bits(seen[:, :, None, :], sampled=sampled))  # (suggestions, outcomes)
        value = np.where(matching, left[rows, outcome], -np.inf)
        chosen = np.argmax(value, axis=2)
        weight = np.where(refuted[:, :, None], np.arange(width) == chosen[:, :, None], weight).astype(np.float64)
        joint = tally(weight)
    return joint


def sixths_table(deals: int) -> np.ndarray:
    """``(k / 6) log2(k / 6)`` for every weight of ``k`` sixths of a deal up to ``deals`` deals: the table
    :func:`score_deals` reads."""
    k = np.arange(6 * check_int("deals", deals, low=0) + 1) / 6.0
    return k * np.log2(np.where(k > 0, k, 1.0))


@njit(cache=True)
def score_deals(deals, asker, players, triples, starts, sizes, sampled, expected, xlogx):  # pragma: no cover
    # compiled
    """Compiled, for the batched agents: every suggestion's expected entropy after its answer from ``deals`` (a deal
    a row, each card's place, the case file ``players``), as :func:`score_suggestions` scores them under the
    ``"uniform"`` refuter model (a refuter shows each matching card with equal probability), each outcome's entropy
    the Miller-Madow estimate when ``sampled``. ``triples``: ``(n, 3)`` the suggestions' cards; ``starts`` /
    ``sizes``: each category's first card and size (a deal's case file numbered in triple order). Writes
    ``expected`` (one a suggestion) and returns the case file's entropy over the deals (Miller-Madow when
    ``sampled``), as :class:`SuggestionScores`' ``entropy``.

    A deal weighs 1 on its outcome, or 1/2 or 1/3 on each of a refuter's matching cards, so six times every weight
    is a whole number: the joint weights are counted in sixths, each ``w log w`` read from ``xlogx``
    (:func:`sixths_table` of at least as many deals), the deals taken case file by case file."""
    n, categories, cards = deals.shape[0], starts.size, deals.shape[1]
    cases = 1
    for c in range(categories):
        cases *= sizes[c]
    case = np.zeros(n, dtype=np.int64)
    for d in range(n):
        index = 0
        for c in range(categories):
            for b in range(starts[c], starts[c] + sizes[c]):
                if deals[d, b] == players:
                    index = index * sizes[c] + b - starts[c]
                    break
        case[d] = index
    # The deals grouped by their case file (a counting sort), each card's holder as a turn after the asker
    # (players: nobody shows it, the asker's own and the case file's).
    group_start = np.zeros(cases + 1, dtype=np.int64)
    for d in range(n):
        group_start[case[d] + 1] += 1
    for c in range(cases):
        group_start[c + 1] += group_start[c]
    filled = group_start[:cases].copy()
    turn = np.empty((cards, n), dtype=np.int8)
    for d in range(n):
        at = filled[case[d]]
        filled[case[d]] += 1
        for b in range(cards):
            place = deals[d, b]
            t = players if place == players else (place - asker) % players
            turn[b, at] = players if t == 0 else t
    share = np.array([0, 6, 3, 2], dtype=np.int64)  # sixths of a deal on each of 1, 2 or 3 matching cards
    # Without a branch a deal: slot 3 * (t - 1) + k is the refuter of turn t showing the suggestion's k-th card,
    # t = players nobody (each card "matches", a third of the deal on each slot, summed to one outcome).
    refuters = 3 * (players - 1)
    weights = np.zeros(3 * players, dtype=np.int64)  # one case file's, in sixths
    per_outcome = np.zeros(refuters + 1, dtype=np.int64)
    observed = np.zeros(refuters + 1, dtype=np.int64)
    for s in range(triples.shape[0]):
        first_card, second_card, third_card = triples[s, 0], triples[s, 1], triples[s, 2]
        per_outcome[:] = 0
        observed[:] = 0
        value = 0.0
        for c in range(cases):
            if group_start[c] == group_start[c + 1]:
                continue
            for d in range(group_start[c], group_start[c + 1]):
                x, y, z = turn[first_card, d], turn[second_card, d], turn[third_card, d]
                first = min(x, y, z)
                mx, my, mz = np.int64(x == first), np.int64(y == first), np.int64(z == first)
                weight = share[mx + my + mz]
                base = 3 * (first - 1)
                weights[base] += weight * mx
                weights[base + 1] += weight * my
                weights[base + 2] += weight * mz
            for o in range(refuters):
                w = weights[o]
                value -= xlogx[w]
                per_outcome[o] += w
                observed[o] += w > 0
                weights[o] = 0
            w = weights[refuters] + weights[refuters + 1] + weights[refuters + 2]
            value -= xlogx[w]
            per_outcome[refuters] += w
            observed[refuters] += w > 0
            weights[refuters:] = 0
        for o in range(refuters + 1):  # sum_o W_o H_o = sum_o W_o log2 W_o - sum_(o, c) w log2 w
            if per_outcome[o] > 0:
                value += xlogx[per_outcome[o]]
                if sampled and observed[o] > 1:
                    value += (observed[o] - 1) / (2 * math.log(2))
        expected[s] = max(value / n, 0.0)
    now, observed = xlogx[6 * n], 0  # the case file's entropy: n log2 n - sum_c k_c log2 k_c, over n
    for c in range(cases):
        k = group_start[c + 1] - group_start[c]
        if k:
            now -= xlogx[6 * k]
            observed += 1
    now /= n
    if sampled and observed > 1:
        now += (observed - 1) / (2 * n * math.log(2))
    return max(now, 0.0)


def score_asks(
    knowledge: ClueKnowledge,
    asks: Sequence[tuple[int, Sequence[int]]],
    samples: int = 1000,
    rng: np.random.Generator | int | None = None,
    sheet: np.ndarray | None = None,
    listeners: float = 0.0,
    seed: int | None = None,
) -> np.ndarray:
    """Generalized Clue: each ask's expected uncertainty in bits about the case file after the answer.

    An ask ``(target, cards)`` is answered "no", or with one of the target's
    matching cards, each equally likely. Over ``samples`` uniform deals of
    ``knowledge``: the case file's expected entropy where the deals can
    estimate it (its possible combinations at most a quarter of the deals),
    else the expected sum of each card's entropy of being in the case file,
    an upper bound of it that few deals estimate well. An ask of no cards
    scores the uncertainty now, on the same scale. ``sheet``: the asker's
    deduction sheet if at hand (its certainties decide which cards may still
    be hidden), else what propagation proves. ``listeners`` adds that many
    times the entropy of the public answer (yes or no, by the asker's
    deals): the most the other players learn from the ask, so that an ask
    telling everyone as much as the asker scores worse than one whose answer
    only the asker can read (the report's sure-to-learn list: a certain yes).

    The deals are drawn as :func:`score_suggestions` draws them (never listed): by the compiled sweep from one
    number, ``rng.integers(2**53)``, or ``seed`` given instead (a compiled agent scoring as its Python agent).
    """
    samples = check_int("samples", samples, low=1)
    if isinstance(listeners, bool) or not isinstance(listeners, int | float) or not listeners >= 0:
        raise ValueError(f"listeners must be a weight >= 0, got {listeners!r}")
    deals, _ = _deals(knowledge, samples, 0, _seed(rng, seed))
    hidden = deals == knowledge.players
    if sheet is None:
        sheet = knowledge.deduction_sheet(method="sample")  # the facts alone: no counting
    possible = int((sheet[:, knowledge.players] != 0).sum())  # cards not proved out of the case file
    hidden_count = sum(knowledge.case_file_sizes)
    case = None
    if math.comb(possible, hidden_count) <= samples // 4:
        case = hidden @ (1 << np.arange(deals.shape[1], dtype=np.int64))  # each deal's case file as a key
    weights = hidden.astype(np.float64)
    scores = np.array([_ask_entropy(deals, weights, case, int(q), tuple(cards)) for q, cards in asks])
    if listeners:
        yes = np.array([(deals[:, list(cards)] == q).any(axis=1).mean() if cards else 0.0 for q, cards in asks])
        scores = scores + listeners * binary_entropy_bits(yes)
    return scores


def ask_candidates(
    sheet: np.ndarray, targets: Sequence[int], hand_sizes: Sequence[int], rng: np.random.Generator
) -> list[tuple[int, tuple[int, ...]]]:
    """Asks worth scoring, for each of ``targets``, from a deduction ``sheet`` (1 held, 0 not, -1 unknown).

    The cards the target may hold and the asker does not know: each alone, all
    of them, a random half, and the fewest of them sure to include one of the
    target's unknown cards (the course report's list).
    """
    candidates: list[tuple[int, tuple[int, ...]]] = []
    for q in targets:
        maybe, left = _unknown_and_left(sheet, q, hand_sizes)
        if maybe.size == 0:
            continue
        candidates += [(int(q), (int(c),)) for c in maybe]
        candidates.append((int(q), tuple(int(c) for c in maybe)))
        shuffled = rng.permutation(maybe)
        if maybe.size > 1:
            candidates.append((int(q), tuple(sorted(int(c) for c in shuffled[: maybe.size // 2]))))
        count = max(1, maybe.size - left + 1)
        if count < maybe.size:
            candidates.append((int(q), tuple(sorted(int(c) for c in shuffled[:count]))))
    return list(dict.fromkeys(candidates))


def sure_to_learn(sheet: np.ndarray, target: int, cards: Sequence[int], hand_sizes: Sequence[int]) -> bool:
    """Whether asking ``target`` about ``cards`` is sure to show a card the ``sheet`` does not place: all of
    them unknown for the target, and more of them than the target's unknown cards that are not its own."""
    maybe, left = _unknown_and_left(sheet, target, hand_sizes)
    return left > 0 and bool(np.isin(cards, maybe).all()) and len(cards) > maybe.size - left


def _unknown_and_left(sheet: np.ndarray, target: int, hand_sizes: Sequence[int]) -> tuple[np.ndarray, int]:
    """The cards the target may hold that the sheet does not place, and how many of its cards are not placed."""
    return np.flatnonzero(sheet[:, target] == -1), hand_sizes[target] - int((sheet[:, target] == 1).sum())


def _ask_entropy(deals: np.ndarray, hidden: np.ndarray, case: np.ndarray | None, target: int, cards: tuple) -> float:
    held = deals[:, list(cards)] == target  # (deals, cards)
    matching = held.sum(axis=1)
    if case is not None:
        rows, slots = np.nonzero(held)
        nobody = matching == 0
        outcome = np.concatenate([np.zeros(int(nobody.sum()), dtype=np.int64), 1 + np.asarray(cards)[slots]])
        value = np.concatenate([case[nobody], case[rows]])
        weights = np.concatenate([np.ones(int(nobody.sum())), 1.0 / matching[rows]])
        return grouped_conditional_entropy_bits(outcome, value, weights, sampled=True)
    # Weight of each deal on each outcome: "no", or each card shown.
    weights = np.concatenate([(matching == 0)[:, None], held / np.maximum(matching, 1)[:, None]], axis=1)
    per_outcome = weights.sum(axis=0)
    seen = per_outcome > 0
    p = np.clip((weights.T @ hidden)[seen] / per_outcome[seen, None], 0.0, 1.0)  # P(card hidden | outcome)
    return float(per_outcome[seen] @ np.asarray(binary_entropy_bits(p)).sum(axis=1) / deals.shape[0])
