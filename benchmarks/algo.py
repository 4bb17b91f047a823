"""Speed of Algo: the hand posterior per view, and random-play turns per second of the AEC env.

    python -m benchmarks.algo [--games 50]

1. The exact hand posterior (``AlgoHandPosterior`` and every opponent's number
   table) on every view met in ``--games`` random games per player count:
   median and maximum milliseconds.
2. Whole games between two ``AlgoEpsilonGreedy(0.1)`` agents on the pure
   rules (``agents.play_game``): games per second.
3. PettingZoo's ``performance_benchmark`` (random legal actions, 5 s each) on
   ``algo_v0`` for two players with the probability table off and on, with
   PettingZoo's standard wrappers (``env``) and without (``raw_env``), next
   to PettingZoo's ``connect_four_v3`` (wrapped) measured in the same run.
   ``connect_four_v3`` needs pygame.
4. The observation of a seat that may stop (after a hit), at the stop decisions
   of ``--games`` two-player epsilon-greedy(0.1) self-play games: median
   milliseconds of ``algo_v0``'s plain observation (the seat's posterior
   already counted, as in play), and of the training side's
   ``AlgoTrainingEnv`` with ``exposure=8``, ``playouts=20`` and both, each as
   a ratio to the plain one.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import time

import numpy as np

from deduction_envs.envs import algo_v0
from deduction_envs.games.algo import AlgoRules, Phase
from deduction_envs.reasoning import AlgoHandPosterior
from train import arguments


def posterior_times(players: int, games: int, seed: int = 0) -> np.ndarray:
    """Seconds to build the posterior and all number tables, for each mover's view in random games."""
    rules = AlgoRules(players=players)
    rng = np.random.default_rng(seed)
    times = []
    for _ in range(games):
        state = rules.new_game(rng)
        while state.phase != Phase.OVER:
            view = rules.view(state, state.mover)
            start = time.perf_counter()
            posterior = AlgoHandPosterior(view, rules.numbers)
            for q in range(players):
                posterior.number_probabilities(q)
            times.append(time.perf_counter() - start)
            rules.apply(state, int(rng.choice(np.flatnonzero(rules.legal_mask(state)))))
    return np.array(times)


def greedy_games_per_second(games: int = 200) -> float:
    """Two-player games of epsilon-greedy(0.1) against itself per second."""
    from agents import AlgoEpsilonGreedy, play_game

    rules = AlgoRules()
    agents = [AlgoEpsilonGreedy(0.1), AlgoEpsilonGreedy(0.1)]
    start = time.perf_counter()
    for g in range(games):
        play_game(rules, agents, seed=g)
    return games / (time.perf_counter() - start)


def stop_observation_times(games: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Seconds to encode the observation of a seat that may stop, plain and with the stop entries, at the stop
    decisions of two-player epsilon-greedy(0.1) self-play games."""
    from agents.algo_agents import epsilon_greedy_move
    from train.training_envs import AlgoTrainingEnv

    envs = {
        "plain": algo_v0.raw_env(),
        "exposure=8": AlgoTrainingEnv(exposure=8),
        "playouts=20": AlgoTrainingEnv(playouts=20),
        "exposure=8, playouts=20": AlgoTrainingEnv(exposure=8, playouts=20),
    }
    play = envs["plain"]
    rng = np.random.default_rng(seed)
    times: dict[str, list[float]] = {name: [] for name in envs}
    for game in range(games):
        play.reset(seed=seed + game)
        for agent in play.agent_iter():
            observation, _, termination, truncation, _ = play.last()
            if termination or truncation:
                play.step(None)
                continue
            knowledge = play.knowledge[play.possible_agents.index(agent)]
            if knowledge.view.phase == Phase.CONTINUE:
                for name, env in envs.items():
                    start = time.perf_counter()
                    env.encode(knowledge)
                    times[name].append(time.perf_counter() - start)
            mask = observation["action_mask"].astype(bool)
            play.step(epsilon_greedy_move(play.rules, knowledge.view, mask, rng, 0.1, knowledge.posterior))
    return {name: np.array(t) for name, t in times.items()}


def turns_per_second(env) -> float:
    """PettingZoo's performance_benchmark, its printed turns per second parsed."""
    from pettingzoo.test import performance_benchmark

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        performance_benchmark(env)
    return float(re.search(r"([\d.]+) turns per second", out.getvalue()).group(1))


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50, help="random games per player count (default 50)")
    args = parser.parse_args(argv)
    print("hand posterior with every number table, per view of the mover in random games")
    for players in (2, 3, 4):
        t = 1e3 * posterior_times(players, args.games)
        print(f"  {players} players: {t.size} views, median {np.median(t):.2f} ms, max {t.max():.2f} ms")
    print(f"epsilon-greedy(0.1) self-play: {greedy_games_per_second():.0f} games per second")
    times = stop_observation_times(args.games)
    plain = np.median(times["plain"])
    print(
        f"observation of a seat that may stop, median over {times['plain'].size} stop decisions of {args.games} games"
    )
    for name, t in times.items():
        print(f"  {name}: {1e3 * np.median(t):.2f} ms (x{np.median(t) / plain:.0f} the plain one)")
    from pettingzoo.classic import connect_four_v3

    reference = turns_per_second(connect_four_v3.env())
    print(f"random play, turns per second (connect_four_v3 in the same run: {reference:,.0f})")
    for label, make in (("env", algo_v0.env), ("raw_env", algo_v0.raw_env)):
        for probabilities in (False, True):
            rate = turns_per_second(make(probabilities=probabilities))
            print(f"  algo_v0.{label} probabilities={probabilities}: {rate:,.0f} (x{rate / reference:.2f})")


if __name__ == "__main__":
    main()
