"""The single-seat Gymnasium view of the multiplayer envs: every decision of the learner, every terminal reward."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents import ClueDeductionSheet, RandomSeatAgent
from agents.generalized_clue_agents import GeneralizedClueRandom
from deduction_envs.envs import algo_v0, clue_v0, generalized_clue_v0
from deduction_envs.envs.single_seat import SingleSeatEnv
from deduction_envs.games.clue import CluePhase


def clue_env(players=3, seat=None, opponents=None):
    opponents = opponents or [ClueDeductionSheet() for _ in range(players - 1)]
    return SingleSeatEnv(clue_v0.raw_env(players=players, probabilities=False), opponents, seat=seat)


def play(env, seed, rng):
    """A random learner's episode: its summed reward, how often it chose a card to show, whether it terminated."""
    observation, info = env.reset(seed=seed)
    total, shows = 0.0, 0
    while True:
        learner = env.env.possible_agents[env.learner]
        np.testing.assert_array_equal(observation, env.env.observe(learner)["observation"])  # the learner's own
        mask = env.action_masks()
        assert mask.any() and (mask == info["action_mask"]).all()
        assert env.env.table.mover == env.learner  # control is the learner's at every step
        shows += getattr(env.env.table.state, "phase", None) == CluePhase.SHOW
        observation, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        if terminated or truncated:
            return total, shows, terminated


def test_every_decision_of_the_learner_and_its_terminal_reward_whoever_ends_the_game():
    env = clue_env(players=3)
    rng = np.random.default_rng(0)
    outcomes = {"won": 0, "lost": 0, "shows": 0}
    for seed in range(12):
        total, shows, terminated = play(env, seed, rng)
        state = env.env.table.state
        assert terminated and total == pytest.approx(env.env.rules.rewards(state)[env.learner])
        outcomes["won" if state.winner == env.learner else "lost"] += 1
        outcomes["shows"] += shows
    assert outcomes["lost"] > 0 and outcomes["shows"] > 0  # opponents ended games; the learner chose cards to show


def test_seats_are_drawn_or_fixed_and_episodes_are_seeded():
    env = clue_env(players=4)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(20)}
    assert seats == {0, 1, 2, 3}
    fixed = clue_env(players=4, seat=2)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(5)} == {2}
    a, b = clue_env(players=4), clue_env(players=4)
    runs = [play(e, 7, np.random.default_rng(1)) for e in (a, b)]
    assert runs[0] == runs[1]


def test_opponents_hear_only_their_own_seats_events():
    env = clue_env(players=3, seat=0)
    heard = []
    for agent in env.opponents:
        observe = agent.observe
        agent.observe = lambda event, observe=observe, agent=agent: (heard.append((agent.seat, event)), observe(event))
    play(env, 3, np.random.default_rng(3))
    assert heard
    for seat, event in heard:
        if event.kind == "deal":
            assert all(hand == () for q, hand in enumerate(event.hands) if q != seat)
        if event.kind == "show" and seat not in (event.player, event.asker):
            assert event.card == -1


@pytest.mark.filterwarnings("ignore:.*masked action")
def test_checkers_a_masked_action_and_bad_arguments():
    env = SingleSeatEnv(algo_v0.raw_env(players=2), [RandomSeatAgent()])
    check_env(env, skip_render_check=True)
    env.reset(seed=0)
    masked = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(masked)
    assert terminated and reward == -1 and info["illegal_action"] == masked
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(ValueError, match="other seats"):
        SingleSeatEnv(clue_v0.raw_env(players=3), [ClueDeductionSheet()])
    with pytest.raises(ValueError, match="distinct"):
        agent = ClueDeductionSheet()
        SingleSeatEnv(clue_v0.raw_env(players=3), [agent, agent])
    with pytest.raises(ValueError, match="unwrapped"):
        SingleSeatEnv(clue_v0.env(players=3), [ClueDeductionSheet(), ClueDeductionSheet()])
    with pytest.raises(ValueError, match="seat"):
        SingleSeatEnv(algo_v0.raw_env(players=2), [RandomSeatAgent()], seat=2)


def test_generalized_clue_sub_steps_and_a_pool_of_opponents():
    def pool(rng):
        return [GeneralizedClueRandom() for _ in range(2)]

    env = SingleSeatEnv(generalized_clue_v0.raw_env(cards=8, hidden=2, players=3, max_rounds=3), pool)
    rng = np.random.default_rng(0)
    for seed in range(3):
        _, _, terminated = play(env, seed, rng)
        assert terminated or env.env.truncations[env.env.possible_agents[env.learner]]


def test_a_shadow_hears_the_learners_events_and_can_be_followed():
    shadow = ClueDeductionSheet()
    heard = []
    observe = shadow.observe
    shadow.observe = lambda event: (heard.append((shadow.seat, event)), observe(event))
    env = SingleSeatEnv(clue_v0.raw_env(players=4, probabilities=False), [ClueDeductionSheet() for _ in range(3)],
                        shadow=shadow)  # fmt: skip
    wrong = wins = 0
    for seed in range(16):
        heard.clear()
        env.reset(seed=seed)
        learner = env.learner
        assert shadow.seat == learner
        while True:
            action = env.shadow_action()
            assert env.action_masks()[action]
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
        state = env.env.table.state
        wins += state.winner == learner
        wrong += bool(state.out[learner])  # accused wrongly: its knowledge missed an event
        assert heard and {seat for seat, _ in heard} == {learner}
        for _, event in heard:
            if event.kind == "deal":
                assert all(hand == () for q, hand in enumerate(event.hands) if q != learner)
            if event.kind == "show" and learner not in (event.player, event.asker):
                assert event.card == -1
    assert wrong == 0 and wins > 0
    with pytest.raises(RuntimeError, match="reset"):
        env.shadow_action()
    with pytest.raises(RuntimeError, match="no shadow"):
        clue_env(players=3).shadow_action()
    agents = [ClueDeductionSheet(), ClueDeductionSheet()]
    with pytest.raises(ValueError, match="must not be one of the opponents"):
        SingleSeatEnv(clue_v0.raw_env(players=3), agents, shadow=agents[0])
    with pytest.raises(ValueError, match="SeatAgent"):
        SingleSeatEnv(clue_v0.raw_env(players=3), agents, shadow="deduction_sheet")


def test_maskable_ppo_learns_through_it_under_subprocesses():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = SubprocVecEnv([make_algo_env, make_algo_env], start_method="spawn")
    try:
        model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(128)
        assert model.num_timesteps >= 128
    finally:
        vec.close()


def make_algo_env():
    return SingleSeatEnv(algo_v0.raw_env(players=2), [RandomSeatAgent()])
