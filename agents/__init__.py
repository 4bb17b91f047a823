"""Reference policies that trained agents are compared against.

Agents are built from a game's rules and learn only from their own
observations; they never see a secret.
"""
