"""Record multiplayer games (seeds and actions) whose replays are regression tests.

    python -m scripts.record_games algo     # writes tests/data/algo_games.json
    python -m scripts.record_games clue     # writes tests/data/clue_games.json

Each record holds what is needed to replay the game and what the replay must
give: for env games, the seed, every action, a digest of every observation the
acting agent saw and the final rewards; for agent games (``play_game``), the
agents, the seed and every action. A change to the rules, the env or an agent
that alters a recorded game fails ``tests/test_recorded_games.py``; if the
change is meant, record again and say so in review.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))  # the tests' helper module, as pytest imports it

from recorded_games import GAMES, record  # noqa: E402

OUT = TESTS / "data"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scripts.record_games", description=__doc__)
    parser.add_argument("game", choices=sorted(GAMES))
    args = parser.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    path = OUT / f"{args.game}_games.json"
    path.write_text(json.dumps(record(args.game), indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
