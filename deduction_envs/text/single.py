"""The single-player games as text: the rules as a prompt, a game so far as text, a reply read as a query.

Everything here is what the player may know: the rules, the game's sizes, and the queries it asked with their
answers, in the game's own notation (:meth:`~deduction_envs.core.rules.DeductionRules.format_action`,
``format_feedback``). What the player's knowledge implies (how many secrets are left, their entropy) is not
shown: working it out is the task.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Sequence

import numpy as np

from deduction_envs.core.information_set import make_information_set
from deduction_envs.core.rules import DeductionRules
from deduction_envs.text.reply import ReplyError, read_reply

__all__ = ["SingleText", "plain_text", "prompt_rules", "rules_text", "seat_order"]


def seat_order(players: int) -> str:
    """How the seats of a multiplayer game follow each other, for its prompt."""
    seats = ", ".join(f"P{i}" for i in range(players))
    return (f"Seats take turns in the order {seats}, then P0 again; the players to a mover's left are the ones after "
            "it in that order.")  # fmt: skip

_HISTORY_LINE = re.compile(r"(\d+)\. (.+?) -> (.+)")

HOW_TO_ANSWER = (
    "Each turn, reply with one query. You may think first; put the query on the last line of your reply, or "
    "as <answer>QUERY</answer>."
)


#: A Sphinx role: ``:class:`~a.b.C``` (shown as its last name), ``:func:`a.b``` (as written), ``:py:meth:`title
#: <target>``` (its title).
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~)?([^`<]+?)(?:\s*<[^>]*>)?`")


def plain_text(rst: str, values: dict[str, int] | None = None) -> str:
    """reStructuredText as a person or a model reads it: literals (````3**k````) kept as they are, roles as Sphinx
    shows them (``:class:`~agents.ClueEntropyAgent``` as its last name), emphasis marks and single backquotes
    removed. The one reader of the docstrings' markup: the rules in the prompts and the command lines' help.
    ``values``: a literal that names one of them (a size, ````cards````) is written as its value where it counts
    something (not where the text says what it is: ````numbers```` is a size parameter)."""
    parts = re.split(r"``(.+?)``", rst, flags=re.S)
    for i in range(0, len(parts), 2):  # the text between literals; the odd parts are the literals' insides
        text = _ROLE.sub(lambda m: m[2].rsplit(".", 1)[-1] if m[1] else m[2], parts[i])
        text = re.sub(r"\*\*(\S(?:.*?\S)?)\*\*", r"\1", text)
        parts[i] = re.sub(r"(?<!\w)\*(\S(?:.*?\S)?)\*(?!\w)|`([^`]+)`", lambda m: m[1] or m[2], text)
    for i in range(1, len(parts), 2):  # a size used as a count ("``cards`` cards"), not one being defined
        naming = re.match(r"\s+(?:is|are|=|x)\W", parts[i + 1] + " ") or re.search(r"\sx\s+$", parts[i - 1])
        if values and parts[i] in values and not naming:  # "pegs x colors" names the sizes too
            parts[i] = str(values[parts[i]])
    return "".join(parts)


def sizes_of(rules: object) -> dict[str, int]:
    """The whole-number sizes of ``rules`` (its dataclass fields), by name: what a rules text's literals name."""
    import dataclasses

    fields = dataclasses.fields(rules) if dataclasses.is_dataclass(rules) else ()
    found = {f.name: getattr(rules, f.name) for f in fields}
    return {name: value for name, value in found.items() if isinstance(value, int) and not isinstance(value, bool)}


#: A note for programmers in a rules text: a parenthesis naming code (a role, ``:meth:`ClueRules.allowed_rooms```,
#: or a literal with an underscore or a subscript, ````info["secret_known"]````).
_CODE_NOTE = re.compile(r"\s*\((?:[^()]*?:[a-z]+(?::[a-z]+)?:`[^`]*`|[^()]*?``[^`]*[_\[][^`]*``)[^()]*\)")
#: A bullet that says what one game of a module's family does (``* :class:`SimpleMastermind`: ...``).
_GAME_BULLET = re.compile(r"^\* :class:`~?(?:[\w.]*\.)?(\w+)`")


def prompt_rules(section: str, rules: object) -> str:
    """A rules text of a module's documentation as a player is told it: its notes for programmers (code names in
    parentheses) left out, the bullets about the other games of its family left out, plain text, its sizes written
    as this game's."""
    lines, skipping = [], False
    for line in section.splitlines():
        bullet = _GAME_BULLET.match(line)
        if bullet is not None:
            skipping = bullet[1] != type(rules).__name__
        elif not line.startswith("  "):  # a bullet's lines go on indented
            skipping = False
        if not skipping:
            lines.append(line)
    return plain_text(_CODE_NOTE.sub("", "\n".join(lines)), sizes_of(rules)).strip()


def rules_text(rules: object) -> str:
    """The "Rules" section of the game module's documentation as the player is told it (:func:`prompt_rules`)."""
    text = sys.modules[type(rules).__module__].__doc__ or ""
    section = text.split("Rules\n-----\n", 1)[-1]
    section = re.split(r"\n[^\n]+\n-{3,}\n", section, maxsplit=1)[0]  # up to the next section's title
    return prompt_rules(section, rules)


class SingleText:
    """One single-player game as text, for a player that reads and writes (a language model, a person).

    Args:
        rules: the game's rules (its sizes are its dataclass fields).
        max_steps: the most queries a game allows.
    """

    def __init__(self, rules: DeductionRules, max_steps: int) -> None:
        if not isinstance(rules, DeductionRules):
            raise TypeError(f"rules must be a DeductionRules object, got {type(rules).__name__}")
        self.rules, self.max_steps = rules, int(max_steps)
        self.example = 0  # the first query, legal at the start of every game
        start = make_information_set(rules)  # what a player knows before the first query
        answer = int(rules.feedback_at(start, self.example, np.array([rules.num_secrets - 1]))[0])
        self.example_answer = rules.format_feedback(answer)
        self._answers: dict[str, int] | None = None  # an answer's text -> its feedback, made when first read

    @property
    def name(self) -> str:
        """The game's name and sizes, as ``Mastermind (pegs=4, colors=6)``."""
        values = {f.name: getattr(self.rules, f.name) for f in dataclasses.fields(self.rules)}  # type: ignore[arg-type]
        sizes = ", ".join(f"{k}={v}" for k, v in values.items() if isinstance(v, int | float | str))  # not word lists
        return f"{type(self.rules).__name__} ({sizes})" if sizes else type(self.rules).__name__

    def prompt(self) -> str:
        """The rules, this game's sizes and how to answer: what a player is told once, before the game."""
        rules = self.rules
        return "\n\n".join([
            f"You are playing {self.name}, a deduction game: find the hidden secret with as few queries as "
            f"possible. There are {rules.num_secrets:,} possible secrets, all equally likely, and at most "
            f"{self.max_steps} queries.",
            "Rules:\n\n" + rules_text(rules),
            (rules.notation() + " " if rules.notation() else "")
            + f"A query looks like {rules.format_action(self.example)!r}, and an answer like "
            f"{self.example_answer!r}. {HOW_TO_ANSWER}",
        ])  # fmt: skip

    def observation(self, history: Sequence[tuple[int, int]], note: str | None = None, end: str | None = None) -> str:
        """The game so far: every query asked and its answer, the queries left, ``note`` (what was wrong with
        the last reply) if any, and ``end`` (how the game ended) if it is over."""
        rules = self.rules
        lines = [f"{self.name}: {len(history)} of at most {self.max_steps} queries asked."]
        if history:
            lines.append("Your queries and their answers:")
            lines += [f"{i}. {rules.format_action(a)} -> {rules.format_feedback(f)}" for i, (a, f) in
                      enumerate(history, 1)]  # fmt: skip
        if note:
            lines.append(f"Your last reply was not played: {note}")
        lines.append(end or "Your next query?")
        return "\n".join(lines)

    def history_of(self, observation: str) -> list[tuple[int, int]]:
        """The queries and answers an :meth:`observation` lists, read back (what a text agent that keeps no
        state reads from the last observation it was given).

        Raises:
            ValueError: a line that lists a query is not one this game's observation writes.
        """
        if self._answers is None:
            self._answers = {self.rules.format_feedback(f): f for f in range(self.rules.num_feedbacks)}
        history: list[tuple[int, int]] = []
        for line in observation.splitlines():
            found = _HISTORY_LINE.fullmatch(line)
            if found is None:
                continue
            if int(found[1]) != len(history) + 1 or found[3] not in self._answers:
                raise ValueError(f"not a line of this game's history: {line!r}")
            history.append((self.rules.parse_action(found[2]), self._answers[found[3]]))
        return history

    def action_text(self, action: int) -> str:
        """A query in the game's notation."""
        return self.rules.format_action(int(action))

    def parse(self, reply: object, legal: np.ndarray, asked: dict[int, int]) -> int:
        """The query ``reply`` names, if it is legal (``legal``, the env's mask) and not asked before
        (``asked``: query -> its answer).

        Raises:
            ReplyError: why not, and what a query looks like.
        """
        rules = self.rules
        example = f"A query looks like {rules.format_action(self.example)!r}."
        _, action = read_reply(reply, rules.parse_action, example, "a query", f"{example} {HOW_TO_ANSWER}")
        text = rules.format_action(action)
        if action in asked:
            raise ReplyError(f"you asked {text!r} already (its answer was {rules.format_feedback(asked[action])!r}); "
                             "ask something new")  # fmt: skip
        if not legal[action]:
            raise ReplyError(f"{text!r} is not a legal query now")
        return action
