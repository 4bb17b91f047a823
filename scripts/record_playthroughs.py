"""Write the playthroughs of the multiplayer envs (``deduction_envs.envs.playthrough``) for the tests to replay.

    python -m scripts.record_playthroughs          # tests/data/playthroughs/<env>-<n>.txt, every declared one

A change to the rules, the knowledge or the observations that alters a playthrough fails
``tests/test_playthroughs.py``; if the change is meant, write them again and the review diff shows what changed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from deduction_envs.envs.playthrough import playthrough, playthroughs

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "playthroughs"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scripts.record_playthroughs", description=__doc__)
    parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    for name, env_id, kwargs, seed in playthroughs():
        (OUT / name).write_text(playthrough(env_id, kwargs, seed))
        print(f"wrote {OUT / name}")


if __name__ == "__main__":
    main()
