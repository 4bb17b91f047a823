"""How much of the precise search's stop-or-attack gain a model can learn from a seat's observation.

At each decision of the demonstrations where the search weighed stopping against its attack, the
gap is the stop option's mean reward minus the attack's (200 play-outs each, in [-1, 1]). A model's
score is its gain over always attacking: the mean, over the held-out games' decisions (a tenth,
seed 0), of the gap where it would stop and 0 where it would attack, in reward per decision. The
models are regressions on the gap (mean squared error, Adam at 1e-3, batches of 256), from the whole
observation or from a few numbers summarising it, and, where the demonstrations were played with
``--size exposure=K``, those numbers plus the exposure entries.

    PYTHONPATH=. python results/multiplayer_training/algo_stop_choice/stop_gain.py DEMONSTRATIONS.npz [--curve]

Written for results/multiplayer_training.md (session 35); about 2 minutes on one core, with --curve.
Session 36 made its pieces functions (stop_rule_play.py fits the same regression and plays it); the
figures are the same.
"""

import argparse

import numpy as np
import torch

from deduction_envs.envs import algo_v0
from deduction_envs.envs.algo import observation_size
from train.imitation import Demonstrations

RULES = algo_v0.raw_env(players=2).rules
POINTERS = algo_v0.raw_env(players=2).observation_pointers()[:, 0]


def stop_decisions(demos: Demonstrations) -> tuple[np.ndarray, np.ndarray]:
    """The decisions where the search weighed stopping against an attack, and there the gap: the stop
    option's mean reward minus the attack's."""
    values, stop = demos.values, RULES.stop_action
    rows = np.flatnonzero(demos.masks[:, stop] & np.isfinite(values[:, stop]))
    others = np.where(np.arange(values.shape[1]) == stop, -np.inf, np.nan_to_num(values, nan=-np.inf))
    attack = others.argmax(axis=1)[rows]  # the attack the search weighed against stopping
    return rows, (values[rows, stop] - values[rows, attack]).astype(np.float32)


def summary(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A few numbers of each observation (two players): the three best chances to hit, per seat the
    face-down and all cards, the entropy of the opponent's hand, the drawn card, the phase and the deck."""
    k, n, base = RULES.max_hand, RULES.numbers, observation_size(RULES)
    cells = observations[:, : 2 * k * (3 + 3 * n)].reshape(-1, 2, k, 3 + 3 * n)
    present, face_up = cells[..., 0], cells[..., 2]
    hidden = present * (1 - face_up)
    probabilities = cells[..., 3 + 2 * n :]
    entropy = -(probabilities * np.log(np.clip(probabilities, 1e-9, 1))).sum(-1) * hidden
    hits = np.where(masks[:, : RULES.num_attacks], observations[:, POINTERS[: RULES.num_attacks]], 0)
    best = -np.sort(-hits, axis=1)[:, :3]
    return np.c_[
        best, hidden.sum(-1), present.sum(-1), entropy[:, 1].sum(-1), observations[:, 2 * k * (3 + 3 * n) : base]
    ]


def regression(x: np.ndarray, gap: np.ndarray, hidden_units: int, epochs: int, train: np.ndarray) -> torch.nn.Module:
    """A fit of ``gap`` from ``x`` on the rows ``train`` (mean squared error, Adam at 1e-3, batches of 256):
    linear, or an MLP of two hidden layers; the model takes raw inputs (it standardises them itself)."""
    torch.manual_seed(0)
    x = torch.tensor(x, dtype=torch.float32)
    mean, std = x[train].mean(0), x[train].std(0) + 1e-6
    y = torch.tensor(gap)
    if hidden_units:
        net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden_units), torch.nn.ReLU(),
                                  torch.nn.Linear(hidden_units, hidden_units), torch.nn.ReLU(),
                                  torch.nn.Linear(hidden_units, 1))  # fmt: skip
    else:
        net = torch.nn.Linear(x.shape[1], 1)
    model = torch.nn.Sequential(Standardise(mean, std), net)
    optimizer = torch.optim.Adam(net.parameters(), 1e-3)
    index = np.flatnonzero(train)
    for epoch in range(epochs):
        np.random.default_rng(epoch).shuffle(index)
        for begin in range(0, index.size, 256):
            batch = index[begin : begin + 256]
            loss = torch.nn.functional.mse_loss(model(x[batch]).squeeze(1), y[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return model


def predict(x: np.ndarray, gap: np.ndarray, units: int, epochs: int, train: np.ndarray) -> tuple[np.ndarray, str]:
    """The :func:`regression` fitted on the rows ``train``, its prediction on every row, and its name."""
    fit = regression(x, gap, units, epochs, train)
    with torch.no_grad():
        prediction = fit(torch.tensor(x, dtype=torch.float32)).squeeze(1).numpy()
    return prediction, "linear" if not units else f"MLP {units}x{units}"


class Standardise(torch.nn.Module):
    def __init__(self, mean: torch.Tensor, std: torch.Tensor) -> None:
        super().__init__()
        self.mean, self.std = mean, std

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.mean) / self.std


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("demonstrations")
    parser.add_argument("--curve", action="store_true", help="also fit on a quarter and a half of the fitted games")
    args = parser.parse_args()
    torch.set_num_threads(1)
    demos = Demonstrations.load(args.demonstrations)
    stop, base = RULES.stop_action, observation_size(RULES)
    rows, gap = stop_decisions(demos)
    observations = demos.observations[rows]
    games = demos.games[rows]
    everyone = np.unique(demos.games)
    held = np.random.default_rng(0).choice(everyone, round(0.1 * everyone.size), replace=False)
    test = np.isin(games, held)
    fitted = ~test
    numbers = summary(observations, demos.masks[rows])
    best = numbers[:, :1]
    inputs = {"summary": numbers, "whole observation": observations[:, :base]}
    if observations.shape[1] > base:
        inputs["summary + exposure"] = np.c_[inputs["summary"], observations[:, base:]]
        inputs["whole observation + exposure"] = observations

    def gain(prediction: np.ndarray, part: np.ndarray) -> float:
        return float(np.where(prediction[part] > 0, gap[part], 0).mean())

    print(
        f"{args.demonstrations}: {rows.size} decisions weighing stop against an attack, {test.sum()} in held-out games"
    )
    print(f"gap quartiles {np.percentile(gap, [25, 50, 75]).round(3).tolist()}; the search stopped in "
          f"{np.mean(demos.actions[rows] == stop):.3f}")  # fmt: skip
    print("gain over always attacking, reward per decision: fitted games / held-out games")
    print(f"  the better of the two means (an upper bound: its own noise): {gain(gap, fitted):+.3f} / "
          f"{gain(gap, test):+.3f}")  # fmt: skip
    print(f"  the search's choice: {np.where(demos.actions[rows] == stop, gap, 0)[fitted].mean():+.3f} / "
          f"{np.where(demos.actions[rows] == stop, gap, 0)[test].mean():+.3f}")  # fmt: skip
    for tau in (0.3, 0.5):
        rule = tau - best[:, 0]
        print(f"  stop when the best chance to hit is below {tau}: {gain(rule, fitted):+.3f} / {gain(rule, test):+.3f}")
    shares = (0.25, 0.5, 1.0) if args.curve else (1.0,)
    fitted_games = np.unique(games[fitted])
    for share in shares:
        keep = fitted & np.isin(
            games, np.random.default_rng(1).choice(fitted_games, round(share * fitted_games.size), replace=False)
        )
        for name, x in inputs.items():
            for units, epochs in ((0, 40), (64, 30)) if x.shape[1] < 100 else ((256, 20),):
                prediction, model = predict(x, gap, units, epochs, keep)
                label = f"{name}, {model}" + (f", {share:.0%} of the fitted games" if args.curve else "")
                print(f"  {label}: {gain(prediction, keep):+.3f} / {gain(prediction, test):+.3f}", flush=True)


if __name__ == "__main__":
    main()
