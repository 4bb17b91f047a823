"""Decision time of exhaustive ISES and the time of a full exhaustive evaluation.

    python -m benchmarks.ises [--large]

Measures, on Mastermind 4 x 6: the first move from cold (feedback rows not
yet memoised, no decision memo), the first move once cached, the median
and p95 of later moves over every secret, and the wall time of
``agents.evaluate(ISES(), "Mastermind-v0")`` over all 1296 secrets (after a
warm-up on Mastermind 3 x 3, which loads the env's compiled kernels, or
compiles them the first time after a change to the code), next to
:func:`reference_total_guesses` (the same strategy in plain numpy) in the
same run, as a ratio. With ``--large``, first the first decision on Mastermind 5 x 8, whose feedback has
no memo (:func:`large_first_decision`).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from agents import ISES, evaluate
from agents import ises as ises_module
from deduction_envs.games import Mastermind
from train import arguments


def reference_total_guesses(pegs: int = 4, colors: int = 6) -> int:
    """Exhaustive ISES over every secret of Mastermind, written plainly in numpy: the issue's reference.

    The same strategy as :class:`agents.ISES` (least expected entropy; ties to a query that could be the
    secret, then to the lowest index), with the whole feedback table in memory, each decision computed
    afresh but the first (one per game), no env and no memo.
    """
    rules = Mastermind(pegs=pegs, colors=colors)
    codes = np.arange(rules.num_secrets)
    table = rules.feedback_matrix(codes, codes).astype(np.int64)
    feedbacks, solved = rules.num_feedbacks, rules.solved_feedback
    offsets = (codes * feedbacks)[:, None]

    def decide(candidates: np.ndarray) -> int:
        counts = np.bincount((table[:, candidates] + offsets).ravel(), minlength=codes.size * feedbacks)
        counts = counts.reshape(codes.size, feedbacks).astype(np.float64)
        expected = (counts * np.log2(np.maximum(counts, 1))).sum(axis=1) / candidates.size
        tied = np.flatnonzero(expected <= expected.min() + 1e-9)
        winning = tied[np.isin(tied, candidates)]
        return int(winning.min() if winning.size else tied.min())

    first, total = decide(codes), 0
    for secret in codes:
        candidates, action = codes, first
        while True:
            total += 1
            answer = table[action, secret]
            if answer == solved:
                break
            candidates = candidates[table[action, candidates] == answer]
            action = decide(candidates)
    return total


def large_first_decision() -> None:
    """ISES's first decision on Mastermind 5 x 8 (32,768 codes: its 1 GiB feedback table is over the memo's
    budget), against the generic path (:meth:`InformationSet.feedback_outcomes`, a float histogram per block
    of queries) in the same run; both get the same scored rows from the rules."""
    rules = Mastermind(pegs=5, colors=8)
    assert rules.feedback_table(np.array([0])) is None
    agent = ISES()
    agent.reset(Mastermind(pegs=2, colors=2))
    agent.act()  # load the compiled kernels first
    ises_module._decisions.clear()
    agent.reset(rules)
    start = time.perf_counter()
    move = agent.act()
    compiled = time.perf_counter() - start
    knowledge, actions = agent.information_set, np.arange(rules.num_actions)
    start = time.perf_counter()
    probability, entropy = knowledge.feedback_outcomes(actions)
    expected = (probability * entropy).sum(axis=1)
    generic = time.perf_counter() - start
    assert np.isclose(expected[move], expected.min())
    print(f"Mastermind 5 x 8, first decision: {compiled:.2f} s ({rules.format_action(move)})")
    print(f"the generic path, same run:       {generic:.2f} s  (ratio {compiled / generic:.3f})")


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wordle", type=int, default=100, help="Wordle secrets played for its decision times")
    parser.add_argument(
        "--large",
        action="store_true",
        help="also time the first decision on Mastermind 5 x 8 (no feedback memo) against the generic path",
    )
    args = parser.parse_args(argv)
    if args.large:
        large_first_decision()
    rules = Mastermind()

    agent = ISES()
    ises_module._decisions.clear()
    agent.reset(rules)
    start = time.perf_counter()
    agent.act()
    cold = time.perf_counter() - start
    start = time.perf_counter()
    agent.act()
    cached = time.perf_counter() - start

    # The env's compiled kernels load (or, after a change to the code, compile: about 0.3 s) on their first
    # use; a game of Mastermind 3 x 3 uses the same ones, so the timed evaluation is the steady state.
    start = time.perf_counter()
    evaluate(ISES(), "Mastermind-v0", {"pegs": 3, "colors": 3}, progress=False)
    warm_up = time.perf_counter() - start
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
    print(f"warm-up, Mastermind 3 x 3: {warm_up:8.2f} s  (loads or compiles the env's kernels)")
    print(f"evaluation, 1296 secrets:  {evaluation:8.2f} s  ({summary})")
    start = time.perf_counter()
    total = reference_total_guesses()
    reference = time.perf_counter() - start
    print(f"numpy reference:           {reference:8.2f} s  ({total} guesses)")
    print(f"evaluation / reference:    {evaluation / reference:8.2f}")

    # Wordle: later decisions (the first is the same every game), over a sample of secrets.
    ises_module._decisions.clear()
    result = evaluate(ISES(), "Wordle-v0", episodes=args.wordle, secrets="sample", seed=0, progress=False)
    first_indices = np.concatenate(([0], np.cumsum(result.steps)[:-1]))
    later = np.delete(result.decision_times, first_indices)
    print(
        f"Wordle, {args.wordle} secrets, later moves: median {1e3 * statistics.median(later):.2f} ms, "
        f"p95 {1e3 * np.percentile(later, 95):.2f} ms, max {1e3 * later.max():.2f} ms (n = {later.size}; the "
        f"first decision, {1e3 * result.decision_times[0]:.0f} ms, fills the feedback memo)"
    )


if __name__ == "__main__":
    main()
