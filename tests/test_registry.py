"""The one registry of games: every table of game names reads it, and a game added there needs nothing else.

A toy game declared here (its rules in a few lines, one registry entry) gets a registered Gymnasium id, an
env that Gymnasium's checker passes, random and reference play, and ``python -m train`` and
``train.evaluate`` end to end, with no other file touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import gymnasium as gym
import numpy as np
import pytest
from conftest import registered
from gymnasium.utils.env_checker import check_env

from agents import ISES, RandomAgent
from agents.evaluation import evaluate as evaluate_agent
from agents.roster import agent_names, seat_agent
from deduction_envs import registry
from deduction_envs.core.rules import DeductionRules, int_field
from deduction_envs.envs import env_rules
from train import cli, evaluate
from train.multiplayer import multiplayer_envs
from train.tools import play


@dataclass(frozen=True)
class HigherLower(DeductionRules):
    """Find a number in ``0..n-1``; each query names one and hears lower, equal or higher."""

    n: int = 8
    name: ClassVar[str] = "HigherLower"
    default_max_steps: ClassVar[int] = 8

    def __post_init__(self) -> None:
        int_field(self, "n", low=2, high=1000)

    num_secrets = property(lambda self: self.n)
    num_actions = property(lambda self: self.n)
    secret_nvec = property(lambda self: (self.n,))
    action_nvec = property(lambda self: (self.n,))
    feedback_nvec = property(lambda self: (3,))

    def _compute_feedback(self, action, secrets):
        secrets = np.arange(self.n) if secrets is None else np.asarray(secrets)
        return (np.sign(secrets - action) + 1).astype(self.feedback_dtype)  # 0 lower, 1 equal, 2 higher

    def secret_components(self, secrets):
        return np.asarray(secrets).reshape(-1, 1)

    def action_components(self, actions):
        return np.asarray(actions).reshape(-1, 1)

    def is_terminal(self, action, feedback, information_set):
        return information_set.size == 1  # the number is known

    def format_action(self, action):
        return str(int(action))

    def parse_action(self, text):
        return int(text)

    def format_feedback(self, feedback):
        return ("lower", "equal", "higher")[int(feedback)]

    def render_rgb(self, history, information_set, max_steps):
        return np.zeros((8, 8 * self.n, 3), dtype=np.uint8)


TOY = registry.Game("HigherLower", "HigherLower-v0", f"{__name__}:HigherLower")


@pytest.fixture
def toy():
    """The toy game registered for one test, and removed after it (the registry and Gymnasium's)."""
    with registered(TOY):
        yield TOY


def test_a_game_declared_once_gets_an_env_an_id_play_training_and_evaluation(toy, tmp_path, capsys):
    assert registry.game("HigherLower") is registry.game("HigherLower-v0") is toy
    env = gym.make("HigherLower-v0", n=6)
    check_env(env.unwrapped)
    assert env_rules("HigherLower-v0", n=6) == HigherLower(6)
    random = evaluate_agent(RandomAgent(), "HigherLower-v0", {"n": 6})  # every secret, through the one loop
    assert random.episodes == 6 and 1 <= random.steps.min() and random.steps.max() <= 8
    # By hand: the first query (2 or 3) finds one number in 1 step and leaves two and three numbers, each of
    # which one more query splits into single numbers: 1 + 2 * 2 + 3 * 2 = 11 steps over the six secrets.
    assert evaluate_agent(ISES(), "HigherLower-v0", {"n": 6}).mean_steps == pytest.approx(11 / 6)
    output = tmp_path / "run"
    cli.main(["--env", "HigherLower-v0", "--size", "n=6", "--timesteps", "64", "--n-envs", "2",
                   "--no-progress", "--eval-time-limit", "0.005", "--output", str(output)])  # fmt: skip
    assert "| ISES |" in (output / "comparison.md").read_text()
    evaluate.main(["--model", str(output / "model.zip"), "--env", "HigherLower-v0", "--size", "n=6",
                   "--eval-time-limit", "0.005"])  # fmt: skip
    assert (output / "evaluation-seed0.md").exists()


def test_the_multiplayer_tables_are_the_registrys():
    assert multiplayer_envs() == ["algo_v0", "clue_v0", "generalized_clue_v0"]
    assert set(play.multiplayer_games()) == {"algo", "clue"}
    for game in registry.games(multiplayer=True):
        assert agent_names(game.env_id) == list(game.agents)
        assert game.opponent in game.agents and set(game.evaluation) <= set(game.agents)
        for name in game.agents:
            assert seat_agent(game.env_id, name).name == name
        assert game.make_raw_env().rules == game.make_rules()  # the default sizes are the rules'
    with pytest.raises(ValueError, match="unknown game 'Chess'; the games are Mastermind-v0"):
        registry.game("Chess")
    with pytest.raises(ValueError, match="a game 'Mastermind' is registered already"):
        registry.register_game(registry.Game("Mastermind", "Other-v0", "x:Y"))


def test_the_registry_pairs_multiplayer_rules_with_their_seat_knowledge():
    """The rules do not import the reasoning layer: the registry makes a seat's knowledge."""
    from deduction_envs.games.algo import AlgoRules
    from deduction_envs.reasoning import AlgoKnowledge

    knowledge = registry.new_knowledge(AlgoRules(players=3), 2)
    assert isinstance(knowledge, AlgoKnowledge) and knowledge.player == 2
    with pytest.raises(ValueError, match=r"player must be an integer in \[0, 2\], got 3"):
        registry.new_knowledge(AlgoRules(players=3), 3)
    with pytest.raises(ValueError, match="HigherLower is not the rules of a registered multiplayer game"):
        registry.new_knowledge(HigherLower(), 0)


@pytest.mark.parametrize("game", registry.games(multiplayer=True), ids=lambda g: g.env_id)
def test_the_strict_mode_has_one_name_in_both_kinds_of_env_and_the_old_one_warns(game):
    """``illegal_action="raise"`` as in the Gymnasium envs; ``strict=True`` still works for one version."""
    env = game.make_raw_env(illegal_action="raise")
    env.reset(seed=0)
    masked = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="is masked"):
        env.step(masked)
    with pytest.warns(DeprecationWarning, match="strict is deprecated: give illegal_action='raise'"):
        assert game.make_raw_env(strict=True).illegal_action == "raise"
    with pytest.raises(ValueError, match="illegal_action must be 'end' or 'raise', got 'waste'"):
        game.make_raw_env(illegal_action="waste")
    assert gym.make("Mastermind-v0", illegal_action="raise").unwrapped._illegal_action == "raise"


@pytest.mark.parametrize("game", registry.games(multiplayer=True), ids=lambda g: g.env_id)
def test_last_after_every_agent_has_left_says_to_reset(game):
    """``last()`` after the game had ended and every agent had stepped None raised ``KeyError: 'player_N'``, from
    the raw env and through PettingZoo's order wrapper alike."""
    for env in (game.make_raw_env(), game.make_env()):
        env.reset(seed=0)
        for _ in env.agent_iter(10_000):
            observation, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
        assert env.agents == []
        with pytest.raises(RuntimeError, match=r"the game is over and every agent has left .* reset\(\) to play"):
            env.last()
        env.reset(seed=1)
        assert env.last()[2] is False  # and a reset plays again


def test_agents_exports_every_agent_of_the_roster_and_the_old_generalized_clue_names_warn():
    import agents

    makers = {a.maker.split(":")[1] for g in registry.games(multiplayer=True) for a in g.agents.values()}
    assert makers <= set(agents.__all__), sorted(makers - set(agents.__all__))  # Velma was missing
    from agents.generalized_clue_agents import GeneralizedClueExact
    from deduction_envs.games.generalized_clue import GeneralizedClueEvent

    with pytest.warns(DeprecationWarning, match="agents.GCExact is deprecated: it is now GeneralizedClueExact"):
        assert agents.GCExact is GeneralizedClueExact
    import deduction_envs.games.generalized_clue as rules_module

    with pytest.warns(DeprecationWarning, match="GCEvent is deprecated: it is now GeneralizedClueEvent"):
        assert rules_module.GCEvent is GeneralizedClueEvent
    with pytest.raises(AttributeError, match="has no attribute 'GCNothing'"):
        rules_module.GCNothing  # noqa: B018
