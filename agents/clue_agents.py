"""Agents for Clue that play from their own knowledge: the deduction-sheet player.

Random play is :class:`agents.multiplayer.RandomSeatAgent`.
"""

from __future__ import annotations

import numpy as np

from agents.multiplayer import SeatAgent
from deduction_envs.games.clue import ClueMove, CluePhase

__all__ = ["ClueDeductionSheet"]


class ClueDeductionSheet(SeatAgent):
    """A careful human's game: a deduction sheet of certain facts, and nothing probabilistic.

    Its sheet is what propagation proves from its events
    (:meth:`~deduction_envs.reasoning.CluePlayerKnowledge.sheet` with
    ``exact=False``: each card's place where it is certain, and the places it is
    certainly not in, the unseen refutations included as at-least clauses).

    * It accuses as soon as the sheet names the case file, and only then.
    * It suggests, per category, a card whose place it does not know (at
      random); where it knows every card's place, one of its own cards, else
      the case file's (a card nobody can show, so the others' answers are about
      the rest).
    * It refutes with a card it has already shown to the asker if it can, else
      one it has shown to anyone, else a random matching card: it gives away
      as few cards as it can.
    """

    name = "deduction-sheet"

    def act(self, mask: np.ndarray) -> int:
        rules, knowledge = self.rules, self.knowledge
        legal = np.flatnonzero(mask)
        if knowledge.phase == CluePhase.SHOW:
            return self._show(legal)
        sheet = knowledge.sheet(exact=False)
        case_file = sheet[:, rules.players] == 1
        if case_file.sum() == len(rules.categories):
            action = rules.action_index(ClueMove("accuse", tuple(int(c) for c in np.flatnonzero(case_file))))
            if mask[action]:
                return action
        if knowledge.phase == CluePhase.START and mask[: rules.num_triples].any():
            return self._suggest(sheet, mask)
        return rules.end_action if mask[rules.end_action] else int(legal[0])

    def _suggest(self, sheet: np.ndarray, mask: np.ndarray) -> int:
        rules = self.rules
        unknown = ~(sheet == 1).any(axis=1)
        mine = sheet[:, self.seat] == 1
        cards = []
        for start, size in zip(rules.category_starts, rules.category_sizes, strict=True):
            ids = np.arange(start, start + size)
            for pool in (ids[unknown[ids]], ids[mine[ids]], ids):
                if pool.size:
                    cards.append(int(self.rng.choice(pool)))
                    break
        action = rules.action_index(ClueMove("suggest", tuple(cards)))
        if mask[action]:
            return action
        return int(self.rng.choice(np.flatnonzero(mask[: rules.num_triples])))  # a room the board forbids

    def _show(self, legal: np.ndarray) -> int:
        knowledge = self.knowledge
        cards = legal - self.rules.end_action - 1
        shown = knowledge.shown[:, cards] > 0  # [seat, matching card]: shown to that seat already
        for pool in (cards[shown[knowledge.asker]], cards[shown.any(axis=0)]):
            if pool.size:
                return int(self.rules.end_action + 1 + self.rng.choice(pool))
        return int(self.rng.choice(legal))
