"""How consistent is ismcts_greedy's choice between stopping and attacking? (issue 19, session 34)

    cd results/multiplayer_training/algo_search_consistency
    PYTHONPATH=../../.. python probe.py 40 11 & PYTHONPATH=../../.. python probe.py 40 12; wait   # 5 minutes each
    PYTHONPATH=../../.. python probe.py --report 11.pkl 12.pkl > report.txt

ismcts_greedy (100 iterations) plays GAMES games against epsilon-greedy(0.1), seats rotated, seed SEED.
At each decision where it may stop and searched, the same knowledge is searched again by 8 fresh
100-iteration searches (other seeds) and by one precise search: 2,000 iterations with exploration 10,
so that both options get about 1,000 play-outs, whose mean rewards give the value gap (stop - attack).
Writes the decisions to SEED.pkl in the working folder; --report summarises such files.
"""

import pickle
import sys

import numpy as np

from agents.algo_agents import AlgoEpsilonGreedy
from agents.multiplayer import play_match
from agents.multiplayer_ismcts import SOISMCTS, AlgoSearchPolicy
from deduction_envs.games.algo import AlgoRules


def search(agent, seed, iterations=100, exploration=0.7):
    """A fresh search sharing ``agent``'s knowledge; returns it and its root (captured on the first iteration)."""
    fresh = SOISMCTS(iterations=iterations, exploration=exploration, policy=AlgoSearchPolicy())
    fresh.rules, fresh.seat, fresh.knowledge = agent.rules, agent.seat, agent.knowledge
    fresh.rng = np.random.default_rng(seed)
    roots, iterate = [], fresh._iterate
    fresh._iterate = lambda root, options: (roots or roots.append(root), iterate(root, options))
    return fresh, roots


class Probe(SOISMCTS):
    def __init__(self):
        super().__init__(iterations=100, policy=AlgoSearchPolicy())
        self.log = []

    def act(self, mask):
        action = super().act(mask)
        stop = self.rules.stop_action
        if mask[stop] and self.last_visits:
            i = len(self.log)
            reruns = []
            for k in range(8):
                rerun, _ = search(self, (99, i, k))
                reruns.append(rerun.act(mask) == stop)
            precise, roots = search(self, (7, i), iterations=2000, exploration=10.0)
            precise.act(mask)
            stats = roots[0].stats
            attack = next(a for a in stats if a != stop)
            gap = stats[stop][1] / stats[stop][0] - stats[attack][1] / stats[attack][0]
            self.log.append((action == stop, float(np.mean(reruns)), gap))
        return action


def report(paths):
    log = [row for path in paths for row in pickle.load(open(path, "rb"))]
    chosen, reruns, gap = (np.array(column) for column in zip(*log, strict=True))
    better = gap > 0
    print(f"decisions where it may stop and searched: {len(log)}")
    print(f"it stops in {chosen.mean():.3f}; the reruns stop in {reruns.mean():.3f}")
    print(f"a rerun makes the same choice: {np.where(chosen, reruns, 1 - reruns).mean():.3f}")
    print(f"the precise search prefers stopping in {better.mean():.3f}")
    print(
        f"agreement with the precise search: the choice {(chosen == better).mean():.3f}, "
        f"the majority of the 8 reruns {((reruns > 0.5) == better).mean():.3f}"
    )
    print(f"|gap| quartiles (rewards in [-1, 1]): {np.round(np.quantile(np.abs(gap), [0.25, 0.5, 0.75]), 3)}")
    lost = {
        "the choice": np.where(chosen == better, 0, np.abs(gap)),
        "always attacking": np.where(better, gap, 0),
        "always stopping": np.where(better, 0, -gap),
    }
    for name, loss in lost.items():
        print(f"mean reward lost per decision against the precise choice, {name}: {loss.mean():.3f}")


if __name__ == "__main__":
    if sys.argv[1] == "--report":
        report(sys.argv[2:])
    else:
        games, seed = int(sys.argv[1]), int(sys.argv[2])
        probe = Probe()
        play_match(AlgoRules(), [probe, AlgoEpsilonGreedy(0.1)], games=games, seed=seed)
        pickle.dump(probe.log, open(f"{seed}.pkl", "wb"))
