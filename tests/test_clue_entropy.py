"""The entropy agent's suggestion scores against a brute-force reference, the agent, and SO-ISMCTS for Clue."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest
from test_clue_knowledge import all_deals, apply, holds

from agents import SOISMCTS, ClueDeductionSheet, ClueEntropyAgent, ClueSearchPolicy, RandomSeatAgent, play_game
from deduction_envs.core.entropy import conditional_entropy_bits, entropy_bits
from deduction_envs.games.clue import ClueMove, CluePhase, ClueRules
from deduction_envs.reasoning import ClueKnowledge
from deduction_envs.reasoning.clue_suggestions import score_suggestions

EVENTS = [("hand", 0, [0, 3]), ("one_of", 1, [1, 4, 6]), ("none", 2, [2])]


def small_knowledge() -> tuple[ClueKnowledge, np.ndarray]:
    """Three categories of three cards, two cards to each of three players; player 0's view and its deals."""
    knowledge = ClueKnowledge([3, 3, 3], [2, 2, 2], 1)
    deals = all_deals(knowledge)
    keep = np.ones(len(deals), dtype=bool)
    for happening in EVENTS:
        apply(knowledge, happening)
        keep &= holds(deals, happening)
    return knowledge, deals[keep]


def reference(deals: np.ndarray, asker: int, players: int, adversarial: bool, suggestions=None) -> np.ndarray:
    """Expected case-file entropy after each suggestion (default: every one of the 9-card deck's), deal by deal in
    plain Python."""
    expected = []
    for suggestion in suggestions or itertools.product(range(3), range(3, 6), range(6, 9)):
        joint: dict = defaultdict(float)
        for deal in deals:
            case = tuple(int(c) for c in np.flatnonzero(deal == players))
            for step in range(1, players):
                refuter = (asker + step) % players
                matching = [c for c in suggestion if deal[c] == refuter]
                if matching:
                    for card in matching:
                        joint[(refuter, card), case] += 1 / len(matching)
                    break
            else:
                joint[None, case] += 1
        if adversarial:  # the card whose outcome (under the uniform model) leaves the most entropy
            left = {}
            for outcome in {o for o, _ in joint}:
                left[outcome] = entropy_bits([w for (o, _), w in joint.items() if o == outcome])
            joint = defaultdict(float)
            for deal in deals:
                case = tuple(int(c) for c in np.flatnonzero(deal == players))
                for step in range(1, players):
                    refuter = (asker + step) % players
                    matching = [c for c in suggestion if deal[c] == refuter]
                    if matching:
                        card = max(matching, key=lambda c: (left[refuter, c], -suggestion.index(c)))
                        joint[(refuter, card), case] += 1
                        break
                else:
                    joint[None, case] += 1
        outcomes = sorted({o for o, _ in joint}, key=str)
        cases = sorted({c for _, c in joint})
        table = np.array([[joint.get((o, c), 0.0) for c in cases] for o in outcomes])
        expected.append(conditional_entropy_bits(table))
    return np.array(expected)


@pytest.mark.parametrize("model", ["uniform", "adversarial"])
def test_exact_scores_match_brute_force(model):
    knowledge, deals = small_knowledge()
    scores = score_suggestions(knowledge, 0, model, rng=0, enumerate_limit=10_000)
    assert scores.exact and scores.deals == len(deals)
    np.testing.assert_allclose(scores.expected_entropy, reference(deals, 0, 3, model == "adversarial"), atol=1e-12)
    cases = np.array([tuple(np.flatnonzero(d == 3)) for d in deals])
    assert scores.entropy == pytest.approx(entropy_bits(np.unique(cases, axis=0, return_counts=True)[1]))
    assert np.all(scores.gain >= -1e-12)  # an answer never adds uncertainty on average


def test_sampled_scores_are_close_to_exact():
    knowledge, _ = small_knowledge()
    exact = score_suggestions(knowledge, 0, rng=0, enumerate_limit=10_000)
    sampled = score_suggestions(knowledge, 0, rng=1, samples=20_000, enumerate_limit=0)
    assert not sampled.exact and sampled.deals == 20_000
    assert np.abs(sampled.expected_entropy - exact.expected_entropy).max() < 0.03
    assert sampled.best() in exact.top(3)


@pytest.mark.parametrize("players", [3, 4])
def test_the_compiled_scores_equal_the_python_scores_on_the_same_deals(players):
    """``score_deals`` (the batched agents' scoring) against ``score_suggestions`` on the deals it drew: seat 0's
    states along seeded games of deduction sheets, exact where every deal is listed and Miller-Madow where they
    are drawn."""
    from deduction_envs.reasoning.clue_suggestions import _deals, score_deals, sixths_table, suggestion_table

    rules = ClueRules(players)
    checked = {True: 0, False: 0}
    agents = [ClueDeductionSheet() for _ in range(players)]
    steps = []

    def check(table) -> None:
        steps.append(None)
        if len(steps) % 7:
            return
        knowledge, seed = agents[0].knowledge.engine, len(steps)
        for limit in (0, 500):
            scores = score_suggestions(knowledge, 0, samples=300, enumerate_limit=limit, seed=seed)
            deals, exact = _deals(knowledge, 300, limit, seed)
            expected = np.zeros(rules.num_triples)
            now = score_deals(deals, 0, players, suggestion_table(knowledge), np.array(rules.category_starts),
                              np.array(rules.category_sizes), not exact, expected, sixths_table(deals.shape[0]))
            assert now == pytest.approx(scores.entropy, abs=1e-9)
            assert exact == scores.exact
            np.testing.assert_allclose(expected, scores.expected_entropy, rtol=0, atol=1e-9)
            checked[exact] += 1

    for seed in range(3):
        play_game(rules, agents, seed, watch=check)
    assert checked[True] and checked[False], checked


def test_scores_are_seeded_and_bad_arguments_are_refused():
    knowledge, _ = small_knowledge()
    a = score_suggestions(knowledge, 1, samples=300, rng=5, enumerate_limit=0)
    b = score_suggestions(knowledge, 1, samples=300, rng=5, enumerate_limit=0)
    np.testing.assert_array_equal(a.expected_entropy, b.expected_entropy)
    for kwargs, name in [({"refuter": "kind"}, "refuter"), ({"samples": -1}, "samples"), ({"asker": 3}, "asker")]:
        with pytest.raises(ValueError, match=name):
            score_suggestions(knowledge, **{"asker": 0, **kwargs})
    with pytest.raises(ValueError, match="one of each"):
        score_suggestions(ClueKnowledge([6], [2, 2], 2), 0)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"threshold": 0}, "threshold"),
        ({"threshold": 1.5}, "threshold"),
        ({"threshold": True}, "threshold"),
        ({"entropy_threshold": -1}, "entropy_threshold"),
        ({"entropy_threshold": float("inf")}, "entropy_threshold"),
        ({"samples": -3}, "samples"),
        ({"refuter": "nice"}, "refuter"),
    ],
)
def test_entropy_agent_refuses_bad_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        ClueEntropyAgent(**kwargs)


class Watch:
    """Records every accusation an agent makes, with the case file of the game it is in."""

    def __init__(self, agent):
        self.agent, self.accusations = agent, []

    def __getattr__(self, name):
        return getattr(self.agent, name)

    def act(self, mask):
        action = self.agent.act(mask)
        move = self.agent.rules.decode(action)
        if move.kind == "accuse":
            self.accusations.append(move.cards)
        return action


def case_file(rules: ClueRules, seed) -> tuple[int, ...]:
    """The case file ``play_game`` deals for ``seed``."""
    stream = np.random.SeedSequence(seed).spawn(rules.players + 1)[0]
    places = rules.new_game(np.random.default_rng(stream)).places
    return tuple(c for c in range(rules.cards) if places[c] == rules.players)


@pytest.mark.parametrize("players", [3, 6])
def test_certain_entropy_agent_never_accuses_wrongly_and_beats_sheets_sometimes(players):
    rules = ClueRules(players)
    wins = 0
    for game in range(4):
        watched = Watch(ClueEntropyAgent(samples=500))
        agents = [watched, *(ClueDeductionSheet() for _ in range(players - 1))]
        record = play_game(rules, agents, seed=game)
        wins += record.winner == 0
        assert all(cards == case_file(rules, game) for cards in watched.accusations)
        if record.winner == 0:
            assert watched.accusations
    assert wins >= 1


def test_probability_threshold_accuses_the_likeliest_case_file_early():
    rules = ClueRules(3)
    agent = ClueEntropyAgent(threshold=0.005)  # under 1 in 200, below any first case file: it accuses at once
    agent.reset(rules, 0, seed=0)
    for event in _events(rules, seed=3):
        agent.observe(event)
    mask = rules.legal_mask(_state(rules, seed=3))
    move = rules.decode(agent.act(mask))
    solution = agent.knowledge.solution()
    assert move.kind == "accuse"
    assert move.cards == tuple(solution.case_files[np.argmax(solution.case_file_probabilities)])


def _state(rules, seed):
    return rules.new_game(np.random.default_rng(seed))


def _events(rules, seed):
    state = _state(rules, seed)
    return [rules.observe_event(rules.deal_event(state), 0)]


def test_refuter_reuses_a_card_shown_to_the_asker_else_the_one_expected():
    rules = ClueRules(3)
    agent = ClueEntropyAgent()
    agent.reset(rules, 1, seed=0)
    state = _state(rules, 0)
    agent.observe(rules.observe_event(rules.deal_event(state), 1))
    hand = state.hands[1]
    suspects = [c for c in hand if c < 6]
    weapons = [c for c in hand if 6 <= c < 12]
    assert suspects and weapons, "the test's deal gives player 1 a suspect and a weapon"
    cards = (suspects[0], weapons[0], 12 if 12 not in hand else 13)
    suggestion = rules.decode(rules.action_index(ClueMove("suggest", cards)))
    state.phase = CluePhase.START
    event = rules.apply(state, rules.action_index(suggestion))
    agent.observe(rules.observe_event(event, 1))
    mask = rules.legal_mask(state)
    first = rules.decode(agent.act(mask)).card
    assert first in cards[:2]
    shown = rules.apply(state, rules.action_index(ClueMove("show", card=first)))
    agent.observe(rules.observe_event(shown, 1))
    end = rules.apply(state, rules.end_action)
    agent.observe(rules.observe_event(end, 1))
    # Player 1 must answer player 0's same suggestion again later: it shows the same card.
    while state.mover != 0:
        agent.observe(rules.observe_event(rules.apply(state, rules.end_action if state.phase == CluePhase.AFTER
                                                      else rules.action_index(ClueMove("suggest", (0, 6, 20)))),
                                          1))  # fmt: skip
        if state.phase == CluePhase.SHOW:
            agent.observe(rules.observe_event(rules.apply(state, int(np.flatnonzero(rules.legal_mask(state))[0])), 1))
    event = rules.apply(state, rules.action_index(suggestion))
    agent.observe(rules.observe_event(event, 1))
    assert rules.decode(agent.act(rules.legal_mask(state))).card == first


def test_clue_ismcts_plays_whole_games_seeded():
    rules = ClueRules(3)

    def game():
        agents = [SOISMCTS(iterations=20, policy=ClueSearchPolicy(suggestions=3)), RandomSeatAgent(),
                  ClueDeductionSheet()]  # fmt: skip
        return play_game(rules, agents, seed=4)

    first = game()
    assert first.winner is not None or all(r < 0 for r in first.rewards)
    assert game() == first


def test_clue_ismcts_accuses_when_it_knows_and_refuses_bad_parameters():
    rules = ClueRules(3)
    agent = SOISMCTS(iterations=30, policy=ClueSearchPolicy())
    agent.reset(rules, 0, seed=0)
    state = _state(rules, 1)
    agent.observe(rules.observe_event(rules.deal_event(state), 0))
    case = tuple(c for c in range(rules.cards) if state.places[c] == 3)
    agent.observe(rules.observe_event(rules.apply(state, rules.action_index(ClueMove("suggest", case))), 0))
    move = rules.decode(agent.act(rules.legal_mask(state)))  # nobody could refute the case file: it knows
    assert move == ClueMove("accuse", case)
    for kwargs, name in [({"suggestions": 0}, "suggestions"), ({"accusations": -1}, "accusations")]:
        with pytest.raises(ValueError, match=name):
            ClueSearchPolicy(**kwargs)
    with pytest.raises(ValueError, match="exactly one"):
        SOISMCTS(iterations=None)


def test_clue_experiments_quick_run_writes_its_report(tmp_path):
    from train.experiments import clue_experiments

    argv = ["--games", "3", "--ismcts-games", "1", "--ismcts-seconds", "0.02", "--players", "3"]
    finished = clue_experiments.main([*argv, "--workers", "1", "--output", str(tmp_path)])
    assert {tally.games for tally in finished.results.values()} == {1, 3}
    report = (tmp_path / "clue.md").read_text()
    assert "| entropy | deduction-sheet | 3 |" in report and "| SO-ISMCTS | random | 1 |" in report
    assert "python -m train.experiments.clue_experiments --games 3" in report
    assert (tmp_path / "clue.png").stat().st_size > 10_000
    with pytest.raises(SystemExit):
        clue_experiments.main(["--quick", "--output", "results"])  # quick runs never overwrite results/
    with pytest.raises(SystemExit):
        clue_experiments.main(["--games", "0"])


def test_ask_scores_and_their_listener_term_match_brute_force():
    """Generalized Clue's ask scores over every deal of a small game, and the public answer's entropy."""
    from deduction_envs.core.entropy import binary_entropy_bits
    from deduction_envs.reasoning.clue_suggestions import score_asks

    knowledge = ClueKnowledge.generalized(7, 2, 2)  # 7 cards, 2 hidden; player 0 holds 3, player 1 holds 2
    knowledge.add_hand(0, [0, 1, 2])
    deals = all_deals(knowledge)
    deals = deals[(deals[:, [0, 1, 2]] == 0).all(axis=1)]
    asks = [(1, (3,)), (1, (3, 4)), (1, (3, 4, 5, 6)), (1, (3, 4, 5))]
    expected, yes = [], []
    for q, cards in asks:
        joint: dict = defaultdict(float)
        for deal in deals:
            case = tuple(int(c) for c in np.flatnonzero(deal == 2))
            matching = [c for c in cards if deal[c] == q]
            for card in matching or [None]:
                joint[card, case] += 1 / max(len(matching), 1)
        outcomes = defaultdict(list)
        for (card, _), weight in joint.items():
            outcomes[card].append(weight)
        expected.append(sum(sum(w) / len(deals) * entropy_bits(w) for w in outcomes.values()))
        yes.append(np.mean([any(deal[c] == q for c in cards) for deal in deals]))
    plain = score_asks(knowledge, asks, samples=20000, rng=1)
    told = score_asks(knowledge, asks, samples=20000, rng=1, listeners=2.0)
    np.testing.assert_allclose(plain, expected, atol=0.03)
    np.testing.assert_allclose(told - plain, 2 * binary_entropy_bits(np.array(yes)), atol=0.03)
    assert yes[2] == 1 and told[2] == plain[2]  # a list the target surely answers "yes" tells the listeners nothing
    with pytest.raises(ValueError, match="listeners must be a weight >= 0"):
        score_asks(knowledge, asks, listeners=-1)
