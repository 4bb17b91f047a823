"""Play Clue in the terminal against the reference agents (``python -m train.tools.play clue``).

    python -m train.tools.play clue --players 4 --opponent deduction_sheet
    python -m train.tools.play clue --players 3 --opponent random --seed 4
    python -m train.tools.play clue --players 5 --opponent entropy     # or ismcts, velma
    python -m train.tools.play clue --board --players 3 --opponent velma

You sit in seat 0 and see your hand and your deduction sheet, with the exact
probability of every card at every place (``X`` held, ``-`` not held), counted
over every deal consistent with what you have seen. Type:

* ``suggest SUSPECT, WEAPON, ROOM`` (or ``s scarlet, rope, hall``): card names
  may be shortened to the start of a word ("scar", "pipe", "dining");
* ``accuse SUSPECT, WEAPON, ROOM`` (or ``a ...``): right, you win; wrong, you
  are out (you still show cards);
* ``end`` to end your turn after a suggestion;
* ``show CARD`` (or just the card) when you must refute a suggestion;
* ``sheet`` to see your sheet again, ``hint`` for the most likely case files
  and the entropy agent's suggestion (the one leaving the least expected
  entropy, with the bits it is expected to gain), ``help``, ``quit``.

On the board (``--board``) you are Miss Scarlet (token 0) and a turn starts
with ``roll`` (or ``passage`` in a corner room); then ``go ROOM`` or
``go ROW,COLUMN`` to one of the squares marked ``*`` or a room within reach
(``stay`` if none is); then suggest in the room you entered, accuse or end.
``board`` draws the board again; ``hint`` also says where Velma would go.

Opponents: ``random``, ``deduction_sheet`` (certain facts only), ``entropy``
(:class:`~agents.ClueEntropyAgent`), ``velma`` and ``velma_rate``
(:class:`~agents.clue_velma.ClueVelma`, its two scores: on the board they weigh
how far the rooms are) and ``ismcts`` (SO-ISMCTS, a quarter of a second a
decision; on the board its play-outs roll and move at random, into a room when
the roll reaches one).

Mistyped or illegal moves are explained and asked again.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.roster import agent_names, seat_agent
from deduction_envs import registry
from deduction_envs.games.clue import ClueEvent, CluePhase, ClueRules
from deduction_envs.games.clue_board import ClueBoardRules
from deduction_envs.reasoning.clue_player import CluePlayerKnowledge
from deduction_envs.reasoning.clue_suggestions import score_suggestions
from deduction_envs.text import plain_text
from deduction_envs.text.clue import choices, parse_move, seat_board
from train.tools.seat import Quit, play_in_seat_zero


def hint(rules: ClueRules, you: CluePlayerKnowledge, top: int = 3) -> str:
    """The most likely case files, the entropy left, and the suggestion expected to tell the most."""
    solution = you.solution()
    order = np.argsort(-solution.case_file_probabilities, kind="stable")[:top]
    lines = [f"Entropy left: {you.entropy():.2f} bits. Most likely case files:"]
    for i in order:
        names = ", ".join(rules.card_names[c] for c in solution.case_files[i])
        lines.append(f"  {solution.case_file_probabilities[i]:6.1%}  {names}")
    if solution.case_file_probabilities[order[0]] == 1.0 and solution.method == "exact":
        lines.append("You know the case file: accuse!")
    elif you.phase == CluePhase.START:
        scores = score_suggestions(you.engine, you.player, rng=len(you.events))
        best = scores.best()
        names = ", ".join(rules.card_names[c] for c in scores.suggestions[best])
        how = "exact, every deal" if scores.exact else f"from {scores.deals} sampled deals"
        lines.append(f"Best suggestion: {names}, expected to gain {scores.gain[best]:.2f} bits ({how}).")
        if isinstance(rules, ClueBoardRules):
            lines.append(_board_hint(rules, you))
    return "\n".join(lines)


def _board_hint(rules: ClueBoardRules, you: CluePlayerKnowledge) -> str:
    """The rooms whose best suggestion gains most, and what Velma (pyvelma's sum score) would do now."""
    from agents.clue_velma import ClueVelma

    velma = ClueVelma("sum")
    velma.rules, velma.seat, velma.knowledge = rules, you.player, you  # seated on your knowledge
    after, now = velma.room_entropies()
    room_start = rules.category_starts[-1]
    rooms = ", ".join(
        f"{rules.card_names[room_start + r]} {now - after[r]:.2f}" for r in np.argsort(after, kind="stable")[:3]
    )
    text = f"Rooms whose best suggestion gains most (bits): {rooms}."
    if you.public.moved:
        return text
    action = velma.board_action(rules.legal_mask(you.public))
    return f"{text} Velma would {rules.format_move(rules.decode(action))}."


def sheet(rules: ClueRules, you: CluePlayerKnowledge) -> str:
    """Your hand and your deduction sheet."""
    solution = you.solution()
    how = "exact" if solution.method == "exact" else f"sampled from {solution.samples} deals"
    names = ["you", *(f"P{p}" for p in range(1, rules.players))]
    hand = ", ".join(rules.card_names[c] for c in you.hand)
    return f"Your hand: {hand}\n{you.engine.format_sheet(solution=solution, names=names)}\n({how})"


def play(
    opponent: str = "deduction_sheet",
    players: int = 4,
    seed: int | None = None,
    read: Callable[[str], str] = input,
    board: bool = False,
) -> int | None:
    """Play one game in seat 0 against ``opponent`` agents, on the board if ``board``.

    Returns the winner's seat (None if you quit or nobody won).
    """
    rules = ClueBoardRules(players=players) if board else ClueRules(players=players)
    if opponent not in agent_names("clue_v0"):
        raise ValueError(f"opponent must be one of {', '.join(agent_names('clue_v0'))}, got {opponent!r}")
    rng = np.random.default_rng(seed)
    you = registry.new_knowledge(rules, 0)
    names = ["you", *(f"P{p}" for p in range(1, players))]

    def hear(event: ClueEvent) -> None:
        you.update(event)
        print(sheet(rules, you) if event.kind == "deal" else rules.describe(event, names, you=0))
        if board and (event.kind == "deal" or (event.kind == "roll" and event.player == 0)):
            print(seat_board(rules, you))

    print(f"Clue, {players} players; you are seat 0 (the others are P1..P{players - 1}). Type 'help' for the moves.")
    agents = [seat_agent("clue_v0", opponent) for _ in range(players - 1)]
    table = play_in_seat_zero(rules, agents, rng, hear, lambda mask: _ask(rules, you, mask, read))
    if table is None:
        return None
    winner = rules.winner(table.state)
    case = ", ".join(rules.card_names[c] for c, place in enumerate(table.state.places) if place == players)
    print(f"The case file was {case}.")
    print("You win!" if winner == 0 else "Nobody wins." if winner is None else f"P{winner} wins.")
    return winner


def _ask(rules: ClueRules, you: CluePlayerKnowledge, mask: np.ndarray, read: Callable[[str], str]) -> int:
    """Read commands until a legal move."""
    phase = you.phase
    board = isinstance(rules, ClueBoardRules)
    print(choices(rules, you, mask)[0])
    while True:
        text = read("> ").strip()
        command = text.lower()
        if command in ("quit", "exit", "q"):
            raise Quit
        if command in ("help", "?"):
            print(plain_text(__doc__.split("\n\n", 3)[3]))
            continue
        if command == "hint":
            print(hint(rules, you))
            continue
        if command == "sheet":
            print(sheet(rules, you))
            continue
        if command == "board" and board:
            print(seat_board(rules, you))
            continue
        if not text:
            continue
        try:
            action = rules.action_index(parse_move(rules, text, phase, you.public.positions[0] if board else -1))
        except ValueError as error:
            print(f"Not a move: {error}.")
            continue
        if not mask[action]:
            print(f"Not legal now: {choices(rules, you, mask)[1]}.")
            continue
        return action
