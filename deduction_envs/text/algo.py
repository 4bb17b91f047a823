"""Algo in text: a seat's prompt, the table as it sees it, what has happened, and a reply read as its move.

A seat sees its own cards' numbers, every other card's colour (and number once face up), the numbers missed
attacks ruled out, and the card it drew; never another seat's face-down number or drawn card. Players are named
``P0``, ``P1``...; a move names players by these names: ``P1 2 7`` (attack: P1's card 2 is a 7), ``stop``,
``reveal 2``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from deduction_envs.core.entropy import binary_entropy_bits
from deduction_envs.games.algo import AlgoDeal, AlgoEvent, AlgoRules, Move, Phase, PlayerView, format_card
from deduction_envs.reasoning.algo_hands import attack_probabilities
from deduction_envs.text.reply import ReplyError, quoted, read_reply, seat_text
from deduction_envs.text.single import prompt_rules, seat_order

__all__ = ["AlgoText", "describe", "table"]

_ATTACK = re.compile(r"(?:attack\s+)?p(?:layer)?\s*(\d+)\W*(?:card\s*|position\s*)?(\d+)\W*(?:is\s*)?(\d+)", re.I)
_REVEAL = re.compile(r"reveal\s*(?:card\s*|position\s*)?(\d+)", re.I)


def table(view: PlayerView, names: Sequence[str]) -> str:
    """The table as seat ``view.player`` sees it: no number it does not know (``names``: the players')."""
    lines = []
    for seat, hand in enumerate(view.hands):
        cards = []
        for i, (colour, known, excluded) in enumerate(zip(hand.colours, hand.known, hand.excluded, strict=True)):
            if seat == view.player:
                text = format_card(view.own[i]) if known >= 0 else f"[{format_card(view.own[i])}]"
            else:
                text = format_card(known) if known >= 0 else f"{'BW'[colour]}?"
                if known < 0 and excluded:
                    text += f"(not {','.join(map(str, sorted(excluded)))})"
            cards.append(f"{i}:{text}")
        who = "you" if seat == view.player else names[seat]
        lines.append(f"{'*' if seat == view.mover else ' '} {who:>8}: {' '.join(cards)}")
    drawn = f", you drew {format_card(view.drawn)}" if view.drawn >= 0 else ""
    lines.append(f"  deck {view.deck}{drawn}")
    return "\n".join(lines)


def describe(event: AlgoEvent, seat: int, names: Sequence[str]) -> str:
    """One event in words, as seat ``seat`` saw it (``names``: the players')."""
    text = _describe(event, seat, names)
    return text[0].upper() + text[1:]


def _describe(event: AlgoEvent, seat: int, names: Sequence[str]) -> str:
    who = "You" if event.mover == seat else names[event.mover]
    move = event.move
    if move.kind == "stop":
        return f"{who} stopped."
    if move.kind == "reveal":
        return f"{who} revealed {format_card(event.card)}."
    target = "your" if event.target_player == seat else f"{names[event.target_player]}'s"
    said = f"{who} named {move.number} for {target} card {move.position}"
    if event.hit:
        return f"{said}: hit, {format_card(event.card)}."
    placed = f"; {format_card(event.placed_card)} goes face up" if event.placed_card >= 0 else ""
    return f"{said}: miss{placed}."


class AlgoText:
    """Algo as text for one seat at a time: :meth:`prompt`, :meth:`observation`, :meth:`steps`."""

    def __init__(self, rules: AlgoRules, names: Sequence[str] | None = None) -> None:
        if not isinstance(rules, AlgoRules):
            raise TypeError(f"AlgoText plays Algo, got {type(rules).__name__}")
        self.rules = rules
        self.names = list(names or [f"P{p}" for p in range(rules.players)])
        self.notation = (
            "Moves: 'P1 2 7' (attack: you say P1's card 2, counting from 0 on the left, is a 7), 'stop' (after a "
            "hit, to end your turn) and 'reveal 2' (after a miss with the deck empty, turn your own card 2 face up)."
        )

    def prompt(self, seat: int) -> str:
        """The rules, the table's notation and how to answer, for ``seat``."""
        rules = self.rules
        doc = sys.modules[AlgoRules.__module__].__doc__ or ""
        section = re.split(r"\n[^\n]+\n-{3,}\n", doc.split("Rules\n-----\n", 1)[1])[0]
        return "\n\n".join([
            f"You are playing Algo with {rules.players} players (P0 to P{rules.players - 1}); you are "
            f"{self.names[seat]}. Cards are black (B) or white (W), numbered 0 to {rules.numbers - 1}. Be the last "
            "player with a face-down card.",
            "Rules:\n\n" + prompt_rules(section, rules) + "\n\n" + seat_order(rules.players),
            "The table shows each hand left to right with positions from 0: your cards with their numbers ([B3]: "
            "face down to the others), the others' face-down cards by colour (B?), with the numbers missed attacks "
            "have ruled out, and face-up cards as B3.",
            self.notation + " Each time you are asked to move, reply with one move; you may think first, and put "
            "the move on the last line of your reply or as <answer>MOVE</answer>.",
        ])  # fmt: skip

    def observation(self, seat: int, you: Any, events: Sequence[Any], mask: np.ndarray | None,
                    note: str | None = None, end: str | None = None) -> str:  # fmt: skip
        """The table as ``seat`` sees it (its knowledge ``you``), what has happened (its projected ``events``), and
        what it must do now (``mask``: its legal actions; None if it is not to act)."""
        lines = [f"You are {self.names[seat]}. The table:", table(you.view, self.names)]
        said = [describe(event, seat, self.names) for event in events if not isinstance(event, AlgoDeal)]
        last = end or (None if mask is None else self._asked_for(you.view))
        return seat_text(lines, said, note, last)

    def _asked_for(self, view: PlayerView) -> str:
        if view.phase == Phase.REVEAL:
            return "You missed and the deck is empty: reveal one of your face-down cards ('reveal POSITION')."
        if view.phase == Phase.CONTINUE:
            return "A hit! Attack again ('P1 2 7') or 'stop'."
        return "Your turn: attack ('P1 2 7': P1's card 2 is a 7)."

    def question(self, seat: int, you: Any, mask: np.ndarray, steps: Sequence[int]) -> tuple[float, float] | None:
        """The bits about the opponents' face-down cards the move ``steps`` (an attack) is expected to gain from
        ``seat``'s knowledge ``you``, and the most any legal attack is; None if the move is not an attack.

        An attack's answer (hit or miss) is fixed by the hands, so the bits it is expected to gain are the answer's
        entropy, ``H(p)`` for an attack that hits with probability ``p`` (:func:`~deduction_envs.reasoning.
        algo_hands.attack_probabilities`, exact): 1 bit at even odds, none for an attack sure to hit or miss. An
        attack's worth to win the game is another matter (a sure hit gains no bits)."""
        rules = self.rules
        if steps[0] >= rules.num_attacks:
            return None
        hits = attack_probabilities(rules, you.view, you.posterior)
        bits = np.asarray(binary_entropy_bits(hits))
        return float(bits[steps[0]]), float(bits[mask[: rules.num_attacks]].max())

    def say(self, seat: int, steps: Sequence[int]) -> str:
        """The reply that plays ``steps`` (one action) for ``seat``, as :meth:`steps` reads it."""
        rules = self.rules
        move = rules.decode(int(steps[0]))
        if move.kind == "attack":
            return f"P{rules.target_player(seat, move.target)} {move.position} {move.number}"
        return "stop" if move.kind == "stop" else f"reveal {move.position}"

    def complete(self, steps: Sequence[int]) -> bool:
        """Whether ``steps``, from the start of a move, are a whole move (one action)."""
        return True

    def answering(self, state: Any) -> bool:
        """Whether a question is still being answered in ``state``: never in Algo (an attack's answer comes with
        it)."""
        return False

    def steps(self, reply: object, you: Any, mask: np.ndarray) -> list[int]:
        """The action ``reply`` names, if legal now for seat ``you``.

        Raises:
            ReplyError: why not, and what is expected.
        """
        rules, view = self.rules, you.view

        def parse(answer: str) -> tuple[Move, int]:
            if answer.lower() == "stop":
                move = Move("stop")
            elif (found := _REVEAL.fullmatch(answer)) is not None:
                move = Move("reveal", position=int(found[1]))
            elif (found := _ATTACK.fullmatch(answer)) is not None:
                player, position, number = (int(g) for g in found.groups())
                if not 0 <= player < rules.players or player == view.player:
                    raise ValueError(f"an attack names another player: {', '.join(self._others(view.player))}")
                move = Move("attack", (player - view.player - 1) % rules.players, position, number)
            else:
                raise ValueError("type 'P1 2 7' (an attack), 'stop' or 'reveal 2'")
            return move, rules.action_index(move)

        answer, (move, action) = read_reply(reply, parse, self.notation)
        if not mask[action]:
            raise ReplyError(f"{quoted(answer)} is not legal now: {self.why_not(view, move)}")
        return [action]

    def _others(self, seat: int) -> list[str]:
        return [name for p, name in enumerate(self.names) if p != seat]

    def why_not(self, view: PlayerView, move: Move) -> str:
        """Why ``move`` is not legal for the seat whose view is ``view``, in words."""
        if move.kind == "attack" and view.phase in (Phase.ATTACK, Phase.CONTINUE):
            seat = self.rules.target_player(view.player, move.target)
            hand = view.hands[seat]
            if move.position >= len(hand.known):
                return f"{self.names[seat]} has no card {move.position} (their cards are 0 to {len(hand.known) - 1})"
            if hand.known[move.position] >= 0:
                return f"{self.names[seat]}'s card {move.position} is face up already"
            return f"{self.names[seat]} is out"
        if move.kind == "reveal" and view.phase == Phase.REVEAL:
            return f"your card {move.position} is not one of your face-down cards"
        why = {Phase.ATTACK: "attack a face-down card", Phase.CONTINUE: "attack a face-down card or stop"}
        return why.get(view.phase, "reveal one of your face-down cards")
