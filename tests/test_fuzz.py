"""Fuzzing: nonsense given to constructors, actions and the Clue knowledge engine gets a clear error or works.

Every call either succeeds or raises ValueError / TypeError (ContradictionError is a ValueError) whose message
names what was wrong; never another exception, never a hang. The sizes that could allocate without bound run in
a subprocess under a memory limit, so that a regression fails the test instead of taking the machine down.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
import warnings

import gymnasium as gym
import numpy as np
import pytest
from fuzzing import fuzz_settings
from hypothesis import event, given
from hypothesis import strategies as st
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import deduction_envs
from deduction_envs import DeductionEnv
from deduction_envs.envs import algo_v0, clue_v0, generalized_clue_v0
from deduction_envs.games import GAMES, make_rules
from deduction_envs.reasoning import ClueKnowledge
from train.training_envs import AlgoTrainingEnv

NONSENSE = st.one_of(
    st.integers(-3, 12),
    st.sampled_from([10**9, -(10**9), 2**63, 0]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=4),
    st.none(),
    st.sampled_from([np.int64(3), np.int32(5), np.float64(2.0), np.bool_(True)]),
    st.lists(st.integers(-2, 30), max_size=3),
)
ENV_OPTIONS = ["max_steps", "action_mask", "information_set", "illegal_action", "render_mode"]
SLOW = fuzz_settings(60)


def fields(game: str) -> list[str]:
    return [f.name for f in dataclasses.fields(make_rules(game))]


def assert_clear(error: Exception, names: list[str]) -> None:
    """The error names one of ``names`` (or says the game has no such size parameter)."""
    message = str(error)
    assert any(name in message for name in names) or "size parameter" in message, message


@SLOW
@given(data=st.data(), game=st.sampled_from(list(GAMES)))
def test_env_constructors_take_nonsense_with_a_clear_error(data, game):
    names = data.draw(st.lists(st.sampled_from(fields(game) + ENV_OPTIONS), min_size=1, max_size=3, unique=True))
    kwargs = {name: data.draw(st.one_of(st.integers(1, 8), NONSENSE), label=name) for name in names}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            # The env itself: gym.make fails on its own (AttributeError) for a render_mode that is not a string.
            env = DeductionEnv(game, **kwargs)
        except (ValueError, TypeError) as error:
            event("refused")
            assert_clear(error, fields(game) + ENV_OPTIONS)  # a default may be what conflicts with a given size
            return
        event("built")
        env.reset(seed=0)
        env.step(int(np.flatnonzero(env.action_masks())[0]))


@SLOW
@given(game=st.sampled_from(list(GAMES)), actions=st.lists(NONSENSE, min_size=1, max_size=6))
def test_any_action_steps_or_is_a_clear_error(game, actions):
    env = gym.make(f"{game}-v0", **({"size": 4, "atoms": 2} if game == "BlackBox" else {}))
    env.reset(seed=0)
    for action in actions:
        try:
            _, _, terminated, truncated, _ = env.step(action)
        except ValueError as error:
            assert "action must be an integer" in str(error)
            continue
        if terminated or truncated:
            env.reset()


MULTIPLAYER = {
    algo_v0.raw_env: ["players", "hand_size", "numbers"],
    AlgoTrainingEnv: ["players", "hand_size", "numbers", "exposure", "playouts"],
    clue_v0.raw_env: ["players"],
    generalized_clue_v0.raw_env: ["cards", "hidden", "players", "max_rounds"],
}
COMMON = ["max_cycles", "probabilities", "illegal_action", "render_mode"]


@SLOW
@given(make=st.sampled_from(list(MULTIPLAYER)), data=st.data())
def test_multiplayer_envs_take_nonsense_with_a_clear_error(make, data):
    names = data.draw(st.lists(st.sampled_from(MULTIPLAYER[make] + COMMON), min_size=1, max_size=3, unique=True))
    kwargs = {name: data.draw(NONSENSE, label=name) for name in names}
    try:
        env = make(**kwargs)
    except (ValueError, TypeError) as error:
        event("refused")
        assert_clear(error, names)
        return
    event("built")
    env.reset(seed=0)
    for action in data.draw(st.lists(NONSENSE, max_size=4)):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env.step(action)
        except ValueError as error:
            assert "action must be an integer" in str(error) or "is masked" in str(error)


@pytest.mark.parametrize("make", list(MULTIPLAYER))
def test_the_raw_multiplayer_envs_say_what_is_wrong_before_a_reset_and_after_the_game(make):
    """As the wrapped envs do (PettingZoo's order checks): not an AttributeError or a KeyError."""
    env = make()
    for what, call in [("step", lambda: env.step(0)), ("last", env.last), ("observe", lambda: env.observe("player_0"))]:
        with pytest.raises(RuntimeError, match=rf"reset\(\) needs to be called before {what}"):
            call()
    env.reset(seed=0)
    for _ in env.agent_iter(10_000):
        observation, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0]))
    assert env.agents == []
    with pytest.warns(UserWarning, match="step\\(\\) called after all agents are terminated"):
        env.step(0)


RESET_NONSENSE = st.one_of(NONSENSE, st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


def reset_twins(kind: str):
    """Two equal envs of one kind, and what a reset of one dealt (its secrets)."""
    if kind == "single":
        envs = DeductionEnv("Mastermind"), DeductionEnv("Mastermind")
        return *envs, lambda env: env._secret
    if kind == "batched":
        envs = (gym.make_vec("Mastermind-v0", 2, vectorization_mode="vector_entry_point") for _ in range(2))
        return *envs, lambda env: env.unwrapped._secrets.tolist()
    return clue_v0.raw_env(), clue_v0.raw_env(), lambda env: repr(env.table.state)


@SLOW
@given(kind=st.sampled_from(["single", "batched", "multiplayer"]), seed=RESET_NONSENSE, options=RESET_NONSENSE)
def test_a_refused_reset_changes_nothing_the_generator_included(kind, seed, options):
    env, twin, dealt = reset_twins(kind)
    env.reset(seed=1)
    twin.reset(seed=1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the multiplayer envs ignore a dict of options with a warning
            env.reset(seed=seed, options=options)
    except ValueError as error:
        event("refused")
        assert any(word in str(error) for word in ("seed", "option")), error
        env.reset()
        twin.reset()
        assert dealt(env) == dealt(twin)
    else:
        event("taken")


@pytest.mark.parametrize("make", [algo_v0.env, clue_v0.env, generalized_clue_v0.env])
def test_the_multiplayer_envs_pass_the_parallel_api_test_as_turn_based_parallel_envs(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the test's random actions are mostly masked: each ends a game
        parallel_api_test(turn_based_aec_to_parallel(make()), num_cycles=200)


CARDS = st.one_of(
    st.sampled_from(ClueKnowledge.classic(3).card_names), st.integers(-2, 23), st.text(max_size=3), NONSENSE
)
PLAYERS = st.one_of(st.integers(0, 2), NONSENSE)
CLAIMS = ["add_holds", "add_holds_none", "add_holds_one_of"]
EVENTS = st.one_of(
    st.tuples(st.just("add_hand"), PLAYERS, st.lists(CARDS, max_size=7)),
    st.tuples(st.sampled_from(CLAIMS), PLAYERS, st.one_of(CARDS, st.lists(CARDS, max_size=4))),
    st.tuples(st.just("add_accusation"), st.lists(CARDS, max_size=4), st.one_of(st.booleans(), NONSENSE)),
)


@SLOW
@given(events=st.lists(EVENTS, min_size=1, max_size=8))
def test_the_clue_engine_takes_nonsense_events_with_a_clear_error_and_changes_nothing(events):
    knowledge = ClueKnowledge.classic(3)
    for method, first, second in events:
        before = knowledge.events, knowledge.deduction_sheet("sample").copy()
        try:
            getattr(knowledge, method)(first, second)
            event("an event accepted")
        except (ValueError, TypeError):
            assert knowledge.events == before[0]
            np.testing.assert_array_equal(knowledge.deduction_sheet("sample"), before[1])
    knowledge.solve()  # whatever was accepted still has an answer


ALLOCATING = [
    'gym.make("Mastermind-v0", pegs=10**9)',
    'gym.make("Mastermind-v0", pegs=10000)',
    'gym.make("BullsAndCows-v0", digits=10**9, symbols=10**9)',
    'gym.make("Mastermind-v0", max_steps=10**9)',
    'gym.make("FakeCoin-v0", coins=10**9)',
    'gym.make("TreasureHunt-v0", width=10**9, height=10**9)',
    'gym.make("LowMiddleHigh-v0", n=10**12)',
    'gym.make("BlackBox-v0", size=10**6, atoms=10**6)',
    "ClueKnowledge.generalized(10**9, 3, 4)",
    "ClueKnowledge.generalized(200, 3, 4)",
    "ClueKnowledge([10**9], [3], 1)",
    "algo_v0.env(players=10**9)",
    "clue_v0.env(players=10**9, max_cycles=10**12)",
]


def test_sizes_that_could_allocate_without_bound_are_refused_under_a_memory_limit():
    script = textwrap.dedent(
        f"""
        import resource, sys, time
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # 3 GiB: far above what a refusal needs
        import gymnasium as gym
        import deduction_envs
        from deduction_envs.envs import algo_v0, clue_v0, generalized_clue_v0
        from deduction_envs.reasoning import ClueKnowledge
        for call in {ALLOCATING!r}:
            start = time.perf_counter()
            try:
                eval(call)
            except ValueError as error:
                print(f"{{time.perf_counter() - start:.3f}} {{error}}")
            else:
                sys.exit(f"accepted: {{call}}")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert len(lines) == len(ALLOCATING)
    for line in lines:
        seconds, message = line.split(" ", 1)
        assert float(seconds) < 1.0 and ("must be" in message or "at most" in message), line


def test_every_game_is_fuzzed():
    assert {f"{game}-v0" for game in GAMES} == set(deduction_envs.ENV_IDS)
