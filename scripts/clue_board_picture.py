"""Draw ``docs/clue_board.png``: the board of ``clue_v0(board=True)`` after 60 actions of a seeded 4-player game
between reference agents (Velma with both scores, the entropy agent, a deduction sheet), from the env's own
``rgb_array`` render of the board.

    python -m scripts.clue_board_picture   # writes docs/clue_board.png
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from agents.clue_agents import ClueDeductionSheet, ClueEntropyAgent
from agents.clue_velma import ClueVelma
from deduction_envs.core.multiplayer import Table
from deduction_envs.games.clue_board import ClueBoardRules, board_pixels
from train import arguments

OUT = Path(__file__).resolve().parent.parent / "docs" / "clue_board.png"


def picture(actions: int = 60, seed: int = 3) -> np.ndarray:
    """The board after ``actions`` actions of the seeded game (or at its end)."""
    rules = ClueBoardRules(4)
    agents = [ClueVelma("sum"), ClueEntropyAgent(), ClueVelma("rate"), ClueDeductionSheet()]
    for seat, agent in enumerate(agents):
        agent.reset(rules, seat, seed=seed + seat)
    table = Table(rules, np.random.default_rng(seed), [agent.observe for agent in agents])
    while not table.over and len(table.actions) < actions:
        table.step(agents[table.mover].act(table.legal_mask()))
    return board_pixels(rules, table.state, cell=20)


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(prog="python -m scripts.clue_board_picture", description=__doc__)
    parser.add_argument("--output", type=Path, default=OUT)
    args = parser.parse_args(argv)
    Image.fromarray(picture()).save(args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
