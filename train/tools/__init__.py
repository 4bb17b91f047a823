"""Tools for people: terminal play against the agents (``python -m train.tools.play``), a demonstration game
(``train.tools.demo``) and the Clue table assistant (``python -m train.tools.assistant``, ``clue-assistant``)."""
