"""The probability pieces of a Clue observation: the AEC env's against the batched twin's (issue 83's x20 figure).

    python -m benchmarks.clue_probabilities                  # 4 players, 24 games a side
    python -m benchmarks.clue_probabilities --players 3 --board --games 40
    python -m benchmarks.clue_probabilities --states         # the two counters on the same seats' states

Both sides play the same kind of game: every seat a deduction sheet (the AEC env's Python agents, the twin's
compiled ones), one seat a game observed at each of its decisions (the learner's seat, rotated), with and without
the probability pieces. A side's cost of the pieces is its mean time for the observation with them less the mean
without them: the AEC env's counts the observed seat's knowledge (``knowledge.solution()`` and its exact sheet:
the compiled sweep, ``deduction_envs.reasoning.clue_sweep``, within its budget, else the seat's engine; measured
too with the engine alone, as the AEC env counted before the sweep), the twin's the same sweep from the seat's
masks, every observed seat in one compiled call; the twin is timed one game an ``observe`` call here, so that each
observation has its own time. Means and 99th percentiles per observation, and the ratios AEC / twin (above 1: the
twin is cheaper). The games differ between the sides (their own deals), so the figures are of
the same measure, not of the same positions.

``--states`` compares the counters alone on the same positions: the states of the learner's seat at each of its
decisions in the twin's games, each counted cold (no answer kept) by the AEC seat's engine (``solve`` with the
observation's budget and its number of deals, and the exact sheet) and by the compiled sweep
(:func:`~deduction_envs.reasoning.clue_sweep.count_seat`), each timed on its own; with how many states each counted
exactly.
"""

from __future__ import annotations

import platform
import time
from unittest import mock

import numpy as np

from train import arguments


def aec_times(players: int, board: bool, games: int, probabilities: bool, engine: bool = False) -> np.ndarray:
    """Seconds of each observation of the learner's seat on the AEC env (deduction sheets in every seat); with
    ``engine``, its seats counting with their engine alone, as before the sweep."""
    if engine:
        from deduction_envs.reasoning.clue_player import CluePlayerKnowledge

        with mock.patch.object(CluePlayerKnowledge, "_swept", lambda self: None):
            return aec_times(players, board, games, probabilities)
    from agents.roster import seat_agent
    from deduction_envs.envs import clue_v0

    times = []
    for g in range(games):
        env = clue_v0.raw_env(players=players, board=board, probabilities=probabilities)
        agents = [seat_agent("clue_v0", "deduction_sheet") for _ in range(players)]
        streams = np.random.SeedSequence(g).spawn(players + 1)  # as play_game: the agents' own streams, not the
        for seat, agent in enumerate(agents):  # deal's (numpy's default_rng(g) is default_rng((g, 0)))
            agent.reset(env.rules, seat, int(streams[seat + 1].generate_state(1)[0]))
        env.seat_listeners = {seat: agent.observe for seat, agent in enumerate(agents)}
        env.reset(seed=int(streams[0].generate_state(1)[0]))
        learner = env.possible_agents[g % players]
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            if agent == learner:
                start = time.perf_counter()
                env.observe(agent)
                times.append(time.perf_counter() - start)
            seat = env.possible_agents.index(agent)
            env.step(int(agents[seat].act(env.table.legal_mask())))
    return np.array(times)


def twin_times(players: int, board: bool, games: int, probabilities: bool) -> np.ndarray:
    """Seconds of each observation of the learner's seat on the twin (its compiled deduction sheets in every seat),
    one game an ``observe`` call."""
    from deduction_envs import registry
    from deduction_envs.envs.batched_tables import twin

    make_games, seats_class, agent = twin("clue_v0")
    rules = registry.game("clue_v0").make_rules(players=players, board=board)
    seats = seats_class(make_games(rules, games, 0), probabilities=probabilities)
    seats.reset(seeds=range(games))
    sheet, rng, learner = agent("deduction_sheet"), np.random.default_rng(0), np.arange(games) % players
    times = []
    while not seats.games.over.all():
        live = ~seats.games.over
        theirs = live & (seats.games.mover == learner)
        for g in np.flatnonzero(theirs):  # one game a call: each observation's own time
            one = np.zeros(games, dtype=bool)
            one[g] = True
            start = time.perf_counter()
            seats.observe(learner, one)
            times.append(time.perf_counter() - start)
        uniforms = rng.random((games, sheet.draws(rules)))
        seats.step(sheet.act(seats, live, uniforms), live)
    return np.array(times)


def seat_states(players: int, board: bool, games: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]:
    """The learner's seat's facts (required, forbidden, clauses; propagated) and its game's moves, at each of its
    decisions in the twin's games of deduction sheets."""
    from deduction_envs import registry
    from deduction_envs.envs.batched_tables import twin
    from deduction_envs.envs.clue_batched import settled

    make_games, seats_class, agent = twin("clue_v0")
    rules = registry.game("clue_v0").make_rules(players=players, board=board)
    seats = seats_class(make_games(rules, games, 0))
    seats.reset(seeds=range(games))
    sheet, rng, learner = agent("deduction_sheet"), np.random.default_rng(0), np.arange(games) % players
    states = []
    while not seats.games.over.all():
        live = ~seats.games.over
        for g in np.flatnonzero(live & (seats.games.mover == learner)):
            s = learner[g]
            settled(g, s, seats.required, seats.forbidden, seats.clauses, seats.dirty, seats._full, seats._groups)
            states.append((seats.required[g, s].copy(), seats.forbidden[g, s].copy(), seats.clauses[g, s].copy(),
                           int(seats.moves[g])))  # fmt: skip
        seats.step(sheet.act(seats, live, rng.random((games, sheet.draws(rules)))), live)
    return states


def counter_times(players: int, board: bool, games: int) -> None:
    """Print the engine's and the sweep's times on the same seats' states (``--states``)."""
    from deduction_envs import registry
    from deduction_envs.envs.clue import ClueObserver
    from deduction_envs.reasoning.clue_facts import facts_of
    from deduction_envs.reasoning.clue_sweep import EXACT, SWEEP_WORK, count_seat

    rules = registry.game("clue_v0").make_rules(players=players, board=board)
    knowledge = ClueObserver(rules).new_knowledge(0)
    engine, model = knowledge.engine, knowledge.engine._model
    table = model.sweep_table
    states = seat_states(players, board, games)
    out = np.zeros((model.cards, model.places))
    count_seat(*states[0][:3], *table, SWEEP_WORK, out)  # compile first
    engine.with_facts(facts_of(*states[0][:3])).solve("auto", samples=knowledge.samples, rng=0)
    times: dict[str, list[float]] = {"engine": [], "sweep": []}
    exact = {"engine": 0, "sweep": 0}
    for required, forbidden, clauses, moves in states:
        seat = engine.with_facts(facts_of(required, forbidden, clauses))
        start = time.perf_counter()
        solution = seat.solve("auto", samples=knowledge.samples, rng=1 + moves)
        seat.deduction_sheet(solution=solution)
        times["engine"].append(time.perf_counter() - start)
        exact["engine"] += solution.method == "exact"
        start = time.perf_counter()
        status = count_seat(required, forbidden, clauses, *table, SWEEP_WORK, out)[0]
        times["sweep"].append(time.perf_counter() - start)
        exact["sweep"] += status == EXACT
    print(f"{platform.machine()}, Python {platform.python_version()}; clue_v0, {players} players"
          f"{' on the board' if board else ''}, {len(states):,} states of the learner's seat in {games} games\n")
    print("| counter | exact | mean (ms) | median (ms) | p99 (ms) | most (ms) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, spent in times.items():
        t = np.array(spent) * 1e3
        print(f"| {name} | {exact[name]:,} | {t.mean():.3f} | {np.median(t):.3f} | {np.percentile(t, 99):.2f} | "
              f"{t.max():.1f} |")  # fmt: skip
    engine_t, sweep_t = np.array(times["engine"]), np.array(times["sweep"])
    print(f"\nengine / sweep: x{engine_t.mean() / sweep_t.mean():.1f} on the mean, "
          f"x{np.percentile(engine_t, 99) / np.percentile(sweep_t, 99):.1f} on the 99th percentile")


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(prog="python -m benchmarks.clue_probabilities", description=__doc__)
    parser.add_argument("--players", type=arguments.count(2), default=4, help="players (default 4)")
    parser.add_argument("--board", action="store_true", help="Clue on the board")
    parser.add_argument("--games", type=arguments.count(1), default=24, help="games a side (default 24)")
    parser.add_argument("--states", action="store_true", help="the counters alone on the same seats' states")
    args = parser.parse_args(argv)
    if args.states:
        counter_times(args.players, args.board, args.games)
        return
    twin_times(args.players, args.board, 2, True)  # compile first
    aec_times(args.players, args.board, 1, True)
    aec_times(args.players, args.board, 1, True, True)
    sides = {
        "AEC env, its engine (as before the sweep)": (aec_times(args.players, args.board, args.games, True, True),
                                                      aec_times(args.players, args.board, args.games, False)),
        "AEC env, the sweep": tuple(aec_times(args.players, args.board, args.games, p) for p in (True, False)),
        "twin": tuple(twin_times(args.players, args.board, args.games, p) for p in (True, False)),
    }  # fmt: skip
    print(f"{platform.machine()}, Python {platform.python_version()}; clue_v0, {args.players} players"
          f"{' on the board' if args.board else ''}, {args.games} games a side\n")  # fmt: skip
    print("| side | observations | with pieces: mean (ms) | p99 (ms) | without: mean (ms) | pieces' mean (ms) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    pieces = {}
    for name, (on, off) in sides.items():
        pieces[name] = (on.mean() - off.mean(), np.percentile(on, 99))
        print(f"| {name} | {on.size:,} | {on.mean() * 1e3:.3f} | {np.percentile(on, 99) * 1e3:.2f} | "
              f"{off.mean() * 1e3:.3f} | {pieces[name][0] * 1e3:.3f} |")  # fmt: skip
    t_mean, t_p99 = pieces["twin"]
    print()
    for name in list(sides)[:2]:
        a_mean, a_p99 = pieces[name]
        print(f"{name} / twin: x{a_mean / t_mean:.2f} on the pieces' mean, x{a_p99 / t_p99:.2f} on the 99th "
              "percentile")


if __name__ == "__main__":
    main()
