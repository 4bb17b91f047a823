"""How far past their ``time_limit`` the time-limited agents return.

    python -m benchmarks.time_limits [--limit 0.1] [--episodes 5] [--env ID ...]

Plays SO-ISMCTS and sampled ISES with the given per-decision time limit on
every single-player game at its default size (sampled secrets, the same for
both agents) and reports, per game and agent, the overshoot of each decision
past the limit: median, p95 and maximum, in milliseconds, with the
iterations SO-ISMCTS completed per decision. The first decision of the run
includes filling the game's memoised feedback rows, which is counted.
"""

from __future__ import annotations

import argparse

import numpy as np

import deduction_envs
from agents import ISES, ISMCTS, evaluate
from train import arguments


class _CountingISMCTS(ISMCTS):
    """SO-ISMCTS that keeps the iterations of every decision."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.counts: list[int] = []

    def act(self) -> int:
        action = super().act()
        self.counts.append(self.last_iterations)
        return action


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=float, default=0.1, help="seconds per decision (default 0.1)")
    parser.add_argument("--episodes", type=int, default=5, help="episodes per game and agent (default 5)")
    parser.add_argument("--env", nargs="+", default=deduction_envs.ENV_IDS, help="env ids (default: all)")
    args = parser.parse_args(argv)

    print(f"time limit {1e3 * args.limit:.0f} ms; overshoot past it in ms")
    print(f"{'env':<20} {'agent':<13} {'decisions':>9} {'median':>8} {'p95':>8} {'max':>8} {'iterations':>11}")
    for env_id in args.env:
        ismcts = _CountingISMCTS(time_limit=args.limit)
        for agent in (ismcts, ISES("sampled", time_limit=args.limit)):
            result = evaluate(agent, env_id, secrets="sample", episodes=args.episodes, seed=1, progress=False)
            over = 1e3 * (result.decision_times - args.limit)
            iterations = f"{np.median(agent.counts):.0f}" if agent is ismcts else "-"
            print(
                f"{env_id:<20} {agent.name:<13} {over.size:>9} {np.median(over):>8.2f} "
                f"{np.percentile(over, 95):>8.2f} {over.max():>8.2f} {iterations:>11}"
            )


if __name__ == "__main__":
    main()
