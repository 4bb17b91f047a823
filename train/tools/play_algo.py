"""Play Algo in the terminal against the reference agents (``python -m train.tools.play algo``).

    python -m train.tools.play algo --opponent max_entropy
    python -m train.tools.play algo --players 3 --opponent epsilon_greedy --seed 4

You sit in seat 0. Your cards show their numbers (``[B3]`` while face down to
the others); the others' face-down cards show their colour only (``B?``), with
the numbers missed attacks have ruled out. On your turn type an attack as
``POSITION NUMBER`` (two players) or ``PLAYER POSITION NUMBER``, ``stop``
after a hit, ``reveal POSITION`` when a miss with the deck empty asks for
one of your cards, ``hint`` for the most probable attack and its exact
probability, ``help`` or ``quit``. Mistyped or illegal moves are explained
and asked again.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.algo_agents import attack_probabilities
from agents.roster import seat_agent
from deduction_envs import registry
from deduction_envs.games.algo import AlgoDeal, AlgoEvent, AlgoRules, Move, PlayerView
from deduction_envs.reasoning import AlgoKnowledge
from deduction_envs.text.algo import AlgoText, table
from deduction_envs.text.algo import describe as text_describe
from train.tools.seat import Quit, play_in_seat_zero


def show(rules: AlgoRules, view: PlayerView) -> str:
    """The table as seat ``view.player`` sees it: no number it does not know."""
    return table(view, [f"player {q}" for q in range(rules.players)])


def describe(rules: AlgoRules, event: AlgoEvent) -> str:
    """One event in words, as seat 0 saw it."""
    return text_describe(event, 0, [f"player {q}" for q in range(rules.players)])


def parse_move(rules: AlgoRules, text: str) -> Move:
    """A typed move: ``stop``, ``reveal P``, ``P N`` (two players) or ``O P N``; ValueError says the form."""
    words = text.lower().split()
    if words == ["stop"]:
        return Move("stop")
    if len(words) == 2 and words[0] == "reveal" and words[1].isdigit():
        return Move("reveal", position=int(words[1]))
    if all(w.isdigit() for w in words) and len(words) == (2 if rules.players == 2 else 3):
        numbers = [int(w) for w in words]
        target = 0 if rules.players == 2 else numbers[0] - 1  # player 1 is the next seat
        return Move("attack", target, *numbers[-2:])
    form = "POSITION NUMBER" if rules.players == 2 else "PLAYER POSITION NUMBER"
    raise ValueError(f"type an attack as {form}, 'stop', 'reveal POSITION', 'hint', 'help' or 'quit'")


def play(
    opponent: str = "max_entropy", players: int = 2, seed: int | None = None, read: Callable[[str], str] = input
) -> int | None:
    """Play one game in seat 0 against ``opponent`` agents; returns the winner's seat (None if you quit).

    You learn what your seat's events show (your knowledge is kept from them,
    as an agent's is), and the agents learn what theirs show.
    """
    rules = AlgoRules(players=players)
    rng = np.random.default_rng(seed)
    you = registry.new_knowledge(rules, 0)

    def hear(event: AlgoDeal | AlgoEvent) -> None:
        you.update(event)
        if isinstance(event, AlgoEvent):
            print(describe(rules, event))

    def ask(mask: np.ndarray) -> int:
        print(show(rules, you.view))
        move = _ask(rules, you, mask, read)
        if move is None:
            raise Quit
        return rules.action_index(move)

    print(f"Algo, {players} players; you are seat 0 and move first. Type 'help' for the moves.")
    table = play_in_seat_zero(rules, [seat_agent("algo_v0", opponent) for _ in range(players - 1)], rng, hear, ask)
    if table is None:
        return None
    print(show(rules, you.view))
    winner = rules.winner(table.state)
    print("You win!" if winner == 0 else f"Player {winner} wins.")
    return winner


def _ask(rules: AlgoRules, you: AlgoKnowledge, mask: np.ndarray, read: Callable[[str], str]) -> Move | None:
    """Read commands until a legal move (None to quit)."""
    view = you.view
    while True:
        text = read("> ").strip()
        if text.lower() in ("quit", "exit", "q"):
            return None
        if text.lower() in ("help", "?"):
            print(__doc__.split("\n\n")[2].replace("`", ""))
            continue
        if text.lower() == "hint":
            hits = np.where(mask[: rules.num_attacks], attack_probabilities(rules, view, you.posterior), -1.0)
            best = rules.decode(int(np.argmax(hits)))
            player = rules.target_player(0, best.target)
            print(f"Most probable: player {player}'s card {best.position} is {best.number} (p = {hits.max():.2f}).")
            continue
        if not text:
            continue
        try:
            move = parse_move(rules, text)
            action = rules.action_index(move)
        except ValueError as error:
            print(f"Not a move: {error}.")
            continue
        if not mask[action]:
            print(f"Not legal now: {_why_not(rules, view, move)}.")
            continue
        return move


def _why_not(rules: AlgoRules, view: PlayerView, move: Move) -> str:
    """Why ``move`` is not legal in ``view`` (seat 0's), in words."""
    return AlgoText(rules, [f"player {q}" for q in range(rules.players)]).why_not(view, move)
