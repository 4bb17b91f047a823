"""Play a deduction game in the terminal, with hints from ISES.

    python -m train.tools.play                                  # Mastermind 4 x 6
    python -m train.tools.play Wordle-v0
    python -m train.tools.play Mastermind-v0 --size pegs=5 --size colors=8 --seed 3
    python -m train.tools.play algo --opponent max_entropy      # Algo against an agent (train.tools.play_algo)
    python -m train.tools.play clue --players 4 --opponent deduction_sheet   # Clue (train.tools.play_clue)
    python -m train.tools.play clue --board --players 3 --opponent velma     # Clue on the board

Each turn shows the board, the number of secrets still possible and their
entropy in bits. Type a query in the game's notation (``help`` shows an
example), ``hint`` for the query exhaustive ISES would make and the
information it expects to gain, or ``quit``. After each query you are told
how many bits it gained. Mistyped or illegal queries are explained and asked
again; they never cost a query.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import gymnasium as gym
import numpy as np

from agents import ISES
from deduction_envs import registry
from deduction_envs.core.information_set import InformationSet
from deduction_envs.text import rules_text
from train import arguments

COMMANDS = "Commands: a query, 'hint', 'help', 'quit'."

def multiplayer_games() -> dict[str, registry.Game]:
    """The multiplayer games with a terminal game (the registry's ``play``), by name, as registered now."""
    return {g.name: g for g in registry.games(multiplayer=True) if g.play is not None}


def expected_gain(knowledge: InformationSet, action: int) -> float:
    """Bits ``action`` is expected to gain from ``knowledge``: H now minus the expected H after."""
    return knowledge.entropy() - float(knowledge.expected_entropy(np.array([action]))[0])


def play(
    env_id: str,
    sizes: dict[str, int],
    seed: int | None = None,
    read: Callable[[str], str] = input,
) -> bool:
    """Play one game, reading commands with ``read``; returns whether it was solved.

    The hint agent learns only the queries and answers shown to the player.
    """
    env = gym.make(env_id, render_mode="ansi", **sizes)
    rules = env.unwrapped.rules
    _, info = env.reset(seed=seed)
    hinter = ISES()
    hinter.reset(rules)
    print(f"{env_id}: find the secret among {info['candidates']} ({info['entropy']:.2f} bits).")
    print(f"A query looks like {rules.format_action(_example(env))!r}. {COMMANDS}\n")
    print(env.render())
    last_gain: float | None = None
    asked: dict[int, int] = {}  # query -> its answer
    while True:
        try:
            text = read("> ").strip()
        except EOFError:
            text = "quit"
        command = text.lower()
        if command in ("quit", "exit", "q"):
            print(f"Bye. The secret was {_secret(env)!r}.")
            return False
        if command in ("help", "?"):
            print(rules_text(rules))
            print(f"A query looks like {rules.format_action(_example(env))!r}. {COMMANDS}")
            continue
        if command == "hint":
            _hint(hinter, last_gain)
            continue
        if not text:
            continue
        try:
            action = rules.parse_action(text)
        except ValueError as error:
            print(f"Not a query: {error}. {COMMANDS}")
            continue
        if action in asked:
            print(f"You asked {rules.format_action(action)!r} already: {rules.format_feedback(asked[action])}.")
            continue
        if not env.unwrapped.action_masks()[action]:
            print(f"{rules.format_action(action)!r} is not a legal query now (which are depends on what you know).")
            continue
        before = info["entropy"]
        _, _, terminated, truncated, info = env.step(action)
        last_gain = before - info["entropy"]
        print(env.render())
        print(f"That query gained {last_gain:.2f} bits.")
        if terminated:
            known = info.get("secret_known", True)
            steps = len(env.unwrapped.history)
            print(f"{'Solved' if known else 'Finished'} in {steps} {'query' if steps == 1 else 'queries'}.")
            return True
        if truncated:
            left = info["candidates"]
            print(f"Out of queries ({env.unwrapped.max_steps}); {left} secrets were still possible. "
                  f"The secret was {_secret(env)!r}.")  # fmt: skip
            return False
        asked[action] = info["feedback"]
        hinter.observe(action, info["feedback"])


def _secret(env: gym.Env) -> str:
    """The secret, shown once the game is over or abandoned."""
    return env.unwrapped.rules.format_secret(env.unwrapped.reveal())


def _example(env: gym.Env) -> int:
    """A legal query to show as an example of the notation."""
    return int(np.flatnonzero(env.unwrapped.action_masks())[0])


def _hint(hinter: ISES, last_gain: float | None) -> None:
    knowledge = hinter.information_set
    if knowledge.size == 1:
        print(f"Only one secret is left: {hinter.rules.format_secret(int(knowledge.support[0]))!r}.")
        return
    if knowledge.size * hinter.rules.num_actions > 10**6:  # a second or more (Wordle's first hint: about 3 s)
        print("Thinking...", flush=True)
    action = hinter.act()
    print(
        f"ISES would ask {hinter.rules.format_action(action)!r}, expecting to gain "
        f"{expected_gain(knowledge, action):.2f} of the {knowledge.entropy():.2f} bits left."
    )
    if last_gain is not None:
        print(f"Your last query gained {last_gain:.2f} bits.")


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(
        prog="python -m train.tools.play", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    multiplayer = multiplayer_games()  # read at each call: a game registered later plays too
    games = [*(g.env_id for g in registry.games(multiplayer=False)), *multiplayer]
    parser.add_argument("env", nargs="?", default="Mastermind-v0", choices=games, help="env id, or algo or clue")
    arguments.add_size_option(parser)
    parser.add_argument("--seed", type=arguments.seed, default=None, help="seed of the secret (or of the deal)")
    opponents = sorted({name for game in multiplayer.values() for name in game.agents})
    parser.add_argument(
        "--opponent",
        default=None,
        choices=opponents,
        help="; ".join(
            f"{name}: {game.play[1]} (default), " + ", ".join(a for a in game.agents if a != game.play[1])
            for name, game in multiplayer.items()
        ),
    )
    players = "; ".join(f"{name}: default {game.play[2]}" for name, game in multiplayer.items())
    parser.add_argument("--players", type=arguments.count(1), default=None, help=f"players, you included ({players})")
    parser.add_argument("--board", action="store_true", help="clue: on the board (dice, movement, passages)")
    args = parser.parse_args(argv)
    if args.board and args.env != "clue":
        parser.error(f"--board is for clue; {args.env} has no board")
    # An option the chosen game does not take is a mistake to say, not to ignore.
    if args.env in multiplayer and args.size:
        parser.error(f"--size is for the single-player games; {args.env} takes --players")
    if args.env not in multiplayer and (args.opponent is not None or args.players is not None):
        parser.error(f"--opponent and --players are for {' and '.join(multiplayer)}; {args.env} is played alone")
    try:
        if args.env in multiplayer:
            game = multiplayer[args.env]
            play_game, opponent, players = game.play
            if args.opponent is not None and args.opponent not in game.agents:
                raise ValueError(f"{args.env}'s opponents are {', '.join(game.agents)}, got {args.opponent!r}")
            extra = {"board": True} if args.board else {}
            registry.load(play_game)(args.opponent or opponent, args.players or players, args.seed, **extra)
        else:
            play(args.env, dict(args.size), args.seed)
    except (ValueError, TypeError) as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        print("\nBye.")


if __name__ == "__main__":
    main()
