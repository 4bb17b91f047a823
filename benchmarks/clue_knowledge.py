"""Speed and accuracy of the Clue knowledge engine over recorded games.

Games are played with seeded random or sensible suggestions (a sensible
player names, per category, a card it has not yet seen) and recorded as the
events player 0 observes. Replaying them, the benchmark times the engine at
every state (after every turn):

- ``exact``: exact counting, standard Clue with 3 to 6 players;
- ``budget``: ``solve()`` with its defaults (exact within the work limit, else
  sampled within its time budget) at every state, standard Clue with 3 to 6
  players: the worst case is what a user waits;
- ``generalized``: Generalized Clue decks of 20, 40 and 60 cards, where exact
  counting fits the budget and how the sampler does beyond it;
- ``samplers``: our sampler against the WalkSAT-like sampler of Neller & Luo
  (CG 2018) at equal time budgets, as the RMS error of the marginals against
  the exact ones.

Run ``python -m benchmarks.clue_knowledge [exact|generalized|samplers]``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
from tqdm import tqdm

from deduction_envs.reasoning import ClueKnowledge
from train import arguments
from train.experiments.clue_states import EXACT_WORK_LIMIT, Table, record_game, replay
from train.experiments.clue_walksat import uninformed
from train.experiments.walksat import VARIANTS, WalkSat


def free_cards(knowledge: ClueKnowledge, method: str = "exact") -> int:
    """Cards whose place is not certain (``method="sample"``: not proved by propagation)."""
    return int(np.sum(knowledge.deduction_sheet(method).max(axis=1) < 1))


def percentiles(values: list[float]) -> str:
    a = np.asarray(values) * 1000
    return f"{np.median(a):.1f} / {np.percentile(a, 90):.1f} / {a.max():.1f}"


def bench_exact(args) -> None:
    """Exact counting at every state of standard Clue games."""
    print("| players | policy | games | states | free cards | solve ms p50 / p90 / max | add ms p50 / max |")
    print("| ---: | --- | ---: | ---: | ---: | --- | --- |")
    for players in args.players:
        for policy in args.policies:
            solve_times: list[float] = []
            add_times: list[float] = []
            free: list[int] = []
            table = Table.classic(players)
            for game in tqdm(range(args.games), desc=f"{players} players, {policy}", disable=args.no_progress):
                places, states = record_game(table, policy, seed=1000 * players + game, turns=args.turns)
                for knowledge, added in replay(table, places, states, work_limit=EXACT_WORK_LIMIT):
                    start = time.perf_counter()
                    solution = knowledge.solve("exact")
                    solve_times.append(time.perf_counter() - start)
                    add_times.append(added)
                    free.append(free_cards(knowledge))
                    truth = solution.probabilities[np.arange(places.size), places]
                    assert np.all(truth > 0), "the true deal must stay possible"
                    if knowledge.entropy() == 0:
                        break
            a = np.asarray(add_times) * 1000
            print(
                f"| {players} | {policy} | {args.games} | {len(solve_times)} | {min(free)} to {max(free)} "
                f"| {percentiles(solve_times)} | {np.median(a):.2f} / {a.max():.1f} |"
            )


def bench_budget(args) -> None:
    """``solve()`` with its defaults at every state: how long an answer takes at worst, and how good it is."""
    print("| players | policy | games | states | exact | solve ms p50 / p99 / max | sampled: RMS standard error |")
    print("| ---: | --- | ---: | ---: | ---: | --- | ---: |")
    for players in args.players:
        for policy in args.policies:
            times: list[float] = []
            exact = 0
            errors: list[float] = []
            table = Table.classic(players)
            for game in tqdm(range(args.games), desc=f"{players} players, {policy}", disable=args.no_progress):
                places, states = record_game(table, policy, seed=1000 * players + game, turns=args.turns)
                for knowledge, _ in replay(table, places, states):
                    start = time.perf_counter()
                    solution = knowledge.solve()
                    times.append(time.perf_counter() - start)
                    if solution.method == "exact":
                        exact += 1
                    else:
                        unsettled = knowledge.deduction_sheet("sample") < 0
                        errors.append(float(np.sqrt(np.mean(solution.errors[unsettled] ** 2))))
                    if solution.method == "exact" and knowledge.entropy() == 0:
                        break
            a = np.asarray(times) * 1000
            error = f"{np.sqrt(np.mean(np.square(errors))):.4f} ({len(errors)} states)" if errors else "-"
            print(
                f"| {players} | {policy} | {args.games} | {len(times)} | {exact / len(times):.0%} "
                f"| {np.median(a):.1f} / {np.percentile(a, 99):.1f} / {a.max():.1f} | {error} |"
            )


def rmse(estimate: np.ndarray, exact: np.ndarray, cells: np.ndarray) -> float:
    return float(np.sqrt(np.mean((estimate[cells] - exact[cells]) ** 2)))


def ours(knowledge: ClueKnowledge, seconds: float, seed: int) -> tuple[np.ndarray, int]:
    try:
        solution = knowledge.solve("sample", samples=2_000_000, seconds=seconds, rng=seed)
    except RuntimeError:  # no deal accepted within the budget
        return uninformed(knowledge.deduction_sheet("sample")), 0
    return solution.probabilities, solution.samples


def walksat(knowledge: ClueKnowledge, clauses: list, seconds: float, seed: int) -> tuple[np.ndarray, int]:
    start = time.perf_counter()
    sheet = knowledge.deduction_sheet("sample").astype(np.int64)
    best = VARIANTS["(e) (d) + tabu tenure 2"]
    search = WalkSat(
        sheet, knowledge.hand_sizes, knowledge.categories, knowledge.case_file_sizes, clauses, [], seed, **best
    )
    search.run(seconds - (time.perf_counter() - start))
    if search.samples == 0:
        return uninformed(sheet), 0
    return search.probabilities(), search.samples


def bench_samplers(args) -> None:
    """Both samplers against exact marginals at equal time budgets, on states of standard Clue games."""
    budgets = args.budgets
    errors = {(name, b): [] for name in ("ours", "walksat") for b in budgets}
    samples = {(name, b): [] for name in ("ours", "walksat") for b in budgets}
    failures = {(name, b): 0 for name in ("ours", "walksat") for b in budgets}
    seconds: dict[float, list[float]] = {b: [] for b in budgets}
    jobs = [(players, game) for players in args.players for game in range(args.sampler_games)]
    for players, game in tqdm(jobs, desc="games", disable=args.no_progress):
        table = Table.classic(players)
        seed = 1000 * players + game
        places, states = record_game(table, "sensible", seed=seed, turns=args.turns)
        clauses: list[tuple[int, list[int]]] = []
        for t, (knowledge, _) in enumerate(replay(table, places, states, work_limit=EXACT_WORK_LIMIT)):
            clauses += [(p, cards) for kind, p, cards in states[t] if kind == "one_of"]
            exact = knowledge.solve("exact").probabilities
            cells = knowledge.deduction_sheet("sample") < 0  # what logic alone has not settled
            if t % args.every or not cells.any():
                continue
            for budget in budgets:
                # WalkSAT gets exactly the wall time ours took, setup and summary included.
                start = time.perf_counter()
                result = ours(knowledge, budget, seed + t)
                spent = time.perf_counter() - start
                for name, (estimate, drawn) in (
                    ("ours", result),
                    ("walksat", walksat(knowledge, clauses, spent, seed + t)),
                ):
                    errors[name, budget].append(rmse(estimate, exact, cells))
                    samples[name, budget].append(drawn)
                    failures[name, budget] += drawn == 0
                seconds[budget].append(spent)
            if knowledge.entropy() == 0:
                break
    states = len(errors["ours", budgets[0]])
    print(f"\n{states} states of sensible games ({args.sampler_games} per table, every {args.every}th state), "
          f"players {args.players}; RMSE over the cells logic has not settled, mean over states\n")  # fmt: skip
    print("| budget (s) | time used, mean (s) | ours: RMSE | ours: distinct deals p50 | no deal | WalkSAT: RMSE "
          "| WalkSAT: unique samples p50 | no sample | WalkSAT / ours "
          "| states: ours closer / equal / WalkSAT closer |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for b in budgets:
        a, w = np.mean(errors["ours", b]), np.mean(errors["walksat", b])
        difference = np.array(errors["walksat", b]) - np.array(errors["ours", b])
        closer = f"{np.sum(difference > 1e-12)} / {np.sum(np.abs(difference) <= 1e-12)} / {np.sum(difference < -1e-12)}"
        print(
            f"| {b:g} | {np.mean(seconds[b]):.3f} | {a:.4f} | {np.median(samples['ours', b]):.0f} "
            f"| {failures['ours', b]} | {w:.4f} "
            f"| {np.median(samples['walksat', b]):.0f} | {failures['walksat', b]} | {w / a:.1f}x "
            f"| {closer} |"
        )


def span(values: list[int]) -> str:
    return f"{min(values)} to {max(values)}" if values else "none"


def bench_generalized(args) -> None:
    """Generalized Clue: where exact counting fits the budget, and the sampler beyond it."""
    print("\n| cards | players | hidden | states | exact within budget | unsettled cards: exact / over budget "
          "| exact ms p50 / max "
          "| over budget: ms to tell p50 / max | sampler (0.1 s): RMSE vs exact "
          "| beyond exact: samples p50 | its standard error (RMS) |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | --- | --- | --- | ---: | ---: | ---: |")
    for cards in args.decks:
        table = Table.generalized(cards, args.hidden, args.generalized_players, query_size=max(3, cards // 10))
        exact_times, over_times, errors, beyond_samples, beyond_errors = [], [], [], [], []
        exact_free, over_free = [], []
        for game in tqdm(range(args.generalized_games), desc=f"{cards} cards", disable=args.no_progress):
            seed = 7000 + cards * 100 + game
            places, states = record_game(table, "sensible", seed=seed, turns=args.generalized_turns)
            for t, (knowledge, _) in enumerate(replay(table, places, states, work_limit=EXACT_WORK_LIMIT)):
                unsettled = free_cards(knowledge, "sample")
                start = time.perf_counter()
                try:
                    exact = knowledge.solve("exact").probabilities
                    exact_times.append(time.perf_counter() - start)
                    exact_free.append(unsettled)
                except ValueError:
                    over_times.append(time.perf_counter() - start)
                    over_free.append(unsettled)
                    exact = None
                solution = knowledge.solve("sample", samples=2_000_000, seconds=0.1, rng=seed + t)
                cells = knowledge.deduction_sheet("sample") < 0
                if exact is not None:
                    if cells.any():
                        errors.append(rmse(solution.probabilities, exact, cells))
                    if knowledge.entropy() == 0:
                        break
                else:
                    beyond_samples.append(solution.samples)
                    beyond_errors.append(float(np.sqrt(np.mean(solution.errors[cells] ** 2))))
        n = len(exact_times) + len(over_times)
        exact_ms = percentiles(exact_times).split(" / ") if exact_times else ["-"] * 3
        over_ms = percentiles(over_times).split(" / ") if over_times else ["-"] * 3
        print(
            f"| {cards} | {args.generalized_players} | {args.hidden} | {n} | {len(exact_times) / n:.0%} "
            f"| {span(exact_free)} / {span(over_free)} "
            f"| {exact_ms[0]} / {exact_ms[2]} | {over_ms[0]} / {over_ms[2]} "
            f"| {np.mean(errors) if errors else float('nan'):.4f} "
            f"| {np.median(beyond_samples) if beyond_samples else float('nan'):.0f} "
            f"| {np.mean(beyond_errors) if beyond_errors else float('nan'):.4f} |"
        )


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "section", nargs="?", choices=["exact", "budget", "generalized", "samplers", "all"], default="all"
    )
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    parser.add_argument("--policies", nargs="+", choices=["random", "sensible"], default=["random", "sensible"])
    parser.add_argument("--games", type=int, default=10, help="games per table and policy")
    parser.add_argument("--turns", type=int, default=60, help="suggestions per game at most")
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.01, 0.1, 1.0], help="sampler seconds")
    parser.add_argument("--sampler-games", type=int, default=2, help="games per table for the samplers")
    parser.add_argument("--every", type=int, default=3, help="compare the samplers at every n-th state")
    parser.add_argument("--decks", type=int, nargs="+", default=[20, 40, 60], help="Generalized Clue deck sizes")
    parser.add_argument("--hidden", type=int, default=3, help="Generalized Clue: cards in the case file")
    parser.add_argument("--generalized-players", type=int, default=4)
    parser.add_argument("--generalized-games", type=int, default=3, help="games per Generalized Clue deck")
    parser.add_argument("--generalized-turns", type=int, default=100, help="questions per Generalized Clue game")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    # Compile the kernels once, outside the timings.
    warm = ClueKnowledge.classic(3)
    warm.add_hand(0, range(0, 18, 3))
    warm.solve("exact")
    warm.solve("sample", samples=1)
    WalkSat(warm.deduction_sheet("sample").astype(np.int64), warm.hand_sizes, warm.categories, (1, 1, 1), [], []).run(0)
    if args.section in ("exact", "all"):
        bench_exact(args)
    if args.section in ("budget", "all"):
        bench_budget(args)
    if args.section in ("samplers", "all"):
        bench_samplers(args)
    if args.section in ("generalized", "all"):
        bench_generalized(args)


if __name__ == "__main__":
    main()
