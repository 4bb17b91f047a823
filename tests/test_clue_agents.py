"""Clue's first agents: the deduction-sheet player's rules, its strength, and matches with rotated seats."""

from __future__ import annotations

import numpy as np
import pytest

from agents import ClueDeductionSheet, RandomSeatAgent, SeatAgent, play_game, play_match
from deduction_envs.core.multiplayer import Table
from deduction_envs.games.clue import ClueEvent, ClueMove, CluePhase, ClueRules


class Watched(SeatAgent):
    """Wraps an agent; keeps every event it saw and every move it made."""

    keeps_knowledge = False

    def __init__(self, inner: SeatAgent) -> None:
        super().__init__()
        self.inner, self.name = inner, inner.name
        self.events: list[ClueEvent] = []
        self.moves: list[tuple[ClueMove, np.ndarray]] = []

    def reset(self, rules, seat, seed=None):
        super().reset(rules, seat, seed)
        self.inner.reset(rules, seat, seed)

    def observe(self, event):
        self.events.append(event)
        self.inner.observe(event)

    def act(self, mask):
        action = self.inner.act(mask)
        self.moves.append((self.rules.decode(action), self.inner.knowledge.sheet(exact=False).copy()))
        return action


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_deduction_sheet_player_accuses_only_when_certain_and_then_at_once(players):
    rules = ClueRules(players)
    for seed in range(6):
        agents = [Watched(ClueDeductionSheet()) for _ in range(players)]
        record = play_game(rules, agents, seed=seed)
        assert record.winner is not None  # someone always solves it; nobody accuses wrongly
        for agent in agents:
            for move, sheet in agent.moves:
                known = np.flatnonzero(sheet[:, players] == 1)
                if move.kind == "accuse":
                    assert tuple(known) == move.cards  # only what its sheet proves
                elif known.size == 3 and move.kind != "show":  # a refuter must show first
                    raise AssertionError("it knew the case file and did not accuse")
                if move.kind == "suggest":  # cards whose place it does not know, where there are any
                    for card, (start, size) in zip(
                        move.cards, zip(rules.category_starts, rules.category_sizes, strict=True), strict=True
                    ):
                        unknown = [c for c in range(start, start + size) if not (sheet[c] == 1).any()]
                        assert card in unknown or not unknown


def test_the_deduction_sheet_player_gives_away_as_few_cards_as_it_can():
    """Seat 0 holds Scarlet, Knife, Kitchen, Ballroom, Hall, Study and shows Scarlet to player 1 first.

    Asked again by player 1 for Scarlet, Knife and Hall, it shows Scarlet again; asked by player 2 for
    Scarlet, Knife and the Conservatory, it shows Scarlet, which player 1 has seen, rather than the Knife.
    """
    rules = ClueRules(3)
    hands = [
        ["Miss Scarlet", "Knife", "Kitchen", "Ballroom", "Hall", "Study"],
        ["Colonel Mustard", "Mr. Green", "Candlestick", "Lead Pipe", "Conservatory", "Dining Room"],
        ["Mrs. Peacock", "Professor Plum", "Revolver", "Wrench", "Billiard Room", "Lounge"],
    ]
    names = rules.card_names
    places = [next((p for p, hand in enumerate(hands) if name in hand), 3) for name in names]

    class Dealt(ClueRules):
        def new_game(self, rng, first=0):
            return self.state_of_deal(places, first)

    dealt = Dealt(3)
    agent = ClueDeductionSheet()
    agent.reset(dealt, 0, seed=0)
    table = Table(dealt, np.random.default_rng(0), [agent.observe, lambda e: None, lambda e: None], first=1)

    def suggest(*cards):
        table.step(rules.action_index(ClueMove("suggest", tuple(names.index(c) for c in cards))))

    def shown_by_seat_0() -> str:
        assert table.mover == 0
        action = agent.act(table.legal_mask())
        table.step(action)
        return names[rules.decode(action).card]

    suggest("Miss Scarlet", "Rope", "Library")  # player 1; player 2 passes; seat 0 can only show Scarlet
    assert shown_by_seat_0() == "Miss Scarlet"
    table.step(rules.end_action)
    suggest("Mr. Green", "Candlestick", "Conservatory")  # player 2; seat 0 passes, player 1 shows
    table.step(int(np.flatnonzero(table.legal_mask())[0]))  # player 1 shows its only matching card
    table.step(rules.end_action)
    suggest("Mrs. White", "Rope", "Library")  # seat 0's own turn, scripted; nobody can refute
    table.step(rules.end_action)
    suggest("Miss Scarlet", "Knife", "Hall")  # player 1 again: three matching cards
    assert shown_by_seat_0() == "Miss Scarlet"
    table.step(rules.end_action)
    suggest("Miss Scarlet", "Knife", "Conservatory")  # player 2: Scarlet or the Knife
    assert shown_by_seat_0() == "Miss Scarlet"


def test_the_deduction_sheet_player_beats_random_players_with_seats_rotated():
    rules = ClueRules(4)
    result = play_match(rules, [ClueDeductionSheet(), *(RandomSeatAgent() for _ in range(3))], games=40, seed=1)
    assert [lineup[0] for lineup in result.lineups[:4]] == [0, 1, 2, 3]  # every agent starts once in four
    assert result.win_rate(0) > 0.9
    same = play_match(rules, [ClueDeductionSheet(), *(RandomSeatAgent() for _ in range(3))], games=8, seed=1)
    assert [g.actions for g in same.games] == [g.actions for g in result.games[:8]]  # seeded: reproducible


def test_an_agent_sees_only_its_own_cards():
    rules = ClueRules(4)
    agents = [Watched(ClueDeductionSheet()) for _ in range(4)]
    play_game(rules, agents, seed=5)
    for agent in agents:
        deal = agent.events[0]
        assert [bool(h) for h in deal.hands] == [q == agent.seat for q in range(4)]
        for event in agent.events:
            if event.kind == "show":
                assert (event.card >= 0) == (agent.seat in (event.asker, event.refuter))
    phases = [agent.inner.knowledge.phase for agent in agents]
    assert all(phase == CluePhase.OVER for phase in phases)


def test_velmas_card_to_show_is_one_shown_to_the_asker_else_one_shown_to_the_most_players():
    from agents.clue_agents import ClueEntropyAgent
    from agents.multiplayer import reshown_card

    shown = np.zeros((4, 21), dtype=np.int8)
    shown[[1, 2], 5] = 1  # card 5 shown to players 1 and 2
    shown[1, 7] = 1  # card 7 to player 1
    cards = np.array([3, 5, 7])
    rng = np.random.default_rng(0)
    assert {reshown_card(cards, shown, 0, rng) for _ in range(40)} == {5, 7}  # shown to anyone, at random
    assert {reshown_card(cards, shown, 0, rng, most_shown=True) for _ in range(40)} == {5}  # to the most players
    assert {reshown_card(cards, shown, 1, rng, most_shown=True) for _ in range(40)} == {5, 7}  # the asker saw both
    assert reshown_card(np.array([3, 4]), shown, 0, rng, most_shown=True) is None  # none shown: the agent's fallback
    assert ClueDeductionSheet("velma").name == "deduction-sheet(velma-show)"
    assert (
        ClueEntropyAgent().name == "entropy(p>=1)"
        and ClueEntropyAgent(show_rule="own").name == "entropy(p>=1, own-show)"
    )
    for make in (ClueDeductionSheet, lambda rule: ClueEntropyAgent(show_rule=rule)):
        with pytest.raises(ValueError, match="show_rule must be one of own, velma"):
            make("often")


class NeverAccuses(SeatAgent):
    """Suggests, and shows when asked, but never accuses: a Clue game of such players never ends."""

    name = "never-accuses"
    keeps_knowledge = False

    def act(self, mask):
        legal = [a for a in np.flatnonzero(mask) if self.rules.decode(int(a)).kind != "accuse"]
        return int(legal[0])


def test_a_game_no_one_ends_raises_at_the_cap_or_is_truncated_as_nobodys_win():
    rules = ClueRules(3)
    with pytest.raises(RuntimeError, match="did not end within 300 actions"):
        play_game(rules, [NeverAccuses() for _ in range(3)], seed=1, max_actions=300)
    record = play_game(rules, [NeverAccuses() for _ in range(3)], seed=1, max_actions=300, truncate=True)
    assert record.truncated and record.winner is None and record.rewards == (0.0, 0.0, 0.0)
    assert len(record.actions) == 300
    finished = play_game(rules, [ClueDeductionSheet() for _ in range(3)], seed=1, max_actions=300, truncate=True)
    assert not finished.truncated and finished.winner is not None and len(finished.actions) < 300
    with pytest.raises(ValueError, match="max_actions"):
        play_game(rules, [NeverAccuses() for _ in range(3)], seed=1, max_actions=0)


def test_a_match_goes_on_past_truncated_games_and_counts_them():
    rules = ClueRules(3)
    looping = play_match(rules, [NeverAccuses() for _ in range(3)], 3, seed=2, max_actions=200, truncate=True)
    assert looping.truncated == 3 and all(looping.wins(i) == 0 for i in range(3))
    # a deduction sheet among players that never accuse still ends every game, and wins it
    mixed = play_match(rules, [ClueDeductionSheet(), NeverAccuses(), NeverAccuses()], 3, seed=2, truncate=True)
    assert mixed.truncated == 0 and mixed.wins(0) == 3
