"""The Clue knowledge engine against brute-force enumeration of every deal of small decks."""

from __future__ import annotations

import doctest
import itertools
import math
from dataclasses import replace
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from scipy import stats

from deduction_envs.games import clue
from deduction_envs.games.clue import deal_sizes
from deduction_envs.reasoning import (
    ClueKnowledge,
    ContradictionError,
    clue_counting,
    clue_facts,
    clue_knowledge,
    clue_sampling,
    clue_types,
)

# -- a slow, obviously correct reference -----------------------------------------------------------------------


def all_deals(knowledge: ClueKnowledge) -> np.ndarray:
    """Every deal of the deck, as each card's place: ``(deals, cards)``."""
    cards = len(knowledge.card_names)
    case = knowledge.case_file
    per_category = [
        itertools.combinations(ids, count)
        for ids, count in zip(knowledge.categories, knowledge.case_file_sizes, strict=True)
    ]
    labels = [p for p, size in enumerate(knowledge.hand_sizes) for _ in range(size)]
    hands = sorted(set(itertools.permutations(labels)))
    deals = []
    for parts in itertools.product(*per_category):
        hidden = set(sum(parts, ()))
        rest = [c for c in range(cards) if c not in hidden]
        for hand in hands:
            deal = np.full(cards, case)
            deal[rest] = hand
            deals.append(deal)
    return np.array(deals)


def holds(deals, event) -> np.ndarray:
    """Which deals satisfy one event ``(kind, place, cards)``."""
    kind, place, cards = event
    at = deals[:, cards] == place
    return {
        "hand": at.all(axis=1),
        "holds": at.all(axis=1),
        "none": ~at.any(axis=1),
        "one_of": at.any(axis=1),
        "right": at.all(axis=1),
        "wrong": ~at.all(axis=1),
    }[kind]


def apply(knowledge: ClueKnowledge, event) -> None:
    kind, place, cards = event
    if kind == "hand":
        knowledge.add_hand(place, cards)
    elif kind == "holds":
        knowledge.add_holds(place, cards)
    elif kind == "none":
        knowledge.add_holds_none(place, cards)
    elif kind == "one_of":
        knowledge.add_holds_one_of(place, cards)
    else:
        knowledge.add_accusation(cards, correct=kind == "right")


def reference_answers(deals: np.ndarray, query: list[int], asked: list[int]) -> dict:
    """Who refutes first and which card they show (each matching card equally likely), by enumeration."""
    outcomes: dict = {}
    for deal in deals:
        for player in asked:
            matching = [c for c in query if deal[c] == player]
            if matching:
                for card in matching:
                    key = (player, card)
                    outcomes[key] = outcomes.get(key, 0.0) + 1 / len(matching) / len(deals)
                break
        else:
            outcomes[(None, None)] = outcomes.get((None, None), 0.0) + 1 / len(deals)
    return outcomes


def assert_matches_reference(knowledge: ClueKnowledge, deals: np.ndarray, rng: np.random.Generator) -> None:
    places = knowledge.case_file + 1
    solution = knowledge.solve("exact")
    assert solution.count == len(deals)
    expected = np.stack([(deals == p).mean(axis=0) for p in range(places)], axis=1)
    np.testing.assert_allclose(solution.probabilities, expected, atol=1e-12)
    sheet = knowledge.deduction_sheet("exact")
    np.testing.assert_array_equal(sheet == 1, expected == 1)
    np.testing.assert_array_equal(sheet == 0, expected == 0)
    combos, probabilities = knowledge.case_file_distribution("exact")
    for combo, p in zip(combos, probabilities, strict=True):
        assert p == pytest.approx(np.mean(np.all(deals[:, combo] == knowledge.case_file, axis=1)), abs=1e-12)
    assert probabilities.sum() == pytest.approx(1.0)
    # A hypothetical suggestion: up to three cards, the other players asked in turn from a random asker.
    query = sorted(rng.choice(len(knowledge.card_names), size=min(3, len(knowledge.card_names)), replace=False))
    asker = int(rng.integers(knowledge.players))
    asked = [(asker + k) % knowledge.players for k in range(1, knowledge.players)]
    got = knowledge.answer_distribution(query, asked, method="exact")
    want = reference_answers(deals, [int(c) for c in query], asked)
    assert set(got) == {k for k, v in want.items() if v > 1e-15}
    for key, p in want.items():
        assert got.get(key, 0.0) == pytest.approx(p, abs=1e-12)
    unseen = knowledge.answer_distribution(query, asked, see_card=False, method="exact")
    assert sum(unseen.values()) == pytest.approx(1.0)
    for player in [*asked, None]:
        assert unseen.get((player, None), 0.0) == pytest.approx(
            sum(v for (q, _), v in want.items() if q == player), abs=1e-12
        )
    # Every sampled deal is one of the consistent deals.
    sampled = knowledge.sample(20, rng)
    consistent = {tuple(d) for d in deals}
    assert all(tuple(d) in consistent for d in sampled)


# -- random small games and event sequences ----------------------------------------------------------------------

DECKS = [
    # (category sizes, case-file count per category, players)
    ((2, 2, 3), 1, 2),
    ((2, 3, 3), 1, 2),
    ((3, 3, 3), 1, 3),
    ((2, 2, 2), 1, 3),
    ((2, 2, 3), 1, 4),
    ((7,), 2, 2),
    ((8,), 2, 3),
]


@st.composite
def games(draw):
    sizes, hidden, players = draw(st.sampled_from(DECKS))
    cards = sum(sizes)
    knowledge = ClueKnowledge(list(sizes), deal_sizes(cards - hidden * len(sizes), players), hidden)
    deals = all_deals(knowledge)
    truth = deals[draw(st.integers(0, len(deals) - 1))]
    events = []
    for _ in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["hand", "holds", "none", "one_of", "one_of", "accusation"]))
        honest = draw(st.booleans())  # true of the hidden deal, or anything (perhaps a contradiction)
        player = draw(st.integers(0, players - 1))
        if kind == "hand":
            hand = [c for c in range(cards) if truth[c] == player]
            if not honest and hand:
                hand = sorted(draw(st.permutations(range(cards)))[: len(hand)])
            if hand:
                events.append(("hand", player, hand))
        elif kind == "accusation":
            if draw(st.booleans()):
                cards_named = [int(c) for c in np.flatnonzero(truth == knowledge.case_file)]
            else:
                picks = [sorted(draw(st.permutations(ids))[:hidden]) for ids in knowledge.categories]
                cards_named = list(itertools.chain.from_iterable(picks))
            right = bool(np.all(truth[cards_named] == knowledge.case_file))
            verdict = right if honest else draw(st.booleans())
            events.append(("right" if verdict else "wrong", knowledge.case_file, cards_named))
        else:
            subset = sorted(draw(st.permutations(range(cards)))[: draw(st.integers(1, 3))])
            if honest:
                at = truth[subset] == player
                kind = "holds" if at.all() else "one_of" if at.any() else "none"
            events.append((kind, player, subset))
    return knowledge, deals, events


COUNTERS = {"types": clue_types.count_by_types, "bitmasks": clue_counting.count_exactly}


@pytest.mark.parametrize("counter", sorted(COUNTERS))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games(), seed=st.integers(0, 2**32 - 1))
def test_every_answer_equals_brute_force_enumeration(counter, game, seed):
    """Both exact counters, each alone: by types of interchangeable cards, and by bitmasks of free cards."""
    with mock.patch.object(clue_knowledge, "_count", COUNTERS[counter]):
        check_against_brute_force(game, seed)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games(), seed=st.integers(0, 2**32 - 1))
def test_counting_by_types_with_tables_of_choices_enlarged_is_still_exact(game, seed):
    """A place's table of choices starts with one row here, so every place with two or more choices fills
    it and enumerates again into a larger one."""
    with (
        mock.patch.object(clue_knowledge, "_count", clue_types.count_by_types),
        mock.patch.object(clue_types, "FIRST_CHOICE_ROWS", 1),
    ):
        check_against_brute_force(game, seed)


def check_against_brute_force(game, seed):
    knowledge, deals, events = game
    rng = np.random.default_rng(seed)
    alive = np.ones(len(deals), dtype=bool)
    for happening in events:
        after = alive & holds(deals, happening)
        before = (knowledge.events, knowledge.probabilities("exact").copy())
        event(f"{happening[0]} {'contradicts' if not after.any() else 'agrees'}")
        if not after.any():
            with pytest.raises(ContradictionError, match="contradicts"):
                apply(knowledge, happening)
            assert knowledge.events == before[0]  # unchanged
            np.testing.assert_array_equal(knowledge.probabilities("exact"), before[1])
            continue
        apply(knowledge, happening)
        alive = after
        assert_matches_reference(knowledge, deals[alive], rng)


def hand_worked() -> ClueKnowledge:
    """Deck A1 A2 | B1 B2 | C1 C2 C3, one of each hidden, two players of two cards; I am player 0."""
    knowledge = ClueKnowledge([["A1", "A2"], ["B1", "B2"], ["C1", "C2", "C3"]], [2, 2], 1)
    knowledge.add_hand(0, ["A1", "C1"])
    return knowledge


def test_hand_worked_example():
    knowledge = hand_worked()
    # A2 / one of B1, B2 / one of C2, C3 in the case file; player 1 gets the other B and the other C: 2 * 2 deals.
    assert knowledge.count() == (4, 0.0)
    p = knowledge.probabilities()
    assert p[knowledge.card("A2"), knowledge.case_file] == 1.0
    assert p[knowledge.card("B1"), 1] == 0.5
    # Player 1 shows me B1: B2 is in the case file; the room is still a coin toss.
    knowledge.add_holds(1, "B1")
    assert knowledge.count() == (2, 0.0)
    assert knowledge.entropy() == pytest.approx(1.0)
    sheet = knowledge.deduction_sheet()
    assert sheet[knowledge.card("B2"), knowledge.case_file] == 1
    assert sheet[knowledge.card("C2"), knowledge.case_file] == -1
    # An accusation of A2 B2 C2 was wrong: C3 is in the case file.
    knowledge.add_accusation(["A2", "B2", "C2"], correct=False)
    assert knowledge.count() == (1, 0.0)
    assert knowledge.entropy() == 0.0
    sampled = knowledge.solve("sample", samples=10)  # nothing left to sample
    assert sampled.count == 1
    np.testing.assert_array_equal(sampled.probabilities, knowledge.probabilities("exact"))
    combos, probabilities = knowledge.case_file_distribution()
    assert len(combos) == 12
    assert [knowledge.card_names[c] for c in combos[np.argmax(probabilities)]] == ["A2", "B2", "C3"]


def test_contradictions_name_the_event_and_change_nothing():
    knowledge = hand_worked()
    with pytest.raises(ContradictionError, match=r"player 1 holds A1: .*A1 would be in two places"):
        knowledge.add_holds(1, "A1")
    with pytest.raises(ContradictionError, match=r"none of A2, B1, B2: .*case file would hold 2 cards of category 1"):
        knowledge.add_holds_none(1, ["B1", "B2", "A2"])  # A2 must be hidden, so player 1 needs a B
    knowledge.add_holds_one_of(1, ["B1", "C2"])
    knowledge.add_holds_none(1, ["B1"])
    # Only backtracking over both clauses finds this one: player 1 would need C2 and C3 and a B.
    with pytest.raises(ContradictionError):
        knowledge.add_holds_one_of(1, ["C3"])
    assert knowledge.events == (
        "player 0's hand is A1, C1",
        "player 1 holds at least one of B1, C2",
        "player 1 holds none of B1",
    )
    assert knowledge.count() == (1, 0.0)


def test_bad_input_is_named():
    knowledge = hand_worked()
    with pytest.raises(ValueError, match="unknown card 'D1'"):
        knowledge.add_holds(1, "D1")
    with pytest.raises(ValueError, match="player must be an integer in"):
        knowledge.add_holds(2, "A2")
    with pytest.raises(ValueError, match="player 1 holds 2 cards, got 1"):
        knowledge.add_hand(1, ["A2"])
    with pytest.raises(ValueError, match=r"cards names A2 twice \(A2, A2\)"):
        knowledge.add_holds_none(1, ["A2", "A2"])
    with pytest.raises(ValueError, match="1 card"):
        knowledge.add_accusation(["A2", "B1"], correct=False)
    with pytest.raises(ValueError, match="method must be one of"):
        knowledge.probabilities("magic")
    with pytest.raises(ValueError, match="must hold the 7 cards"):
        ClueKnowledge([2, 2, 3], [2, 1], 1)
    with pytest.raises(ValueError, match=r"cards must be a card \(a name or an id\) or a list of cards, got 2.0"):
        knowledge.add_holds(1, 2.0)
    with pytest.raises(ValueError, match="correct must be True or False, got 'yes'"):
        knowledge.add_accusation(["A1", "B1", "C2"], correct="yes")
    # Sizes are checked before anything is allocated.
    with pytest.raises(ValueError, match=r"cards must be an integer in \[1, 62\], got 1000000000"):
        ClueKnowledge.generalized(10**9, 3, 4)
    with pytest.raises(ValueError, match=r"categories\[0\] must be an integer in \[1, 62\]"):
        ClueKnowledge([10**9], [3], 1)
    with pytest.raises(ValueError, match="a deck has at most 62 cards"):
        ClueKnowledge([40, 40], [39, 39], 1)
    with pytest.raises(ValueError, match=r"players must be an integer in \[2, 6\], got 1"):
        ClueKnowledge.classic(players=1)
    with pytest.raises(ValueError, match="work_limit must be a positive finite number, got '1e6'"):
        ClueKnowledge.classic(players=3, work_limit="1e6")
    with pytest.raises(ValueError, match="seconds must be a positive finite number, got inf"):
        ClueKnowledge.classic(players=3, seconds=float("inf"))
    with pytest.raises(ValueError, match=r"check_limit must be an integer >= 1, got 0"):
        ClueKnowledge.classic(players=3, check_limit=0)
    assert knowledge.sample(0).shape == (0, 7) and knowledge.sample(0, method="sample").shape == (0, 7)
    assert knowledge.events == ("player 0's hand is A1, C1",)


def test_classic_deck_and_copy_independence():
    knowledge = ClueKnowledge.classic(players=4)
    assert knowledge.hand_sizes == (5, 5, 4, 4)
    knowledge.add_hand(0, ["Miss Scarlet", "Knife", "Rope", "Kitchen", "Hall"])
    combos, probabilities = knowledge.case_file_distribution()
    assert combos.shape == (324, 3)
    mine = np.isin(combos, [knowledge.card(c) for c in ["Miss Scarlet", "Knife", "Rope", "Kitchen", "Hall"]])
    np.testing.assert_allclose(probabilities[~mine.any(axis=1)], 1 / (5 * 4 * 7))
    assert np.all(probabilities[mine.any(axis=1)] == 0)
    assert knowledge.entropy() == pytest.approx(math.log2(5 * 4 * 7))
    other = knowledge.copy()
    other.add_holds(1, "Mr. Green")
    assert other.probabilities()[knowledge.card("Mr. Green"), 1] == 1.0
    assert knowledge.probabilities()[knowledge.card("Mr. Green"), 1] < 1.0
    assert len(knowledge.events) == 1 and len(other.events) == 2


def test_auto_samples_beyond_the_budget_and_agrees_with_exact():
    exact, sampled = ClueKnowledge.classic(players=3), ClueKnowledge.classic(players=3, work_limit=10)
    for knowledge in (exact, sampled):
        knowledge.add_hand(0, ["Miss Scarlet", "Knife", "Rope", "Kitchen", "Hall", "Study"])
        knowledge.add_holds_one_of(1, ["Mr. Green", "Candlestick", "Library"])
        knowledge.add_holds_none(2, ["Mrs. White", "Candlestick", "Lounge"])
    truth = exact.solve()
    assert truth.method == "exact"
    solution = sampled.solve(samples=20_000, rng=1)
    assert solution.method == "sample"
    assert 1000 < solution.samples <= truth.count  # distinct deals
    z = np.abs(solution.probabilities - truth.probabilities) / np.maximum(solution.errors, 1e-12)
    assert np.all(z[solution.errors > 0] < 5)
    assert np.all(solution.probabilities[solution.errors == 0] == truth.probabilities[solution.errors == 0])
    assert abs(solution.count - truth.count) <= 5 * solution.count_error  # exact when every clause is tracked
    with pytest.raises(ValueError, match="over budget"):
        sampled.solve("exact")


def test_the_samplers_table_is_kept_for_the_same_facts_and_dropped_when_they_change():
    """Draws from a kept table equal draws from a new one; an event makes a new one, for a copy too."""
    knowledge = ClueKnowledge.classic(players=3, work_limit=10)
    knowledge.add_hand(0, ["Miss Scarlet", "Knife", "Rope", "Kitchen", "Hall", "Study"])
    first = knowledge.sample(200, rng=7, method="sample")
    assert len(knowledge._relaxed) == 1
    np.testing.assert_array_equal(knowledge.sample(200, rng=7, method="sample"), first)
    fresh = ClueKnowledge.classic(players=3, work_limit=10)
    fresh.add_hand(0, ["Miss Scarlet", "Knife", "Rope", "Kitchen", "Hall", "Study"])
    np.testing.assert_array_equal(fresh.sample(200, rng=7, method="sample"), first)
    other = knowledge.copy()
    other.add_holds(1, "Mr. Green")
    assert (other.sample(200, rng=7, method="sample")[:, other.card("Mr. Green")] == 1).all()
    assert (knowledge.sample(200, rng=7, method="sample")[:, knowledge.card("Mr. Green")] != 1).any()


@pytest.mark.parametrize(
    ("method", "tracked", "counter"),
    [("exact", None, "types"), ("exact", None, "bitmasks"), ("sample", None, None), ("sample", 0, None)],
)
def test_samples_are_uniform(method, tracked, counter, monkeypatch):
    """Exact sampling by either counter, and the sampler with its clauses tracked in the state or all rejected."""
    if tracked is not None:
        monkeypatch.setattr(clue_sampling, "TRACKED_ENTRIES", tracked)
    if counter is not None:
        monkeypatch.setattr(clue_knowledge, "_count", COUNTERS[counter])
    knowledge = ClueKnowledge([3, 3, 3], [2, 2, 2], 1)
    events = [("hand", 0, [0, 3]), ("one_of", 1, [1, 4, 6]), ("wrong", 3, [1, 4, 7])]
    deals = all_deals(knowledge)
    keep = np.ones(len(deals), dtype=bool)
    for happening in events:
        apply(knowledge, happening)
        keep &= holds(deals, happening)
    consistent = {tuple(d): i for i, d in enumerate(deals[keep])}
    samples = knowledge.sample(20 * len(consistent), np.random.default_rng(3), method=method)
    observed = np.bincount([consistent[tuple(d)] for d in samples], minlength=len(consistent))
    assert stats.chisquare(observed).pvalue > 1e-3


@pytest.mark.parametrize("module", [clue_knowledge, clue])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


@settings(max_examples=15, deadline=None)
@given(st.integers(3, 4), st.integers(0, 2**32 - 1))
def test_classic_games_stay_sound(players, seed):
    """Random suggestions in a real deal, seen by player 0: the truth stays possible, every certainty is true."""
    rng = np.random.default_rng(seed)
    knowledge = ClueKnowledge.classic(players)
    places = clue.deal([6, 6, 9], [1, 1, 1], players, rng)
    knowledge.add_hand(0, np.flatnonzero(places == 0))
    for turn in range(12):
        asker = turn % players
        cards = [int(rng.integers(a, b)) for a, b in ((0, 6), (6, 12), (12, 21))]
        refuter, matching = clue.refutation(places, asker, cards, players)
        for step in range(1, players):
            player = (asker + step) % players
            if player == refuter:
                break
            if player != 0:
                knowledge.add_holds_none(player, cards)
        if refuter is not None and refuter != 0:
            if asker == 0:
                knowledge.add_holds(refuter, int(rng.choice(matching)))
            else:
                knowledge.add_holds_one_of(refuter, cards)
        p = knowledge.probabilities()
        assert np.all(p[np.arange(21), places] > 0)
        sheet = knowledge.deduction_sheet()
        assert np.all(sheet[np.arange(21), places] != 0)
        assert np.all((sheet == 1).sum(axis=1) <= 1)
        assert np.all(places[np.flatnonzero(sheet.max(axis=1) == 1)] == sheet.argmax(axis=1)[sheet.max(axis=1) == 1])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games(), reads=st.lists(st.booleans(), min_size=7, max_size=7), small=st.booleans())
def test_a_trusted_store_read_at_any_time_reaches_the_python_rules_facts(game, reads, small):
    """A seat's store (events one by one, propagated whenever it is read, its clause table made room in) ends
    with the facts the Python rules give for every true event at once; so does add_trusted."""
    knowledge, deals, events = game
    alive, true = np.ones(len(deals), dtype=bool), []
    for happening in events:  # those some deal agrees with, with all the others kept
        if (alive & holds(deals, happening)).any():
            alive &= holds(deals, happening)
            true.append(happening)
    store = knowledge.trusted_facts()
    if small:
        store._clauses = store._clauses[:1]  # every second clause makes room
    model = knowledge._model
    batch = knowledge.copy()
    trusted = [(kind, place, clue_facts.card_mask(tuple(cards))) for kind, place, cards in true]
    for (kind, place, mask), read in zip(trusted, reads, strict=False):
        store.add(kind, place, mask)
        if read:
            store.masks()
    everything = clue_facts.Facts((0,) * model.places, (0,) * model.places)
    for kind, place, mask in trusted:
        everything = _with_event(everything, model, kind, place, mask)
    expected = clue_knowledge.propagate_python(model, everything)
    store.masks()
    assert store.facts() == expected
    batch.add_trusted(trusted)
    assert batch._facts == expected


def _with_event(facts, model, kind, place, mask):
    """The facts and one trusted event, unpropagated (as add_trusted documents the kinds)."""
    if kind == "hand":
        return facts.holding(place, mask).lacking(place, model.full & ~mask)
    if kind in ("holds", "right"):
        return facts.holding(place, mask)
    if kind == "none":
        return facts.lacking(place, mask)
    if kind == "one_of":
        return replace(facts, at_least=facts.at_least | {(place, mask)})
    return replace(facts, not_all=facts.not_all | {(place, mask)})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games())
def test_compiled_propagation_equals_the_python_rules(game):
    """The numba propagation on int64 masks reaches the same facts, or the same contradiction, as the Python rules."""
    knowledge, _, events = game
    model = knowledge._model
    for happening in events:
        kind, place, cards = happening
        facts = knowledge._facts
        if kind in ("right", "wrong"):
            describe_change = knowledge._accusation(cards, kind == "right")
        else:
            maker = {"hand": knowledge._hand, "holds": knowledge._holds, "none": knowledge._holds_none}
            describe_change = maker.get(kind, knowledge._holds_one_of)(place, cards)
        changed = describe_change[1](facts)
        outcomes = []
        for propagate in (clue_knowledge.propagate, clue_knowledge.propagate_python):
            try:
                outcomes.append(propagate(model, changed))
            except clue_knowledge.Contradiction:
                outcomes.append("contradiction")
        assert outcomes[0] == outcomes[1]
        if outcomes[0] != "contradiction":
            knowledge._facts = outcomes[0]
