"""The envs' graph of information sets met (deduction_envs.envs.deduction_env._KnowledgeGraph): an episode
through the graph is the episode without it, step by step."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs import DeductionEnv
from deduction_envs.envs import deduction_env
from deduction_envs.games import make_rules

SMALL_GAMES = [
    ("FakeCoin", {}),
    ("FakeCoin", {"coins": 5, "weighings": "concrete"}),
    ("TreasureHunt", {}),
    ("LowMiddleHigh", {}),
    ("Mastermind", {"pegs": 2, "colors": 3}),
    ("BullsAndCows", {"digits": 2, "symbols": 4}),
]


def without_graph(monkeypatch, game, sizes, **kwargs) -> DeductionEnv:
    """An env that steps every information set afresh (its rules are a new object with their own graph)."""
    rules = type(make_rules(game, **sizes))(**sizes)
    monkeypatch.setattr(deduction_env, "SMALL_GAME_SECRETS", 0)
    monkeypatch.setattr(deduction_env, "_graphs", type(deduction_env._graphs)())
    env = DeductionEnv(rules, **kwargs)
    monkeypatch.undo()
    assert not env._graph.small
    return env


def play(env: DeductionEnv, seed: int, steps: int) -> list:
    """Random legal play over several episodes; everything the env returns, in order."""
    rng = np.random.default_rng(seed)
    out = [env.reset(seed=seed)]
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        result = env.step(action)
        out.append(result)
        if result[2] or result[3]:
            out.append(env.reset())
    return out


@settings(max_examples=12, deadline=None)
@given(game=st.sampled_from(SMALL_GAMES), seed=st.integers(0, 2**32 - 1), consistent=st.booleans())
def test_episodes_through_the_graph_are_the_episodes_without_it(game, seed, consistent):
    name, sizes = game
    kwargs = {"action_mask": "consistent"} if consistent and make_rules(name, **sizes).queries_name_secrets else {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        plain = without_graph(monkeypatch, name, sizes, **kwargs)
    through = DeductionEnv(name, **sizes, **kwargs)
    assert through._graph.small
    assert_same(play(through, seed, 150), play(plain, seed, 150))


def test_a_full_graph_starts_again_and_plays_on_identically(monkeypatch):
    monkeypatch.setattr(deduction_env, "SMALL_GAME_ENTRIES", 50)
    with pytest.MonkeyPatch.context() as patch:
        plain = without_graph(patch, "FakeCoin", {})
    rules = type(make_rules("FakeCoin"))()
    monkeypatch.setattr(deduction_env, "_graphs", type(deduction_env._graphs)())
    through = DeductionEnv(rules)
    roots = {id(through._graph.root)}
    result = play(through, 3, 40)
    for seed in range(4, 10):
        result += play(through, seed, 40)
        roots.add(id(through._graph.root))
    expected = play(plain, 3, 40)
    for seed in range(4, 10):
        expected += play(plain, seed, 40)
    assert_same(result, expected)
    assert len(roots) > 1  # it did start again
    assert through._graph._entries <= 50 + 2


def test_envs_of_one_game_share_one_graph_and_a_new_env_starts_warm():
    first = gym.make("FakeCoin-v0")
    play(first.unwrapped, 0, 30)
    second = gym.make("FakeCoin-v0")
    assert second.unwrapped._graph is first.unwrapped._graph
    root = first.unwrapped._graph.root
    assert root.children  # the sets after a first query are there for the new env
    other = gym.make("FakeCoin-v0", coins=13)
    assert other.unwrapped._graph is not first.unwrapped._graph


def test_large_games_keep_only_the_sets_after_a_first_query():
    env = DeductionEnv("Mastermind")
    assert not env._graph.small
    env.reset(seed=0)
    for action in (0, 7, 500):
        env.step(action)
        assert env._node is None
    root = env._graph.root
    assert all(not child.children for child in root.children.values())


def test_a_pickled_env_takes_its_set_not_the_graph():
    env = DeductionEnv("FakeCoin")
    play(env, 1, 60)
    env.reset(seed=2)
    env.step(int(np.flatnonzero(env.action_masks())[5]))
    blob = pickle.dumps(env)
    clone = pickle.loads(blob)
    assert clone._graph is env._graph  # in this process, the same game's graph
    assert not clone._node.children
    action = int(np.flatnonzero(env.action_masks())[3])
    assert_same(env.step(action), clone.step(action))
