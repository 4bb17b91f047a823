"""How many play-outs the stop choice needs: SO-ISMCTS with epsilon-greedy play-outs (the roster's
``ismcts_greedy_precise`` with fewer iterations; exploration 10 spreads them about evenly over the
root's two options, the likeliest attack and stopping) against epsilon-greedy(0.1), seats rotated,
game g seeded (seed, g).

    PYTHONPATH=. python results/multiplayer_training/algo_stop_choice/search_budget.py --iterations 10 20 40 100 \\
        --games 2000 --seed 2   # from the repository root

Written for results/multiplayer_training.md (session 36): it sizes an observation entry made of
play-outs, which a policy could read at its stop decisions.
"""

import argparse
import time
from multiprocessing import Pool

from scipy.stats import binomtest

from agents.multiplayer import play_match
from agents.multiplayer_ismcts import SOISMCTS, AlgoSearchPolicy
from agents.roster import seat_agent
from deduction_envs.envs import algo_v0
from train.stats import interval

RULES = algo_v0.raw_env(players=2).rules


def part(job: tuple[int, int, int, int]) -> int:
    iterations, seed, start, games = job
    search = SOISMCTS(iterations=iterations, exploration=10.0, policy=AlgoSearchPolicy())
    match = play_match(RULES, [search, seat_agent("algo_v0", "epsilon_greedy")], games, seed=seed, start=start)
    return match.wins(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, nargs="+", default=[10, 20, 40, 100])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    half = args.games // 2
    with Pool(2) as pool:
        for iterations in args.iterations:
            begin = time.perf_counter()
            jobs = [(iterations, args.seed, 0, half), (iterations, args.seed, half, args.games - half)]
            wins = sum(pool.map(part, jobs))
            low, high = interval(wins, args.games)
            p = binomtest(wins, args.games, 0.5, alternative="greater").pvalue
            print(f"{iterations} iterations: {wins}/{args.games} = {wins / args.games:.3f} [{low:.3f}, {high:.3f}] "
                  f"against epsilon-greedy(0.1), p against 0.5 {p:.1e}; "
                  f"{time.perf_counter() - begin:.0f} s on two processes", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
