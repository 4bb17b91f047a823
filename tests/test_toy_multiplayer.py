"""A toy multiplayer game added as docs/design.md says: one module (rules, knowledge, env: ``tests/toy_duel.py``)
and one registry entry. It then passes PettingZoo's tests, trains, is evaluated, plays in the terminal and gets
a docs page, with no other change anywhere."""

from __future__ import annotations

import builtins
import json

import numpy as np
import pytest
from conftest import registered
from pettingzoo.test import api_test, seed_test
from toy_duel import DUEL, DuelRules, raw_env

from agents import play_match
from agents.roster import seat_agent
from deduction_envs import registry
from train import cli, evaluate
from train.tasks import task_for
from train.tasks.seats import SeatsTask
from train.tools import play


@pytest.fixture
def duel():
    """Duel registered for one test, and removed after it."""
    with registered(DUEL):
        yield DUEL


def test_the_rules_by_hand():
    rules = DuelRules(5)
    state = rules.new_game(np.random.default_rng(0))
    other = [c for c in range(5) if c != state.hidden and c not in state.hands[0]]
    assert sorted((*state.hands[0], *state.hands[1], state.hidden)) == list(range(5))
    assert sorted(state.hands[1]) == other
    event = rules.apply(state, other[0])  # seat 0 asks about a card seat 1 holds: yes, and seat 1 moves
    assert event.yes and state.mover == 1
    rules.apply(state, 5 + state.hidden)  # seat 1 guesses right
    assert state.over and state.winner == 1 and rules.rewards(state) == [-1.0, 1.0]
    with pytest.raises(ValueError, match="cards must be odd"):
        DuelRules(6)


# api_test warns about every Dict observation, the {"observation", "action_mask"} form of PettingZoo's classic envs.
@pytest.mark.filterwarnings("ignore:Observation (space for each agent probably|is not a NumPy array):UserWarning")
def test_a_multiplayer_game_declared_once_plays_trains_evaluates_and_gets_a_page(duel, tmp_path, capsys, monkeypatch):
    assert registry.game("duel_v0") is duel and isinstance(task_for(cli.parse_args(["--env", "duel_v0"])), SeatsTask)
    env = registry.game("duel_v0").make_env()
    api_test(env, num_cycles=20)
    seed_test(lambda: registry.game("duel_v0").make_env(), num_cycles=20)
    result = play_match(DuelRules(), [seat_agent("duel_v0", "random") for _ in range(2)], games=20, seed=0)
    assert len(result.games) == 20 and result.wins(0) + result.wins(1) == 20  # every game has a winner
    # Training: python -m train, the seat task, the game's defaults (its opponent and evaluation opponents).
    output = tmp_path / "run"
    cli.main(["--env", "duel_v0", "--timesteps", "64", "--n-envs", "2", "--no-progress", "--eval-games", "8",
              "--output", str(output)])  # fmt: skip
    run = json.loads((output / "run.json").read_text())
    assert run["env"] == "duel_v0" and run["opponents"] == ["random"] and "| random | 8 |" in (
        output / "comparison.md"
    ).read_text()
    # Evaluation of the saved model (env and sizes from run.json).
    results = evaluate.main(["--model", str(output / "model.zip"), "--games", "6"])
    assert [r.opponent for r in results] == ["random"] and results[0].games == 6
    # The terminal game, through the registry's play entry.
    lines = iter(["ask 0", "ask 1", "guess 2"])

    def read(prompt: str = "") -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", read)
    capsys.readouterr()
    play.main(["duel", "--seed", "3"])
    said = capsys.readouterr().out
    assert "deal by player 0: you hold" in said and ("You win." in said or "You lose." in said or "Bye." in said)
    # Its docs page: the registry's facts, the env module's docstring, and the showcase's animated episode.
    from docs import env_pages
    from scripts.docs_media import write

    picture, animation = write("duel_v0", out=tmp_path)
    assert picture.read_bytes().startswith(b"\x89PNG") and animation.read_bytes().startswith(b"GIF")
    monkeypatch.setattr(env_pages, "MEDIA", tmp_path)
    page = env_pages.multiplayer_page(duel)
    assert page.startswith("duel_v0\n=======") and "Discrete(14)" in page and "Version History" in page
    assert raw_env().render_mode is None
