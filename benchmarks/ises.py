"""Decision time of exhaustive ISES and the time of a full exhaustive evaluation.

    python -m benchmarks.ises

Measures, on Mastermind 4 x 6: the first move from cold (feedback rows not
yet memoised, no first-move cache), the first move once cached, the median
and p95 of later moves over every secret, and the wall time of
``agents.evaluate(ISES(), "Mastermind-v0")`` over all 1296 secrets.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from agents import ISES, evaluate
from agents import ises as ises_module
from deduction_envs.games import Mastermind


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args(argv)
    rules = Mastermind()

    agent = ISES()
    ises_module._first_moves.clear()
    agent.reset(rules)
    start = time.perf_counter()
    agent.act()
    cold = time.perf_counter() - start
    start = time.perf_counter()
    agent.act()
    cached = time.perf_counter() - start

    start = time.perf_counter()
    result = evaluate(ISES(), "Mastermind-v0", progress=False)
    evaluation = time.perf_counter() - start
    # Later moves: every decision but each episode's (cached) first.
    first_indices = np.concatenate(([0], np.cumsum(result.steps)[:-1]))
    later = np.delete(result.decision_times, first_indices)

    print(f"first move, cold:          {1e3 * cold:8.2f} ms")
    print(f"first move, cached:        {1e3 * cached:8.4f} ms")
    print(f"later moves, median:       {1e3 * statistics.median(later):8.3f} ms  (n = {later.size})")
    print(f"later moves, p95:          {1e3 * np.percentile(later, 95):8.3f} ms")
    summary = f"{result.total_steps} guesses, mean {result.mean_steps:.3f}"
    print(f"evaluation, 1296 secrets:  {evaluation:8.2f} s  ({summary})")


if __name__ == "__main__":
    main()
