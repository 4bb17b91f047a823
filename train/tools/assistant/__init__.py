"""The Clue table assistant: exact probabilities and the best suggestion, for a person at a real table.

:class:`~train.tools.assistant.session.ClueSession` holds the logic (entries, undo,
the saved log, answers, advice), apart from any UI.
"""

from train.tools.assistant.session import Advice, ClueSession

__all__ = ["Advice", "ClueSession"]
