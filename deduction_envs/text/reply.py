"""Reading a player's reply: where the answer is in it, and what is wrong with it if it is not a move.

A reply is free text (a language model's, a person's). The answer is looked for, in this order, in the last
``<answer>...</answer>`` tag, else what follows the label on the last line labelled ``Answer:`` (or
``Guess:``, ``Query:``, ``Move:``, ``Action:``, with ``=`` too and words before: ``Final answer:``,
``My guess =``), else the last line that is not empty. Only the reply's last
:data:`TAIL` characters are read, so a reply of any length costs the same; what cannot be read as a move is a
:class:`ReplyError` whose message says what was wrong and what is expected, to be shown to the player.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["MAX_ANSWER", "TAIL", "ReplyError", "answer_of", "ascii_text", "quoted", "read_reply", "seat_text"]

#: How many of a reply's last characters are read for its answer (a long reasoning before it is passed over).
TAIL = 4000
#: The longest answer read (no move of any game is longer); a longer one is refused as it is.
MAX_ANSWER = 200

_TAG = re.compile(r"<answer>(.*?)</answer>", re.I | re.S)
_LABEL = re.compile(r"^[^\n]*?\b(?:answer|guess|query|move|action)\**\s*[:=]\s*(.*)$", re.I | re.M)
_TAG_MARK = re.compile(r"</?answer>", re.I)  # a tag left open or closed alone
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_WRAPPING = " \t\"'`*_.;:!"


class ReplyError(ValueError):
    """A reply that is not a legal move; its message says why and what is expected, for the player."""


def quoted(text: str, most: int = 60) -> str:
    """``text`` quoted for a message, in ASCII (other characters escaped), at most ``most`` characters of it: cut
    after escaping, since an escape is up to ten characters for one (an emoji's ``\\U0001f600``)."""
    escaped = ascii(" ".join(text.split()))
    return escaped if len(escaped) <= most else escaped[: most - 4] + "...'"


def shortened(text: str, most: int) -> str:
    """``text`` cut to at most ``most`` characters, ``...`` marking a cut."""
    return text if len(text) <= most else text[: most - 3] + "..."


def answer_of(reply: Any) -> str:
    """The answer in ``reply`` (text, or UTF-8 bytes), as the module says, stripped of the quotes, backticks,
    emphasis and final full stop that often wrap it.

    Raises:
        ReplyError: the reply is not text, is empty, or its answer is empty or longer than :data:`MAX_ANSWER`.
    """
    if isinstance(reply, bytes | bytearray):
        reply = bytes(reply).decode("utf-8", errors="replace")
    if not isinstance(reply, str):
        raise ReplyError(f"a reply is text, got {type(reply).__name__}")
    text = _CONTROL.sub(" ", reply[-TAIL:])
    if not text.strip():
        raise ReplyError("the reply was empty")
    tags = _TAG.findall(text)
    if tags:
        answer = tags[-1]
    else:
        labelled = _LABEL.findall(text)
        answer = labelled[-1] if labelled else next(line for line in reversed(text.splitlines()) if line.strip())
    answer = _TAG_MARK.sub(" ", answer).strip().strip(_WRAPPING).strip()
    if not answer:
        raise ReplyError("the answer was empty")
    if len(answer) > MAX_ANSWER:
        raise ReplyError(f"the answer is {len(answer)} characters long; a move is one short line")
    return answer


def ascii_text(text: str) -> str:
    """``text`` in printable ASCII (``string.printable``, the text spaces' charset): other characters, and control
    characters but for the line and tab, escaped."""
    text = text.encode("ascii", "backslashreplace").decode()
    return _CONTROL.sub(lambda found: f"\\x{ord(found[0]):02x}", text)


def read_reply(
    reply: Any, parse: Callable[[str], T], expected: str, what: str = "a move", empty: str | None = None
) -> tuple[str, T]:
    """The answer in ``reply`` (:func:`answer_of`) and what ``parse`` makes of it.

    Raises:
        ReplyError: no answer (its reason, then ``empty``, default ``expected``), or one ``parse`` refuses with a
            ValueError (the answer quoted, "is not ``what``", the reason in ASCII, then ``expected``).
    """
    try:
        answer = answer_of(reply)
    except ReplyError as error:
        raise ReplyError(f"{error}. {expected if empty is None else empty}") from None
    try:
        return answer, parse(answer)
    except ValueError as error:  # its message may repeat the answer
        why = shortened(ascii_text(str(error)), 200)  # a parser's message may repeat the answer
        raise ReplyError(f"{quoted(answer)} is not {what}: {why}. {expected}") from None


def seat_text(head: list[str], said: list[str], note: str | None, last: str | None) -> str:
    """A multiplayer seat's observation: ``head`` (its hand, its table), what has happened (``said``, numbered),
    what was wrong with its last reply (``note``) and ``last`` (how the game ended, or what it must do now); in
    ASCII, other characters escaped."""
    lines = list(head)
    if said:
        lines.append("What has happened:")
        lines += [f"{i}. {text}" for i, text in enumerate(said, 1)]
    if note:
        lines.append(f"Your last reply was not played: {note}")
    if last:
        lines.append(last)
    return ascii_text("\n".join(lines))
