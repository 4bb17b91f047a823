"""The Clue AEC env: PettingZoo's tests, observations as information states, no leaks, rewards, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import seat_observations

from deduction_envs.core.multiplayer import Table
from deduction_envs.envs import clue_v0
from deduction_envs.games.clue import ClueRules
from deduction_envs.wrappers import AECEntropyRewardWrapper

# api_test warns about every Dict observation, the {"observation", "action_mask"} form of PettingZoo's classic envs.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation (space for each agent probably|is not a NumPy array):UserWarning"
)


def sensible_random(rng: np.random.Generator, mask: np.ndarray, accuse: float = 0.02) -> int:
    """A random legal action that suggests and ends turns, and accuses only with probability ``accuse``."""
    legal = np.flatnonzero(mask)
    accusations = legal[(legal >= 324) & (legal < 648)]
    others = legal[(legal < 324) | (legal >= 648)]
    pool = accusations if (accusations.size and rng.random() < accuse) or not others.size else others
    return int(rng.choice(pool))


def test_rgb_render_is_the_acting_players_sheet():
    env = clue_v0.env(players=3, render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.shape == (2 + 21 * 18, 2 + 4 * 18, 3)


def test_observations_are_the_acting_players_information_state():
    env = clue_v0.raw_env(players=4)
    rng = np.random.default_rng(0)
    for seed in range(3):
        env.reset(seed=seed)
        state = env.table.state
        while not env.table.over:
            agent = env.agent_selection
            me = env.possible_agents.index(agent)
            observation = env.observe(agent)
            parts = env.split(observation["observation"])
            seats = [(me + i) % 4 for i in range(4)]
            truth = np.array([[state.places[c] == place for place in [*seats, 4]] for c in range(21)])
            assert np.flatnonzero(parts["hand"]).tolist() == list(state.hands[me])
            assert (truth[parts["held"] == 1]).all() and not truth[parts["not_held"] == 1].any()  # facts are true
            assert (parts["probabilities"][truth] > 0).all()  # the truth is always possible
            np.testing.assert_allclose(parts["probabilities"].sum(axis=1), 1.0, atol=1e-6)
            assert 0 < parts["entropy"][0] <= 1 or parts["held"][:, -1].sum() == 3
            assert parts["turn"].tolist() == [float(state.mover == s) for s in seats]
            assert (
                observation["action_mask"].any()
                and not env.observe(env.possible_agents[(me + 1) % 4])["action_mask"].any()
            )
            env.step(sensible_random(rng, observation["action_mask"]))
            if len(env.table.actions) > 40:
                break


def swapped_deal(places: tuple[int, ...], observer: int, untouched: set[int]) -> tuple[int, ...] | None:
    """The deal with two cards of two other players swapped, neither in ``untouched``; None if there are none."""
    players = max(places)
    for a in range(players):
        for b in range(a + 1, players):
            if observer in (a, b):
                continue
            mine = [c for c, p in enumerate(places) if p == a and c not in untouched]
            theirs = [c for c, p in enumerate(places) if p == b and c not in untouched]
            if mine and theirs:
                swapped = list(places)
                swapped[mine[0]], swapped[theirs[0]] = b, a
                return tuple(swapped)
    return None


class FixedDeal(ClueRules):
    """Clue dealt as ``deal`` every time."""

    def __init__(self, players: int, deal: tuple[int, ...]) -> None:
        super().__init__(players)
        object.__setattr__(self, "deal", deal)

    def new_game(self, rng, first=0):
        return self.state_of_deal(self.deal, first)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_a_seat_sees_nothing_of_another_seats_cards(players):
    """Swapping two cards between two other players (cards nobody ever named) changes none of a seat's observations."""
    env = clue_v0.raw_env(players=players)
    compared = 0
    for seed in range(8):
        observer = seed % players
        rules = ClueRules(players)
        rng = np.random.default_rng(seed)
        first = Table(rules, np.random.default_rng(seed), [lambda e: None] * players)
        while not first.over and len(first.actions) < 15:
            first.step(sensible_random(rng, first.legal_mask()))
        named = {c for c in range(21) for a in first.actions if c in rules.decode(a).cards}
        swapped = swapped_deal(first.state.places, observer, named)
        if swapped is None:
            continue
        observations = [
            seat_observations(env, FixedDeal(players, rules.state_of_deal(places).places), first.actions, observer, rng)
            for places in (first.state.places, swapped)
        ]
        np.testing.assert_array_equal(observations[0], observations[1])
        compared += 1
    assert compared >= 4


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_a_thousand_random_games_end_cleanly(players):
    """Random legal play (accusing one time in twenty) through the wrapped env: no exception, the rewards add up."""
    env = clue_v0.env(players=players, probabilities=False, max_cycles=80)
    rng = np.random.default_rng(players)
    outcomes = {"won": 0, "nobody": 0, "truncated": 0}
    loss = -1 / (players - 1)
    for seed in range(1000):
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            totals[agent] += reward
            if termination or truncation:
                env.step(None)
                continue
            env.step(sensible_random(rng, observation["action_mask"], accuse=0.05))
        values = sorted(totals.values())
        if values == [0.0] * players:
            outcomes["truncated"] += 1
        elif values[-1] == 1.0:
            assert values[:-1] == pytest.approx([loss] * (players - 1))
            outcomes["won"] += 1
        else:
            assert values == pytest.approx([loss] * players)
            outcomes["nobody"] += 1
    assert all(outcomes.values()), outcomes


def test_max_cycles_truncates_with_no_reward_and_probabilities_can_be_switched_off():
    env = clue_v0.env(players=3, max_cycles=7, probabilities=False)
    env.reset(seed=1)
    steps = 0
    for _ in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            assert truncation and reward == 0 and steps == 7
            env.step(None)
            continue
        parts = env.unwrapped.split(observation["observation"])
        assert not parts["probabilities"].any() and parts["entropy"][0] == 0 and parts["held"].any()
        env.step(int(np.flatnonzero(observation["action_mask"][:324])[0]) if steps % 3 == 0 else _end(observation))
        steps += 1


def _end(observation) -> int:
    """End the turn if that is legal, else the first legal action (showing a card)."""
    mask = observation["action_mask"]
    return 648 if mask[648] else int(np.flatnonzero(mask)[0])


def test_the_entropy_reward_wrapper_shapes_clue_with_the_case_file_entropy():
    env = AECEntropyRewardWrapper(clue_v0.env(players=3), scale=1.0)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    start = {a: env.unwrapped.entropy(a) for a in env.possible_agents}
    assert all(0 < h <= np.log2(324) for h in start.values())
    shaped = dict.fromkeys(env.possible_agents, 0.0)
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(sensible_random(rng, observation["action_mask"], accuse=0.0))
        for a in env.possible_agents:
            shaped[a] += env.unwrapped.infos[a]["entropy_reward"]
        if len(env.unwrapped.table.actions) >= 12:
            break
    for a in env.possible_agents:  # potential-based: the shaping so far is the entropy lost
        assert shaped[a] == pytest.approx(start[a] - env.unwrapped.entropy(a), abs=1e-9)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 1}, "players must be an integer in \\[2, 6\\]"),
        ({"players": 7, "board": True}, "players must be an integer in \\[2, 6\\]"),
        ({"board": 1}, "board must be True or False"),
        ({"players": "4"}, "players must be an integer"),
        ({"max_cycles": 0}, "max_cycles must be an integer >= 1"),
        ({"probabilities": "yes"}, "probabilities must be True or False"),
        ({"strict": 1}, "strict must be True or False"),
        ({"illegal_action": "waste"}, "illegal_action must be 'end' or 'raise'"),
        ({"render_mode": "video"}, "render_mode must be one of"),
    ],
)
def test_bad_arguments_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        clue_v0.env(**kwargs)


def test_masked_and_out_of_space_actions():
    env = clue_v0.env(players=4)
    env.reset(seed=0)
    agent = env.agent_selection
    with pytest.warns(UserWarning, match="masked action"):
        env.step(660)  # showing a card is masked at the start of a turn
    assert all(env.terminations.values()) and env.rewards[agent] == -1.0
    strict = clue_v0.env(players=4, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="action 660 is masked"):
        strict.step(660)
    for bad in (670, -1, 1.5, None):
        with pytest.raises(ValueError, match=r"action must be an integer in \[0, 669\]"):
            strict.step(bad)


def test_registered_with_pettingzoo():
    import pettingzoo

    if not hasattr(pettingzoo, "make"):
        pytest.skip(f"PettingZoo {pettingzoo.__version__} has no registry")
    env = pettingzoo.make("aec", "deduction_envs/clue-v0", players=5, max_cycles=50)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{p}" for p in range(5)] and env.unwrapped.max_cycles == 50
