"""A compiled reference agent against its Python agent, on the same positions with the same draws (issue 83's x20).

    python -m benchmarks.compiled_agents                                   # Algo's max-entropy, 2 players, 64 games
    python -m benchmarks.compiled_agents --games 32 --size players=3

Seeded games are played in lockstep on the AEC env and on its batched twin, every seat the named agent: at each step
the compiled agent decides for every live game in one call (its time shared among them), then the Python agent
decides each game's position, fed the same uniform numbers (as ``tests/test_conformance.py`` feeds it), timed one
decision at a time; the decisions must agree. Both run on one core (the kernels are serial, torch is not used).
Reported: decisions, seconds a decision on each side (mean; the Python side's 99th percentile too) and the ratio.

    python -m benchmarks.compiled_agents --python-only --agent ismcts_greedy --games 6

times an agent without a twin (the Python agent alone, in every seat, games seeded 0, 1, ...): what playing against
it costs.
"""

from __future__ import annotations

import platform
import time

import numpy as np

from train import arguments


def lockstep(env_id: str, agent: str, sizes: dict, games: int) -> tuple[np.ndarray, np.ndarray]:
    """Seconds a decision: the compiled agent's (each call's time over its games, repeated per game) and the
    Python agent's, on the same positions."""
    from agents.batched import UniformDraws
    from agents.roster import seat_agent
    from deduction_envs import registry
    from deduction_envs.envs.batched_tables import twin

    make_games, seats_class, compiled = twin(env_id)
    game = registry.game(env_id)
    rules = game.make_rules(**sizes)
    seats = seats_class(make_games(rules, games, 0))
    seats.reset(seeds=range(games))
    fast = compiled(agent)
    envs, players = [], []
    for g in range(games):
        env = game.make_raw_env(**sizes)
        seated = [seat_agent(env_id, agent) for _ in range(rules.players)]
        for seat, player in enumerate(seated):
            player.reset(rules, seat, seed=0)
        env.seat_listeners = {seat: player.observe for seat, player in enumerate(seated)}
        env.reset(seed=g)
        envs.append(env)
        players.append(seated)
    rng, compiled_times, python_times = np.random.default_rng(0), [], []
    while not seats.games.over.all():
        live = ~seats.games.over
        uniforms = rng.random((games, fast.draws(rules)))
        start = time.perf_counter()
        actions = fast.act(seats, live, uniforms)
        compiled_times += [(time.perf_counter() - start) / live.sum()] * int(live.sum())
        for g in np.flatnonzero(live):
            env = envs[g]
            player = players[g][seats.games.mover[g]]
            player.rng = UniformDraws(uniforms[g])
            mask = env.observe(env.agent_selection)["action_mask"]
            start = time.perf_counter()
            action = player.act(mask)
            python_times.append(time.perf_counter() - start)
            if action != actions[g]:
                raise AssertionError(f"game {g}: the compiled agent chose {actions[g]}, the Python agent {action}")
            env.step(int(action))
        seats.step(actions, live)
    return np.array(compiled_times), np.array(python_times)


def python_only(env_id: str, agent: str, sizes: dict, games: int) -> np.ndarray:
    """Seconds of each decision of the Python agent ``agent`` in every seat of ``games`` games seeded 0, 1, ..."""
    from agents.multiplayer import play_game
    from agents.roster import seat_agent
    from deduction_envs import registry

    rules = registry.game(env_id).make_rules(**sizes)
    times: list[float] = []
    for g in range(games):
        seated = [seat_agent(env_id, agent) for _ in range(rules.players)]
        for player in seated:
            act = player.act

            def timed(mask: np.ndarray, act: object = act) -> int:
                start = time.perf_counter()
                action = act(mask)  # type: ignore[operator]
                times.append(time.perf_counter() - start)
                return action

            player.act = timed  # type: ignore[method-assign]
        play_game(rules, seated, seed=g)
    return np.array(times)


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(prog="python -m benchmarks.compiled_agents", description=__doc__)
    parser.add_argument("--env", default="algo_v0", help="a multiplayer env with a twin (default algo_v0)")
    parser.add_argument("--agent", default="max_entropy", help="a roster name compiled for the twin")
    parser.add_argument("--games", type=arguments.count(1), default=64, help="games (default 64)")
    parser.add_argument("--python-only", action="store_true", help="time the Python agent alone (no twin needed)")
    arguments.add_size_option(parser)
    args = parser.parse_args(argv)
    sizes = dict(args.size)  # the game's own sizes where none is given
    if args.python_only:
        times = python_only(args.env, args.agent, sizes, args.games)
        print(f"{args.env} {sizes}, {args.agent} in every seat, {args.games} games: {times.size:,} decisions, mean "
              f"{1e3 * times.mean():.1f} ms, median {1e3 * np.median(times):.1f} ms, p99 "
              f"{1e3 * np.percentile(times, 99):.1f} ms, {times.sum():.1f} s in all")  # fmt: skip
        return
    lockstep(args.env, args.agent, sizes, 2)  # both sides compiled before the clock
    compiled, python = lockstep(args.env, args.agent, sizes, args.games)
    print(f"{args.env} {sizes}, {args.agent} in every seat, {args.games} games; {platform.machine()}, "
          f"Python {platform.python_version()}\n")  # fmt: skip
    print("| side | decisions | mean (ms) | p99 (ms) | decisions a second |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for label, times in (("Python agent, one at a time", python), ("compiled, all live games a call", compiled)):
        print(f"| {label} | {times.size:,} | {1e3 * times.mean():.3f} | {1e3 * np.percentile(times, 99):.3f} | "
              f"{1 / times.mean():,.0f} |")  # fmt: skip
    print(f"ratio (Python / compiled, mean): x{python.mean() / compiled.mean():.1f}")


if __name__ == "__main__":
    main()
