"""What the training side reads from and adds to the multiplayer observations (``train.training_envs``): the
observation pointers, and Algo's exposure and play-out entries, a function of a seat's information set alone."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

from deduction_envs.envs import algo_v0
from deduction_envs.envs.algo import observation_size
from deduction_envs.envs.multiplayer_env import wrap
from deduction_envs.games.algo import HandView, Phase, PlayerView, parse_card
from deduction_envs.reasoning.algo_hands import AlgoKnowledge
from train import training_envs
from train.multiplayer import raw_env
from train.training_envs import EXPOSURE, PLAYOUTS, AlgoTrainingEnv, exposure_features, playout_features


@pytest.mark.filterwarnings("ignore:Observation (space for each agent probably|is not a NumPy array):UserWarning")
def test_the_training_env_passes_pettingzoos_api_and_seed_tests():
    api_test(wrap(AlgoTrainingEnv(players=3, exposure=2, playouts=1)), num_cycles=300)
    seed_test(lambda **kwargs: wrap(AlgoTrainingEnv(players=3, exposure=2, playouts=1, **kwargs)), num_cycles=300)


def test_training_builds_each_games_training_env_and_the_game_env_has_no_training_options():
    assert type(raw_env("algo_v0", exposure=1)) is AlgoTrainingEnv
    assert type(raw_env("clue_v0")) is training_envs.ClueTrainingEnv
    assert type(raw_env("generalized_clue_v0")) is training_envs.GeneralizedClueTrainingEnv
    with pytest.raises(TypeError, match="exposure"):
        algo_v0.raw_env(exposure=1)
    assert not hasattr(algo_v0.raw_env(), "observation_pointers")
    assert training_envs.observation_pointers(algo_v0.raw_env()) is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"exposure": -1}, r"exposure must be an integer in \[0, 1000\]"),
        ({"exposure": 1.5}, r"exposure must be an integer in \[0, 1000\]"),
        ({"exposure": 10**9}, r"exposure must be an integer in \[0, 1000\], got 1000000000"),
        ({"playouts": -1}, r"playouts must be an integer in \[0, 1000\]"),
        ({"playouts": "8"}, r"playouts must be an integer in \[0, 1000\]"),
        ({"playouts": 10**9}, r"playouts must be an integer in \[0, 1000\], got 1000000000"),
    ],
)
def test_bad_numbers_of_determinisations_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        AlgoTrainingEnv(**kwargs)


def seat_decisions(env, seeds: range, rng: np.random.Generator):
    """Every decision of games played with random attacks (never stopping, so that turns reach the later
    decisions): yields the observation vector and the seat's view, and steps once the caller is done."""
    rules = env.rules
    for seed in seeds:
        env.reset(seed=seed)
        for agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            mask = observation["action_mask"].astype(bool)
            yield observation["observation"], env.knowledge[env.possible_agents.index(agent)].view
            attack = mask.copy()
            attack[rules.stop_action] = False
            env.step(int(rng.choice(np.flatnonzero(attack if attack.any() else mask))))


@pytest.mark.parametrize("players", [2, 3])
def test_exposure_entries_are_a_function_of_the_information_set_and_count_the_drawn_card(players):
    """With ``exposure``: where the seat may stop, the entries are what its view alone gives (knowledge built
    from the view, no state: the hidden cards cannot leak), the same on every call; its face-down cards after
    stopping are one more than after a miss (the drawn card joins face down, or face up) if it drew one;
    zeros elsewhere."""
    env = AlgoTrainingEnv(players=players, exposure=4)
    rules, base = env.rules, observation_size(env.rules)
    assert env.observation_space("player_0")["observation"].shape == (base + EXPOSURE,)
    pointers = env.observation_pointers()
    assert pointers.shape == (rules.num_actions, 1 + EXPOSURE)
    assert pointers[rules.stop_action].tolist() == [-1, *range(base, base + EXPOSURE)]
    assert (pointers[np.arange(rules.num_actions) != rules.stop_action, 1:] == -1).all()
    checked = 0
    for vector, view in seat_decisions(env, range(12), np.random.default_rng(players)):
        assert np.array_equal(vector[:base], algo_v0.raw_env(players=players).encode(env.knowledge[view.player]))
        if view.phase != Phase.CONTINUE:
            assert not vector[base:].any()
            continue
        checked += 1
        alone = exposure_features(rules, AlgoKnowledge.from_view(rules, view), 4)
        assert np.array_equal(vector[base:], alone) and np.array_equal(
            env.observe(env.agent_selection)["observation"], vector
        )
        assert ((0 <= alone) & (alone <= 1)).all()
        hidden = sum(card < 0 for card in view.hands[view.player].known)
        drawn = view.drawn >= 0  # with the deck empty, no card joins the hand
        assert np.isclose(alone[4] * rules.max_hand, hidden + drawn)
        assert np.isclose(alone[9] * rules.max_hand, hidden)
    assert checked >= 10


@pytest.mark.parametrize("players", [2, 3])
def test_playout_entries_are_a_function_of_the_information_set_after_the_exposure_entries(players):
    """With ``playouts`` (and ``exposure``): where the seat may stop, the last entries are what its view alone
    gives (knowledge built from the view, no state), the same on every call, means of rewards in [0, 1] (with
    two players, of +1 and -1: multiples of 1 / (2 N)); zeros elsewhere; the stop action points at both."""
    env = AlgoTrainingEnv(players=players, exposure=2, playouts=3)
    rules, base = env.rules, observation_size(env.rules)
    assert env.observation_space("player_0")["observation"].shape == (base + EXPOSURE + PLAYOUTS,)
    pointers = env.observation_pointers()
    assert pointers[rules.stop_action].tolist() == [-1, *range(base, base + EXPOSURE + PLAYOUTS)]
    assert (pointers[np.arange(rules.num_actions) != rules.stop_action, 1:] == -1).all()
    checked = 0
    for vector, view in seat_decisions(env, range(8), np.random.default_rng(players)):
        entries = vector[base + EXPOSURE :]
        if view.phase != Phase.CONTINUE:
            assert not entries.any()
            continue
        checked += 1
        alone = playout_features(rules, AlgoKnowledge.from_view(rules, view), 3)
        assert np.array_equal(entries, alone) and np.array_equal(
            env.observe(env.agent_selection)["observation"], vector
        )
        assert ((0 <= alone) & (alone <= 1)).all()
        if players == 2:
            assert np.allclose(alone * 6, np.round(alone * 6), atol=1e-5)
    assert checked >= 8


def test_playout_entries_of_a_certain_winning_attack_are_one():
    """The opponent's last face-down card is W3, and I know it: attacking it wins in every play-out (1.0);
    stopping hands the opponent a turn, which it sometimes wins (below 1.0). No play-outs (or no
    determinisations for the exposure) is a clear error."""
    rules = algo_v0.raw_env().rules
    mine = tuple(sorted(map(parse_card, ["B0", "W2", "B5", "W7"])))
    me = HandView(tuple(c % 2 for c in mine), (-1, *mine[1:]), (frozenset(),) * 4)  # one face-down card left
    theirs = tuple(map(parse_card, ["W1", "W3", "B4", "W4"]))
    opponent = HandView((1, 1, 0, 1), (theirs[0], -1, theirs[2], theirs[3]), (frozenset(),) * 4)
    view = PlayerView(0, (me, opponent), mine, parse_card("B9"), 12, 0, Phase.CONTINUE)
    stop, attack = playout_features(rules, AlgoKnowledge.from_view(rules, view), 50)
    assert attack == 1.0 and 0.0 < stop < 1.0
    assert not playout_features(rules, AlgoKnowledge.from_view(rules, view._replace(phase=Phase.ATTACK)), 50).any()
    for function, name in ((playout_features, "playouts"), (exposure_features, "samples")):
        with pytest.raises(ValueError, match=f"{name} must be an integer >= 1"):
            function(rules, AlgoKnowledge.from_view(rules, view), 0)


def test_the_stop_entries_are_computed_once_per_view(monkeypatch):
    """Observing a seat that may stop twice computes its play-out and exposure entries once; after the next
    event (a new view), again; the observations are the same as computed afresh."""
    module = training_envs
    calls = []
    for name in ("playout_features", "exposure_features"):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, f=original, n=name: calls.append(n) or f(*args))
    env = AlgoTrainingEnv(exposure=2, playouts=2)
    rng, seen = np.random.default_rng(0), 0
    for vector, view in seat_decisions(env, range(3), rng):
        if view.phase != Phase.CONTINUE:
            continue
        before = len(calls)
        again = env.observe(env.agent_selection)["observation"]
        assert len(calls) == before and np.array_equal(again, vector)
        fresh = AlgoTrainingEnv(exposure=2, playouts=2).encode(AlgoKnowledge.from_view(env.rules, view))
        assert np.array_equal(fresh, vector)
        seen += 1
    assert seen >= 3 and calls.count("playout_features") == calls.count("exposure_features") >= seen


@pytest.mark.parametrize("env_id", ["algo_v0", "clue_v0", "generalized_clue_v0"])
def test_an_observer_encodes_a_seat_without_an_env_as_the_env_does(env_id):
    """The observer objects (named pieces, a seat's vector from its knowledge alone): built from the rules with
    no env, kept with a seat's own knowledge fed the events projected for that seat, they give the env's
    observation of that seat at every step."""
    from deduction_envs import registry
    from deduction_envs.envs.algo import AlgoObserver
    from deduction_envs.envs.clue import ClueObserver
    from deduction_envs.envs.generalized_clue import GeneralizedClueObserver

    env = registry.game(env_id).make_raw_env(max_cycles=60)
    make = {"algo_v0": AlgoObserver, "clue_v0": ClueObserver, "generalized_clue_v0": GeneralizedClueObserver}[env_id]
    observer = make(env.rules) if env_id == "algo_v0" else make(env.rules, max_cycles=60)
    assert observer.size == env.observation_size() and observer.pieces.slices == env.pieces.slices
    seat, rng, compared = 1, np.random.default_rng(5), 0
    knowledge = observer.new_knowledge(seat)
    env.seat_listeners[seat] = knowledge.update
    env.reset(seed=5)
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        np.testing.assert_array_equal(observer.encode(knowledge), env.observe(f"player_{seat}")["observation"])
        compared += 1
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert compared >= 5


@pytest.mark.parametrize("env_id", ["algo_v0", "clue_v0", "generalized_clue_v0"])
@pytest.mark.parametrize("max_cycles", ["", None, 0, 1.5])
def test_the_envs_arguments_are_checked_before_the_observer_is_built(env_id, max_cycles):
    """The Clue family's observer takes ``max_cycles`` as its bound: a bad one was a bare float() error from
    the observer (found by the fuzz test in CI) instead of the env's message."""
    from deduction_envs import registry

    if env_id == "generalized_clue_v0" and max_cycles is None:  # its default: the most actions its sizes may take
        assert registry.game(env_id).make_raw_env(max_cycles=None).max_cycles == 5000
        return
    with pytest.raises(ValueError, match="max_cycles must be an integer >= 1"):
        registry.game(env_id).make_raw_env(max_cycles=max_cycles)


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [("algo_v0", {}), ("clue_v0", {}), ("clue_v0", {"board": True, "players": 2}), ("generalized_clue_v0", {})],
)
def test_state_is_pettingzoos_global_view_every_seats_observation_in_seat_order(env_id, kwargs):
    env = importlib.import_module(f"deduction_envs.envs.{env_id}").env(**kwargs)
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.state()
    pettingzoo_state_space_test(env)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo's state checks warn of what they find wrong
        warnings.filterwarnings("ignore", ".*chose the masked action")  # its random actions end games
        pettingzoo_state_test(env, num_cycles=20)
    env.reset(seed=3)
    for _ in range(12):
        if env.terminations[env.agent_selection]:
            break
        seats = [env.observe(agent)["observation"] for agent in env.possible_agents]
        state = env.state()
        assert state.dtype == np.float32 and env.state_space.contains(state)
        np.testing.assert_array_equal(state, np.concatenate(seats))
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
