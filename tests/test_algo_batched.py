"""Batched Algo's rules (issue 61) against AlgoRules: the same deal for the same seed, the same mover and legal
actions at every step, the same position after each move (hands, face-up cards, the drawn card, the deck, the
numbers ruled out), the same end and rewards, on random seeded games."""

from __future__ import annotations

import numpy as np
import pytest

from deduction_envs.core.multiplayer import Table
from deduction_envs.games.algo import AlgoRules
from deduction_envs.games.algo_batched import BatchedAlgoRules


def bits(cards) -> int:
    return sum(1 << int(c) for c in cards)


@pytest.mark.parametrize("sizes", [{"players": 2}, {"players": 3}, {"players": 4}, {"players": 2, "numbers": 6},
                                   {"players": 3, "hand_size": 2, "numbers": 5}])  # fmt: skip
def test_every_game_is_the_same_game_as_algo_rules(sizes):
    rules, n = AlgoRules(**sizes), 16
    batched = BatchedAlgoRules(rules, n)
    batched.reset(seeds=range(n))
    tables = [Table(rules, np.random.default_rng(seed), [lambda event: None] * rules.players) for seed in range(n)]
    rng, compared, kinds = np.random.default_rng(rules.players), 0, set()
    while not all(t.over for t in tables):
        masks = batched.legal_masks().copy()
        actions = np.zeros(n, dtype=np.int64)
        for g, table in enumerate(tables):
            state = table.state
            assert batched.hands[g].tolist() == [bits(h) for h in state.hands]
            assert batched.revealed[g].tolist() == [bits(r) for r in state.revealed]
            assert batched.drawn[g] == (-1 if state.drawn is None else state.drawn)
            assert batched.deck_left[g] == len(state.deck) and batched.deck[g, : len(state.deck)].tolist() == state.deck
            assert batched.ruled_out[g].tolist() == [bits(state.ruled_out.get(c, ())) for c in range(rules.deck_size)]
            if table.over:
                assert batched.over[g] and not masks[g].any()
                continue
            assert batched.mover[g] == table.mover and (masks[g] == table.legal_mask()).all(), g
            legal = np.flatnonzero(masks[g])
            # A right guess now and then (the card's own number), so that hits, stops and reveals all happen.
            hidden = [a for a in legal if a < rules.num_attacks]
            right = [a for a in hidden if rules.decode(a).number == _card(rules, state, a) // 2]
            actions[g] = rng.choice(right) if right and rng.random() < 0.15 else rng.choice(legal)
        rewards, ended = batched.step(actions)
        for g, table in enumerate(tables):
            if table.over:
                continue
            event = table.step(int(actions[g]))
            kinds.add(event.move.kind + (" hit" if event.hit else ""))
            compared += 1
            assert ended[g] == table.over
            if table.over:
                assert rewards[g].tolist() == pytest.approx(rules.rewards(table.state))
            else:
                assert not rewards[g].any()
    assert compared > 8 * n and {"attack", "attack hit", "stop", "reveal"} <= kinds


def _card(rules, state, action):
    move = rules.decode(action)
    return state.hands[rules.target_player(state.mover, move.target)][move.position]


def test_deals_and_bad_input():
    rules = AlgoRules(2)
    batched = BatchedAlgoRules(rules, 3000, seed=0)
    batched.reset()
    hands = np.array([[bin(h).count("1") for h in row] for row in batched.hands])
    assert (hands == 4).all() and (batched.deck_left == 15).all() and (batched.drawn >= 0).all()
    together = batched.hands[:, 0] | batched.hands[:, 1] | (np.int64(1) << batched.drawn)
    assert ((batched.hands[:, 0] & batched.hands[:, 1]) == 0).all()
    for g in range(50):
        cards = {c for c in range(24) if together[g] >> c & 1} | set(batched.deck[g, :15].tolist())
        assert cards == set(range(24))
    drawn = np.bincount(batched.drawn, minlength=24) / 3000  # the drawn card uniform over the deck
    assert np.abs(drawn - 1 / 24).max() < 0.015
    with pytest.raises(ValueError, match="rules must be AlgoRules"):
        BatchedAlgoRules(object(), 2)
    with pytest.raises(ValueError, match="each row must be a shuffle"):
        batched.deal(np.array([0]), np.zeros((1, 24), dtype=np.int64))
    with pytest.raises(ValueError, match="is not legal now"):
        batched.step(np.full(3000, rules.stop_action))  # stopping is not legal before a hit


@pytest.mark.parametrize("sizes", [{"players": 2}, {"players": 3}, {"players": 4, "numbers": 8}])
def test_every_seats_observation_is_the_aec_envs(sizes):
    from deduction_envs.envs import algo_v0
    from deduction_envs.envs.algo_batched import BatchedAlgoSeats

    rules, n = AlgoRules(**sizes), 8
    seats = BatchedAlgoSeats(BatchedAlgoRules(rules, n))
    seats.reset(seeds=range(n))
    envs = [algo_v0.raw_env(**sizes, probabilities=False) for _ in range(n)]
    for seed, env in enumerate(envs):
        env.reset(seed=seed)
    rng, compared = np.random.default_rng(7), 0
    everyone = np.ones(n, dtype=bool)
    while not all(env.table.over for env in envs):
        for seat in range(rules.players):  # every seat's observation, the games over included
            theirs = seats.observe(np.full(n, seat), everyone)
            for g, env in enumerate(envs):
                np.testing.assert_array_equal(theirs[g], env.observe(f"player_{seat}")["observation"],
                                              err_msg=f"game {g} seat {seat}")  # fmt: skip
                compared += 1
        masks = seats.games.legal_masks()
        actions = np.zeros(n, dtype=np.int64)
        for g, env in enumerate(envs):
            if masks[g].any():
                legal = np.flatnonzero(masks[g])
                right = [a for a in legal if a < rules.num_attacks
                         and rules.decode(a).number == _card(rules, env.table.state, a) // 2]  # fmt: skip
                actions[g] = rng.choice(right) if right and rng.random() < 0.15 else rng.choice(legal)
        seats.step(actions)
        for g, env in enumerate(envs):
            if not env.table.over:
                env.step(int(actions[g]))
    assert compared > 20 * n


@pytest.mark.parametrize("sizes", [{"players": 2}, {"players": 3}, {"players": 4, "numbers": 8}])
def test_the_probability_pieces_are_the_aec_envs(sizes):
    """With ``probabilities=True`` every seat's observation (the hand posterior's number probabilities of every
    position included) equals ``algo_v0``'s at every step."""
    from deduction_envs.envs import algo_v0
    from deduction_envs.envs.algo_batched import BatchedAlgoSeats

    rules, n = AlgoRules(**sizes), 6
    seats = BatchedAlgoSeats(BatchedAlgoRules(rules, n), probabilities=True)
    seats.reset(seeds=range(n))
    envs = [algo_v0.raw_env(**sizes) for _ in range(n)]
    for seed, env in enumerate(envs):
        env.reset(seed=seed)
    rng, compared = np.random.default_rng(3), 0
    everyone = np.ones(n, dtype=bool)
    while not all(env.table.over for env in envs):
        for seat in range(rules.players):
            theirs = seats.observe(np.full(n, seat), everyone)
            bits = seats.entropy(everyone, np.full(n, seat))
            for g, env in enumerate(envs):
                np.testing.assert_array_equal(theirs[g], env.observe(f"player_{seat}")["observation"],
                                              err_msg=f"game {g} seat {seat}")  # fmt: skip
                assert bits[g] == env.entropy(f"player_{seat}")  # the entropy-shaped reward's bits
                compared += 1
        masks = seats.games.legal_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        seats.step(actions)
        for g, env in enumerate(envs):
            if not env.table.over:
                env.step(int(actions[g]))
    assert compared > 20 * n
    with pytest.raises(ValueError, match="probabilities must be True or False"):
        BatchedAlgoSeats(BatchedAlgoRules(rules, 2), probabilities=1)


class Draws:
    """A Python agent's generator replaying given uniforms: ``random()`` is the next, ``choice(pool)`` is
    ``pool[int(u * len(pool))]``."""

    def __init__(self, uniforms) -> None:
        self.uniforms = list(uniforms)

    def random(self) -> float:
        return self.uniforms.pop(0)

    def choice(self, pool):
        pool = np.asarray(pool)
        return pool[int(self.uniforms.pop(0) * len(pool))]


@pytest.mark.parametrize(("sizes", "epsilon", "others"), [({"players": 2}, 0.3, False), ({"players": 3}, 1.0, False),
                                                           ({"players": 2, "numbers": 6}, 0.1, True)])  # fmt: skip
def test_the_epsilon_greedy_twin_decides_as_its_python_agent(sizes, epsilon, others):
    """Every decision of every seat, or (``others``) random moves with the agents only following the game, and
    their decision compared wherever one must reveal a card (the deck empty after a miss)."""
    from agents.algo_agents import AlgoEpsilonGreedy
    from agents.algo_batched import BatchedEpsilonGreedy, batched_agent
    from deduction_envs.envs import algo_v0
    from deduction_envs.envs.algo_batched import BatchedAlgoSeats

    rules, n = AlgoRules(**sizes), 12
    seats = BatchedAlgoSeats(BatchedAlgoRules(rules, n), probabilities=True)
    seats.reset(seeds=range(n))
    twin = BatchedEpsilonGreedy(epsilon)
    envs, agents = [], []
    for g in range(n):
        env = algo_v0.raw_env(**sizes, probabilities=False)
        seated = [AlgoEpsilonGreedy(epsilon) for _ in range(rules.players)]
        for seat, agent in enumerate(seated):
            agent.reset(rules, seat, seed=0)
        env.seat_listeners = {seat: agent.observe for seat, agent in enumerate(seated)}
        env.reset(seed=g)
        envs.append(env)
        agents.append(seated)
    rng, kinds = np.random.default_rng(sum(sizes.values())), {"attack": 0, "stop": 0, "reveal": 0}
    while not seats.games.over.all():
        uniforms = rng.random((n, 1))
        live, movers = ~seats.games.over, seats.games.mover
        actions = twin.act(seats, live, uniforms)
        masks = seats.games.legal_masks()
        for g in np.flatnonzero(live):
            env, agent = envs[g], agents[g][movers[g]]
            if others and seats.games.phase[g] != 2:  # a random move (a right guess now and then)
                legal = np.flatnonzero(masks[g])
                right = [a for a in legal if a < rules.num_attacks
                         and rules.decode(a).number == _card(rules, env.table.state, a) // 2]  # fmt: skip
                actions[g] = rng.choice(right) if right and rng.random() < 0.15 else rng.choice(legal)
                env.step(int(actions[g]))
                continue
            agent.rng = Draws(uniforms[g])
            expected = agent.act(env.observe(env.agent_selection)["action_mask"])
            assert actions[g] == expected, (g, int(movers[g]), int(seats.games.phase[g]))
            kinds[rules.decode(int(expected)).kind] += 1
            env.step(int(expected))
        seats.step(actions)
    if others:
        assert kinds["reveal"] > n // 2
    else:
        assert kinds["attack"] > 10 * n and kinds["stop"] > 0
    with pytest.raises(ValueError, match="Algo's compiled opponents are random, epsilon_greedy"):
        batched_agent("max_entropy")
    with pytest.raises(ValueError, match="epsilon must be a probability"):
        BatchedEpsilonGreedy(2)
