"""The multiplayer entropy analysis: turns and shows from a traced game, by hand and on real games."""

from __future__ import annotations

import numpy as np
import pytest

from train.experiments import multiplayer_analysis as analysis


def test_turns_take_in_their_responses_and_shows_say_what_they_gave_away():
    """A hand-made trace of three seats: seat 0 suggests (spectators learn who refuted), seat 1 shows (seat 0
    learns the card), seat 0 ends its turn; then seat 1 suggests and nobody refutes."""
    trace = {
        "names": ["a", "b", "c"],
        "movers": [0, 1, 0, 1],
        "kinds": ["suggest", "show", "end", "suggest"],
        # entropy of each seat before the first step and after each step
        "entropy": [[10, 10, 10], [9.5, 10, 9], [8, 10, 9], [8, 10, 9], [7, 8, 8.5]],
    }
    turns, shows = analysis.turns_of(trace)
    assert [(t["actor"], t["kind"]) for t in turns] == [(0, "suggest"), (1, "suggest")]
    assert turns[0]["gains"].tolist() == [2.0, 0.0, 1.0]  # its own 0.5 and 1.5 bits, seat 2's 1 bit
    assert turns[1]["gains"].tolist() == [1.0, 2.0, 0.5]
    assert shows == [{"responder": 1, "asker": 1.5, "spectators": 0.0}]
    rows = analysis.per_game([trace], {"suggest"})
    assert rows["a"][0]["by"]["questions"] == (1, 2.0, 1.0)
    assert rows["b"][0]["by"]["questions"] == (1, 2.0, 1.5)
    assert analysis.ratio(rows["a"], "questions") == pytest.approx(0.5)


@pytest.mark.parametrize("game", list(analysis.TABLES))
def test_a_traced_game_accounts_for_every_bit_and_a_shown_card_teaches_only_the_asker(game):
    kwargs, names = analysis.TABLES[game]
    trace = analysis.play_traced(game, kwargs, names, seed=3)
    entropy = np.array(trace["entropy"])
    assert len(trace["movers"]) == len(trace["kinds"]) == entropy.shape[0] - 1
    turns, shows = analysis.turns_of(trace)
    # Every step's gains land in exactly one turn (steps before the first turn only at the start): per seat,
    # the turns' gains add up to the entropy it lost over the game.
    total = sum(t["gains"] for t in turns)
    assert np.allclose(total, entropy[0] - entropy[-1])
    # The card a seat shows is seen by the asker alone: the spectators learn nothing from it.
    assert all(s["spectators"] == pytest.approx(0, abs=1e-9) for s in shows)
    if game != "algo_v0":
        assert shows and any(s["asker"] > 0 for s in shows)


def test_a_quick_run_writes_its_tables_and_figures(tmp_path):
    finished = analysis.main(["--quick", "--games", "clue_v0", "--output", str(tmp_path), "--no-progress"])
    text = (tmp_path / "multiplayer_analysis.md").read_text()
    assert "Least leak per bit gained by its questions first" in text and "| entropy | questions |" in text
    assert (tmp_path / "multiplayer_analysis_clue_v0.png").stat().st_size > 10_000
    assert finished.run.quick


def test_play_game_takes_one_listener_a_seat():
    from agents import RandomSeatAgent, play_game
    from deduction_envs.games.clue import ClueRules

    with pytest.raises(ValueError, match="3 seats, got 2 listeners"):
        play_game(ClueRules(3), [RandomSeatAgent() for _ in range(3)], seed=0, listeners=[print, print])
