"""The Clue table assistant's logic, apart from any UI: a game's entries, what they prove, advice, undo, a log.

A :class:`ClueSession` is one person's view of a real game: the players in
seat order, which seat is theirs, their hand. Entries are what happens at the
table, named as people name things (cards and players by a prefix of a word,
"scar", "pipe", "bill"):

* a suggestion: who asked, the three cards, who passed, who refuted (and the
  card, when it was shown to you);
* a card you showed, and to whom (kept for your own record);
* an accusation and whether it was right;
* a hand made public.

Each entry is checked against everything known before it and refused, with a
message naming it and the reason, if no deal agrees with both, or if it is a
move of a player who is out or comes after the game ended; a refused entry
changes nothing. Every entry can be undone, by its number in the log or by its
id, which stays the entry's while others come and go. The log is saved, human
readable JSON, after every entry and undo, and flushed to the disk before the
call returns; a session is resumed from it (:meth:`ClueSession.load`).

Answers come from :class:`~deduction_envs.reasoning.ClueKnowledge` (exact
where counting fits its budget, else sampled with standard errors) and the
advice from :func:`~deduction_envs.reasoning.clue_suggestions.score_suggestions`.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from deduction_envs.core.rules import check_int
from deduction_envs.games.clue import CLASSIC_CATEGORIES, ClueEvent, ClueRules, asked_order, deal_sizes, parse_card
from deduction_envs.games.generalized_clue import GeneralizedClueEvent, GeneralizedClueRules
from deduction_envs.reasoning.clue_knowledge import ClueKnowledge, ClueSolution, ContradictionError
from deduction_envs.reasoning.clue_suggestions import SuggestionScores, ask_candidates, score_asks, score_suggestions

__all__ = ["COMMANDS", "Advice", "ClueSession", "ContradictionError"]

LOG_VERSION = 1


@dataclass(frozen=True)
class Advice:
    """What to do now: the suggestion leaving the least expected entropy, and whether to accuse."""

    suggestion: tuple[str, ...]  # the cards to suggest (in Generalized Clue, to ask `target` about)
    expected_gain: float  # bits
    exact: bool  # the expectation over every consistent deal (else over sampled ones)
    accusation: tuple[str, ...]  # the likeliest case file
    probability: float  # that it is right
    certain: bool  # proved (counting or propagation)
    target: str | None = None  # Generalized Clue: whom to ask
    yours: tuple[str, ...] = ()  # the suggested cards you hold (it asks about the others)

    def __str__(self) -> str:
        how = "exact" if self.exact else "estimated from sampled deals"
        verdict = (
            "accuse now: it is certain" if self.certain else f"accusing now is right with p = {self.probability:.2f}"
        )
        move = f"suggest {', '.join(self.suggestion)}"
        if self.target is not None:
            move = f"ask {self.target} about {', '.join(self.suggestion)}"
        text = (
            f"{move} (expected gain {self.expected_gain:.2f} bits, {how}); "
            f"likeliest case file {', '.join(self.accusation)}: {verdict}"
        )
        if self.yours:
            others = [card for card in self.suggestion if card not in self.yours]
            text += f". You hold {', '.join(self.yours)}: the suggestion asks about {', '.join(others)} alone"
        return text


class ClueSession:
    """One person's record of a real Clue game; see the module docstring.

    Args:
        players: the players' names in seat order.
        me: the person's seat (an index or a name).
        hand: the person's cards (names, prefixes or ids).
        path: the JSON log, written after every change (None: not saved).
        work_limit: the knowledge engine's counting budget.
        deck: None for classic Clue, or ``(cards, hidden)`` for a Generalized
            Clue deck (cards named by their numbers 0, 1, ...).
        accusations: the table's accusation rule on the board, for :meth:`board_advice`: ``"anywhere"`` or
            ``"room"`` (the classic rule: only in the room entered this turn, naming it).
    """

    def __init__(
        self,
        players: Sequence[str],
        me: int | str,
        hand: Sequence[str | int],
        path: str | Path | None = None,
        work_limit: float = 2e6,
        deck: tuple[int, int] | None = None,
        accusations: str = "anywhere",
    ) -> None:
        from deduction_envs.games.clue_board import ACCUSATION_RULES

        if accusations not in ACCUSATION_RULES:
            raise ValueError(f"accusations must be one of {', '.join(ACCUSATION_RULES)}, got {accusations!r}")
        self.accusations = accusations
        names = [str(p).strip() for p in players]
        if any(not n for n in names) or len({n.lower() for n in names}) != len(names):
            raise ValueError(f"players need distinct, non-empty names, got {list(players)}")
        if deck is None:
            if not 2 <= len(names) <= 6:
                raise ValueError(f"Clue has 2 to 6 players, got {len(names)}")
            self.card_names = [name for category in CLASSIC_CATEGORIES for name in category]
            blank = ClueKnowledge(CLASSIC_CATEGORIES, deal_sizes(18, len(names)), 1, work_limit=work_limit)
            #: The rules, which say what each entry (as the game's event) proves.
            self.rules: ClueRules | GeneralizedClueRules = ClueRules(len(names))
        else:
            cards, hidden = deck
            blank = ClueKnowledge.generalized(cards, hidden, len(names), work_limit=work_limit)
            self.rules = GeneralizedClueRules(int(cards), int(hidden), len(names))
            self.card_names = [str(c) for c in range(cards)]
            deck = (int(cards), int(hidden))
        self.deck = deck
        self.players = names
        self.me = self.player(me)
        self.work_limit = work_limit
        self.path = None if path is None else Path(path)
        self.entries: list[dict[str, Any]] = []
        #: Each entry's id, in the order of :attr:`entries`: it names the entry while others are added or undone.
        self.ids: list[int] = []
        self._next_id = 1  # never reused: an undone entry's id names no later entry
        self._blank = blank
        self._solution: ClueSolution | None = None
        self.knowledge = self._blank.copy()
        self.add({"kind": "hand", "player": self.players[self.me], "cards": [self._card_name(c) for c in hand]})

    # ------------------------------------------------------------------ names
    def player(self, name: int | str) -> int:
        """A player's seat from its index, its name or the start of its name (case ignored)."""
        if isinstance(name, int | np.integer) and not isinstance(name, bool):
            if 0 <= name < len(self.players):
                return int(name)
            raise ValueError(f"a player is a seat 0..{len(self.players) - 1} or a name, got {name}")
        wanted = str(name).strip().lower()
        if not wanted:
            raise ValueError("name a player")
        exact = [i for i, p in enumerate(self.players) if p.lower() == wanted]
        matches = exact or [i for i, p in enumerate(self.players) if p.lower().startswith(wanted)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise ValueError(f"{name!r} could be {', '.join(self.players[i] for i in matches)}")
        raise ValueError(f"no player is called {name!r}; the players are {', '.join(self.players)}")

    def card(self, name: int | str) -> int:
        """A card's id from its id, its name or the start of one of its words."""
        if isinstance(name, int | np.integer) and not isinstance(name, bool):
            if 0 <= name < len(self.card_names):
                return int(name)
            raise ValueError(f"a card id is 0..{len(self.card_names) - 1}, got {name}")
        return parse_card(str(name), self.card_names)

    def _card_name(self, name: int | str) -> str:
        return self.card_names[self.card(name)]

    # ------------------------------------------------------------------ entries
    def suggestion(
        self,
        asker: int | str,
        cards: Sequence[int | str],
        passed: Sequence[int | str] = (),
        refuter: int | str | None = None,
        shown: int | str | None = None,
    ) -> None:
        """``asker`` suggested ``cards``; ``passed`` could not refute; ``refuter`` did (``shown``: the card, if
        it was shown to you)."""
        entry = {
            "kind": "suggestion",
            "player": self.players[self.player(asker)],
            "cards": [self._card_name(c) for c in cards],
            "passed": [self.players[self.player(p)] for p in passed],
            "refuter": None if refuter is None else self.players[self.player(refuter)],
            "shown": None if shown is None else self._card_name(shown),
        }
        self.add(entry)

    def ask(
        self,
        asker: int | str,
        target: int | str,
        cards: Sequence[int | str],
        answered: bool,
        shown: int | str | None = None,
    ) -> None:
        """Generalized Clue: ``asker`` asked ``target`` about ``cards``; yes or no (``shown``: the card, if
        it was shown to you)."""
        self.add({"kind": "ask", "player": self.players[self.player(asker)],
                  "target": self.players[self.player(target)], "cards": [self._card_name(c) for c in cards],
                  "answered": answered, "shown": None if shown is None else self._card_name(shown)})  # fmt: skip

    def guess(self, player: int | str, cards: Sequence[int | str], hand: Sequence[int | str]) -> None:
        """Generalized Clue: ``player`` guessed ``cards`` and left; its ``hand`` is now public."""
        named = [self._card_name(c) for c in cards]
        self.add({"kind": "guess", "player": self.players[self.player(player)], "cards": named,
                  "hand": [self._card_name(c) for c in hand]})  # fmt: skip

    def showed(self, card: int | str, to: int | str) -> None:
        """You showed ``card`` to ``to`` (your own record: it tells you nothing new)."""
        self.add({"kind": "showed", "player": self.players[self.player(to)], "cards": [self._card_name(card)]})

    def accusation(self, player: int | str, cards: Sequence[int | str], correct: bool) -> None:
        """``player`` accused ``cards``, rightly or not."""
        entry = {"kind": "accusation", "player": self.players[self.player(player)],
                 "cards": [self._card_name(c) for c in cards], "correct": correct}  # fmt: skip
        self.add(entry)

    def public_hand(self, player: int | str, cards: Sequence[int | str]) -> None:
        """``player``'s whole hand was made public."""
        self.add(
            {"kind": "hand", "player": self.players[self.player(player)], "cards": [self._card_name(c) for c in cards]}
        )

    def add(self, entry: dict[str, Any]) -> None:
        """Take one entry (as :attr:`entries` holds them), or refuse it with a ValueError and change nothing."""
        check_entry(entry)
        knowledge = self.knowledge.copy()
        try:
            self._check_in_play(entry)
            self._apply(knowledge, entry)
        except ContradictionError as error:
            reason = self._named(str(error).split(": ", 1)[-1])
            raise ContradictionError(f"{describe(entry)}: refused, it {reason}") from None
        except ValueError as error:
            raise ValueError(f"{describe(entry)}: refused, {self._named(str(error))}") from None
        self.knowledge, self._solution = knowledge, None
        self.entries.append(entry)
        self.ids.append(self._next_id)
        self._next_id += 1
        self.save()

    def _check_in_play(self, entry: dict[str, Any]) -> None:
        """Refuse a move after the game ended, or by (or involving) a player who is out."""
        ended = self.ended()
        if ended is not None:
            raise ValueError(f"the game is over ({ended}); undo that entry to go on")
        kind, player = entry["kind"], self.player(entry["player"])
        out = self.out()
        gone = "guessed and left" if self.deck is not None else "accused wrongly"
        if kind in ("suggestion", "accusation", "ask", "guess") and out[player]:
            raise ValueError(f"{self.players[player]} is out ({gone}) and makes no more moves")
        if kind == "showed" and out[player]:
            raise ValueError(f"{self.players[player]} is out ({gone}) and makes no more suggestions to show a card to")
        if kind == "ask" and out[self.player(entry.get("target", player))]:
            raise ValueError(f"{self.players[self.player(entry['target'])]} guessed and left, so nobody asks them")

    def ended(self) -> str | None:
        """Why the game is over (a right accusation; every player out), or None while it goes on."""
        state = self.public_state()
        if not self.rules.is_over(state):
            return None
        if self.deck is None and state.winner is not None:
            return f"{self.players[state.winner]}'s accusation was right"
        return "every player has guessed" if self.deck is not None else "every player accused wrongly"

    def _named(self, reason: str) -> str:
        """The knowledge's reason with the players' names for its seat numbers ("player 0" -> "Ann") and, in Clue,
        the categories' names for their numbers ("category 2" -> "the rooms")."""
        reason = re.sub(r"\bplayer (\d+)", lambda m: self.players[int(m[1])] if int(m[1]) < len(self.players) else m[0],
                        reason)  # fmt: skip
        if self.deck is None:
            reason = re.sub(r"\bcategory ([012])\b", lambda m: ("the suspects", "the weapons", "the rooms")[int(m[1])],
                            reason)  # fmt: skip
        return reason.replace("cards names ", "the cards name ")

    def _apply(self, knowledge: ClueKnowledge, entry: dict[str, Any]) -> None:
        kind = entry.get("kind")
        player = self.player(entry["player"])
        cards = [self.card(c) for c in entry.get("cards", [])]
        if kind == "hand":
            knowledge.add_hand(player, cards)
        elif kind == "showed":
            if player == self.me:
                raise ValueError("you cannot show a card to yourself")
            knowledge.add_holds(self.me, cards)
        elif kind in ("ask", "guess"):
            if self.deck is None:
                raise ValueError(f"an {kind} is a move of Generalized Clue; in Clue, enter suggestions and accusations")
            self._apply_generalized(knowledge, player, cards, entry)
        elif self.deck is not None and kind in ("suggestion", "accusation"):
            raise ValueError(f"a {kind} is a move of Clue; in Generalized Clue, enter asks and guesses")
        elif kind == "accusation":
            correct = entry.get("correct")
            if not isinstance(correct, bool):
                raise ValueError(f"an accusation is right or wrong (true or false), got {correct!r}")
            self._apply_event(knowledge, ClueEvent("accuse", player, tuple(cards), correct=correct))
        elif kind == "suggestion":
            self._apply_suggestion(knowledge, player, cards, entry)
        else:
            raise ValueError(f"an entry is a hand, suggestion, accusation, ask, guess or showed, got {kind!r}")

    def _apply_generalized(self, knowledge: ClueKnowledge, player: int, cards: list[int], entry: dict) -> None:
        if entry["kind"] == "guess":
            hidden = self.deck[1]
            if len(set(cards)) != hidden:
                raise ValueError(f"a guess names {hidden} cards")
            hand = tuple(self.card(c) for c in entry.get("hand", []))
            self._apply_event(knowledge, GeneralizedClueEvent("guess", player, cards=tuple(cards), hands=(hand,)))
            return
        target = self.player(entry["target"])
        answered, shown = entry.get("answered"), entry.get("shown")
        shown = None if shown is None else self.card(shown)
        if target == player:
            raise ValueError("a player asks someone else")
        if not isinstance(answered, bool):
            raise ValueError(f"an ask is answered yes or no (true or false), got {answered!r}")
        if not cards:
            raise ValueError("an ask names at least one card")
        if shown is not None and (player != self.me or not answered or shown not in cards):
            raise ValueError("you see the card shown only when you asked, the answer was yes, and it was on the list")
        ask = GeneralizedClueEvent("ask", player, target=target, cards=tuple(cards), answered=answered)
        self._apply_event(knowledge, ask, None if shown is None else ask._replace(kind="show", card=shown))

    def _apply_suggestion(self, knowledge: ClueKnowledge, asker: int, cards: list[int], entry: dict) -> None:
        if len(cards) != 3 or sorted(len(c) for c in _categories(cards)) != [1, 1, 1]:
            raise ValueError("a suggestion names one suspect, one weapon and one room")
        passed = [self.player(p) for p in entry.get("passed", [])]
        refuter = None if entry.get("refuter") is None else self.player(entry["refuter"])
        shown = None if entry.get("shown") is None else self.card(entry["shown"])
        answered = [*passed, *([] if refuter is None else [refuter])]
        order = asked_order(asker, len(self.players))
        if answered != order[: len(answered)]:
            raise ValueError(
                f"the players to {self.players[asker]}'s left are asked in order "
                f"({', '.join(self.players[p] for p in order)}): the passes and the refuter must follow it"
            )
        if refuter is None and len(passed) != len(order):
            raise ValueError("nobody refuted, so everyone else passed: list them all")
        if shown is not None and (asker != self.me or refuter is None):
            raise ValueError("you see the card shown only when you suggested and someone refuted")
        if shown is not None and shown not in cards:
            raise ValueError(f"the card shown, {self.card_names[shown]}, is not one of the suggestion's")
        refuter = -1 if refuter is None else refuter
        suggestion = ClueEvent("suggest", asker, tuple(cards), tuple(passed), refuter=refuter)
        show = ClueEvent("show", refuter, tuple(cards), refuter=refuter, card=shown, asker=asker)
        self._apply_event(knowledge, suggestion, None if shown is None else show)

    def _apply_event(self, knowledge: ClueKnowledge, event: Any, shown: Any = None) -> None:
        """What the rules say ``event`` proves to anyone at the table (``event_facts`` as a spectator sees it:
        the passes and the refutation, your own seat's included, so that an entry your hand contradicts is
        refused), and what the card ``shown`` to you proves; each fact checked."""
        facts = self.rules.event_facts(event, -1)
        if shown is not None:
            facts += self.rules.event_facts(shown, self.me)
        knowledge.add_facts(facts)

    def enter(self, text: str) -> str:
        """Take one typed command (see :data:`COMMANDS`); what it did, in words. A ValueError says what is wrong."""
        words = text.strip().split(maxsplit=1)
        if not words:
            raise ValueError("type a command; 'help' lists them")
        verb, rest = words[0].lower(), words[1] if len(words) > 1 else ""
        if verb == "undo":
            if rest and not rest.strip().isdigit():
                raise ValueError("type 'undo' or 'undo N' (N: the entry's number in the log)")
            return f"undone: {describe(self.undo(int(rest) if rest.strip() else None))}"
        if verb in ("advice", "advise", "hint"):
            return str(self.advice(rest or None))
        if verb == "board":
            return str(self.board_advice(*parse_board(rest)))
        if verb == "showed":
            card, _, to = rest.rpartition(" to ")
            if not card:
                raise ValueError("type 'showed CARD to PLAYER'")
            self.showed(card, to)
        elif verb in ("s", "suggest", "suggestion"):
            asker, cards, passed, refuter, shown = _parse_suggestion(rest)
            self.suggestion(asker, cards, passed, refuter, shown)
        elif verb in ("a", "accuse", "accusation"):
            who, _, what = rest.partition(":")
            *cards, verdict = [w.strip() for w in what.replace(",", " , ").rsplit(" ", 1)]
            if verdict.lower() not in ("right", "wrong"):
                raise ValueError("end an accusation with 'right' or 'wrong'")
            self.accusation(who, _cards(" ".join(cards)), verdict.lower() == "right")
        elif verb == "ask":
            who, _, what = rest.partition(":")
            asker, target = [*who.split(), "", ""][:2]
            match = re.fullmatch(r"(.+?)\s+(yes|no)(?:\s+show\s+(.+))?", what.strip(), re.IGNORECASE)
            if not match or not target:
                raise ValueError("type 'ask ASKER TARGET: CARD, CARD yes [show CARD]' or '... no'")
            self.ask(asker, target, _cards(match[1]), match[2].lower() == "yes", match[3] and match[3].strip())
        elif verb == "guess":
            who, _, what = rest.partition(":")
            cards, _, hand = what.partition(" hand ")
            if not hand:
                raise ValueError("type 'guess PLAYER: CARD, CARD hand CARD, CARD, ...'")
            self.guess(who, _cards(cards), _cards(hand))
        elif verb == "hand":
            who, _, cards = rest.partition(":")
            self.public_hand(who, _cards(cards))
        else:
            raise ValueError(f"no command {verb!r}; 'help' lists them")
        return describe(self.entries[-1])

    def undo(self, number: int | None = None) -> dict[str, Any]:
        """Take back entry ``number`` of the log (1 is your hand, which stays; default the last); returns it.

        Taking a fact away never makes the others contradict, so the rest stand.
        """
        if len(self.entries) <= 1:
            raise ValueError("nothing to undo")
        number = len(self.entries) if number is None else check_int("number", number, low=2, high=len(self.entries))
        entry = self.entries.pop(number - 1)
        del self.ids[number - 1]
        knowledge = self._blank.copy()
        for earlier in self.entries:
            self._apply(knowledge, earlier)
        self.knowledge, self._solution = knowledge, None
        self.save()
        return entry

    def undo_entry(self, entry_id: int) -> dict[str, Any]:
        """Take back the entry whose id (:attr:`ids`) is ``entry_id``; returns it.

        A page or a device that shows an older log names its entries by id, so it never takes back another
        entry: an id no longer in the log is refused (another device undid it), and so is your hand's.
        """
        if entry_id not in self.ids:
            raise ValueError("that entry is no longer in the log (it was undone elsewhere): reload to see the log now")
        number = self.ids.index(entry_id) + 1
        if number == 1:
            raise ValueError("your own hand stays: start a new game to change it")
        return self.undo(number)

    def log(self) -> list[str]:
        """Every entry in words, in order."""
        return [describe(entry) for entry in self.entries]

    def out(self) -> list[bool]:
        """By seat, whether the player is out (a wrong accusation in Clue, any guess in Generalized Clue), as the
        rules' public state machine has it after the entries (:meth:`public_state`)."""
        return list(self.public_state().out)

    def public_state(self) -> Any:
        """The table's public state after every entry, by the rules' own state machine (``rules.advance`` of the
        accusations and guesses): who is out, the winner, whether the game is over."""
        state = self.rules.public_state()
        for entry in self.entries:
            player = self.player(entry["player"]) if "player" in entry else -1
            cards = tuple(self.card(c) for c in entry.get("cards", []))
            if entry["kind"] == "accusation" and isinstance(entry.get("correct"), bool):
                self.rules.advance(state, ClueEvent("accuse", player, cards, correct=entry["correct"]))
            elif entry["kind"] == "guess":
                self.rules.advance(state, GeneralizedClueEvent("guess", player, cards=cards))
        return state

    # ------------------------------------------------------------------ saving
    def to_json(self) -> dict[str, Any]:
        return {"version": LOG_VERSION, "game": "clue" if self.deck is None else "generalized_clue",
                "deck": self.deck, "players": self.players, "me": self.players[self.me],
                "accusations": self.accusations, "entries": self.entries, "ids": self.ids,
                "next_id": self._next_id}  # fmt: skip

    def save(self) -> None:
        """Write the log durably: atomically (a crash mid-write leaves the previous one) and flushed to the disk,
        the file and then its folder's entry, before it returns, so that an acknowledged entry survives a power
        cut."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(self.path.suffix + ".tmp")
        with temporary.open("w", encoding="utf-8") as file:
            file.write(json.dumps(self.to_json(), indent=2) + "\n")
            file.flush()
            os.fsync(file.fileno())
        temporary.replace(self.path)
        folder = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)  # the rename itself
        finally:
            os.close(folder)

    @classmethod
    def load(cls, path: str | Path, work_limit: float = 2e6) -> ClueSession:
        """Resume a session from its log (it keeps saving there).

        Raises:
            ValueError: the file is not a log of this version, or an entry in it is malformed or refused; the
                message names the file (and the entry). OSError: the file cannot be read.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except ValueError as error:  # not JSON, or not UTF-8
            raise ValueError(f"{path} is not a Clue assistant log: {error}") from None
        if (
            not isinstance(data, dict)
            or data.get("version") != LOG_VERSION
            or data.get("game") not in ("clue", "generalized_clue")
        ):
            raise ValueError(f"{path} is not a Clue assistant log of version {LOG_VERSION}")
        players, me, entries, deck = (data.get(key) for key in ("players", "me", "entries", "deck"))
        if not isinstance(players, list) or not all(isinstance(name, str) for name in players):
            raise ValueError(f"{path}: 'players' must be a list of names, got {players!r}")
        if not isinstance(me, str):
            raise ValueError(f"{path}: 'me' must be a player's name, got {me!r}")
        if (deck is None) != (data["game"] == "clue") or not (deck is None or _is_deck(deck)):
            raise ValueError(
                f"{path}: 'deck' must be null for Clue, [cards, hidden] for Generalized Clue, got {deck!r}"
            )
        if not isinstance(entries, list) or not entries:
            raise ValueError(f"{path}: 'entries' must be a non-empty list, got {entries!r}")
        try:
            check_entry(entries[0])
            if entries[0]["kind"] != "hand":
                raise ValueError("the log must start with your hand")
            deck = None if deck is None else (deck[0], deck[1])
            rule = data.get("accusations", "anywhere")  # logs before the board's advice: the default rule
            if not isinstance(rule, str):
                raise ValueError(f"'accusations' must be a rule's name, got {rule!r}")
            session = cls(players, me, entries[0]["cards"], path=None, work_limit=work_limit, deck=deck,
                          accusations=rule)  # fmt: skip
            for number, entry in enumerate(entries[1:], start=2):
                try:
                    session.add(entry)
                except ValueError as error:
                    raise ValueError(f"entry {number}: {error}") from None
            ids = data.get("ids", list(range(1, len(entries) + 1)))  # logs before ids: numbered in order
            if not (isinstance(ids, list) and len(ids) == len(entries) and _increasing_ids(ids)):
                raise ValueError(f"'ids' must be increasing entry ids, one an entry, got {ids!r}")
            next_id = data.get("next_id", ids[-1] + 1)
            if not (isinstance(next_id, int) and not isinstance(next_id, bool) and next_id > ids[-1]):
                raise ValueError(f"'next_id' must be an integer above every id, got {next_id!r}")
            session.ids, session._next_id = ids, next_id
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None
        session.path = Path(path)
        return session

    # ------------------------------------------------------------------ answers
    def solution(self) -> ClueSolution:
        """Probabilities and the case file's distribution (exact within the budget, else sampled).

        Kept until the next entry or undo: a sampled answer is drawn once, not
        again by every view (the sheet, the case files, the advice) that reads it.
        """
        if self._solution is None:
            self._solution = self.knowledge.solve(samples=4000, rng=len(self.entries))
        return self._solution

    def sheet(self) -> np.ndarray:
        """``(cards, players + 1)``: 1 certainly there, 0 certainly not, -1 unknown (the case file last)."""
        return self.knowledge.deduction_sheet(solution=self.solution())

    def case_files(self, top: int = 5) -> list[tuple[tuple[str, ...], float]]:
        """The ``top`` likeliest case files and their probabilities."""
        solution = self.solution()
        order = np.argsort(-solution.case_file_probabilities, kind="stable")[:top]
        return [
            (tuple(self.card_names[c] for c in solution.case_files[i]), float(solution.case_file_probabilities[i]))
            for i in order
        ]

    def scores(self, rng: int | None = None) -> SuggestionScores:
        """Every suggestion's expected entropy after its answer, for you."""
        return score_suggestions(self.knowledge, self.me, rng=len(self.entries) if rng is None else rng)

    def advice(self, room: int | str | None = None) -> Advice:
        """The best suggestion for you (``room``: only suggestions naming it) and whether to accuse now.

        In Generalized Clue: the ask with the least expected uncertainty, and whether to guess.
        """
        if self.deck is not None:
            return self._generalized_advice()
        scores = self.scores()
        allowed = None
        if room is not None:
            room_id = self.card(room)
            if room_id < 12:
                raise ValueError(f"{self.card_names[room_id]} is not a room")
            allowed = scores.suggestions[:, 2] == room_id
        if allowed is None:
            allowed = np.ones(len(scores.suggestions), dtype=bool)
        # Naming cards you hold narrows the ask to the others: among equally good suggestions, the fewest.
        mine = np.flatnonzero(self.sheet()[:, self.me] == 1)
        held = np.isin(scores.suggestions, mine).sum(axis=1)
        level = allowed & (scores.expected_entropy <= scores.expected_entropy[scores.best(allowed)] + 1e-9)
        best = int(np.flatnonzero(level & (held == held[level].min()))[0])
        solution = self.solution()
        likeliest = int(np.argmax(solution.case_file_probabilities))
        case = np.flatnonzero(self.sheet()[:, len(self.players)] == 1)
        return Advice(
            suggestion=tuple(self.card_names[c] for c in scores.suggestions[best]),
            expected_gain=float(scores.gain[best]),
            exact=scores.exact,
            accusation=tuple(self.card_names[c] for c in solution.case_files[likeliest]),
            probability=float(solution.case_file_probabilities[likeliest]),
            certain=case.size == 3,
            yours=tuple(self.card_names[c] for c in scores.suggestions[best] if c in mine),
        )

    def board_advice(
        self,
        position: int | str,
        roll: int | None = None,
        others: Sequence[int | str] = (),
        summoned: bool = False,
        score: str = "sum",
    ) -> Any:
        """Where to move on the board, ranked as Velma ranks it, under this table's accusation rule
        (:func:`train.tools.assistant.board.board_advice`; a :class:`~train.tools.assistant.board.BoardAdvice`)."""
        from train.tools.assistant.board import board_advice

        return board_advice(self, position, roll, others, summoned, self.accusations, score)

    def _generalized_advice(self) -> Advice:
        rng = np.random.default_rng(len(self.entries))
        sheet = self.sheet()
        targets = [q for q in range(len(self.players)) if q != self.me]
        asks = ask_candidates(sheet, targets, self.knowledge.hand_sizes, rng)
        if not asks:
            asks = [(targets[0], tuple(range(len(self.card_names))))]
        scores = score_asks(self.knowledge, [(self.me, ()), *asks], rng=rng, sheet=sheet)  # first: the uncertainty now
        best = int(np.argmin(scores[1:]))
        solution = self.solution()
        likeliest = int(np.argmax(solution.case_file_probabilities))
        target, cards = asks[best]
        return Advice(
            suggestion=tuple(self.card_names[c] for c in cards),
            expected_gain=float(scores[0] - scores[1 + best]),
            exact=False,
            accusation=tuple(self.card_names[c] for c in solution.case_files[likeliest]),
            probability=float(solution.case_file_probabilities[likeliest]),
            certain=int((sheet[:, len(self.players)] == 1).sum()) == self.deck[1],
            target=self.players[target],
        )


#: The typed commands of :meth:`ClueSession.enter`.
COMMANDS = """\
s ASKER: CARD, CARD, CARD [pass P, P] [refute P [show CARD]]   a suggestion (show: the card you were shown)
showed CARD to PLAYER                                          a card you showed
a PLAYER: CARD, CARD, CARD right|wrong                         an accusation
hand PLAYER: CARD, CARD, ...                                   a hand made public
advice [ROOM]                                                  the best suggestion (in ROOM), and whether to accuse
board AT [roll N] [others SQ; SQ] [summoned]                   on the board: roll or passage, where to move (Velma's
                                                               ranking); AT a room or a square 'row,column'
Generalized Clue (cards by number):
ask ASKER TARGET: CARD, CARD yes [show CARD] | no              an ask and its answer
guess PLAYER: CARD, CARD hand CARD, CARD, ...                  a guess, and the hand it made public
undo [N]                                                       take back the last entry (or entry N of the log)
Cards and players by the start of a word: scar, pipe, bill."""

_KEYWORDS = re.compile(r"\b(pass(?:ed|es)?|ref(?:ute[sd]?)?|show(?:s|n|ed)?|saw)\b", re.IGNORECASE)


def _cards(text: str) -> list[str]:
    cards = [c.strip() for c in text.split(",") if c.strip()]
    if not cards:
        raise ValueError("name the cards, separated by commas")
    return cards


def _parse_suggestion(text: str) -> tuple[str, list[str], list[str], str | None, str | None]:
    """``ASKER: CARDS [pass P, P] [refute P [show CARD]]`` in parts."""
    asker, colon, rest = text.partition(":")
    if not colon:
        raise ValueError("type 's ASKER: CARD, CARD, CARD [pass P, P] [refute P [show CARD]]'")
    parts = _KEYWORDS.split(rest)
    cards, passed, refuter, shown = _cards(parts[0]), [], None, None
    for keyword, value in zip(parts[1::2], parts[2::2], strict=True):
        keyword, value = keyword.lower(), value.strip()
        if keyword.startswith("pass"):
            passed = [p for p in value.replace(",", " ").split() if p]
        elif keyword.startswith("ref"):
            refuter = value
        else:
            shown = value
    return asker.strip(), cards, passed, refuter, shown


def parse_board(text: str) -> tuple[str, int | None, list[str], bool]:
    """``AT [roll N] [others SQ; SQ] [summoned]`` in parts: the position, the roll, the other tokens' squares
    and whether another's suggestion brought you here."""
    match = re.fullmatch(r"\s*(?P<at>.+?)(?:\s+roll(?:ed)?\s+(?P<roll>\S+))?(?:\s+others?\s+(?P<others>.+?))?"
                         r"(?P<summoned>\s+summoned)?\s*", text, re.IGNORECASE)  # fmt: skip
    if not match or not match["at"].strip():
        raise ValueError("type 'board AT [roll N] [others ROW,COL; ROW,COL] [summoned]', AT a room or 'row,column'")
    roll = match["roll"]
    if roll is not None and not roll.isdigit():
        raise ValueError(f"a roll is a number, 2 to 12, got {roll!r}")
    others = [o.strip() for o in (match["others"] or "").split(";") if o.strip()]
    return match["at"].strip(), None if roll is None else int(roll), others, bool(match["summoned"])


def _categories(cards: list[int]) -> list[list[int]]:
    starts = np.cumsum([0, *(len(c) for c in CLASSIC_CATEGORIES)])
    return [[c for c in cards if a <= c < b] for a, b in itertools.pairwise(starts)]


#: The fields an entry may have, and the types of their values (names are strings, as the log writes them).
ENTRY_FIELDS: dict[str, tuple[type, ...]] = {
    "kind": (str,), "player": (str,), "cards": (list,), "passed": (list,), "hand": (list,),
    "refuter": (str, type(None)), "shown": (str, type(None)), "target": (str,), "answered": (bool,),
    "correct": (bool,),
}  # fmt: skip
ENTRY_KINDS = ("hand", "suggestion", "accusation", "ask", "guess", "showed")


def check_entry(entry: object) -> None:
    """Refuse, with a ValueError naming the field, an entry that is not shaped as the log writes them."""
    if not isinstance(entry, dict):
        raise ValueError(f"an entry must be a JSON object of fields, got {entry!r}")
    for key in ("kind", "player"):
        if key not in entry:
            raise ValueError(f"an entry needs a {key!r}, got {entry!r}")
    if entry["kind"] not in ENTRY_KINDS:
        raise ValueError(f"an entry is a {', '.join(ENTRY_KINDS)}, got {entry['kind']!r}")
    for key, value in entry.items():
        if key not in ENTRY_FIELDS:
            raise ValueError(f"an entry has no field {key!r}; the fields are {', '.join(ENTRY_FIELDS)}")
        if isinstance(value, bool) != (bool in ENTRY_FIELDS[key]) or not isinstance(value, ENTRY_FIELDS[key]):
            raise ValueError(f"an entry's {key!r} must be {_type_names(ENTRY_FIELDS[key])}, got {value!r}")
        if isinstance(value, list) and not all(isinstance(item, str) for item in value):
            raise ValueError(f"an entry's {key!r} must be a list of names, got {value!r}")


def _type_names(types: tuple[type, ...]) -> str:
    names = {str: "a name", list: "a list of names", bool: "true or false", type(None): "null"}
    return " or ".join(names[t] for t in types)


def _increasing_ids(ids: list) -> bool:
    return all(isinstance(i, int) and not isinstance(i, bool) and i > 0 for i in ids) and all(
        a < b for a, b in itertools.pairwise(ids)
    )


def _is_deck(deck: object) -> bool:
    return (
        isinstance(deck, list) and len(deck) == 2 and all(isinstance(n, int) and not isinstance(n, bool) for n in deck)
    )


def describe(entry: dict[str, Any]) -> str:
    """An entry in words."""
    kind, who, cards = entry.get("kind"), entry.get("player"), ", ".join(entry.get("cards", []))
    if kind == "hand":
        return f"{who}'s hand: {cards}"
    if kind == "showed":
        return f"you showed {cards} to {who}"
    if kind == "accusation":
        return f"{who} accused {cards}: {'right' if entry.get('correct') else 'wrong'}"
    if kind == "ask":
        answer = "yes" if entry.get("answered") else "no"
        shown = f", showing {entry['shown']}" if entry.get("shown") else ""
        return f"{who} asked {entry.get('target')} about {cards}: {answer}{shown}"
    if kind == "guess":
        return f"{who} guessed {cards} and left; hand {', '.join(entry.get('hand', []))}"
    if kind == "suggestion":
        passed = f"; {', '.join(entry['passed'])} passed" if entry.get("passed") else ""
        refuter = entry.get("refuter")
        answer = "; nobody refuted" if refuter is None else f"; {refuter} refuted"
        shown = f" with {entry['shown']}" if entry.get("shown") else ""
        return f"{who} suggested {cards}{passed}{answer}{shown}"
    return f"an entry of kind {kind!r}"
