"""Generalized Clue as a PettingZoo AEC env: ``generalized_clue_v0``.

A whole game of random legal actions::

    from deduction_envs.envs import generalized_clue_v0

    env = generalized_clue_v0.env(cards=14, hidden=2, players=3)
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"] if not (termination or truncation) else None
        action = None if mask is None else env.action_space(agent).sample(mask)
        env.step(action)

The rules are in :mod:`deduction_envs.games.generalized_clue`: ``cards`` cards
of one kind, ``hidden`` in the case file, the rest dealt to ``players``; on a
turn, ask one opponent about any list of cards (it shows one it holds, or
everyone sees "no"), or guess the case file and leave. Agents are
``player_0`` .. ``player_{p-1}``; the agent to act is the player whose turn it
is, or the asked player choosing the card to show.

Action space
------------
``Discrete(cards + players + 2)``: a list is built in masked sub-steps by the
same agent. ``a < cards`` is card ``a`` (added to the list or guess being
built, where it stays, so a move takes at most ``cards + 2`` steps; the card
to show when answering), ``cards + q`` asks
player ``q``, ``cards + players`` starts a guess and ``cards + players + 1``
submits the list or the guess. ``rules.steps(GeneralizedClueMove(...))`` turns a whole move
into its steps. A masked action ends the game with -1 for its player
(``illegal_action="raise"`` raises instead).

Observation space
-----------------
``{"observation": Box, "action_mask": Box}``: the acting player's information
state from its own :class:`~deduction_envs.reasoning.generalized_clue_player.GeneralizedCluePlayerKnowledge`
(nothing private of another seat). Seats are in turn order from the observer's
own; places are those seats, then the case file. Named pieces of one vector
(``raw_env.pieces``, ``raw_env.split(vector)``):

* ``hand`` (cards); ``held``, ``not_held``, ``probabilities`` (cards x
  places) and ``entropy`` (1, over ``log2 C(cards, hidden)``), as in
  ``clue_v0`` (a guesser's public hand is among the facts);
* ``shown`` (seats x cards): cards the observer has shown to each seat;
* ``asked``, ``yes``, ``no`` (seats x cards): per seat and card, how often the
  seat was asked about the card, and answered yes or no (counts);
* ``chosen`` (cards) and ``target`` (seats): the list or guess the observer is
  building and whom it is asking;
* ``request`` (cards) and ``asker`` (seats): an ask the observer must answer;
* ``phase`` (5: start, asking, guessing, show, over), ``turn`` (seats:
  whose turn it is), ``in`` (seats: not yet guessed) and ``rounds`` (seats:
  turns taken over ``max_rounds``);
* ``seat`` (players, one-hot): the observer's own seat, since the ask actions
  name players by their seat (everything else is relative to the observer).

Rewards
-------
At the end, linear in rank from +1 (first right guess) to -1 (last place);
wrong guessers tie below every right one. ``max_cycles`` actions truncate the
game (0 for everyone). ``env.unwrapped.entropy(agent)`` is the agent's
case-file entropy.

Arguments
---------
``cards`` (default 14), ``hidden`` (2), ``players`` (3): any sizes the knowledge engine handles (at most 62
cards), else ``ValueError``; ``max_rounds``: a player's turns before it must guess (default: the asks a sound
player may need to be certain, ``cards - hidden -`` the smallest hand, at least 20; a smaller value warns);
``probabilities`` (True), ``max_cycles`` (default: 5,000, or more where a game of these sizes may take more
actions: :func:`max_actions`, so that legal play always ends before it; the course report's 8 x 5 game, 45 cards
and 8 players, may take 13,496 where scoreboards take about 9,720), ``render_mode`` (``"ansi"``,
``"human"``, ``"rgb_array"``), ``illegal_action`` (``"end"`` or ``"raise"``; ``strict`` its deprecated alias).

Version History
---------------
* v0: first version. The observation's ``seat`` piece was added (the ask
  actions name absolute seats, which the relative observation did not tell).
  Cards are added to a list, not toggled: an early build
  let a card be taken out again, so a random policy could build one list for
  thousands of steps (training episodes ran to ``max_cycles``).
  ``illegal_action`` (``"end"`` or ``"raise"``) names the strict mode as the Gymnasium envs do; ``strict`` is
  its deprecated alias, for one version.
  ``state()`` is PettingZoo's global view (every seat's observation vector, in ``state_space``); it was a
  property holding the table's whole state, which is ``env.table.state``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv

from deduction_envs.core.renamed import renamed
from deduction_envs.envs.clue import SheetEnv, SheetObserver, sheet_pieces
from deduction_envs.envs.multiplayer_env import ObservationPieces, wrap
from deduction_envs.games.generalized_clue import GeneralizedCluePhase, GeneralizedClueRules
from deduction_envs.reasoning.generalized_clue_player import GeneralizedCluePlayerKnowledge

__all__ = ["GeneralizedClueObserver", "env", "observation_pieces", "raw_env"]

#: The observation's counting budget (as ``clue_v0``): exact up to this many hands, else this many sampled deals.
OBSERVATION_WORK = 2e5
OBSERVATION_SAMPLES = 2000


def observation_pieces(rules: GeneralizedClueRules) -> ObservationPieces:
    """The named pieces of the observation vector (see the module docstring)."""
    cards, seats = rules.cards, rules.players
    return ObservationPieces(
        [
            *sheet_pieces(cards, seats),
            ("shown", (seats, cards)),
            ("asked", (seats, cards)),
            ("yes", (seats, cards)),
            ("no", (seats, cards)),
            ("chosen", (cards,)),
            ("target", (seats,)),
            ("request", (cards,)),
            ("asker", (seats,)),
            ("phase", (len(GeneralizedCluePhase),)),
            ("turn", (seats,)),
            ("in", (seats,)),
            ("rounds", (seats,)),
            ("seat", (seats,)),
        ]
    )


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` in the standard wrapper (PettingZoo's order checks)."""
    return wrap(raw_env(**kwargs))


class GeneralizedClueObserver(SheetObserver):
    """A seat's observation of Generalized Clue (see the module docstring), from its
    :class:`GeneralizedCluePlayerKnowledge` alone. ``max_cycles`` bounds the record's counts (the vector's upper
    bound)."""

    rules: GeneralizedClueRules

    def __init__(self, rules: GeneralizedClueRules, probabilities: bool = True, max_cycles: int = 5000) -> None:
        entropy = math.log2(math.comb(rules.cards, rules.hidden))
        record = ("shown", "no")  # shown, asked, yes, no: adjacent
        super().__init__(rules, observation_pieces(rules), record, entropy, probabilities, max_cycles)

    def new_knowledge(self, player: int) -> GeneralizedCluePlayerKnowledge:
        return GeneralizedCluePlayerKnowledge(
            self.rules, player, work_limit=OBSERVATION_WORK, samples=OBSERVATION_SAMPLES
        )

    def encode(self, knowledge: GeneralizedCluePlayerKnowledge) -> np.ndarray:
        me, at, rules = knowledge.player, self._slots, self.rules
        seats, relative = self._seats[me], self._relative[me]
        vector = self.encode_sheet(knowledge)
        vector[at["chosen"]] = (knowledge.chosen >> np.arange(rules.cards)) & 1
        if knowledge.phase == GeneralizedCluePhase.SHOW:
            vector[at["request"].start + np.array(knowledge.asked_cards, dtype=np.int64)] = 1
            vector[at["asker"].start + relative[knowledge.asker]] = 1
        if knowledge.target >= 0:
            vector[at["target"].start + relative[knowledge.target]] = 1
        vector[at["phase"].start + int(knowledge.phase)] = 1
        vector[at["turn"].start + relative[knowledge.mover]] = 1
        vector[at["in"]] = ~knowledge.out[seats]
        vector[at["rounds"]] = knowledge.turns[seats] / rules.max_rounds
        vector[at["seat"].start + me] = 1
        return vector


def max_actions(rules: GeneralizedClueRules) -> int:
    """The most actions a game of ``rules`` can take: every player's ``max_rounds`` turns, each an ask built card
    by card (its target, up to every card, its submit: ``cards + 2``) and answered (a show), then each player's guess
    (its start, ``hidden`` cards, its submit)."""
    rounds = rules.max_rounds
    assert rounds is not None  # the rules fill it in
    return rules.players * (rounds * (rules.cards + 3) + rules.hidden + 2)


#: The default ``max_cycles`` where :func:`max_actions` is below it (the kept models' observations count in it).
MAX_CYCLES = 5000


class raw_env(SheetEnv):
    """Generalized Clue; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {**SheetEnv.metadata, "name": "generalized_clue_v0"}

    def __init__(
        self,
        cards: int = 14,
        hidden: int = 2,
        players: int = 3,
        max_rounds: int | None = None,
        probabilities: bool = True,
        max_cycles: int | None = None,
        render_mode: str | None = None,
        illegal_action: str = "end",
        strict: bool | None = None,
    ) -> None:
        rules = GeneralizedClueRules(cards, hidden, players, max_rounds)
        if max_cycles is None:
            max_cycles = max(MAX_CYCLES, max_actions(rules))
        super().__init__(rules, probabilities, max_cycles, render_mode, illegal_action, strict)

    rules: GeneralizedClueRules

    def make_observer(
        self, rules: GeneralizedClueRules, probabilities: bool, max_cycles: int
    ) -> GeneralizedClueObserver:
        return GeneralizedClueObserver(rules, probabilities, max_cycles)

    def status(self, viewer: GeneralizedCluePlayerKnowledge) -> str:
        chosen = [c for c in range(self.rules.cards) if viewer.chosen >> c & 1]
        building = (
            f", building {chosen}"
            if viewer.phase in (GeneralizedCluePhase.ASKING, GeneralizedCluePhase.GUESSING)
            else ""
        )
        return f" ({GeneralizedCluePhase(viewer.phase).name.lower()}{building})"


#: The names before they spelt out Generalized Clue, kept for one version.
__getattr__ = renamed(__name__, {"GCObserver": "GeneralizedClueObserver"})
