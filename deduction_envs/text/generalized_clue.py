"""Generalized Clue in text: a seat's prompt, what it has seen as text, and a reply read as its whole move.

A move is one reply (``ask P2 about 3, 5, 7``, ``guess 1, 4, 9``, ``show 5``), which the env plays as its
sub-steps (:meth:`GeneralizedClueRules.steps <deduction_envs.games.generalized_clue.GeneralizedClueRules.steps>`).
A seat is shown what its projected events tell it: its hand, every ask and its yes or no, a card shown only to the
two players who saw it, every guess and the hand it made public.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from deduction_envs.games.generalized_clue import (
    GeneralizedClueEvent,
    GeneralizedClueMove,
    GeneralizedCluePhase,
    GeneralizedClueRules,
)
from deduction_envs.reasoning.clue_suggestions import ask_candidates, score_asks
from deduction_envs.text.reply import ReplyError, quoted, read_reply, seat_text
from deduction_envs.text.single import prompt_rules, seat_order

__all__ = ["GeneralizedClueText", "parse_move"]

_ASK = re.compile(r"ask\s+(?:p(?:layer)?\s*)?(\d+)\s*(?:about|for|:)?\s*(.*)", re.I)
_GUESS = re.compile(r"guess\s*:?\s*(.*)", re.I)
_SHOW = re.compile(r"(?:show\s*(?:card\s*)?)?(\d+)", re.I)


def _cards(text: str) -> tuple[int, ...]:
    words = [w for w in re.split(r"[\s,;]+|\band\b|\bcards?\b", text.strip(), flags=re.I) if w]
    if not words or not all(w.isdigit() for w in words):
        raise ValueError(f"a list of cards is their numbers, e.g. '3, 5, 7', got {text.strip()!r}")
    return tuple(int(w) for w in words)


def parse_move(rules: GeneralizedClueRules, text: str, phase: GeneralizedCluePhase) -> GeneralizedClueMove:
    """A typed move; a ValueError says what is wrong with it."""
    text = text.strip()
    if phase == GeneralizedCluePhase.SHOW:
        found = _SHOW.fullmatch(text)
        if found is None:
            raise ValueError("you are asked: answer 'show CARD', one of the cards listed")
        return GeneralizedClueMove("show", card=int(found[1]))
    if (found := _ASK.fullmatch(text)) is not None:
        return GeneralizedClueMove("ask", _cards(found[2]), target=int(found[1]))
    if (found := _GUESS.fullmatch(text)) is not None:
        return GeneralizedClueMove("guess", _cards(found[1]))
    raise ValueError(f"type 'ask P2 about 3, 5, 7' or 'guess' and {rules.hidden} cards")


class GeneralizedClueText:
    """Generalized Clue as text for one seat at a time: :meth:`prompt`, :meth:`observation`, :meth:`steps`.
    Players are named ``P0``, ``P1``...; cards by their numbers, 0 to ``cards - 1``."""

    def __init__(self, rules: GeneralizedClueRules) -> None:
        if not isinstance(rules, GeneralizedClueRules):
            raise TypeError(f"GeneralizedClueText plays Generalized Clue, got {type(rules).__name__}")
        self.rules = rules
        self.names = [f"P{p}" for p in range(rules.players)]
        self.notation = (
            f"Moves: 'ask P2 about 3, 5, 7' (a player still in, any non-empty list of cards), 'guess' and "
            f"{rules.hidden} cards ('guess {', '.join(str(1 + 3 * i) for i in range(rules.hidden))}'), and 'show CARD' "
            "when you are asked and hold a card of the list."
        )

    def prompt(self, seat: int) -> str:
        """The rules, the game's sizes and how to answer, for ``seat``."""
        rules = self.rules
        doc = sys.modules[GeneralizedClueRules.__module__].__doc__ or ""
        section = doc.split("\n\n", 1)[1].split("\nActions: sub-steps", 1)[0]
        return "\n\n".join([
            f"You are playing Generalized Clue with {rules.players} players (P0 to P{rules.players - 1}); you are "
            f"{self.names[seat]}. There are {rules.cards} cards, numbered 0 to {rules.cards - 1}; {rules.hidden} of "
            "them are hidden. Be the first to guess the hidden cards.",
            "Rules:\n\n" + prompt_rules(section, rules) + "\n\n" + seat_order(rules.players),
            self.notation + " Each time you are asked to move, reply with one move; you may think first, and put "
            "the move on the last line of your reply or as <answer>MOVE</answer>.",
        ])  # fmt: skip

    def observation(self, seat: int, you: Any, events: Sequence[GeneralizedClueEvent], mask: np.ndarray | None,
                    note: str | None = None, end: str | None = None) -> str:  # fmt: skip
        """What ``seat`` has seen (its knowledge ``you`` and its projected ``events``), and what it must do now
        (``mask``: its legal actions; None if it is not to act)."""
        rules = self.rules
        lines = [f"You are {self.names[seat]}. Your hand: cards " + ", ".join(map(str, you.hand)) + "."]
        said = [rules.describe(event, self.names) for event in events if event.kind not in ("deal", "step")]
        last = end or (None if mask is None else self._asked_for(you, mask))
        return seat_text(lines, said, note, last)

    def _asked_for(self, you: Any, mask: np.ndarray) -> str:
        rules = self.rules
        if you.public.phase == GeneralizedCluePhase.SHOW:
            cards = ", ".join(str(c) for c in np.flatnonzero(mask[: rules.cards]))
            asker = self.names[you.public.mover]
            return f"{asker} asks you about {', '.join(map(str, you.asked_cards))}: show one of cards {cards}."
        players = [self.names[q] for q in range(rules.players) if mask[rules.cards + q]]
        if not players:
            return f"You must guess {rules.hidden} cards now."
        return f"Your turn: ask one of {', '.join(players)} about a list of cards, or guess {rules.hidden} cards."

    def question(self, seat: int, you: Any, mask: np.ndarray, steps: Sequence[int]) -> tuple[float, float] | None:
        """The bits about the case file the move ``steps`` (an ask) is expected to gain from ``seat``'s knowledge
        ``you``, and the most that the exact agent's candidate asks or this one are; None if the move is not an ask.

        There are too many asks to score them all (every list of cards, for each player): the best is taken over
        the asks :class:`~agents.GeneralizedClueExact` weighs (:func:`~deduction_envs.reasoning.clue_suggestions.
        ask_candidates`) and this one, each scored as that agent scores them (:func:`~deduction_envs.reasoning.
        clue_suggestions.score_asks`, over 1,000 deals drawn from the knowledge: the case file's expected entropy
        after the answer, or a bound of it, the sum of each card's, when the deals are too few to estimate it)."""
        rules = self.rules
        target = steps[0] - rules.cards
        if not 0 <= target < rules.players:  # a guess or a show
            return None
        asked = (target, tuple(int(c) for c in steps[1:-1]))
        sheet = you.sheet()
        targets = [q for q in range(rules.players) if mask[rules.cards + q]]
        rng = np.random.default_rng(sum(event.kind != "step" for event in you.events))  # the same at every sub-step
        candidates = [asked, *(c for c in ask_candidates(sheet, targets, rules.hand_sizes, rng) if c != asked)]
        scores = score_asks(you.engine, [(target, ()), *candidates], rng=rng, sheet=sheet)
        gain = np.maximum(scores[0] - scores[1:], 0.0)
        return float(gain[0]), float(gain.max())

    def say(self, seat: int, steps: Sequence[int]) -> str:
        """The reply that plays the whole move ``steps`` (a show, or an ask or guess up to its submission), as
        :meth:`steps` reads it."""
        rules, first = self.rules, int(steps[0])
        if first < rules.cards:
            return f"show {first}"
        cards = ", ".join(str(int(c)) for c in steps[1:-1])
        return f"guess {cards}" if first == rules.guess_action else f"ask P{first - rules.cards} about {cards}"

    def complete(self, steps: Sequence[int]) -> bool:
        """Whether ``steps``, from the start of a move, are a whole move (a show, or the sub-steps of an ask or a
        guess up to its submission)."""
        rules = self.rules
        return steps[0] < rules.cards or steps[-1] == rules.submit_action  # a show, or an ask or guess submitted

    def answering(self, state: Any) -> bool:
        """Whether a question is still being answered in ``state`` (the player asked must show a card)."""
        return bool(state.phase == GeneralizedCluePhase.SHOW)

    def steps(self, reply: object, you: Any, mask: np.ndarray) -> list[int]:
        """The actions (sub-steps) of the move ``reply`` names, if it is legal now for seat ``you``.

        Raises:
            ReplyError: why not, and what is expected.
        """
        rules = self.rules

        def parse(answer: str) -> list[int]:
            move = parse_move(rules, answer, you.public.phase)
            if any(not 0 <= c < rules.cards for c in (*move.cards, *([move.card] if move.kind == "show" else []))):
                raise ValueError(f"cards are numbered 0 to {rules.cards - 1}")
            if move.kind == "ask" and not 0 <= move.target < rules.players:
                raise ValueError(f"players are P0 to P{rules.players - 1}")
            return rules.steps(move)

        answer, steps = read_reply(reply, parse, self.notation)
        if not mask[steps[0]]:
            raise ReplyError(f"{quoted(answer)} is not legal now: {self._asked_for(you, mask)}")
        return steps
