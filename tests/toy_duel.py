"""Duel: a toy multiplayer deduction game as a PettingZoo AEC env, ``duel_v0`` (the tests' second kind of toy game).

Two players each hold half of the cards ``0 .. cards - 2``; one card is hidden. On a turn the mover either asks
"do you hold card c?" (the other answers yes or no for all to hear) or guesses the hidden card: right, it wins;
wrong, it loses. Everything a test needs to add a multiplayer game lives in this one module: the rules (the
:class:`~deduction_envs.core.multiplayer.MultiplayerRules` protocol), a seat's knowledge, the observer, the env,
the terminal game; :data:`DUEL` is its registry entry.

Action space
------------
``Discrete(2 * cards)``: ask about card ``c`` (``c``), guess card ``c`` (``cards + c``).

Observation space
-----------------
``{"observation": Box, "action_mask": Box}``: the seat's hand, the cards that may still be hidden, and its
uncertainty (bits over the most a deal can leave).

Rewards
-------
+1 to the winner, -1 to the other.

Arguments
---------
``cards`` (odd, 3 to 15, default 7), ``probabilities``, ``max_cycles``, ``render_mode``, ``illegal_action``.

Version History
---------------
* v0: first version.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple

import numpy as np

from deduction_envs import registry
from deduction_envs.core.rules import check_int
from deduction_envs.envs.multiplayer_env import MultiplayerAECEnv, ObservationPieces, Observer, wrap


class DuelEvent(NamedTuple):
    kind: str  # "deal", "ask", "guess"
    player: int
    card: int = -1
    yes: bool = False  # an ask's answer; a guess: whether it was right
    hand: tuple[int, ...] = ()  # the deal: the seat's own hand (projected), both hands unprojected
    hands: tuple[tuple[int, ...], ...] = ()


@dataclass
class DuelState:
    hidden: int
    hands: tuple[tuple[int, ...], ...]
    mover: int = 0
    winner: int | None = None
    over: bool = False


@dataclass(frozen=True)
class DuelRules:
    """Duel with ``cards`` cards (odd: one hidden, the others dealt evenly to the two players)."""

    cards: int = 7

    @property
    def players(self) -> int:
        return 2

    def __post_init__(self) -> None:
        check_int("cards", self.cards, low=3, high=15)
        if self.cards % 2 == 0:
            raise ValueError(f"cards must be odd (one hidden, the rest dealt evenly), got {self.cards}")

    @property
    def num_actions(self) -> int:
        return 2 * self.cards

    def new_game(self, rng: np.random.Generator, first: int = 0) -> DuelState:
        order = rng.permutation(self.cards)
        half = (self.cards - 1) // 2
        hands = (tuple(sorted(int(c) for c in order[1 : 1 + half])), tuple(sorted(int(c) for c in order[1 + half :])))
        return DuelState(int(order[0]), hands, mover=first)

    def deal_event(self, state: DuelState) -> DuelEvent:
        return DuelEvent("deal", state.mover, hands=state.hands)

    def mover(self, state: DuelState) -> int:
        return state.mover

    def is_over(self, state: DuelState) -> bool:
        return state.over

    def legal_mask(self, state: DuelState) -> np.ndarray:
        return np.full(self.num_actions, not state.over)

    def apply(self, state: DuelState, action: int) -> DuelEvent:
        if not (0 <= action < self.num_actions) or state.over:
            raise ValueError(f"action {action} is not legal now")
        card, player, other = action % self.cards, state.mover, 1 - state.mover
        if action < self.cards:
            state.mover = other
            return DuelEvent("ask", player, card, yes=card in state.hands[other])
        right = card == state.hidden
        state.over, state.winner = True, player if right else other
        return DuelEvent("guess", player, card, yes=right)

    def observe_event(self, event: DuelEvent, player: int) -> DuelEvent:
        if event.kind == "deal":  # only one's own hand
            return event._replace(hand=event.hands[player], hands=())
        return event

    def winner(self, state: DuelState) -> int | None:
        return state.winner

    @property
    def reward_range(self) -> tuple[float, float]:
        return (-1.0, 1.0)

    def rewards(self, state: DuelState) -> list[float]:
        return [1.0 if p == state.winner else -1.0 for p in range(self.players)]


class DuelKnowledge:
    """A seat's knowledge: its hand, and the cards that may still be hidden (enumerated)."""

    def __init__(self, rules: DuelRules, player: int) -> None:
        self.rules, self.player = rules, player
        self.hand: tuple[int, ...] = ()
        self.possible = np.ones(rules.cards, dtype=bool)

    def update(self, event: DuelEvent) -> None:
        if event.kind == "deal":
            self.hand = event.hand
            self.possible[list(event.hand)] = False
        elif event.kind == "ask" and event.player == self.player and event.card not in self.hand:
            if event.yes:
                self.possible[event.card] = False  # the other holds it
            else:
                self.possible[:] = False  # nobody holds it: it is the hidden card
                self.possible[event.card] = True
        elif event.kind == "guess" and not event.yes:
            self.possible[event.card] = False

    def entropy(self) -> float:
        return math.log2(max(1, int(self.possible.sum())))

    def determinise(self, rng: np.random.Generator) -> DuelState:
        hidden = int(rng.choice(np.flatnonzero(self.possible)))
        other = tuple(c for c in range(self.rules.cards) if c != hidden and c not in self.hand)
        hands = (self.hand, other) if self.player == 0 else (other, self.hand)
        return DuelState(hidden, hands, mover=self.player)


class DuelObserver(Observer):
    def __init__(self, rules: DuelRules, probabilities: bool = True) -> None:
        super().__init__(rules, probabilities)
        self.pieces = ObservationPieces([("hand", (rules.cards,)), ("possible", (rules.cards,)), ("entropy", (1,))])

    def encode(self, knowledge: DuelKnowledge) -> np.ndarray:
        vector = np.zeros(self.size, dtype=np.float32)
        parts = self.split(vector)
        parts["hand"][list(knowledge.hand)] = 1
        parts["possible"][:] = knowledge.possible
        parts["entropy"][0] = knowledge.entropy() / math.log2(self.rules.cards)
        return vector


class raw_env(MultiplayerAECEnv):
    """Duel; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {**MultiplayerAECEnv.metadata, "name": "duel_v0"}

    def __init__(
        self,
        cards: int = 7,
        probabilities: bool = True,
        max_cycles: int = 100,
        render_mode: str | None = None,
        illegal_action: str = "end",
        strict: bool | None = None,
    ) -> None:
        rules = registry.game("duel_v0").make_rules(cards=cards)
        super().__init__(rules, probabilities, max_cycles, render_mode, illegal_action, strict)

    def make_observer(self, rules: DuelRules, probabilities: bool, max_cycles: int) -> DuelObserver:
        return DuelObserver(rules, probabilities)

    def render_text(self) -> str:
        table = self.dealt_table()
        seat = table.mover
        possible = np.flatnonzero(self.knowledge[seat].possible).tolist()
        return f"{table.last_event.kind} by player {table.last_event.player}; player {seat} holds " \
               f"{list(self.knowledge[seat].hand)}, the hidden card is one of {possible}"  # fmt: skip

    def render_rgb(self) -> np.ndarray:
        picture = np.full((16, 16 * self.rules.cards, 3), 255, dtype=np.uint8)
        for card in np.flatnonzero(self.knowledge[self.dealt_table().mover].possible):
            picture[2:14, 16 * card + 2 : 16 * card + 14] = (200, 60, 60)
        return picture


def env(**kwargs: Any) -> Any:
    """:class:`raw_env` in the standard wrapper."""
    return wrap(raw_env(**kwargs))


def play(opponent: str, players: int, seed: int | None = None) -> bool:
    """Duel in the terminal against ``opponent`` (``players`` must be 2): type ``ask C`` or ``guess C``."""
    from agents.roster import seat_agent
    from train.tools.seat import play_in_seat_zero

    if players != 2:
        raise ValueError(f"duel has 2 players, got {players}")
    rules = registry.game("duel_v0").make_rules()
    knowledge = DuelKnowledge(rules, 0)

    def hear(event: DuelEvent) -> None:
        knowledge.update(event)
        answer = "yes" if event.yes else "no"
        said = f": you hold {event.hand}" if event.kind == "deal" else f": card {event.card}, {answer}"
        print(f"{event.kind} by player {event.player}{said}")

    def ask(mask: np.ndarray) -> int:
        while True:
            words = input("ask C | guess C | quit> ").split()
            if words[:1] == ["quit"]:
                from train.tools.seat import Quit

                raise Quit
            if len(words) == 2 and words[0] in ("ask", "guess") and words[1].isdigit() and int(words[1]) < rules.cards:
                return int(words[1]) + (rules.cards if words[0] == "guess" else 0)
            print(f"type 'ask C' or 'guess C' with C a card 0..{rules.cards - 1}")

    table = play_in_seat_zero(rules, [seat_agent("duel_v0", opponent)], np.random.default_rng(seed), hear, ask)
    if table is None:
        return False
    print("You win." if table.state.winner == 0 else "You lose.")
    return table.state.winner == 0


#: Duel's registry entry: rules, knowledge and env in this module, the roster's random agent, a terminal game.
DUEL = registry.Game(
    "duel",
    "duel_v0",
    "toy_duel:DuelRules",
    env="toy_duel",
    knowledge="toy_duel:DuelKnowledge",
    agents=MappingProxyType({"random": registry.Agent("agents.multiplayer:RandomSeatAgent")}),
    opponent="random",
    evaluation=("random",),
    play=("toy_duel:play", "random", 2),
    showcase=(MappingProxyType({}), ("random", "random")),
    questions=("ask",),
)
