"""The Algo AEC env: PettingZoo's API, seed and render tests, observations, rewards and truncation."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from deduction_envs.envs import algo_v0
from deduction_envs.envs.algo import EXPOSURE, PLAYOUTS, exposure_features, observation_size, playout_features
from deduction_envs.games.algo import HandView, Phase, PlayerView, parse_card
from deduction_envs.reasoning.algo_hands import AlgoKnowledge


# api_test warns about every Dict observation, the {"observation", "action_mask"} form of PettingZoo's classic envs.
@pytest.mark.filterwarnings("ignore:Observation (space for each agent probably|is not a NumPy array):UserWarning")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_and_seed_tests(players):
    api_test(algo_v0.env(players=players), num_cycles=300)
    seed_test(lambda **kwargs: algo_v0.env(players=players, **kwargs), num_cycles=300)
    if players == 3:
        api_test(algo_v0.env(players=players, exposure=2, playouts=1), num_cycles=300)
        seed_test(lambda **kwargs: algo_v0.env(players=players, exposure=2, playouts=1, **kwargs), num_cycles=300)


def test_render_modes():
    render_test(algo_v0.env)
    env = algo_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3


def play(env, seed: int) -> dict[str, float]:
    """A random game; checks every observation on the way and returns the final rewards."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rules = env.unwrapped.rules
    n, k = rules.numbers, rules.max_hand
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        player = env.possible_agents.index(agent)
        state = env.unwrapped.state
        table = observation["observation"][: rules.players * k * (3 + 3 * n)].reshape(rules.players, k, 3 + 3 * n)
        for row in range(rules.players):
            seat = (player + row) % rules.players
            hand = state.hands[seat]
            assert table[row, : len(hand), 0].all() and not table[row, len(hand) :].any()
            truth = np.array(hand) // 2
            probabilities = table[row, : len(hand), 3 + 2 * n :]
            np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-5)
            assert (probabilities[np.arange(len(hand)), truth] > 0).all()  # the truth is always possible
            if seat == player:  # its own numbers are known to it
                assert (table[row, np.arange(len(hand)), 3 + truth] == 1).all()
            else:  # an opponent's face-down numbers are not in the one-hot
                hidden = [i for i, c in enumerate(hand) if c not in state.revealed[seat]]
                assert not table[row, hidden, 3 : 3 + n].any()
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
    return totals


@pytest.mark.parametrize(
    ("players", "expected"), [(2, [-1.0, 1.0]), (3, [-1.0, 0.0, 1.0]), (4, [-1.0, -1 / 3, 1 / 3, 1.0])]
)
def test_observations_are_information_sets_and_rewards_rank_the_players(players, expected):
    env = algo_v0.env(players=players)
    for seed in range(3):
        totals = play(env, seed)
        state = env.unwrapped.state
        assert sorted(totals.values()) == pytest.approx(expected)
        assert totals[f"player_{state.winner}"] == 1.0 and totals[f"player_{state.out[0]}"] == -1.0


def test_max_cycles_truncates_with_no_reward_and_the_table_can_be_switched_off():
    env = algo_v0.env(max_cycles=5, probabilities=False)
    env.reset(seed=1)
    steps = 0
    for _ in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            assert truncation and reward == 0 and steps == 5
            env.step(None)
            continue
        assert observation["observation"].shape == (observation_size(env.unwrapped.rules),)
        assert not observation["observation"][: 2 * 20 * 39].reshape(2, 20, 39)[:, :, 27:].any()  # no table
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        steps += 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 5}, "players must be an integer in \\[2, 4\\]"),
        ({"max_cycles": 0}, "max_cycles must be an integer >= 1"),
        ({"render_mode": "video"}, "render_mode must be one of"),
        ({"exposure": -1}, r"exposure must be an integer in \[0, 1000\]"),
        ({"exposure": 1.5}, r"exposure must be an integer in \[0, 1000\]"),
        ({"exposure": 10**9}, r"exposure must be an integer in \[0, 1000\], got 1000000000"),
        ({"playouts": -1}, r"playouts must be an integer in \[0, 1000\]"),
        ({"playouts": "8"}, r"playouts must be an integer in \[0, 1000\]"),
        ({"playouts": 10**9}, r"playouts must be an integer in \[0, 1000\], got 1000000000"),
    ],
)
def test_bad_arguments_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        algo_v0.env(**kwargs)


def test_registered_with_pettingzoo_where_it_has_a_registry():
    import pettingzoo

    if not hasattr(pettingzoo, "make"):
        pytest.skip(f"PettingZoo {pettingzoo.__version__} has no registry")
    env = pettingzoo.make("aec", "deduction_envs/algo-v0", players=3, max_cycles=50)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"] and env.unwrapped.max_cycles == 50


@pytest.mark.parametrize("make", [algo_v0.env, algo_v0.raw_env])
def test_a_masked_action_ends_the_game_with_a_penalty_and_strict_mode_raises(make):
    env = make(players=3)
    env.reset(seed=4)
    agent = env.agent_selection
    masked = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="masked action"):
        env.step(masked)
    assert all(env.terminations.values()) and env.infos[agent] == {"illegal_action": masked}
    assert env.rewards == {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
    strict = make(players=3, illegal_action="raise")
    strict.reset(seed=4)
    before = strict.unwrapped.state.copy()
    with pytest.raises(ValueError, match=f"action {masked} is masked"):
        strict.step(masked)
    assert strict.unwrapped.state == before and not any(strict.terminations.values())


@pytest.mark.parametrize("action", [-1, 10**6, 2.5, True, "3", None])
def test_an_action_outside_the_action_space_is_a_clear_error(action):
    env = algo_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action must be an integer in \[0, 260\]"):
        env.step(action)


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
    env = algo_v0.raw_env(players=players, exposure=4)
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
    env = algo_v0.raw_env(players=players, exposure=2, playouts=3)
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
    from deduction_envs.envs import algo as module

    calls = []
    for name in ("playout_features", "exposure_features"):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, f=original, n=name: calls.append(n) or f(*args))
    env = algo_v0.raw_env(exposure=2, playouts=2)
    rng, seen = np.random.default_rng(0), 0
    for vector, view in seat_decisions(env, range(3), rng):
        if view.phase != Phase.CONTINUE:
            continue
        before = len(calls)
        again = env.observe(env.agent_selection)["observation"]
        assert len(calls) == before and np.array_equal(again, vector)
        fresh = algo_v0.raw_env(exposure=2, playouts=2).encode(AlgoKnowledge.from_view(env.rules, view))
        assert np.array_equal(fresh, vector)
        seen += 1
    assert seen >= 3 and calls.count("playout_features") == calls.count("exposure_features") >= seen
