"""Score policies' stop-or-attack choices by the precise search's root values, on the decisions of a
demonstrations file (with values: an imitation of ``ismcts_greedy_precise``).

At each decision where the search weighed stopping against its attack, the gap is the stop option's
mean reward minus the attack's (200 play-outs each). A policy's gain over always attacking is the mean
of the gap where its likeliest action is to stop, 0 where it is an attack, in reward per decision, on
the held-out games of the fit (a tenth, seed 0, as ``train.imitation.fit`` draws them) and on the
fitted ones, with a 95% normal interval.

    PYTHONPATH=. python results/multiplayer_training/algo_stop_choice/policy_gain.py DEMONSTRATIONS.npz MODEL.zip [...]

Each model must read the observations of the file (a model trained with ``--size exposure=8`` the
file of a run with it). Written for results/multiplayer_training.md (session 35).
"""

import sys

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import obs_as_tensor

from deduction_envs.envs import algo_v0
from train.imitation import Demonstrations

torch.set_num_threads(1)
demos = Demonstrations.load(sys.argv[1])
stop = algo_v0.raw_env(players=2).rules.stop_action
games = np.unique(demos.games)
held = np.random.default_rng(0).choice(games, round(0.1 * games.size), replace=False)
test = np.isin(demos.games, held)
values = demos.values
rows = np.flatnonzero(demos.masks[:, stop] & np.isfinite(values[:, stop]))
others = np.where(np.arange(values.shape[1]) == stop, -np.inf, np.nan_to_num(values, nan=-np.inf))
attack = others.argmax(axis=1)[rows]
gap = values[rows, stop] - values[rows, attack]
print(f"{sys.argv[1]}: {rows.size} decisions weighing stop against an attack ({test[rows].sum()} held out)")


def report(name: str, stops: np.ndarray) -> None:
    parts = []
    for label, part in (("held out", test[rows]), ("fitted", ~test[rows])):
        gain = np.where(stops, gap, 0.0)[part]
        interval = 1.96 * gain.std() / np.sqrt(gain.size)
        parts.append(f"{label} {gain.mean():+.4f} +- {interval:.4f} (stops {stops[part].mean():.3f})")
    print(f"{name}: " + "; ".join(parts))


report("always stop", np.ones(rows.size, bool))
report("the search's choice", demos.actions[rows] == stop)
for path in sys.argv[2:]:
    model = MaskablePPO.load(path, device="cpu")
    logits = []
    with torch.no_grad():
        for begin in range(0, rows.size, 2048):
            chunk = rows[begin : begin + 2048]
            observations = obs_as_tensor(demos.observations[chunk], "cpu")
            dist = model.policy.get_distribution(observations, action_masks=demos.masks[chunk])
            logits.append(dist.distribution.logits.numpy())
    choice = np.concatenate(logits).argmax(axis=1)
    report(path, choice == stop)
    agree = np.mean((choice == stop) == (demos.actions[rows] == stop))
    print(f"  attacks other than the searched one {np.mean((choice != stop) & (choice != attack)):.3f}; "
          f"stops where the search does, or attacks where it does: {agree:.3f}")  # fmt: skip
