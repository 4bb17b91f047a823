"""Generalized Clue's compiled opponents (issue 61) make their Python agent's decision from the same information:
in seeded games where every seat is a Python agent fed its projected events by ``generalized_clue_v0``, the
compiled twin, reading the batched seats' knowledge and history, picks the same action at every step when both
are given the same random draws."""

from __future__ import annotations

import numpy as np
import pytest

from agents.generalized_clue_agents import GeneralizedClueScoreboard
from agents.generalized_clue_batched import BatchedScoreboard, batched_agent
from deduction_envs.envs import generalized_clue_v0
from deduction_envs.envs.generalized_clue_batched import BatchedGeneralizedClueSeats
from deduction_envs.games.generalized_clue import GeneralizedClueRules
from deduction_envs.games.generalized_clue_batched import BatchedGeneralizedClueRules


class Draws:
    """A stand-in for a Python agent's generator drawing from given uniform numbers in order, as the compiled
    agents read them: ``choice(pool)`` is ``pool[int(u * len(pool))]``; ``choice(pool, k, replace=False)`` draws
    ``k`` so, one after another, each removed from the pool."""

    def __init__(self, uniforms: np.ndarray) -> None:
        self.uniforms = list(uniforms)

    def integers(self, k: int) -> int:
        return int(self.uniforms.pop(0) * k)

    def choice(self, pool, size=None, replace=True):
        pool = list(np.asarray(pool).tolist())
        if size is None:
            return pool[int(self.uniforms.pop(0) * len(pool))]
        assert not replace
        return np.array([pool.pop(int(self.uniforms.pop(0) * len(pool))) for _ in range(size)], dtype=np.int64)


@pytest.mark.parametrize("sizes", [(12, 2, 3), (14, 2, 3), (10, 1, 2), (16, 3, 4)])
def test_the_scoreboard_decides_as_its_python_agent(sizes):
    rules, n = GeneralizedClueRules(*sizes), 12
    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(rules, n))
    seats.reset(seeds=range(n))
    twin, draws = BatchedScoreboard(), rules.cards + 1
    envs, agents = [], []
    for g in range(n):
        env = generalized_clue_v0.raw_env(*sizes, probabilities=False)
        seated = [GeneralizedClueScoreboard() for _ in range(rules.players)]
        for seat, agent in enumerate(seated):
            agent.reset(rules, seat, seed=0)
        env.seat_listeners = {seat: agent.observe for seat, agent in enumerate(seated)}
        env.reset(seed=g)
        envs.append(env)
        agents.append(seated)
    rng = np.random.default_rng(sum(sizes))
    kinds = {"ask": 0, "guess": 0, "show": 0, "spoof": 0, "steps": 0}
    while not seats.games.over.all():
        uniforms = rng.random((n, draws))
        live, movers = ~seats.games.over, seats.games.mover
        actions = twin.act(seats, live, uniforms)
        for g in np.flatnonzero(live):
            env, agent = envs[g], agents[g][movers[g]]
            agent.rng = Draws(uniforms[g])
            expected = agent.act(env.observe(env.agent_selection)["action_mask"])
            assert actions[g] == expected, (g, int(movers[g]), seats.games.phase[g])
            phase = int(seats.games.phase[g])
            kinds["steps"] += 1
            kinds["show"] += phase == 3
            kinds["guess"] += phase == 0 and expected == rules.guess_action
            kinds["ask"] += phase == 0 and expected != rules.guess_action
            kinds["spoof"] += phase == 0 and seats.games.turns[g, movers[g]] == 1
            env.step(int(expected))
        seats.step(actions)
    assert kinds["guess"] == n * rules.players and kinds["ask"] > 3 * n and kinds["show"] > n
    assert kinds["spoof"] >= n


def test_random_and_bad_input():
    rules = GeneralizedClueRules(12, 2, 3)
    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(rules, 4))
    seats.reset(seeds=range(4))
    every = np.ones(4, dtype=bool)
    actions = batched_agent("random").act(seats, every, np.full((4, 1), 0.5))
    assert seats.games.legal_masks()[np.arange(4), actions].all()
    with pytest.raises(ValueError, match="Generalized Clue's compiled opponents are random, scoreboard"):
        batched_agent("exact")
    with pytest.raises(ValueError, match=r"uniforms must be \(4, 13\)"):
        batched_agent("scoreboard").act(seats, every, np.zeros((4, 3)))
