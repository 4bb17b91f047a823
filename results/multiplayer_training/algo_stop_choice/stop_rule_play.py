"""Play the stop rule a regression on the precise search's value gaps gives: attack the likeliest card,
and after a hit stop where the regression says stopping beats that attack.

The regression is stop_gain.py's "summary + exposure, MLP 64x64", fitted on every stop decision of the
demonstrations (a run of ``--imitate ismcts_greedy_precise --size exposure=8``, which records the
search's root values). The player keeps its seat's knowledge, reads its seat's observation of
``algo_v0.raw_env(exposure=8)`` (nothing else: no hidden card), attacks the likeliest card (the first
in action order on a tie, as epsilon-greedy does), stops where the predicted gap is positive, and
reveals a random face-down card when it must. Against epsilon-greedy(0.1), seats rotated, game g
seeded (seed, g) as in ``python -m train.evaluate``; one process per half of the games.

    PYTHONPATH=. python results/multiplayer_training/algo_stop_choice/stop_rule_play.py DEMONSTRATIONS.npz \
        --games 4000 --seeds 0 1   # from the repository root

Written for results/multiplayer_training.md (session 36); about a minute per 4,000 games on two cores.
It is a fitted rule, not a trained SB3 policy.
"""

import argparse
from multiprocessing import Pool

import numpy as np
import torch
from scipy.stats import binomtest
from stop_gain import regression, stop_decisions, summary

from agents.multiplayer import SeatAgent, play_match
from agents.roster import seat_agent
from deduction_envs.envs import algo_v0
from deduction_envs.envs.algo import observation_size
from deduction_envs.games.algo import Phase
from train.imitation import Demonstrations
from train.stats import interval

ENV = algo_v0.raw_env(players=2, exposure=8)
RULES = ENV.rules
HITS = ENV.observation_pointers()[: RULES.num_attacks, 0]


def inputs(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The regression's inputs: the summary numbers and the exposure entries."""
    return np.c_[summary(observations, masks), observations[:, observation_size(RULES) :]].astype(np.float32)


class StopRule(SeatAgent):
    """The likeliest attack; stop where ``model`` predicts a gap above ``threshold``."""

    name = "stop rule"

    def __init__(self, model: torch.nn.Module, threshold: float = 0.0) -> None:
        super().__init__()
        self.model, self.threshold, self.stops, self.chances = model, threshold, 0, 0

    def reset(self, rules, seat, seed=None):
        super().reset(rules, seat, seed)
        self.knowledge = ENV.new_knowledge(seat)  # the env's knowledge, as its observation needs

    def act(self, mask: np.ndarray) -> int:
        mask = np.asarray(mask, dtype=bool)
        if self.knowledge.view.phase == Phase.REVEAL:
            return int(self.rng.choice(np.flatnonzero(mask)))
        observation = ENV.encode(self.knowledge)
        if mask[RULES.stop_action]:
            self.chances += 1
            with torch.no_grad():
                gap = float(self.model(torch.tensor(inputs(observation[None], mask[None]))))
            if gap > self.threshold:
                self.stops += 1
                return RULES.stop_action
        return int(np.argmax(np.where(mask[: RULES.num_attacks], observation[HITS], -1.0)))


def fitted(path: str) -> torch.nn.Module:
    torch.set_num_threads(1)
    demos = Demonstrations.load(path)
    rows, gap = stop_decisions(demos)
    x = inputs(demos.observations[rows], demos.masks[rows])
    return regression(x, gap, 64, 30, np.ones(rows.size, dtype=bool))


def part(job: tuple[str, float, int, int, int]) -> tuple[int, int, int]:
    path, threshold, seed, start, games = job
    player = StopRule(fitted(path), threshold)
    match = play_match(RULES, [player, seat_agent("algo_v0", "epsilon_greedy")], games, seed=seed, start=start)
    return match.wins(0), player.stops, player.chances


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("demonstrations")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument(
        "--thresholds", type=float, nargs="+", default=[0.0], help="stop where the predicted gap is above (default 0)"
    )
    args = parser.parse_args()
    half = args.games // 2
    with Pool(2) as pool:
        for threshold in args.thresholds:
            total = 0
            label = f"threshold {threshold:+g}, " if args.thresholds != [0.0] else ""
            for seed in args.seeds:
                jobs = [(args.demonstrations, threshold, seed, 0, half),
                        (args.demonstrations, threshold, seed, half, args.games - half)]  # fmt: skip
                parts = pool.map(part, jobs)
                wins, stops, chances = (sum(p[i] for p in parts) for i in range(3))
                total += wins
                low, high = interval(wins, args.games)
                print(f"{label}seed {seed}: {wins}/{args.games} = {wins / args.games:.3f} [{low:.3f}, {high:.3f}] "
                      f"against epsilon-greedy(0.1); stopped at {stops} of {chances} chances", flush=True)  # fmt: skip
            if len(args.seeds) > 1:
                games = args.games * len(args.seeds)
                low, high = interval(total, games)
                p_half = binomtest(total, games, 0.5, alternative="greater").pvalue
                p_target = binomtest(total, games, 0.58, alternative="less").pvalue
                print(f"{label}together: {total}/{games} = {total / games:.3f} [{low:.3f}, {high:.3f}]; one-sided "
                      f"binomial p against 0.5: {p_half:.1e}; below 0.58: p = {p_target:.3f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
