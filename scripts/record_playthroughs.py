"""Write the recorded games of the multiplayer envs for the tests to replay: the playthroughs
(:mod:`deduction_envs.envs.playthrough`) and the matches between reference agents (:mod:`agents.matches`).

    python -m scripts.record_playthroughs   # tests/data/playthroughs/<env>-<n>.txt and tests/data/matches/<env>-<n>.txt

A change to the rules, the knowledge, the observations or an agent that alters a recorded game fails
``tests/test_playthroughs.py``; if the change is meant, write them again and the review diff shows what changed.
"""

from __future__ import annotations

from pathlib import Path

from agents.matches import match, matches
from deduction_envs.envs.playthrough import playthrough, playthroughs
from train import arguments

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(prog="python -m scripts.record_playthroughs", description=__doc__)
    parser.parse_args(argv)
    written = [(DATA / "playthroughs" / name, playthrough(env_id, kwargs, seed)) for name, env_id, kwargs, seed in
               playthroughs()]  # fmt: skip
    written += [(DATA / "matches" / name, match(env_id, kwargs, names, seed)) for name, env_id, kwargs, names, seed in
                matches()]  # fmt: skip
    for folder in {path.parent for path, _ in written}:
        folder.mkdir(parents=True, exist_ok=True)
        for stale in set(folder.glob("*.txt")) - {path for path, _ in written}:
            stale.unlink()  # a game no longer declared
    for path, text in written:
        path.write_text(text)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
