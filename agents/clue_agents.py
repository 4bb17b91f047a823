"""Agents for Clue that play from their own knowledge: the deduction-sheet player and the entropy agent.

Random play is :class:`agents.multiplayer.RandomSeatAgent`; SO-ISMCTS for Clue
is :func:`agents.multiplayer_ismcts.clue_ismcts`.
"""

from __future__ import annotations

import numpy as np

from agents.clue_moves import board_stage, head_for, to_accuse
from agents.multiplayer import SeatAgent, reshown_card
from deduction_envs.core.rules import check_int
from deduction_envs.games.clue import ClueMove, CluePhase, ClueRules
from deduction_envs.reasoning.clue_player import CluePlayerKnowledge
from deduction_envs.reasoning.clue_suggestions import REFUTER_MODELS, SuggestionScores, score_suggestions

__all__ = ["ClueDeductionSheet", "ClueEntropyAgent"]


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
      as few cards as it can. With ``show_rule="velma"`` (pyvelma's rule), the
      second choice is one shown to the most players.
    * On the board it heads for the nearest room whose place it does not know
      (:func:`agents.clue_moves.toward`), and suggests there; once it knows
      every room's place, for the nearest of its own rooms or the case file's.
    """

    rules: ClueRules
    knowledge: CluePlayerKnowledge

    name = "deduction-sheet"

    def __init__(self, show_rule: str = "own") -> None:
        super().__init__()
        self.show_rule = _check_show_rule(show_rule)
        if show_rule == "velma":
            self.name = "deduction-sheet(velma-show)"

    def act(self, mask: np.ndarray) -> int:
        rules, knowledge = self.rules, self.knowledge
        legal = np.flatnonzero(mask)
        if knowledge.phase == CluePhase.SHOW:
            return self._show(legal)
        sheet = knowledge.sheet(exact=False)
        case_file = sheet[:, rules.players] == 1
        known = tuple(int(c) for c in np.flatnonzero(case_file)) if case_file.sum() == len(rules.categories) else None
        action = to_accuse(rules, knowledge, mask, known, self.rng)
        if action is not None:
            return action
        if board_stage(rules, knowledge) is not None:
            rooms = sheet[rules.category_starts[-1] + np.arange(rules.category_sizes[-1])]
            wanted = ~(rooms == 1).any(axis=1)  # rooms whose place it does not know; else its own or the case's
            if not wanted.any():  # (a room nobody else can show, so the answers are about the other two cards)
                wanted = (rooms[:, self.seat] == 1) | (rooms[:, rules.players] == 1)
            move = head_for(rules, knowledge, mask, wanted, self.rng)
            if move is not None:
                return move
        if knowledge.phase == CluePhase.START and mask[: rules.num_triples].any():
            return self._suggest(sheet, mask)
        return rules.end_action if mask[rules.end_action] else int(legal[0])

    def _suggest(self, sheet: np.ndarray, mask: np.ndarray) -> int:
        rules = self.rules
        unknown = ~(sheet == 1).any(axis=1)
        mine = sheet[:, self.seat] == 1
        rooms = mask[: rules.num_triples].reshape(-1, rules.category_sizes[-1]).any(axis=0)  # the rooms allowed
        cards = []
        for start, size in zip(rules.category_starts, rules.category_sizes, strict=True):
            ids = np.arange(start, start + size)
            if start == rules.category_starts[-1]:
                ids = ids[rooms]
            for pool in (ids[unknown[ids]], ids[mine[ids]], ids):
                if pool.size:
                    cards.append(int(self.rng.choice(pool)))
                    break
        action = rules.action_index(ClueMove("suggest", tuple(cards)))
        if mask[action]:
            return action
        return int(self.rng.choice(np.flatnonzero(mask[: rules.num_triples])))  # a room the board forbids

    def _show(self, legal: np.ndarray) -> int:
        return _reshow(self, legal, most_shown=self.show_rule == "velma")


def _reshow(agent: ClueDeductionSheet | ClueEntropyAgent, legal: np.ndarray, most_shown: bool) -> int:
    """The show action of :func:`~agents.multiplayer.reshown_card`'s card among the ``legal`` show actions, else
    a random one of them."""
    knowledge, start = agent.knowledge, agent.rules.end_action + 1
    card = reshown_card(legal - start, knowledge.shown, knowledge.asker, agent.rng, most_shown)
    return int(agent.rng.choice(legal)) if card is None else start + card


#: How a Clue agent chooses the card it refutes with: its own rule, or pyvelma's ("the card already shown to the
#: suggesting player, else the card most often shown previously", else any matching card).
SHOW_RULES = ("own", "velma")


def _check_show_rule(show_rule: str) -> str:
    if show_rule not in SHOW_RULES:
        raise ValueError(f"show_rule must be one of {', '.join(SHOW_RULES)}, got {show_rule!r}")
    return show_rule


class ClueEntropyAgent(SeatAgent):
    """Velma's player: the suggestion that leaves the least expected entropy of the case file.

    * **Suggesting:** every suggestion is scored by
      :func:`~deduction_envs.reasoning.clue_suggestions.score_suggestions` from
      the agent's knowledge (exact over every consistent deal when at most 500
      remain, else from ``samples`` uniform deals) under the ``refuter`` model,
      and it makes the best one the board allows (ties at random).
    * **Accusing** (at the start of its turn and after the answer): when the
      most probable case file reaches probability ``threshold``; with
      ``threshold=1`` only when it is certain (proved by exact counting or by
      propagation, never by a sample). With ``entropy_threshold`` instead: when
      the case file's entropy is at most that many bits (0: only when certain).
    * **Refuting** (``show_rule="velma"``, the default: pyvelma's rule): a card
      already shown to the asker, else one shown to the most players, else any
      matching card. With ``show_rule="own"`` (its rule before, and the
      default until a tournament showed Velma's as good: at 3 to 6 players
      against deduction sheets, on the same deals, Velma's won 42 games the
      other lost and lost 30 it won, sign test p = 0.19;
      ``results/clue_show_rule``): a card it has already shown to the
      asker if it can, else the card the asker most expects it to hold (the
      highest probability under
      :meth:`~deduction_envs.reasoning.clue_player.CluePlayerKnowledge.public_view`
      of the asker).
    * **On the board** it heads for the room of its best suggestion (the room whose best suggestion leaves the
      least expected entropy; the nearest of equals), without weighing how far it is
      (:func:`agents.clue_moves.toward`); Velma (:class:`agents.clue_velma.ClueVelma`) weighs it.

    Args:
        refuter: ``"uniform"`` or ``"adversarial"``, how others choose the card they show.
        threshold: probability in (0, 1] of the most likely case file at which it accuses.
        entropy_threshold: bits >= 0; when given, the entropy rule replaces ``threshold``.
        samples: deals drawn to score suggestions when they cannot all be enumerated.
        show_rule: ``"velma"`` (pyvelma's card to show, the default) or ``"own"`` (see above).
    """

    rules: ClueRules
    knowledge: CluePlayerKnowledge

    def __init__(
        self,
        refuter: str = "uniform",
        threshold: float = 1.0,
        entropy_threshold: float | None = None,
        samples: int = 2000,
        show_rule: str = "velma",
    ) -> None:
        super().__init__()
        self.show_rule = _check_show_rule(show_rule)
        if refuter not in REFUTER_MODELS:
            raise ValueError(f"refuter must be one of {REFUTER_MODELS}, got {refuter!r}")
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold <= 1:
            raise ValueError(f"threshold must be a probability in (0, 1], got {threshold!r}")
        if entropy_threshold is not None and (
            isinstance(entropy_threshold, bool)
            or not isinstance(entropy_threshold, int | float)
            or not 0 <= entropy_threshold < np.inf
        ):
            raise ValueError(f"entropy_threshold must be a number of bits >= 0 or None, got {entropy_threshold!r}")
        self.refuter = refuter
        self.threshold = float(threshold)
        self.entropy_threshold = None if entropy_threshold is None else float(entropy_threshold)
        self.samples = check_int("samples", samples, low=1)
        rule = f"H<={self.entropy_threshold:g}" if entropy_threshold is not None else f"p>={self.threshold:g}"
        extras = ", adversarial" if refuter == "adversarial" else ""
        extras += ", own-show" if show_rule == "own" else ""
        self.name = f"entropy({rule}{extras})"
        #: The scores behind the last suggestion (for hints and tests).
        self.last_scores: SuggestionScores | None = None
        self._scores: tuple | None = None  # (knowledge, its changes, the scores)

    def act(self, mask: np.ndarray) -> int:
        rules, knowledge = self.rules, self.knowledge
        if knowledge.phase == CluePhase.SHOW:
            return self._show(np.flatnonzero(mask))
        action = to_accuse(rules, knowledge, mask, self.accusation(), self.rng)
        if action is not None:
            return action
        if board_stage(rules, knowledge) is not None:
            return self.board_action(mask)
        if knowledge.phase == CluePhase.START and mask[: rules.num_triples].any():
            return self.suggestion(mask[: rules.num_triples])
        return rules.end_action if mask[rules.end_action] else int(np.flatnonzero(mask)[0])

    def board_action(self, mask: np.ndarray) -> int:
        """On the board, before the move: toward the room of its best suggestion (:func:`agents.clue_moves.head_for`),
        or that suggestion where another's suggestion brought it."""
        after, _ = self.room_entropies()
        move = head_for(self.rules, self.knowledge, mask, after <= after.min() + 1e-9, self.rng)
        return self.suggestion(mask[: self.rules.num_triples]) if move is None else move

    def scores(self) -> SuggestionScores:
        """Every suggestion's expected entropy from this seat's knowledge now (:class:`SuggestionScores`); made
        once for what the seat knows (a roll or a move changes nothing known)."""
        knowledge = self.knowledge
        changes = knowledge.engine.changes
        if self._scores is None or self._scores[0] is not knowledge or self._scores[1] != changes:
            found = score_suggestions(knowledge.engine, self.seat, self.refuter, self.samples, self.rng)
            self._scores = (knowledge, changes, found)
        return self._scores[2]

    def room_entropies(self) -> tuple[np.ndarray, float]:
        """Per room, the expected entropy (bits) of the case file after the best suggestion naming it; and the
        entropy now."""
        scores = self.scores()
        rooms = self.rules.category_sizes[-1]
        return scores.expected_entropy.reshape(-1, rooms).min(axis=0), float(scores.entropy)  # rooms fastest

    def suggestion(self, allowed: np.ndarray) -> int:
        """The action of the best suggestion among the ``allowed`` ones (a mask over the triples)."""
        self.last_scores = self.scores()
        return self.last_scores.best(allowed, self.rng)  # triple order is the action order of suggestions

    def accusation(self) -> tuple[int, ...] | None:
        """The case file to accuse now under the accusation rule, or None."""
        knowledge = self.knowledge
        solution = knowledge.solution()
        rule = self.entropy_threshold
        if (rule is None and self.threshold >= 1.0) or rule == 0.0:  # only when certain
            case = np.flatnonzero(knowledge.sheet(exact=True)[:, self.rules.players] == 1)
            return tuple(int(c) for c in case) if case.size == len(self.rules.categories) else None
        best = int(np.argmax(solution.case_file_probabilities))
        ready = (
            solution.entropy <= rule if rule is not None else solution.case_file_probabilities[best] >= self.threshold
        )
        return tuple(int(c) for c in solution.case_files[best]) if ready else None

    def _show(self, legal: np.ndarray) -> int:
        knowledge, start = self.knowledge, self.rules.end_action + 1
        cards = legal - start
        if cards.size == 1:
            return int(legal[0])
        if self.show_rule == "velma":
            return _reshow(self, legal, most_shown=True)
        again = cards[knowledge.shown[knowledge.asker, cards] > 0]
        if again.size:
            return int(start + self.rng.choice(again))
        expected = knowledge.public_view(knowledge.asker).solve(samples=2000, rng=self.rng).probabilities
        likeliest = cards[expected[cards, self.seat] >= expected[cards, self.seat].max() - 1e-9]
        return int(start + self.rng.choice(likeliest))
