"""Reference agents and the evaluation harness."""

from __future__ import annotations

import copy
import gc
import itertools
import math

import gymnasium as gym
import numpy as np
import pytest

from agents import ISES, ISMCTS, Agent, Knuth, RandomAgent, evaluate
from agents import ises as ises_module
from agents import ismcts as ismcts_module
from deduction_envs.core import EnumeratedInformationSet, TabularInformationSet
from deduction_envs.games import BullsAndCows, Mastermind, SimpleMastermind

AGENTS = [
    RandomAgent(),
    RandomAgent(consistent=True),
    ISES(),
    ISES("sampled", state_samples=20, action_samples=20),
    ISMCTS(time_limit=None, iterations=30),
]


def reachable(root, limit=200_000):
    """Every object reachable from ``root`` through references (breadth first)."""
    seen, queue = {id(root)}, [root]
    for obj in queue:
        for child in gc.get_referents(obj):
            if id(child) not in seen and not isinstance(child, type):
                seen.add(id(child))
                queue.append(child)
                if len(queue) > limit:
                    raise AssertionError("object graph too large to check")
    return queue


GAMES = [
    ("Mastermind-v0", {"pegs": 3, "colors": 4}),
    ("FakeCoin-v0", {}),
    ("TreasureHunt-v0", {"width": 5, "height": 3}),
    ("LowMiddleHigh-v0", {"n": 30}),
]


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game[0])
@pytest.mark.parametrize("agent", AGENTS, ids=repr)
def test_agents_play_an_env_they_hold_no_reference_to(agent, game):
    env_id, sizes = game
    env = gym.make(env_id, **sizes)  # masked actions raise: the agents must respect the masks
    _, _ = env.reset(seed=11)
    agent.reset(copy.deepcopy(env.unwrapped.rules), seed=0)  # rules are public; the env is not given
    for _ in range(env.unwrapped.max_steps):
        action = agent.act()
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
        agent.observe(action, info["feedback"])
    assert not any(isinstance(obj, gym.Env) for obj in reachable(agent))
    assert env.unwrapped._secret in agent.information_set


def brute_force_expected_entropy(rules, candidates, weights):
    """sum over feedback f of P(f) * H(secret | f), one secret at a time."""
    expected = []
    for action in range(rules.num_actions):
        cells: dict[int, list[float]] = {}
        for secret, weight in zip(candidates, weights, strict=True):
            cells.setdefault(int(rules.feedback(action, secret)), []).append(weight)
        total = sum(weights)
        value = 0.0
        for cell in cells.values():
            mass = sum(cell)
            value += mass / total * -sum(w / mass * math.log2(w / mass) for w in cell if w > 0)
        expected.append(value)
    return np.array(expected)


@pytest.mark.parametrize("rules", [Mastermind(pegs=2, colors=3), BullsAndCows(digits=2, symbols=4)], ids=repr)
def test_expected_entropy_matches_brute_force_for_both_representations(rules):
    rng = np.random.default_rng(0)
    enumerated = EnumeratedInformationSet(rules).update(0, int(rules.feedback(0, rules.num_secrets - 1)))
    np.testing.assert_allclose(
        enumerated.expected_entropy(np.arange(rules.num_actions)),
        brute_force_expected_entropy(rules, enumerated.candidates, [1.0] * enumerated.size),
    )
    prior = rng.random(rules.num_secrets)
    tabular = TabularInformationSet(rules, prior)
    np.testing.assert_allclose(
        tabular.expected_entropy(np.arange(rules.num_actions)),
        brute_force_expected_entropy(rules, np.arange(rules.num_secrets), list(prior)),
    )


def test_exhaustive_ises_on_mastermind_matches_the_published_entropy_strategy():
    """Neuwirth (1982): 5722 guesses over all 1296 secrets, 4.415 on average, never more than 6."""
    result = evaluate(ISES(), "Mastermind-v0", progress=False)
    assert result.exact and result.episodes == 1296
    assert result.total_steps == 5722
    assert result.worst == 6 and result.solve_rate == 1.0
    assert round(result.mean_steps, 3) == 4.415


def test_every_secret_once_is_exact_only_for_an_agent_that_plays_each_the_same_way_every_time():
    """Over the 9 secrets of 2x3 Mastermind no deterministic strategy averages under 21/9 queries (one secret
    at the first query, at most one per answer of the four that do not win at the second), but random consistent
    play with seed 0 averages 17/9, as its first query hits the secret in three games: the mean of an agent that
    draws at random varies from play to play, so it is not exact and carries an interval."""
    ises = evaluate(ISES(), "Mastermind-v0", {"pegs": 2, "colors": 3}, progress=False)
    lucky = evaluate(RandomAgent(consistent=True), "Mastermind-v0", {"pegs": 2, "colors": 3}, seed=0, progress=False)
    assert ises.exact and ises.total_steps == 21 and ises.ci95 == 0
    assert lucky.total_steps == 17 and not lucky.exact and lucky.ci95 > 0

    class Unsaid(Agent):  # an agent that does not say whether it is deterministic is taken not to be
        def act(self) -> int:
            return int(self.legal_actions()[0])

    assert Unsaid.deterministic is False and not evaluate(Unsaid(), "FakeCoin-v0", progress=False).exact
    assert Knuth.deterministic and ISES(lookahead=2).deterministic
    assert not ISES(lookahead=2, time_limit=1.0).deterministic and not ISES("sampled").deterministic


@pytest.mark.parametrize(
    ("env_id", "sizes", "bound"),
    [
        ("FakeCoin-v0", {"coins": 12}, 3),  # Dyson: (3^k - 3) / 2 coins in k weighings
        ("FakeCoin-v0", {"coins": 39}, 4),
        ("FakeCoin-v0", {"coins": 12, "weighings": "concrete"}, 3),
        ("TreasureHunt-v0", {}, 4),  # log2 16
        ("LowMiddleHigh-v0", {}, 4),  # log3 81
    ],
)
def test_exhaustive_ises_solves_every_secret_within_the_optimal_bound(env_id, sizes, bound):
    result = evaluate(ISES(), env_id, sizes, progress=False)
    assert result.exact and result.solve_rate == 1.0
    assert result.worst == bound


def test_ises_opens_mastermind_with_the_most_informative_pattern():
    agent = ISES()
    agent.reset(Mastermind())
    assert agent.rules.format_code(agent.act()) == "ABCD"  # 3.057 bits, the maximum


def test_ties_go_to_a_query_that_could_be_the_secret_then_the_lowest_index():
    rules = SimpleMastermind(pegs=2, colors=3)
    agent = ISES()
    agent.reset(rules)
    # Black 0 to AA and to BB leaves CC only: every query then tells nothing, so the
    # tie goes to the one query that can win.
    agent.observe(rules.parse_code("AA"), 0)
    agent.observe(rules.parse_code("BB"), 0)
    assert agent.information_set.size == 1
    assert rules.format_code(agent.act()) == "CC"
    fresh = ISES()
    fresh.reset(Mastermind(pegs=1, colors=3))  # A, B, C all tell the same
    assert fresh.act() == 0


@pytest.mark.parametrize("rules", [Mastermind(pegs=3, colors=3), BullsAndCows(digits=3, symbols=4)], ids=repr)
def test_sampled_ises_with_everything_sampled_chooses_like_exhaustive_ises(rules):
    exhaustive, sampled = ISES(), ISES("sampled", state_samples=10**6, action_samples=10**6)
    rng = np.random.default_rng(5)
    for _ in range(3):
        secret = int(rng.integers(rules.num_secrets))
        exhaustive.reset(rules)
        sampled.reset(rules, seed=1)
        for _ in range(3):
            action = exhaustive.act()
            assert sampled.act() == action
            feedback = int(rules.feedback(action, secret))
            exhaustive.observe(action, feedback)
            sampled.observe(action, feedback)


def test_sampled_ises_stops_scoring_at_the_time_limit(monkeypatch):
    clock = itertools.count(step=10.0)  # every reading of the clock is 10 s later
    monkeypatch.setattr(ises_module.time, "perf_counter", lambda: next(clock))
    calls = []
    original = EnumeratedInformationSet.feedback_outcomes

    def counting(self, actions):
        calls.append(len(actions))
        return original(self, actions)

    monkeypatch.setattr(EnumeratedInformationSet, "feedback_outcomes", counting)
    agent = ISES("sampled", state_samples=50, action_samples=200, time_limit=0.1)
    agent.reset(BullsAndCows(), seed=0)
    action = agent.act()
    # One batch scored, then the limit was seen; a batch holds at most BATCH_CELLS (query, secret) pairs.
    assert calls == [min(ISES.BATCH, ISES.BATCH_CELLS // 5040)] == [13]
    assert 0 <= action < 5040


def test_sampled_ises_finishes_a_game_whose_secret_it_knows():
    rules = Mastermind()
    agent = ISES("sampled", state_samples=5, action_samples=3)
    agent.reset(rules, seed=0)
    secret = rules.parse_code("FEDC")
    for _ in range(12):
        action = agent.act()
        if action == secret:
            break
        agent.observe(action, int(rules.feedback(action, secret)))
    assert action == secret


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mode": "greedy"}, "mode must be 'exhaustive' or 'sampled'"),
        ({"time_limit": 0.1}, "applies to mode='sampled' or lookahead=2 only"),
        ({"lookahead": 3}, "lookahead must be an integer in"),
        ({"lookahead": 2, "candidates": 0}, "candidates must be an integer >= 1"),
        ({"mode": "sampled", "lookahead": 2}, "lookahead=2 applies to mode='exhaustive' only"),
        ({"mode": "sampled", "state_samples": 0}, "state_samples must be an integer >= 1"),
        ({"mode": "sampled", "action_samples": 2.5}, "action_samples must be an integer >= 1"),
        ({"mode": "sampled", "time_limit": 0}, "time_limit must be a positive number"),
    ],
)
def test_bad_ises_parameters_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ISES(**kwargs)


def test_agents_refuse_to_play_before_reset_and_reject_impossible_feedback():
    agent = ISES()
    with pytest.raises(RuntimeError, match=r"reset\(rules\) must be called"):
        agent.act()
    with pytest.raises(TypeError, match="rules must be a DeductionRules"):
        agent.reset("Mastermind")
    agent.reset(Mastermind())
    with pytest.raises(ValueError, match="contradicts"):
        agent.observe(0, 3 * 5 + 1)  # 3 black 1 white cannot happen
    assert agent.information_set.size == 1296 and agent.history == []


def test_consistent_random_agent_guesses_only_candidates():
    rules = Mastermind()
    agent = RandomAgent(consistent=True)
    agent.reset(rules, seed=3)
    agent.observe(rules.parse_code("AABB"), 1 * 5 + 1)
    assert all(agent.act() in agent.information_set for _ in range(50))


def test_evaluation_over_sampled_secrets_is_reproducible_and_independent_of_workers():
    kwargs = {"pegs": 3, "colors": 4}
    agent = RandomAgent(consistent=True)
    first = evaluate(agent, "Mastermind-v0", kwargs, secrets="sample", episodes=40, seed=3, progress=False)
    again = evaluate(agent, "Mastermind-v0", kwargs, secrets="sample", episodes=40, seed=3, progress=False)
    parallel = evaluate(
        agent, "Mastermind-v0", kwargs, secrets="sample", episodes=40, seed=3, workers=2, progress=False
    )
    np.testing.assert_array_equal(first.steps, again.steps)
    np.testing.assert_array_equal(first.steps, parallel.steps)
    assert not first.exact and first.ci95 > 0
    assert first.decision_times.size == first.total_steps


def test_evaluation_counts_unsolved_episodes_at_max_steps():
    result = evaluate(RandomAgent(), "Mastermind-v0", {"max_steps": 2}, secrets="sample", episodes=30, progress=False)
    assert result.worst == 2
    assert result.solve_rate < 1.0
    assert set(result.summary()) >= {"mean_steps", "ci95", "worst", "solve_rate", "mean_decision_ms", "p95_decision_ms"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"env_id": "Chess-v0"}, "unknown env id 'Chess-v0'"),
        ({"secrets": "some"}, "secrets must be 'all' or 'sample'"),
        ({"episodes": 10}, "episodes goes with secrets='sample'"),
        ({"secrets": "sample"}, "episodes must be an integer >= 1"),
        ({"workers": 0}, "workers must be an integer >= 1"),
    ],
)
def test_bad_evaluation_arguments_are_clear_errors(kwargs, message):
    arguments = {"env_id": "Mastermind-v0", "progress": False, **kwargs}
    with pytest.raises(ValueError, match=message):
        evaluate(RandomAgent(), **arguments)


def play_ismcts(agent, rules, secret, limit=30):
    """The queries ``agent`` makes until it ends a game of ``rules`` against ``secret``."""
    queries = []
    for _ in range(limit):
        action = agent.act()
        queries.append(action)
        feedback = int(rules.feedback(action, secret))
        if rules.is_terminal(action, feedback, agent.information_set.update(action, feedback)):
            break
        agent.observe(action, feedback)
    return queries


def test_ismcts_with_a_fixed_iteration_budget_is_deterministic_given_its_seed():
    rules = Mastermind(pegs=3, colors=4)
    games = []
    for _ in range(2):
        agent = ISMCTS(time_limit=None, iterations=60)
        agent.reset(rules, seed=5)
        games.append(play_ismcts(agent, rules, secret=37))
        assert agent.last_iterations == 60
    assert games[0] == games[1] and games[0][-1] == 37


def test_ismcts_names_a_secret_it_already_knows():
    rules = Mastermind()
    agent, teacher = ISMCTS(time_limit=None, iterations=1), RandomAgent()
    agent.reset(rules, seed=0)
    teacher.reset(rules, seed=0)
    secret = rules.parse_code("FEDC")
    while agent.information_set.size > 1:  # random queries until the secret is known, then one iteration
        action = teacher.act()
        for learner in (agent, teacher):
            learner.observe(action, int(rules.feedback(action, secret)))
    assert agent.act() == secret


def test_ismcts_searches_far_better_than_random_consistent_play():
    # Treasure Hunt 4x4: consistent random play names one cell at a time (8.5 queries on average, were
    # it not truncated at 10); a search over rectangles can halve the grid (ISES: 4). Every secret once.
    search = evaluate(ISMCTS(time_limit=None, iterations=500), "TreasureHunt-v0", progress=False)
    baseline = evaluate(RandomAgent(consistent=True), "TreasureHunt-v0", progress=False)
    assert search.mean_steps < 5.25 and baseline.mean_steps > 6.0
    assert search.solve_rate == 1.0


def test_ismcts_stops_at_the_time_limit_and_drops_the_iteration_it_cut_short(monkeypatch):
    rules = Mastermind()
    for step, completed in ((10.0, 0), (0.001, None)):
        clock = itertools.count(step=step)  # every reading of the clock is `step` seconds later
        monkeypatch.setattr(ismcts_module.time, "perf_counter", lambda clock=clock: next(clock))
        agent = ISMCTS(time_limit=0.1)
        agent.reset(rules, seed=0)
        action = agent.act()
        assert 0 <= action < rules.num_actions
        if completed is not None:
            assert agent.last_iterations == completed
        else:
            # 100 readings fit in the limit; each iteration reads the clock at least twice.
            assert 0 < agent.last_iterations < 50


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"time_limit": 0}, "time_limit must be a positive number"),
        ({"time_limit": None}, "give time_limit or iterations"),
        ({"iterations": 0}, "iterations must be an integer >= 1"),
        ({"exploration": -1}, "exploration must be a number >= 0"),
        ({"horizon": 0}, "horizon must be an integer >= 1"),
    ],
)
def test_bad_ismcts_parameters_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ISMCTS(**kwargs)
