"""Agents for Generalized Clue: random, the course report's scoreboard player (with its interrogation-pattern
rule, as the report states it or the looser variant this project had first, as an option), and an exact player.

Every agent decides a whole move (:class:`~deduction_envs.games.generalized_clue.GeneralizedClueMove`)
at the first step of its turn and plays its steps on the following calls
(:class:`GeneralizedClueAgent`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.multiplayer import SeatAgent, reshown_card
from deduction_envs.core.renamed import renamed
from deduction_envs.core.rules import check_int
from deduction_envs.games.generalized_clue import GeneralizedClueMove, GeneralizedCluePhase, GeneralizedClueRules
from deduction_envs.reasoning.clue_suggestions import ask_candidates, score_asks, sure_to_learn
from deduction_envs.reasoning.generalized_clue_player import GeneralizedCluePlayerKnowledge

__all__ = [
    "GeneralizedClueAgent",
    "GeneralizedClueExact",
    "GeneralizedClueRandom",
    "GeneralizedClueScoreboard",
    "Scoreboard",
    "pattern_inferences",
]


class GeneralizedClueAgent(SeatAgent):
    """A Generalized Clue agent that decides whole moves: :meth:`move` (ask or guess) and :meth:`show`.

    :attr:`asks` counts its asks in the current game; :attr:`certain_after`
    is the number of asks after which it first knew the case file (None before).
    """

    rules: GeneralizedClueRules
    knowledge: GeneralizedCluePlayerKnowledge

    def reset(self, rules: Any, seat: int, seed: int | None = None) -> None:
        super().reset(rules, seat, seed)
        self._queue: list[int] = []
        self.asks = 0
        self.certain_after: int | None = None

    def act(self, mask: np.ndarray) -> int:
        if self._queue:
            return self._queue.pop(0)
        if self.knowledge.phase == GeneralizedCluePhase.SHOW:
            return self.show(np.flatnonzero(mask))
        move = self.move(mask)
        if move.kind == "ask":
            self.asks += 1
        steps = self.rules.steps(move)
        self._queue = steps[1:]
        return steps[0]

    def move(self, mask: np.ndarray) -> GeneralizedClueMove:
        """The ask or guess to make (``mask`` is the start of the turn's: whom it may ask, whether it must guess)."""
        raise NotImplementedError

    def show(self, cards: np.ndarray) -> int:
        """The card to show of the matching ``cards``: one already shown to the asker, else to anyone, else random."""
        card = reshown_card(cards, self.knowledge.shown, self.knowledge.asker, self.rng)
        return int(self.rng.choice(cards)) if card is None else card

    def _targets(self, mask: np.ndarray) -> list[int]:
        """The players it may ask now, in turn order after it."""
        rules = self.rules
        order = [(self.seat + i) % rules.players for i in range(1, rules.players)]
        return [q for q in order if mask[rules.cards + q]]

    def _note_certainty(self, certain: bool) -> None:
        if certain and self.certain_after is None:
            self.certain_after = self.asks


class GeneralizedClueRandom(GeneralizedClueAgent):
    """Asks a random opponent still in about a random list; guesses (cards outside its hand) only when it must."""

    name = "random"

    def move(self, mask: np.ndarray) -> GeneralizedClueMove:
        rules = self.rules
        targets = self._targets(mask)
        if not targets:
            pool = [c for c in range(rules.cards) if c not in self.knowledge.hand]
            return GeneralizedClueMove(
                "guess", tuple(int(c) for c in self.rng.choice(pool, rules.hidden, replace=False))
            )
        size = int(self.rng.integers(1, rules.cards + 1))
        cards = self.rng.choice(rules.cards, size, replace=False)
        return GeneralizedClueMove("ask", tuple(int(c) for c in cards), target=int(self.rng.choice(targets)))


class Scoreboard:
    """The report's player x card scoreboard: 1 held, 0 not held, -1 unknown, re-derived from the whole history.

    "Poor man's logic": own hand; "no" answers; cards shown to it; public
    hands of guessers; a "yes" to a list of which all cards but one are known
    not to be the answerer's gives that one; a card held is held by nobody
    else; a player whose held cards fill its hand holds nothing else; repeated
    until nothing changes. The case file's cards are those nobody holds.
    """

    def __init__(self, rules: Any, knowledge: Any) -> None:
        self.rules = rules
        n, p = rules.cards, rules.players
        sizes = rules.hand_sizes
        board = np.full((p, n), -1, dtype=np.int8)
        me = knowledge.player
        board[me] = 0
        board[me, list(knowledge.hand)] = 1
        yes: list[tuple[int, tuple[int, ...]]] = []
        for event in knowledge.events:
            if event.kind == "ask":
                if not event.answered:
                    board[event.target, list(event.cards)] = 0
                elif event.player != me and event.target != me:
                    yes.append((event.target, event.cards))
            elif event.kind == "show" and event.player == me:
                board[event.target, event.card] = 1
            elif event.kind == "guess" and event.player != me:
                board[event.player] = 0
                board[event.player, list(event.hands[0])] = 1
        changed = True
        while changed:
            before = board.copy()
            for target, cards in yes:
                row = board[target, list(cards)]
                if (row == 1).any():
                    continue
                unknown = [c for c, s in zip(cards, row, strict=True) if s != 0]
                if len(unknown) == 1:
                    board[target, unknown[0]] = 1
            held = (board == 1).any(axis=0)
            for player in range(p):
                board[player, held & (board[player] != 1)] = 0
                if (board[player] == 1).sum() == sizes[player]:
                    board[player, board[player] != 1] = 0
            changed = not np.array_equal(before, board)
        self.board = board

    @property
    def hidden(self) -> np.ndarray:
        """Cards nobody holds (then in the case file)."""
        return np.flatnonzero((self.board == 0).all(axis=0))

    @property
    def located(self) -> np.ndarray:
        """Cards whose holder is known."""
        return np.flatnonzero((self.board == 1).any(axis=0))

    def case_file(self) -> tuple[int, ...] | None:
        """The case file if the board is certain of it."""
        rules = self.rules
        if self.hidden.size == rules.hidden:
            return tuple(int(c) for c in self.hidden)
        if self.located.size == rules.cards - rules.hidden:
            return tuple(int(c) for c in np.setdiff1d(np.arange(rules.cards), self.located))
        return None


class GeneralizedClueScoreboard(GeneralizedClueAgent):
    """The course report's player (Ungewitter & Vespe): a scoreboard, poor man's logic, padded asks, a spoof.

    * Whom to ask: the opponent still in it knows least about (fewest known
      cards), the nearest after it on ties.
    * What: in its first turn every card (which tells nobody anything);
      otherwise enough of the target's unknown cards to be sure to learn one,
      padded (with ``pad``) with half of the cards whose holder it knows, never
      the target.
    * The spoof (with ``spoof``), as the report has it: in its second turn it
      asks again the player it asked first, for every card but one of its own
      ("including in your ask list a card that the player has already told you
      he has"). That player shows the card it showed before (as this agent and
      the report's answer does), so the turn teaches the asker nothing: it
      "passes up the opportunity to learn anything on that round" to mislead
      players who assume nobody asks for a card they already know. If that
      player can no longer be asked, it asks as on any other turn.
    * Answers by re-showing a card already shown, to the asker first.
    * Guesses when the scoreboard is certain, or when it must (the likeliest
      by the board: cards nobody is known to hold).
    * With ``patterns``, an interrogation-pattern rule (:func:`pattern_inferences`)
      applied to the scoreboard before every move: ``True`` or ``"report"``
      the report's rule as it states it, ``"means"`` the looser rule this
      agent had before (named ``interrogation-pattern(means)``).
      :attr:`inferences` holds each ``(player, card)`` inferred in the game,
      once, in the order first inferred, to be checked against the deal.
    """

    def __init__(self, pad: bool = True, spoof: bool = True, patterns: bool | str = False) -> None:
        super().__init__()
        if patterns is True:
            patterns = "report"
        if patterns not in (False, "report", "means"):
            raise ValueError(f"patterns must be False, True, 'report' or 'means', not {patterns!r}")
        self.pad, self.spoof, self.patterns = bool(pad), bool(spoof), patterns
        names = {False: "scoreboard", "report": "interrogation-pattern", "means": "interrogation-pattern(means)"}
        self.name = names[patterns]
        self.inferences: list[tuple[int, int]] = []
        self.turns, self.first_target = 0, -1

    def reset(self, rules: Any, seat: int, seed: int | None = None) -> None:
        super().reset(rules, seat, seed)
        self.inferences, self.turns, self.first_target = [], 0, -1

    def board(self) -> Scoreboard:
        board = Scoreboard(self.rules, self.knowledge)
        if self.patterns:
            self._apply_patterns(board)
        return board

    def move(self, mask: np.ndarray) -> GeneralizedClueMove:
        rules, knowledge = self.rules, self.knowledge
        self.turns += 1
        board = self.board()
        case = board.case_file()
        self._note_certainty(case is not None)
        targets = self._targets(mask)
        if case is not None or not targets:
            if case is None:  # must guess: cards nobody is known to hold, the least known first
                unknown = np.flatnonzero(~(board.board == 1).any(axis=0))
                case = tuple(sorted(int(c) for c in self.rng.choice(unknown, rules.hidden, replace=False)))
            return GeneralizedClueMove("guess", case)
        known = (board.board[targets] == 1).sum(axis=1)
        target = targets[int(np.argmin(known))]  # the first of the least known, nearest after it
        if self.turns == 1:
            self.first_target = target
            return GeneralizedClueMove("ask", tuple(range(rules.cards)), target=target)
        if self.turns == 2 and self.spoof and self.first_target in targets:
            mine = int(self.rng.choice(knowledge.hand))
            spoof = tuple(c for c in range(rules.cards) if c != mine)
            return GeneralizedClueMove("ask", spoof, target=self.first_target)
        row = board.board[target]
        unknown = np.flatnonzero(row == -1)
        left = rules.hand_sizes[target] - int((row == 1).sum())  # its cards not yet known
        count = max(1, unknown.size - left + 1)  # any `count` of its unknown cards include one of its own
        cards = list(self.rng.choice(unknown, min(count, unknown.size), replace=False))
        if self.pad:
            others = np.flatnonzero(((board.board == 1).any(axis=0)) & (row != 1))
            cards += list(self.rng.choice(others, others.size // 2, replace=False))
        return GeneralizedClueMove("ask", tuple(int(c) for c in cards), target=target)

    def _apply_patterns(self, board: Scoreboard) -> None:
        assert self.patterns, "called only with an interrogation-pattern rule"
        asked = np.zeros((self.rules.players, self.rules.cards), dtype=np.int64)
        for event in self.knowledge.events:
            if event.kind == "ask":
                asked[event.player, list(event.cards)] += 1
        found = pattern_inferences(board.board, asked, self.rules.hand_sizes, self.seat, self.patterns)
        for q, cards in found:
            for card in cards:
                board.board[:, card] = 0
                board.board[q, card] = 1
                if (q, card) not in self.inferences:
                    self.inferences.append((q, card))


def pattern_inferences(
    board: np.ndarray, asked: np.ndarray, hand_sizes: Any, me: int, rule: str = "report"
) -> list[tuple[int, tuple[int, ...]]]:
    """The cards an interrogation-pattern rule takes each opponent to hold: ``[(player, cards), ...]``.

    ``board`` is a :class:`Scoreboard`'s (players x cards: 1 held, 0 not
    held, -1 unknown), ``asked[q, c]`` how many of ``q``'s asks named card
    ``c``, ``me`` the seat applying the rule (never inferred about). Both
    rules wait until more than half of a player's hand is known for certain.

    * ``"report"``, as the report states it (Ungewitter & Vespe, "Interrogation
      Pattern Analysis"): "if at any point in the game, we know more than half
      of a player's cards for certain, and those cards are all in the p most
      frequent or p least frequent cards that the player has asked about, and
      we do not know where the remaining p cards are held, then we assume the
      player has all p cards in the set" (p: the player's hand size). The p
      most (least) asked cards are a set only when the p-th and the next
      differ in count: where a tie straddles the boundary the rule does not
      fire (the report does not say how it broke ties). "We do not know where
      the remaining cards are held": nobody is known to hold them and the
      player is not known to lack them. Most is tried before least.
    * ``"means"``, the looser rule this project had first: whichever of most or
      least its known cards' mean count says, the player's unknown cards asked
      most (least) are taken to be its remaining ones (ties broken by card
      order), without checking that the known cards lie in that set.
    """
    out: list[tuple[int, tuple[int, ...]]] = []
    board = board.copy()  # each inference is applied before the next player is looked at
    cards = board.shape[1]

    def infer(q: int, group: Any) -> None:
        group = tuple(int(c) for c in group)
        board[:, group] = 0
        board[q, group] = 1
        out.append((q, group))

    for q in range(board.shape[0]):
        row, size = board[q], int(hand_sizes[q])
        held = np.flatnonzero(row == 1)
        left = size - held.size
        if q == me or held.size * 2 <= size or left <= 0 or not asked[q].any():
            continue
        if rule == "means":
            unknown = np.flatnonzero(row == -1)
            if unknown.size <= left:
                continue
            most = asked[q, held].mean() >= asked[q].mean()
            order = np.argsort(-asked[q, unknown] if most else asked[q, unknown], kind="stable")
            infer(q, unknown[order[:left]])
            continue
        if size >= cards:
            continue
        located = (board == 1).any(axis=0)
        for sign in (-1, 1):  # the p most asked, then the p least
            counts = sign * asked[q]
            order = np.argsort(counts, kind="stable")
            if counts[order[size - 1]] == counts[order[size]]:
                continue  # a tie across the boundary: no such set
            group = order[:size]
            rest = np.setdiff1d(group, held)
            if np.isin(held, group).all() and not located[rest].any() and (row[rest] == -1).all():
                infer(q, rest)
                break
    return out


class GeneralizedClueExact(GeneralizedClueAgent):
    """Everything it is entitled to know (its :class:`ClueKnowledge`), and the ask that tells it most.

    * Asks: candidates for every opponent still in (each unknown card alone;
      the report's sure-to-learn lists; the unknown cards the target may hold,
      in one list and in halves); each scored by the case file's expected
      entropy after the answer over ``samples`` uniform deals (the target
      shows each matching card with equal probability), and the best made.
      Where the possible case files outnumber a quarter of the deals, the
      score is the sum of each card's entropy of being hidden instead, which
      few deals estimate well (the joint entropy would be noise). With
      ``listeners`` > 0, that many times the entropy of the public yes/no
      answer is added: what the other players may learn from the ask
      (default 0.5: at 5 players of 5 cards, against scoreboard agents, it
      takes the agent from a mean rank of 4.58 of 5 to 3.10, parity: its
      asks had taught the scoreboards, ``results/generalized_clue_listeners``).
    * Guesses the most probable case file when its probability reaches
      ``threshold`` (1: only when certain, proved by counting or propagation),
      or when it must; and with ``race`` (default) when waiting would cost
      rank: if :meth:`rivals_near` opponents may be certain now, it guesses
      when ``chance * R(place) + (1 - chance) * R(last) > R(place + rivals)``,
      ``chance`` the best case file's probability, ``R`` the reward of a rank
      and ``place`` one more than the players gone. Against scoreboards, with
      ``listeners=0.5``, the race took the mean rank from 1.97 to 1.85 of 3
      (3 x 4) and from 3.10 to 2.69 of 5 (5 x 5), mean reward above 0 at
      p = 0.035 and 0.03, guessing wrong in 26% and 28% of games
      (``results/generalized_clue_race``).
    * With ``pad``, pads every ask with the cards it knows another player
      holds, its own hand among them: the target cannot hold them, so the
      answer tells it as much, while a listener who does not know where they
      are learns less from a yes (the report pads its asks with half of those).
    * With ``sure``, asks only lists sure to show it a card it does not know
      (the target's unknown cards, at least as many as are not the target's
      plus one), the best scored of them: every ask then moves it one card
      on, and every answer is a public yes. At 8 x 5 against scoreboards,
      who are certain after exactly ``n - k - hand`` asks, the default's
      best-scored asks taught it less than a card (certain after 36) or
      told three listeners enough to be certain after 34, in 2 of 84 games
      of a diagnostic; a round lost there costs a place, or a gamble.
    * Answers by re-showing a card already shown, to the asker first.
    """

    name = "exact"

    def __init__(
        self,
        threshold: float = 1.0,
        samples: int = 1000,
        listeners: float = 0.5,
        race: bool = True,
        pad: bool = False,
        sure: bool = False,
    ) -> None:
        super().__init__()
        self.race = bool(race)
        self.pad = bool(pad)
        self.sure = bool(sure)
        if isinstance(listeners, bool) or not isinstance(listeners, int | float) or not listeners >= 0:
            raise ValueError(f"listeners must be a weight >= 0, got {listeners!r}")
        self.listeners = float(listeners)
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold <= 1:
            raise ValueError(f"threshold must be a probability in (0, 1], got {threshold!r}")
        self.threshold = float(threshold)
        self.samples = check_int("samples", samples, low=1)

    def move(self, mask: np.ndarray) -> GeneralizedClueMove:
        rules, knowledge = self.rules, self.knowledge
        solution = knowledge.solution()
        sheet = knowledge.sheet()
        case_known = np.flatnonzero(sheet[:, rules.players] == 1)
        certain = case_known.size == rules.hidden
        self._note_certainty(certain)
        targets = self._targets(mask)
        best = int(np.argmax(solution.case_file_probabilities))
        if certain:
            return GeneralizedClueMove("guess", tuple(int(c) for c in case_known))
        chance = float(solution.case_file_probabilities[best])
        if not targets or (self.threshold < 1 and chance >= self.threshold) or (self.race and self._rush(chance)):
            return GeneralizedClueMove("guess", tuple(int(c) for c in solution.case_files[best]))
        return self._best_ask(targets, sheet)

    def rivals_near(self) -> int:
        """Opponents still in who may be certain now, and so guess at their next turn, by the public record:
        each knows at least its hand, a card for each of its asks answered yes, and the hands of the players
        gone; knowing as many cards as are not hidden, it knows the case file."""
        rules, knowledge = self.rules, self.knowledge
        yes = np.zeros(rules.players, dtype=np.int64)
        for event in knowledge.events:
            if event.kind == "ask" and event.answered:
                yes[event.player] += 1
        gone = sum(len(hand) for _, _, hand in knowledge.guesses)
        known = np.asarray(rules.hand_sizes) + yes + gone
        near = known >= rules.cards - rules.hidden
        near[self.seat] = False
        return int((near & ~knowledge.out).sum())

    def _rush(self, chance: float) -> bool:
        """Whether guessing now, right with probability ``chance``, has a higher expected reward than waiting
        while :meth:`rivals_near` guess first (taken as right, as are those gone); a wrong guess counted last."""
        rivals = self.rivals_near()
        if rivals == 0:
            return False
        rules = self.rules
        place = 1 + int(self.knowledge.out.sum())
        right, wrong = rules.rank_reward(place), rules.rank_reward(rules.players)
        return chance * right + (1 - chance) * wrong > rules.rank_reward(min(place + rivals, rules.players))

    def _best_ask(self, targets: list[int], sheet: np.ndarray) -> GeneralizedClueMove:
        rules = self.rules
        candidates = ask_candidates(sheet, targets, rules.hand_sizes, self.rng)
        if self.sure:
            sure = [(q, cards) for q, cards in candidates if sure_to_learn(sheet, q, cards, rules.hand_sizes)]
            candidates = sure or candidates
        if not candidates:  # nothing left to learn from anyone still in: ask the first about everything
            return GeneralizedClueMove("ask", tuple(range(rules.cards)), target=targets[0])
        scores = score_asks(self.knowledge.engine, candidates, self.samples, self.rng, sheet, self.listeners)
        ties = np.flatnonzero(np.array(scores) <= min(scores) + 1e-9)
        q, cards = candidates[int(self.rng.choice(ties))]
        if self.pad:
            elsewhere = np.flatnonzero((np.delete(sheet[:, : rules.players], q, axis=1) == 1).any(axis=1))
            cards = tuple(sorted({*cards, *(int(c) for c in elsewhere)}))
        return GeneralizedClueMove("ask", cards, target=q)


#: The names before they spelt out Generalized Clue, kept for one version.
__getattr__ = renamed(
    __name__,
    {
        "GCAgent": "GeneralizedClueAgent",
        "GCRandom": "GeneralizedClueRandom",
        "GCScoreboard": "GeneralizedClueScoreboard",
        "GCExact": "GeneralizedClueExact",
    },
)
