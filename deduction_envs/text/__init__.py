"""Deduction games as text, for language models and people (issue 66).

:class:`SingleText` turns a single-player game into a prompt (its rules), an observation (the queries asked and
their answers, in the game's notation) and a reader of replies; :class:`TextEnv` wraps a single-player env so that
a text agent plays it (Gymnasium ``Text`` spaces). :class:`AlgoText`, :class:`ClueText`,
:class:`GeneralizedClueText` and :class:`TextAECEnv` do the same for Algo, Clue (with or without its board) and
Generalized Clue, one seat at a time, each seeing only what its seat has seen. A reply's answer is found as
:mod:`.reply` says; one that is not a legal move is never played: the player is told what was wrong, and too many
such replies end the game.
"""

from deduction_envs.text.aec import TextAECEnv
from deduction_envs.text.algo import AlgoText
from deduction_envs.text.clue import ClueText
from deduction_envs.text.env import TextEnv
from deduction_envs.text.generalized_clue import GeneralizedClueText
from deduction_envs.text.reply import TAIL, ReplyError, answer_of
from deduction_envs.text.single import SingleText, plain_text, rules_text

__all__ = [
    "TAIL",
    "AlgoText",
    "ClueText",
    "GeneralizedClueText",
    "ReplyError",
    "SingleText",
    "TextAECEnv",
    "TextEnv",
    "answer_of",
    "plain_text",
    "rules_text",
]
