"""The batched multiplayer twins (issue 61) against their AEC envs: random masked play, steps per second, in one run.

    python -m benchmarks.batched_multiplayer                       # Clue, 4 players, N = 1024
    python -m benchmarks.batched_multiplayer --players 6 --games 256 --seconds 5
    python -m benchmarks.batched_multiplayer --env generalized_clue_v0 --players 3 --cards 14
    python -m benchmarks.batched_multiplayer --env algo_v0 --probabilities    # 2 players, the hand posterior on
    python -m benchmarks.batched_multiplayer --env generalized_clue_v0 --cards 14 --probabilities
    python -m benchmarks.batched_multiplayer --board --players 3              # Clue on the board

Both play uniformly random legal actions with the observation of the seat to act made at every step, without
the probability pieces (``--probabilities``: with them, for Algo's twin, which counts the hand posterior, and
Generalized Clue's, which enumerates the deals), autoreset on. The AEC
side is the raw env driven by a plain loop (``observe`` then ``step``), and the env users get (PettingZoo's
order-checking wrapper) driven by PettingZoo's ``agent_iter`` loop; the batched side is the game's twin (Clue's
:class:`~deduction_envs.envs.clue_batched.BatchedClueSeats` and the like: ``observe``, ``legal_masks``,
``step``, and the games that ended dealt anew from the batch's generator). The random choice itself is timed
apart (it is the benchmark's policy, not the env). The two alternate ``--repeats`` times and the medians are kept,
so that a busy machine slows both alike.
"""

from __future__ import annotations

import platform
import statistics
import time

import numpy as np

from deduction_envs import registry
from train import arguments


def aec_rate(env_id: str, sizes: dict, seconds: float, seed: int = 0) -> float:
    """Steps per second of the raw AEC env (``sizes`` include ``probabilities``) in random masked play."""
    rng = np.random.default_rng(seed)
    env = registry.game(env_id).make_raw_env(**sizes)
    env.reset(seed=seed)
    steps, games, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if env.dealt_table().over or not env.agents:
            games += 1
            env.reset(seed=seed + games)
        observation = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
    return steps / (time.perf_counter() - start)


def wrapped_rate(env_id: str, sizes: dict, seconds: float, seed: int = 0) -> float:
    """Steps per second of the env users get (``env(**sizes)``, PettingZoo's order-checking wrapper)
    driven by PettingZoo's own loop (``agent_iter``, ``last``, ``step``), as issue 61 measured it."""
    rng = np.random.default_rng(seed)
    env = registry.game(env_id).make_env(**sizes)
    steps, games, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + games)
        games += 1
        for _agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
            if time.perf_counter() - start >= seconds:
                break
    return steps / (time.perf_counter() - start)


def batched_rate(env_id: str, sizes: dict, games: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Steps per second of the batched twin in random masked play, without and with the random choice."""
    rng = np.random.default_rng(seed)
    game = registry.game(env_id)
    make_games, seats_class = (registry.load(name) for name in game.batched_seats)
    options = {k: v for k, v in sizes.items() if k != "probabilities"}
    extra = {"probabilities": sizes["probabilities"]} if seats_class.has_probabilities else {}
    seats = seats_class(make_games(game.make_rules(**options), games, seed), **extra)
    seats.reset()
    steps, env_time, start = 0, 0.0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        began = time.perf_counter()
        seats.observe()
        masks = seats.games.legal_masks()
        chose = time.perf_counter()
        keys = rng.random(masks.shape, dtype=np.float32)
        keys[~masks] = -1.0
        actions = keys.argmax(axis=1)
        chosen = time.perf_counter()
        steps += int((~seats.games.over).sum())
        seats.step(actions)
        ended = np.flatnonzero(seats.games.over)
        if ended.size:
            seats.reset_games(ended)
        env_time += (chose - began) + (time.perf_counter() - chosen)
    return steps / env_time, steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(prog="python -m benchmarks.batched_multiplayer", description=__doc__)
    parser.add_argument("--env", choices=("clue_v0", "generalized_clue_v0", "algo_v0"), default="clue_v0",
                        help="the game (default clue_v0)")  # fmt: skip
    parser.add_argument("--players", type=arguments.count(2, 6), default=None,
                        help="players (default: Clue 4, Generalized Clue 3, Algo 2)")  # fmt: skip
    parser.add_argument("--cards", type=arguments.count(3), default=None, help="Generalized Clue's cards (12)")
    parser.add_argument("--probabilities", action="store_true",
                        help="with the probability pieces (Algo's and Generalized Clue's twins)")  # fmt: skip
    parser.add_argument("--board", action="store_true", help="Clue on the board")
    parser.add_argument("--games", type=arguments.count(1), default=1024, help="batched games N (default 1024)")
    parser.add_argument("--seconds", type=arguments.seconds, default=3.0, help="seconds a measurement (default 3)")
    parser.add_argument("--repeats", type=arguments.count(1), default=3, help="alternating measurements (median)")
    args = parser.parse_args(argv)
    players = args.players or {"clue_v0": 4, "generalized_clue_v0": 3, "algo_v0": 2}[args.env]
    sizes = {"players": players, **({"cards": args.cards} if args.cards else {}), "probabilities": False}
    if args.probabilities:
        if args.env == "clue_v0":
            parser.error("--probabilities: Clue's twin does not write the probability pieces yet")
        sizes["probabilities"] = True
    if args.env != "generalized_clue_v0" and args.cards:
        parser.error("--cards is Generalized Clue's")
    if args.board:
        if args.env != "clue_v0":
            parser.error("--board is Clue's")
        sizes["board"] = True
    batched_rate(args.env, sizes, args.games, 0.5)  # compile and warm up
    aec, wrapped, env_only, with_choice = [], [], [], []
    for _ in range(args.repeats):
        aec.append(aec_rate(args.env, sizes, args.seconds))
        wrapped.append(wrapped_rate(args.env, sizes, args.seconds))
        env, whole = batched_rate(args.env, sizes, args.games, args.seconds)
        env_only.append(env)
        with_choice.append(whole)
    a, w, b, c = (statistics.median(x) for x in (aec, wrapped, env_only, with_choice))
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}")
    print(f"# {args.env} {sizes}, random masked play, median of {args.repeats}\n")
    name = args.env
    print(f"| env | steps/s | ratio to `{name}.raw_env` | ratio to `{name}.env` |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| `{name}.raw_env`, a plain loop | {a:,.0f} | x1 | x{a / w:.1f} |")
    print(f"| `{name}.env`, PettingZoo's loop | {w:,.0f} | x{w / a:.2f} | x1 |")
    print(f"| batched, N = {args.games}: the env alone | {b:,.0f} | x{b / a:.1f} | x{b / w:.1f} |")
    print(f"| batched, N = {args.games}: with the random choice | {c:,.0f} | x{c / a:.1f} | x{c / w:.1f} |")


if __name__ == "__main__":
    main()
