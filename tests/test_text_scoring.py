"""Scoring the multiplayer games' questions in bits (issue 66, item 3): each question weighed against the best from
the asker's knowledge, checked against slow reference computations, settled once its answer is in, and the rewards
built from it."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
from test_clue_entropy import reference

from agents import AlgoMaxEntropy, ClueEntropyAgent, GeneralizedClueExact
from agents.multiplayer import RandomSeatAgent
from deduction_envs.core.entropy import binary_entropy_bits
from deduction_envs.envs import algo_v0, clue_v0, generalized_clue_v0
from deduction_envs.reasoning.algo_hands import attack_probabilities
from deduction_envs.text import TextAECEnv
from deduction_envs.text.clue import move_text
from deduction_envs.text.scoring import efficiency


def agents_play(env: TextAECEnv, agents: list, seed: int) -> TextAECEnv:
    """A game of ``agents`` (one a seat), their actions played with :meth:`TextAECEnv.play_action`; each agent
    reads its seat's knowledge in the env. The rewards each agent was given are summed in ``env.totals``."""
    env.reset(seed=seed)
    raw = env.unwrapped
    for seat, agent in enumerate(agents):
        agent.reset(raw.rules, seat, seed=seed + seat)
        agent.knowledge = raw.knowledge[seat]
    env.totals = defaultdict(float)
    for name in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last(observe=False)
        env.totals[name] += reward
        if terminated or truncated:
            env.step(None)
            continue
        env.play_action(agents[raw.table.mover].act(raw.table.legal_mask()))
    return env


def test_efficiency_sums_expected_over_best_where_a_question_could_gain():
    assert efficiency([]) == 1.0
    assert efficiency([(0.0, 0.0, 0.0)]) == 1.0  # nothing to gain: not counted
    assert efficiency([(1.0, 0.5, 1.0), (0.2, 0.25, 0.25), (0.0, 0.0, 0.0)]) == pytest.approx(0.75 / 1.25)


def clue_expected_gains(engine, asker: int, suggestions: list, players: int) -> np.ndarray:
    """Slow reference: every consistent deal (all equally likely) through the plain-Python count of
    tests/test_clue_entropy.py, as bits gained: the case file's entropy less its expected entropy after the answer."""
    solution = engine.solve("exact")
    deals = np.unique(engine.sample(40 * int(solution.count), np.random.default_rng(0)), axis=0)
    assert len(deals) == solution.count  # every deal seen
    return solution.entropy - reference(deals, asker, players, False, suggestions)


def test_a_clue_suggestions_bits_are_the_slow_counts_and_the_best_is_the_most_of_any():
    env = TextAECEnv(clue_v0.env(players=3), score=True)
    env.reset(seed=3)
    raw, rng = env.unwrapped, np.random.default_rng(3)
    while raw.knowledge[raw.table.mover].engine.solve().count > 500:  # suggestions until the mover's deals are few
        legal = [a for a in np.flatnonzero(raw.table.legal_mask()) if raw.rules.decode(int(a)).kind != "accuse"]
        env.step(move_text(raw.rules, int(rng.choice(legal))))
    seat, mask = raw.table.mover, raw.table.legal_mask()
    you = raw.knowledge[seat]
    legal = np.flatnonzero(mask[: raw.rules.num_triples])
    slow = clue_expected_gains(you.engine, seat, [raw.rules.triple(int(a)) for a in legal], 3)
    for i in range(0, legal.size, max(1, legal.size // 12)):
        expected, best = env.text.question(seat, you, mask, [int(legal[i])])
        assert expected == pytest.approx(slow[i], abs=1e-9)
        assert best == pytest.approx(slow.max(), abs=1e-9)
    assert env.text.question(seat, you, mask, [raw.rules.end_action + 1]) is None  # not a question (a show id)


def test_an_algo_attacks_bits_are_its_answers_entropy_and_it_gains_its_answers_surprisal():
    env = agents_play(TextAECEnv(algo_v0.env(players=3), score=True), [AlgoMaxEntropy(), RandomSeatAgent(),
                                                                       RandomSeatAgent()], seed=4)  # fmt: skip
    scored = 0
    for agent in env.unwrapped.possible_agents:
        for gained, expected, best in env.bits(agent):
            # the answer is fixed by the hands, and every deal the seat's view allows is equally likely: an answer
            # of probability p removes -log2 p bits, and the attack is expected to remove H(p)
            p = 2.0 ** -gained
            assert expected == pytest.approx(float(binary_entropy_bits(p)), abs=1e-9)
            assert 0.0 <= expected <= best + 1e-12 and best <= 1.0 + 1e-12
            scored += 1
    assert scored >= 10


def test_an_algo_attacks_best_is_the_most_informative_legal_attack():
    env = TextAECEnv(algo_v0.env(players=2), score=True)
    env.reset(seed=1)
    raw = env.unwrapped
    seat, mask = raw.table.mover, raw.table.legal_mask()
    you = raw.knowledge[seat]
    hits = attack_probabilities(raw.rules, you.view)
    legal = np.flatnonzero(mask[: raw.rules.num_attacks])
    even = legal[np.argmin(np.abs(hits[legal] - 0.5))]
    expected, best = env.text.question(seat, you, mask, [int(even)])
    assert expected == best == pytest.approx(float(binary_entropy_bits(hits[even])))
    assert env.text.question(seat, you, mask, [raw.rules.stop_action]) is None


def test_a_question_is_settled_when_its_answer_is_in_and_only_scored_seats_are_scored():
    env = TextAECEnv(clue_v0.env(players=3), score=["player_0"])
    env.reset(seed=0)
    raw = env.unwrapped
    assert raw.agent_selection == "player_0"
    env.step("suggest scarlet, rope, hall")
    if raw.table.state.phase == 1:  # refuted: the refuter must show a card; not settled yet
        assert env.bits("player_0") == []
        refuter = raw.agent_selection
        card = np.flatnonzero(raw.table.legal_mask())[0] - raw.rules.end_action - 1
        env.step(f"show {raw.rules.card_names[card]}")
        assert raw.agent_selection == "player_0" and refuter != "player_0"
    (gained, expected, best), = env.bits("player_0")
    assert raw.infos["player_0"]["bits"] == (gained, expected, best)
    assert gained > 0 and 0 < expected <= best
    assert env.efficiency("player_0") == pytest.approx(expected / best)
    assert env.bits("player_1") == [] and math.isnan(env.efficiency("player_1"))


@pytest.mark.parametrize("reward", ["bits", "efficiency"])
def test_the_rewards_add_each_questions_bits_or_efficiency_to_the_game(reward):
    def game(reward: str) -> TextAECEnv:
        env = TextAECEnv(algo_v0.env(players=2), score=["player_0"], reward=reward)
        return agents_play(env, [AlgoMaxEntropy(), RandomSeatAgent()], seed=2)

    plain, shaped = game("game"), game(reward)
    bits = shaped.bits("player_0")
    assert bits == plain.bits("player_0") and bits
    extra = sum(e if reward == "bits" else (e / b if b > 1e-9 else 1.0) for _, e, b in bits)
    assert shaped.totals["player_0"] == pytest.approx(plain.totals["player_0"] + extra)
    assert shaped.totals["player_1"] == plain.totals["player_1"] and plain.totals["player_1"] != 0


def test_a_generalized_clue_ask_scores_the_same_in_one_reply_or_a_sub_step_at_a_time():
    def game(text: bool) -> list:
        env = TextAECEnv(generalized_clue_v0.env(), score=True)
        agents = [GeneralizedClueExact(), RandomSeatAgent(), GeneralizedClueExact()]
        if not text:
            return [env.bits(a) for a in agents_play(env, agents, seed=5).unwrapped.possible_agents]
        env.reset(seed=5)
        raw = env.unwrapped
        rules = raw.rules
        for seat, agent in enumerate(agents):
            agent.reset(rules, seat, seed=5 + seat)
            agent.knowledge = raw.knowledge[seat]
        for _ in env.agent_iter():
            _, _, terminated, truncated, _ = env.last(observe=False)
            if terminated or truncated:
                env.step(None)
                continue
            agent = agents[raw.table.mover]
            step = agent.act(raw.table.legal_mask())
            if not isinstance(agent, GeneralizedClueExact):
                env.play_action(step)
            elif step < rules.cards:
                env.step(f"show {step}")
            else:  # an ask or a guess: its whole move in one reply
                *cards, _ = agent._queue
                agent._queue = []
                kind = "guess" if step == rules.guess_action else f"ask P{step - rules.cards} about"
                env.step(f"{kind} {', '.join(map(str, cards))}")
        return [env.bits(a) for a in raw.possible_agents]

    whole = game(True)
    assert whole == game(False)
    assert all(0.0 <= e <= b + 1e-12 for bits in whole for _, e, b in bits) and sum(map(len, whole)) >= 5
    assert whole[1] and all(e < b for _, e, b in whole[1][:3])  # the random seat's asks, scored too


def test_bad_scoring_options_are_refused_with_the_agents_named():
    with pytest.raises(ValueError, match="a list of agents"):
        TextAECEnv(clue_v0.env(players=3), score="player_0")
    with pytest.raises(ValueError, match="unknown agent 'player_7'; the agents are player_0, player_1, player_2"):
        TextAECEnv(clue_v0.env(players=3), score=["player_7"])
    with pytest.raises(ValueError, match="reward must be one of game, bits, efficiency"):
        TextAECEnv(clue_v0.env(players=3), score=True, reward="points")
    with pytest.raises(ValueError, match="needs score"):
        TextAECEnv(clue_v0.env(players=3), reward="bits")
    env = TextAECEnv(clue_v0.env(players=3), score=True)
    with pytest.raises(RuntimeError, match="reset"):
        env.play_action(0)
    env.reset(seed=0)
    show = env.unwrapped.rules.end_action + 1  # a card shown: not legal at the start of a turn
    for action in (show, -1, 10**6, 1.5, "0"):
        with pytest.raises(ValueError, match=r"player_0 may not play .* now; its legal actions: 0, 1, 2"):
            env.play_action(action)
    assert env.unwrapped.table.actions == [] and env.bits("player_0") == []


def test_the_clue_entropy_agent_asks_nearly_the_best_and_random_suggestions_do_not():
    players = [ClueEntropyAgent(), RandomSeatAgent(), ClueEntropyAgent(), RandomSeatAgent()]
    env = agents_play(TextAECEnv(clue_v0.env(players=4), score=True), players, seed=0)
    raw = env.unwrapped
    entropy_agents = [env.efficiency(a) for a in raw.possible_agents[::2]]
    random_bits = [bits for a in raw.possible_agents[1::2] for bits in env.bits(a)]
    # the agent's suggestions are the best by its own draws of the deals; these scores draw their own
    assert min(entropy_agents) > 0.95 and all(env.bits(a) for a in raw.possible_agents[::2])
    assert random_bits and efficiency(random_bits) < 0.8
