"""What every multiplayer game declares about itself, checked the same way for each (the registry's games, their
variants, and the toy duel of the tests): one suite, parametrised, instead of a copy per game."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import registered
from toy_duel import DUEL, DuelRules
from toy_duel import raw_env as duel_env

from agents import play_match
from agents.roster import seat_agent
from deduction_envs import registry
from deduction_envs.core.multiplayer import MultiplayerRules
from deduction_envs.text.aec import TextAECEnv, text_of

#: Each registry game at its default sizes and at variants that change who can win and what a seat is paid.
VARIANTS = [
    ("algo_v0", {}),
    ("algo_v0", {"players": 4}),
    ("clue_v0", {"players": 3}),
    ("clue_v0", {"players": 6}),
    ("clue_v0", {"players": 3, "board": True}),
    ("generalized_clue_v0", {}),
    ("generalized_clue_v0", {"cards": 9, "hidden": 1, "players": 4}),
]


def rules_of(env_id: str, sizes: dict) -> MultiplayerRules:
    return DuelRules() if env_id == "duel" else registry.game(env_id).make_rules(**sizes)


def test_the_variants_cover_every_multiplayer_game_of_the_registry():
    assert {g.env_id for g in registry.games(multiplayer=True)} == {env_id for env_id, _ in VARIANTS}


def random_game(rules: MultiplayerRules, rng: np.random.Generator, limit: int = 20_000) -> list[float] | None:
    """Each seat's reward after uniformly random legal play, or None if the game did not end within ``limit``."""
    state = rules.new_game(rng)
    for _ in range(limit):
        if rules.is_over(state):
            return list(rules.rewards(state))
        rules.apply(state, int(rng.choice(np.flatnonzero(rules.legal_mask(state)))))
    return None


@pytest.mark.parametrize(("env_id", "sizes"), [*VARIANTS, ("duel", {})], ids=lambda v: str(v))
def test_every_finished_games_rewards_lie_in_the_declared_range_and_reach_both_ends(env_id, sizes):
    """A forfeit is scored at ``reward_range[0]`` (train.llm): the range must be the game's own, not a guess. Random
    play explores the odd endings (nobody wins, ties); the game's own reference agent, at every seat, plays games
    that someone wins and someone loses outright."""
    rules = rules_of(env_id, sizes)
    assert isinstance(rules, MultiplayerRules)
    low, high = rules.reward_range
    assert low < high
    seen = [r for r in (random_game(rules, np.random.default_rng(seed)) for seed in range(60)) if r is not None]
    assert len(seen) >= 50, "random play should end most games"
    if env_id != "duel":
        game = registry.game(env_id)
        match = play_match(rules, [seat_agent(env_id, game.opponent) for _ in range(rules.players)],
                           2 * rules.players, seed=0)  # fmt: skip
        seen += [list(record.rewards) for record in match.games]
    rewards = np.array(seen)
    assert rewards.min() >= low - 1e-12 and rewards.max() <= high + 1e-12
    assert np.isclose(rewards.min(), low) and np.isclose(rewards.max(), high), (rewards.min(), rewards.max())


@pytest.mark.parametrize(("env_id", "sizes"), VARIANTS, ids=lambda v: str(v))
def test_each_game_names_its_text_in_the_registry_and_the_text_env_plays_it(env_id, sizes):
    """The text class comes from the game's entry (not from a list of rules types in the text layer); a variant the
    class does not play (Clue on its board) is refused by the class, with its own message."""
    game = registry.game(env_id)
    raw = game.make_raw_env(**sizes)
    if sizes.get("board"):
        with pytest.raises(TypeError, match="without the board"):
            text_of(raw)
        return
    text = text_of(raw)
    assert type(text) is registry.load(game.text) and text.rules is raw.rules
    env = TextAECEnv(game.make_raw_env(**sizes))
    env.reset(seed=1)
    assert env.observe(env.agent_selection).strip()


def test_a_game_without_a_text_is_refused_by_the_text_env_naming_those_with_one():
    with registered(DUEL):
        with pytest.raises(TypeError, match="algo_v0, clue_v0, generalized_clue_v0"):
            TextAECEnv(duel_env())


def test_a_reward_wrapper_adds_through_the_envs_public_seam_and_an_unknown_agent_is_refused():
    env = registry.game("algo_v0").make_raw_env()
    env.reset(seed=0)
    agent = env.agent_selection
    env.add_reward(agent, 0.25)
    assert env.rewards[agent] == 0.25 and env.last()[1] == 0.25
    with pytest.raises(ValueError, match="not at the table"):
        env.add_reward("nobody", 1.0)
