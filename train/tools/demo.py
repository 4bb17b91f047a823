"""Play one episode of a deduction env and print the board after every query.

The player guesses uniformly at random among the codes still consistent with
the feedback so far (the env's ``action_mask="consistent"``), which solves
classic Mastermind in about five or six guesses.

    python -m train.tools.demo
    python -m train.tools.demo --env BullsAndCows-v0 --seed 3
    python -m train.tools.demo --env Mastermind-v0 --size pegs=5 --size colors=8
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np

from deduction_envs import registry
from train import arguments


def play(env_id: str, sizes: dict[str, int], seed: int | None) -> int:
    """Play one episode, printing the board each turn; returns the number of queries."""
    env = gym.make(env_id, render_mode="ansi", action_mask="consistent", **sizes)
    # A stream of its own: with the env's seed the player would draw the secret itself.
    rng = np.random.default_rng(None if seed is None else [seed, 1])
    _, info = env.reset(seed=seed)
    print(f"{env_id}: {info['candidates']} possible secrets, {info['entropy']:.2f} bits to find\n")
    terminated = truncated = False
    while not (terminated or truncated):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        print(env.render(), end="\n\n")
    steps = len(env.unwrapped.history)
    print(f"{'Solved' if terminated else 'Not solved'} in {steps} {'query' if steps == 1 else 'queries'}.")
    env.close()
    return steps


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(
        prog="python -m train.tools.demo", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    single = [game.env_id for game in registry.games(multiplayer=False)]
    parser.add_argument("--env", default="Mastermind-v0", choices=single, help="env id")
    arguments.add_size_option(parser)
    parser.add_argument("--seed", type=arguments.seed, default=None, help="seed of the secret and of the player")
    args = parser.parse_args(argv)
    try:
        play(args.env, dict(args.size), args.seed)
    except (ValueError, TypeError) as error:
        parser.error(str(error))


if __name__ == "__main__":
    main()
