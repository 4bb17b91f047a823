"""Clue's compiled opponents (issue 61) make their Python agent's decision from the same information: in seeded
games where every seat is a Python agent fed its projected events by ``clue_v0``, the compiled twin, reading the
batched seats' knowledge, picks the same action at every decision when both are given the same random draws."""

from __future__ import annotations

import numpy as np
import pytest

from agents.batched import DRAWS, BatchedRandom
from agents.clue_agents import ClueDeductionSheet
from agents.clue_batched import BatchedDeductionSheet, batched_agent
from agents.multiplayer import RandomSeatAgent
from deduction_envs.envs import clue_v0
from deduction_envs.envs.clue_batched import BatchedClueSeats
from deduction_envs.games.clue import ClueRules
from deduction_envs.games.clue_batched import BatchedClueRules
from deduction_envs.games.clue_board import ClueBoardRules
from deduction_envs.games.clue_board_batched import batched_clue_rules


class Draws:
    """A stand-in for a Python agent's generator that draws from given uniform numbers, in order, as the compiled
    agents read them: ``integers(k)`` is ``int(u * k)``, ``choice(pool)`` is ``pool[int(u * len(pool))]``."""

    def __init__(self, uniforms: np.ndarray) -> None:
        self.uniforms = list(uniforms)

    def integers(self, k: int) -> int:
        return int(self.uniforms.pop(0) * k)

    def choice(self, pool):
        pool = np.asarray(pool)
        return pool[int(self.uniforms.pop(0) * len(pool))]


def decide_alike(rules: ClueRules, n: int, max_cycles: int, kinds: list[list[str]], seed: int) -> list[tuple]:
    """Seeded games of ``rules`` (the board's too) where seat ``s`` of game ``g`` is the Python agent
    ``kinds[g][s]`` (``random`` or ``deduction_sheet``) fed its projected events by ``clue_v0``, and the compiled
    twin decides the same from the batched seats, given the same draws, at every decision (asserted); returns
    every decision made, ``(kind of agent, action)``."""
    board = isinstance(rules, ClueBoardRules)
    seats = BatchedClueSeats(batched_clue_rules(rules, n), max_cycles=max_cycles)
    seats.reset(seeds=range(n))
    twins = {"random": BatchedRandom(), "deduction_sheet": BatchedDeductionSheet()}
    envs, agents = [], []
    for g in range(n):
        rule = {"accusations": rules.accusations} if board else {}
        env = clue_v0.raw_env(players=rules.players, board=board, probabilities=False, max_cycles=max_cycles, **rule)
        seated = [RandomSeatAgent() if kind == "random" else ClueDeductionSheet() for kind in kinds[g]]
        for seat, agent in enumerate(seated):
            agent.reset(rules, seat, seed=0)
        env.seat_listeners = {seat: agent.observe for seat, agent in enumerate(seated)}
        env.reset(seed=g)
        envs.append(env)
        agents.append(seated)
    rng, decisions = np.random.default_rng(seed), []
    while not seats.games.over.all():
        uniforms = rng.random((n, DRAWS))
        movers, live = seats.games.mover, ~seats.games.over
        actions = np.zeros(n, dtype=np.int64)
        for name, twin in twins.items():
            theirs = live & np.array([kinds[g][movers[g]] == name for g in range(n)])
            actions = np.where(theirs, twin.act(seats, theirs, uniforms), actions)
        for g in np.flatnonzero(live):
            env, agent = envs[g], agents[g][movers[g]]
            agent.rng = Draws(uniforms[g])
            expected = agent.act(env.observe(env.agent_selection)["action_mask"])
            assert actions[g] == expected, (g, int(movers[g]), kinds[g][movers[g]])
            decisions.append((kinds[g][movers[g]], int(expected)))
            env.step(int(expected))
        seats.step(actions)
        for g, env in enumerate(envs):
            assert seats.games.over[g] == (env.table.over or any(env.truncations.values()))
    return decisions


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_compiled_agents_decide_as_their_python_agents(players):
    rules, n = ClueRules(players), 16
    # Seat kinds a game: mostly deduction sheets (whose games end by accusations), a random seat in some.
    kinds = [["random" if (g + seat) % 5 == 0 else "deduction_sheet" for seat in range(players)] for g in range(n)]
    made = decide_alike(rules, n, 400, kinds, players)
    assert sum(kind == "random" for kind, _ in made) > 20 and sum(kind != "random" for kind, _ in made) > 100
    decisions = np.array([action for _, action in made])
    assert ((decisions >= rules.num_triples) & (decisions < rules.end_action)).sum() >= n // 2  # accusations
    assert (decisions > rules.end_action).sum() > 20  # cards shown


def test_bad_input_is_refused():
    seats = BatchedClueSeats(BatchedClueRules(ClueRules(3), 4))
    seats.reset(seeds=range(4))
    every = np.ones(4, dtype=bool)
    with pytest.raises(ValueError, match="Clue's compiled opponents are random, deduction_sheet"):
        batched_agent("velma")
    with pytest.raises(ValueError, match="games must be 4 bools"):
        batched_agent("random").act(seats, np.ones(4), np.zeros((4, DRAWS)))
    with pytest.raises(ValueError, match="uniforms must be"):
        batched_agent("deduction_sheet").act(seats, every, np.ones((4, DRAWS)))
    actions = batched_agent("deduction_sheet").act(seats, every, np.zeros((4, DRAWS)))
    assert seats.games.legal_masks()[np.arange(4), actions].all()
