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
        "drawn": [[0, 0, 0]] * 5,  # no private draws (Clue)
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


def test_a_private_draw_is_nobodys_turn_and_is_counted_apart():
    """Algo: seat 0 attacks and misses, which ends its turn and gives seat 1 its draw: seat 1's 1.2-bit drop at
    that step is 0.5 bits of seat 0's miss and 0.7 of the card seat 1 drew, which goes to no turn (before issue
    64 all 1.2 counted as seat 0's leak)."""
    trace = {
        "names": ["a", "b"],
        "movers": [0, 1],
        "kinds": ["attack (miss)", "attack (hit)"],
        "entropy": [[10, 10], [9, 8.8], [8, 8.3]],
        "drawn": [[0, 0], [0, 0.7], [0, 0]],
    }
    turns, _ = analysis.turns_of(trace)
    assert turns[0]["gains"].tolist() == pytest.approx([1.0, 0.5])
    assert turns[1]["gains"].tolist() == pytest.approx([1.0, 0.5])
    assert analysis.draws_of(trace, 1) == [0.7] and analysis.draws_of(trace, 0) == []
    rows = analysis.per_game([trace], {"attack (miss)", "attack (hit)"})
    assert rows["a"][0]["by"]["questions"] == pytest.approx((1, 1.0, 0.5)) and rows["b"][0]["draws"] == (1, 0.7)


@pytest.mark.parametrize("game", list(analysis.TABLES))
def test_a_traced_game_accounts_for_every_bit_and_a_shown_card_teaches_only_the_asker(game):
    kwargs, names = analysis.TABLES[game]
    trace = analysis.play_traced(game, kwargs, names, seed=3)
    entropy = np.array(trace["entropy"])
    assert len(trace["movers"]) == len(trace["kinds"]) == entropy.shape[0] - 1
    turns, shows = analysis.turns_of(trace)
    # Every step's gains land in exactly one turn (steps before the first turn only at the start), or in a private
    # draw: per seat, the turns' gains and its draws add up to the entropy it lost over the game (the first
    # mover's draw at the deal comes before the first entropy read).
    total = sum(t["gains"] for t in turns) + np.array(trace["drawn"])[1:].sum(axis=0)
    assert np.allclose(total, entropy[0] - entropy[-1])
    draws = [bits for seat in range(len(names)) for bits in analysis.draws_of(trace, seat)]
    if game == "algo_v0":  # a drawn card rules itself out of the others' hands: it always tells something
        assert draws and all(bits > 0 for bits in draws)
    else:
        assert not draws
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
