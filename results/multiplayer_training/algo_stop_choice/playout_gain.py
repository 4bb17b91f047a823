"""How much of the precise search's stop-or-attack gain the play-out entries (``algo_v0 playouts=N``) carry.

At the demonstrations' stop decisions (stop_gain.py's: where the search weighed stopping against its attack,
gap = the stop option's mean reward minus the attack's over 200 play-outs each), the seat's view is decoded
from its recorded observation (checked: encoding the decoded view gives the recorded observation back, and
its exposure entries equal the recorded ones), and the env's own ``playout_features`` are computed from it
with N = 10, 20, 40 play-outs. Scored as stop_gain.py scores a model: its gain over always attacking on the
held-out games' decisions (the same tenth of the games), in reward per decision; the rule "stop where the
play-outs say stopping is better", and regressions on the gap from the play-out entries, alone and with the
summary numbers and the exposure entries.

    PYTHONPATH=. python results/multiplayer_training/algo_stop_choice/playout_gain.py DEMONSTRATIONS.npz

DEMONSTRATIONS: a run of ``--imitate ismcts_greedy_precise --size exposure=8`` (runs/algo_exposure in the
results). Written for results/multiplayer_training.md (session 37); about 10 minutes on two cores.
"""

import argparse
from multiprocessing import Pool

import numpy as np
import torch
from stop_gain import predict, stop_decisions, summary

from deduction_envs.envs import algo_v0
from deduction_envs.envs.algo import encode_view, exposure_features, observation_size, playout_features
from deduction_envs.games.algo import HandView, Phase, PlayerView
from deduction_envs.reasoning.algo_hands import AlgoKnowledge
from train.imitation import Demonstrations

RULES = algo_v0.raw_env(players=2).rules
PLAYOUTS = (10, 20, 40)


def decode(observation: np.ndarray) -> PlayerView:
    """The two-player view an ``algo_v0`` observation encodes, as seat 0 (its rows start with its own seat)."""
    k, n = RULES.max_hand, RULES.numbers
    width = 3 + 3 * n
    cells = observation[: 2 * k * width].reshape(2, k, width) > 0.5  # the 0/1 entries; probabilities unused
    hands, own = [], []
    for row in range(2):
        present = cells[row, :, 0]
        colours = cells[row, present, 1].astype(int)
        numbers = [int(np.argmax(c)) if c.any() else -1 for c in cells[row, present, 3 : 3 + n]]
        known = [
            2 * number + colour if up else -1
            for number, colour, up in zip(numbers, colours, cells[row, present, 2], strict=True)
        ]
        excluded = [frozenset(np.flatnonzero(c).tolist()) for c in cells[row, present, 3 + n : 3 + 2 * n]]
        hands.append(HandView(tuple(colours.tolist()), tuple(known), tuple(excluded)))
        if row == 0:
            own = [2 * number + colour for number, colour in zip(numbers, colours, strict=True)]
    tail = observation[2 * k * width :]
    drawn = 2 * int(np.argmax(tail[2 : 2 + n])) + int(tail[1] > 0.5) if tail[0] > 0.5 else -1
    phases = tail[2 + n : 5 + n]
    phase = Phase(int(np.argmax(phases))) if phases.max() > 0.5 else Phase.OVER
    deck = round(float(tail[5 + n]) * RULES.deck_size)
    return PlayerView(0, tuple(hands), tuple(own), drawn, deck, 0, phase)


def features(observation: np.ndarray) -> np.ndarray:
    """The play-out entries at each N of the decoded view, after checking the decode."""
    base = observation_size(RULES)
    view = decode(observation)
    knowledge = AlgoKnowledge.from_view(RULES, view)
    if not np.array_equal(encode_view(RULES, view, posterior=knowledge.posterior), observation[:base]):
        raise AssertionError("the decoded view does not encode to the recorded observation")
    if not np.array_equal(exposure_features(RULES, knowledge, 8), observation[base:]):
        raise AssertionError("the decoded view's exposure entries differ from the recorded ones")
    return np.concatenate([playout_features(RULES, knowledge, n) for n in PLAYOUTS])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("demonstrations")
    args = parser.parse_args()
    torch.set_num_threads(1)
    demos = Demonstrations.load(args.demonstrations)
    rows, gap = stop_decisions(demos)
    observations, games = demos.observations[rows], demos.games[rows]
    with Pool(2) as pool:
        entries = np.array(pool.map(features, observations, chunksize=64))
    everyone = np.unique(demos.games)
    held = np.random.default_rng(0).choice(everyone, round(0.1 * everyone.size), replace=False)
    test = np.isin(games, held)
    fitted = ~test
    numbers = np.c_[summary(observations, demos.masks[rows]), observations[:, observation_size(RULES) :]]

    def gain(prediction: np.ndarray, part: np.ndarray) -> float:
        return float(np.where(prediction[part] > 0, gap[part], 0).mean())

    print(f"{args.demonstrations}: {rows.size} decisions weighing stop against an attack, {test.sum()} in held-out "
          "games; the decoded views encode to every recorded observation and exposure entry")  # fmt: skip
    print("gain over always attacking, reward per decision: fitted games / held-out games")
    search = np.where(demos.actions[rows] == RULES.stop_action, gap, 0)
    print(f"  the search's choice: {search[fitted].mean():+.3f} / {search[test].mean():+.3f}")
    for units, epochs in ((0, 40), (64, 30)):
        prediction, model = predict(numbers, gap, units, epochs, fitted)
        print(f"  summary + exposure, {model}: {gain(prediction, fitted):+.3f} / {gain(prediction, test):+.3f}")
    for i, n in enumerate(PLAYOUTS):
        values = entries[:, 2 * i : 2 * i + 2]
        difference = values[:, 0] - values[:, 1]
        print(f"  N = {n}: stop where its play-outs say stopping is better: {gain(difference, fitted):+.3f} / "
              f"{gain(difference, test):+.3f} (stops at {np.mean(difference > 0):.3f}; correlation with the "
              f"search's gap {np.corrcoef(difference, gap)[0, 1]:.3f})")  # fmt: skip
        for name, x in (("play-outs", values), ("summary + exposure + play-outs", np.c_[numbers, values])):
            for units, epochs in ((0, 40), (64, 30)):
                prediction, model = predict(x, gap, units, epochs, fitted)
                print(f"    {name}, {model}: {gain(prediction, fitted):+.3f} / {gain(prediction, test):+.3f}",
                      flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
