"""The Algo article's experiments, reproduced: the epsilon-greedy round robin and max-entropy against it.

    python -m train.experiments.algo_experiments                 # the article's numbers of games
    python -m train.experiments.algo_experiments --games 1000 --duel-games 1000 --ismcts-games 100 --search-games 500
    python -m train.experiments.algo_experiments --quick        # a few games of each, to runs/quick/

Experiment 1: ``AlgoEpsilonGreedy(epsilon)`` for epsilon in {0, 0.1, 0.5, 1}
(epsilon is the probability of stopping after a hit) plays every ordered
pairing, first player against second, ``--games`` times on two-player Algo.
The table is the article's: the first player's win rate per pairing, the
row means (each epsilon moving first) and the column means of the second
player's win rate (each epsilon moving second), then both with 95% Wilson
intervals.

Experiment 2: ``AlgoMaxEntropy()`` against ``AlgoEpsilonGreedy(0.1)``,
``--duel-games`` games with each moving first (the article: 50), with the
article's one-sided z-test of the max-entropy agent's win rate against 0.5;
and ``AlgoMaxEntropy(units="bits")`` (this project's form before issue 64) on
the same deals, with Fisher's exact test of the two win rates.
Experiment 3 (not in the article): ``SOISMCTS(iterations=200)`` against
each of them, ``--ismcts-games`` games with each moving first. Experiment 4
(not in the article): SO-ISMCTS with :class:`~agents.multiplayer_ismcts.AlgoSearchPolicy`
(the likeliest attack and stopping at the root, epsilon-greedy(0.1) players
in the rollouts; 100 iterations, the roster's ``ismcts_greedy``) against
each of them, ``--search-games`` games with each moving first. Experiment 5
(issue 62): the kept two-player Algo models (``models/``, ``model:NAME``,
each playing its likeliest legal action) against epsilon-greedy(0.1),
max-entropy and ``ismcts_greedy``, ``--model-games`` games with each moving
first, on the duels' deals; ``--models`` seats some of them only.
``--experiments`` names the experiments run (default 1 to 4):

    python -m train.experiments.algo_experiments --experiments 5 --model-games 500 --output results/algo_kept_models

Writes ``algo.md`` to ``--output``. The games are played in parts of ``--chunk``
(jobs of :mod:`train.experiments.runner`), each game seeded by its place in
the experiment, so the tables do not depend on ``--workers`` or ``--chunk``.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest, fisher_exact, norm

from agents.algo_agents import AlgoEpsilonGreedy, AlgoMaxEntropy
from agents.multiplayer import SeatAgent, play_game
from agents.multiplayer_ismcts import SOISMCTS
from agents.roster import seat_agent
from deduction_envs.games.algo import AlgoRules
from train import arguments
from train.experiments.runner import Experiment, Finished, Run, run_experiment
from train.kept_models import SEAT_PREFIX, kept_seat_agent, seat_names
from train.stats import chunks, format_p, interval, over_seeds

EPSILONS = (0.0, 0.1, 0.5, 1.0)

#: What our agents do differently from the article's code, as far as the article shows it.
DEPARTURES = (
    "Ties: the article does not say how its epsilon-greedy baseline chooses among equally probable attacks; ours "
    "takes the first in action order. Max-entropy's ties (the article's code collects the attacks within 1e-4 of "
    "the best and does not show which it plays) go to the first in its candidate order, the most probable first.",
    "Max-entropy's win bonus is the article's: 10, against information terms in nats (its code takes `np.log`), "
    "given when after a hit no attack is left or every candidate attack is certain "
    "(`AlgoMaxEntropy(win_rule='certain')`); before issue 45 this project gave it only when the hit left no "
    "opponent a face-down card (`win_rule='outright'`, kept as an option), and before issue 64 it counted in bits "
    "(`units='bits'`, kept as an option, `max-entropy(bits)`), which made the bonus 1.44 times weaker.",
    "S and T (what the opponents learn of my hand when my drawn card goes face up or down) are averaged over 8 "
    "determinisations of their hands drawn from my posterior and summed over the opponents (two-player here: the "
    "one); the article's estimate is its `estimate_self_entropy`, whose code it does not show.",
    "Experiments 3 to 5 (SO-ISMCTS, the trained policies) are not in the article.",
)

#: The article's Experiment 1 table (first player's win rate, 100 games per cell; rows first, columns second).
ARTICLE_TABLE = np.array(
    [[0.60, 0.48, 0.60, 0.77], [0.55, 0.49, 0.59, 0.82], [0.44, 0.48, 0.47, 0.85], [0.28, 0.25, 0.12, 0.54]]
)

EPSILON_NAMES = tuple(f"epsilon-greedy({e:g})" for e in EPSILONS)

#: The agents of the experiments by name: the epsilon-greedy family, max-entropy and the two searches.
AGENTS: dict[str, Callable[[], SeatAgent]] = {
    **{name: (lambda e=e: AlgoEpsilonGreedy(e)) for name, e in zip(EPSILON_NAMES, EPSILONS, strict=True)},
    "max-entropy": AlgoMaxEntropy,
    "max-entropy(bits)": lambda: AlgoMaxEntropy(units="bits"),
    "SO-ISMCTS": lambda: SOISMCTS(iterations=200),
    "ismcts_greedy": lambda: seat_agent("algo_v0", "ismcts_greedy"),
}
#: The opponents of Experiments 2 to 4 (max-entropy plays only the first).
DUEL_OPPONENTS = ("epsilon-greedy(0.1)", "max-entropy")
#: The opponents of the kept models (Experiment 5): the duels' and the strongest search.
MODEL_OPPONENTS = (*DUEL_OPPONENTS, "ismcts_greedy")
EXPERIMENTS = (1, 2, 3, 4, 5)
#: The experiments a run plays unless ``--experiments`` says otherwise: the article's and the searches (the kept
#: models' Experiment 5 is asked for by name, as ``results/algo_kept_models`` was).
DEFAULT_EXPERIMENTS = (1, 2, 3, 4)


def kept_models() -> tuple[str, ...]:
    """The kept models of two-player Algo (the experiments' game), as the tables name them (``model:NAME``)."""
    return seat_names("algo_v0", AlgoRules())


def make_agent(name: str) -> SeatAgent:
    """A fresh agent of the experiments by its name (``model:NAME``: the kept model ``NAME``)."""
    return kept_seat_agent(name) if name.startswith(SEAT_PREFIX) else AGENTS[name]()


@dataclass(frozen=True)
class Settings:
    games: int  #: Experiment 1 games per ordered pairing
    duel_games: int  #: Experiment 2 games per seating
    ismcts_games: int  #: Experiment 3 games per seating
    search_games: int  #: Experiment 4 games per seating
    seed: int
    chunk: int  #: games per job
    model_games: int = 50  #: Experiment 5 games per seating
    models: tuple[str, ...] = ()  #: the kept models Experiment 5 seats (``model:NAME``)
    experiments: tuple[int, ...] = DEFAULT_EXPERIMENTS  #: the experiments run


@dataclass(frozen=True, order=True)
class Part:
    """Games ``[start, start + games)`` of one pairing: ``contender`` in seat ``seat`` against ``opponent``.

    Experiment 1 deals game ``g`` of epsilons ``(i, j)`` from ``(seed, i, j, g)``; the duels (Experiments 2 to
    5) deal game ``g`` with the contender in ``seat`` from ``(seed, 9, seat, g)``, the same deals for each.
    """

    experiment: int
    contender: str
    opponent: str
    seat: int
    start: int
    games: int

    def deal(self, seed: int, game: int) -> tuple[int, ...]:
        if self.experiment == 1:
            return seed, EPSILON_NAMES.index(self.contender), EPSILON_NAMES.index(self.opponent), game
        return seed, 9, self.seat, game


def play(part: Part, settings: Settings) -> int:
    """The contender's wins in one part."""
    rules = AlgoRules()
    contender, opponent = make_agent(part.contender), make_agent(part.opponent)
    agents = [contender, opponent] if part.seat == 0 else [opponent, contender]
    return sum(
        play_game(rules, agents, seed=part.deal(settings.seed, g), first=0).winner == part.seat
        for g in range(part.start, part.start + part.games)
    )


def jobs(settings: Settings) -> list[Part]:
    """Every part of the experiments run: the duels with a search first (the slow jobs), then the kept models',
    then max-entropy's, then the round robin."""
    duels = [
        (4, "ismcts_greedy", DUEL_OPPONENTS, settings.search_games),
        (3, "SO-ISMCTS", DUEL_OPPONENTS, settings.ismcts_games),
        *[(5, model, MODEL_OPPONENTS, settings.model_games) for model in settings.models],
        (2, "max-entropy", DUEL_OPPONENTS[:1], settings.duel_games),
        (2, "max-entropy(bits)", DUEL_OPPONENTS[:1], settings.duel_games),
    ]
    out = []
    for experiment, contender, opponents, games in duels:
        if experiment in settings.experiments:
            for opponent in opponents:
                for seat in (0, 1):
                    out += [Part(experiment, contender, opponent, seat, *c) for c in chunks(games, settings.chunk)]
    if 1 in settings.experiments:
        for first in EPSILON_NAMES:
            for second in EPSILON_NAMES:
                out += [Part(1, first, second, 0, *c) for c in chunks(settings.games, settings.chunk)]
    return out


def wins_of(results: dict[Part, int], experiment: int, contender: str, opponent: str, seat: int = 0) -> int:
    """The contender's wins over the parts of one pairing and seat."""
    return sum(
        wins
        for part, wins in results.items()
        if (part.experiment, part.contender, part.opponent, part.seat) == (experiment, contender, opponent, seat)
    )


def round_robin(results: dict[Part, int]) -> np.ndarray:
    """``wins[i, j]``: Experiment 1's games the first player (epsilon i) won against the second (epsilon j)."""
    return np.array([[wins_of(results, 1, first, second) for second in EPSILON_NAMES] for first in EPSILON_NAMES])


def duels(results: dict[Part, int], experiment: int, contender: str) -> dict[str, tuple[int, int]]:
    """A duel experiment's wins of ``contender`` by opponent: (moving first, moving second)."""
    return {
        opponent: tuple(wins_of(results, experiment, contender, opponent, seat) for seat in (0, 1))
        for opponent in MODEL_OPPONENTS
        if any(p.experiment == experiment and p.contender == contender and p.opponent == opponent for p in results)
    }


def z_test(wins: int, games: int) -> tuple[float, float]:
    """The article's one-sided z-test of a win rate against 0.5: (u0, p-value)."""
    u0 = (wins / games - 0.5) / np.sqrt(0.25 / games)
    return float(u0), float(norm.sf(u0))


def _interval(successes: int, trials: int) -> str:
    low, high = interval(successes, trials)
    return f"{successes / trials:.3f} [{low:.3f}, {high:.3f}]"


def write(settings: Settings, results: dict[Part, int], run: Run) -> str:
    """``algo.md``: the tables of the experiments run."""
    lines = [
        "# Algo: the article's experiments",
        "",
        f"Command: `{run.command}`. Two players, epsilon-greedy agents with exact hit probabilities "
        "(`AlgoHandPosterior`); epsilon is the probability of stopping after a hit.",
    ]
    sections = {1: _round_robin_section, 2: _max_entropy_section, 3: _ismcts_section, 4: _search_section,
                5: _models_section}  # fmt: skip
    for experiment in settings.experiments:
        lines += ["", *sections[experiment](settings, results)]
    lines += ["", "## Departures from the article", "", *[f"- {item}" for item in DEPARTURES]]
    text = "\n".join(lines) + "\n"
    (run.output / "algo.md").write_text(text)
    return text


def _round_robin_section(settings: Settings, results: dict[Part, int]) -> list[str]:
    wins, games = round_robin(results), settings.games
    rates = wins / games
    header = " | ".join(f"{e:g}" for e in EPSILONS)
    lines = [
        "## Experiment 1: epsilon round robin",
        "",
        f"First player's win rate, {games} games per cell (rows: first player's epsilon; columns: second's). "
        "The article's figure (100 games per cell) is in brackets.",
        "",
        f"| first \\ second | {header} | mean |",
        "| --- | " + " | ".join("---:" for _ in EPSILONS) + " | ---: |",
    ]
    for i, e in enumerate(EPSILONS):
        cells = " | ".join(f"{rates[i, j]:.2f} ({ARTICLE_TABLE[i, j]:.2f})" for j in range(len(EPSILONS)))
        lines.append(f"| {e:g} | {cells} | {rates[i].mean():.3f} |")
    second = 1 - rates.mean(axis=0)
    lines.append("| mean as second (1 - win rate) | " + " | ".join(f"{v:.3f}" for v in second) + " | |")
    lines += [
        "",
        "Each epsilon's win rate against the other three (the diagonal left out), with 95% Wilson intervals:",
        "",
        "| epsilon | moving first | moving second | overall |",
        "| --- | ---: | ---: | ---: |",
    ]
    others = ~np.eye(len(EPSILONS), dtype=bool)
    trials = (len(EPSILONS) - 1) * games
    for i, e in enumerate(EPSILONS):
        first = int(wins[i, others[i]].sum())
        second = trials - int(wins[others[:, i], i].sum())
        row = f"| {e:g} | {_interval(first, trials)} | {_interval(second, trials)} "
        lines.append(row + f"| {_interval(first + second, 2 * trials)} |")
    first_total = int(wins.sum())
    return [*lines, "", f"First player overall: {_interval(first_total, int(wins.size * games))}."]


def _max_entropy_section(settings: Settings, results: dict[Part, int]) -> list[str]:
    duel_wins, duel_games = duels(results, 2, "max-entropy")["epsilon-greedy(0.1)"], settings.duel_games
    total = sum(duel_wins)
    u0, p_value = z_test(total, 2 * duel_games)
    verdict = "significant" if p_value < 0.05 else "not significant"
    return [
        "## Experiment 2: max-entropy against epsilon-greedy(0.1)",
        "",
        f"{duel_games} games with each moving first. Max-entropy: depth 2, top 5 attacks, 8 samples for S and T.",
        "",
        "| | max-entropy's win rate | the article (50 games) |",
        "| --- | ---: | ---: |",
        f"| max-entropy moving first | {_interval(duel_wins[0], duel_games)} | 0.54 |",
        f"| max-entropy moving second | {_interval(duel_wins[1], duel_games)} | 0.54 |",
        f"| overall | {_interval(total, 2 * duel_games)} | 0.54 |",
        "",
        f"One-sided z-test against 0.5: u0 = {u0:.2f}, p = {p_value:.3g}: {verdict} at 5% "
        "(the article: u0 = 0.8 over 100 games, not significant).",
        *_units_lines(settings, results, total),
    ]


def _units_lines(settings: Settings, results: dict[Part, int], nats: int) -> list[str]:
    """The same duel played by ``max-entropy(bits)`` (this project's form before issue 64) on the same deals, and
    Fisher's exact test of the two overall win rates."""
    bits_wins = duels(results, 2, "max-entropy(bits)").get("epsilon-greedy(0.1)")
    if bits_wins is None:
        return []
    games = 2 * settings.duel_games
    bits, nats_wins = sum(bits_wins), duels(results, 2, "max-entropy")["epsilon-greedy(0.1)"]
    p = fisher_exact([[nats, games - nats], [bits, games - bits]]).pvalue
    return [
        "",
        "The article's code counts in nats (`np.log`) with a win bonus of 10; this project counted in bits with the "
        "same 10 before issue 64, a bonus 1.44 times weaker against the information terms. `max-entropy(bits)` "
        "on the same deals:",
        "",
        "| | moving first | moving second | overall |",
        "| --- | ---: | ---: | ---: |",
        f"| max-entropy (nats, the article's) | {_interval(nats_wins[0], settings.duel_games)} "
        f"| {_interval(nats_wins[1], settings.duel_games)} | {_interval(nats, games)} |",
        f"| max-entropy(bits) | {_interval(bits_wins[0], settings.duel_games)} "
        f"| {_interval(bits_wins[1], settings.duel_games)} | {_interval(bits, games)} |",
        "",
        f"Fisher's exact test of the two overall win rates (two-sided): p = {format_p(p)}"
        f"{' (significant at 5%)' if p < 0.05 else ' (no significant difference)'}.",
    ]


def _ismcts_section(settings: Settings, results: dict[Part, int]) -> list[str]:
    return [
        "## Experiment 3: SO-ISMCTS (200 iterations per decision, random rollouts)",
        "",
        f"{settings.ismcts_games} games with each moving first; SO-ISMCTS's win rate with 95% Wilson intervals.",
        "",
        *_duel_table("SO-ISMCTS", duels(results, 3, "SO-ISMCTS"), settings.ismcts_games),
    ]


def _search_section(settings: Settings, results: dict[Part, int]) -> list[str]:
    return [
        "## Experiment 4: SO-ISMCTS with epsilon-greedy play-outs (100 iterations per decision)",
        "",
        "`ismcts_greedy`: the root searches the likeliest attack and stopping; below it and in the "
        "rollouts every seat plays epsilon-greedy(0.1) from its own view of the determinisation. "
        f"{settings.search_games} games with each moving first; its win rate with 95% Wilson intervals and a "
        "one-sided binomial test against 0.5.",
        "",
        *_duel_table("ismcts_greedy", duels(results, 4, "ismcts_greedy"), settings.search_games, test=True),
    ]


def recipe_of(model: str) -> str:
    """The recipe a kept model is a seed of: its name without ``model:`` and a final ``-seed-N``."""
    return re.sub(r"-seed-\d+$", "", model.removeprefix(SEAT_PREFIX))


def _models_section(settings: Settings, results: dict[Part, int]) -> list[str]:
    """Experiment 5: each kept model against each opponent, then per recipe of several seeds (``NAME-seed-N``)
    the mean of the seeds' win rates with a t interval over the seeds."""
    games = settings.model_games
    lines = [
        "## Experiment 5: the kept trained policies (issue 62)",
        "",
        "Each kept two-player model (`models/NAME`; what each is: `python -m train.kept_models list`) playing its "
        f"likeliest legal action, {games} games with each moving first on the duels' deals; its win rate with "
        "95% Wilson intervals and a one-sided binomial test against 0.5.",
        "",
        "| model | opponent | moving first | moving second | overall | p (one-sided, > 0.5) |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    seeds: dict[tuple[str, str], list[float]] = {}
    for model in settings.models:
        for opponent, (first, second) in duels(results, 5, model).items():
            total = first + second
            p_value = format_p(binomtest(total, 2 * games, alternative="greater").pvalue)
            lines.append(f"| {model.removeprefix(SEAT_PREFIX)} | {opponent} | {_interval(first, games)} | "
                         f"{_interval(second, games)} | {_interval(total, 2 * games)} | {p_value} |")  # fmt: skip
            seeds.setdefault((recipe_of(model), opponent), []).append(total / (2 * games))
    several = [(recipe, opponent, rates) for (recipe, opponent), rates in seeds.items() if len(rates) > 1]
    if several:
        lines += [
            "",
            "Over the seeds of a recipe (`NAME-seed-N`): the mean of the seeds' overall win rates with a 95% t "
            "interval over the seeds, and their range.",
            "",
            "| recipe | opponent | seeds | mean win rate over the seeds |",
            "| --- | --- | ---: | ---: |",
            *[f"| {recipe} | {opponent} | {len(rates)} | {over_seeds(rates)} |" for recipe, opponent, rates in several],
        ]
    return lines


def _duel_table(agent: str, wins: dict[str, tuple[int, int]], games: int, test: bool = False) -> list[str]:
    """Rows of ``agent``'s win rate against each opponent: (wins moving first, moving second), ``games`` each."""
    lines = [
        f"| opponent | {agent} moving first | moving second | overall |" + (" p (one-sided, > 0.5) |" if test else ""),
        "| --- | ---: | ---: | ---: |" + (" ---: |" if test else ""),
    ]
    for name, (as_first, as_second) in wins.items():
        total = as_first + as_second
        row = f"| {name} | {_interval(as_first, games)} | {_interval(as_second, games)} "
        row += f"| {_interval(total, 2 * games)} |"
        if test:
            row += f" {format_p(binomtest(total, 2 * games, alternative='greater').pvalue)} |"
        lines.append(row)
    return lines


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=arguments.count(1), default=100, help="games per ordered pairing (default 100)")
    parser.add_argument(
        "--duel-games", type=arguments.count(1), default=50, help="Experiment 2 games per seating (default 50)"
    )
    parser.add_argument(
        "--ismcts-games", type=arguments.count(1), default=50, help="Experiment 3 games per seating (default 50)"
    )
    parser.add_argument(
        "--search-games", type=arguments.count(1), default=50, help="Experiment 4 games per seating (default 50)"
    )
    parser.add_argument(
        "--model-games", type=arguments.count(1), default=50, help="Experiment 5 games per seating (default 50)"
    )
    models = kept_models()
    parser.add_argument(
        "--models",
        nargs="+",
        default=list(models),
        choices=models,
        metavar="model:NAME",
        help=f"the kept models Experiment 5 seats (default all: {', '.join(models) or 'none kept'})",
    )
    parser.add_argument(
        "--experiments",
        nargs="+",
        type=arguments.count(1),
        default=list(DEFAULT_EXPERIMENTS),
        choices=EXPERIMENTS,
        help="the experiments run (default 1 2 3 4; 5 seats the kept models)",
    )
    parser.add_argument("--chunk", type=arguments.count(1), default=50, help="games per job (default 50)")


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    if len(set(args.models)) != len(args.models):
        parser.error("--models: a model is named twice")
    experiments = tuple(sorted(set(args.experiments)))
    if 5 in experiments and not args.models:
        parser.error("--experiments 5 seats the kept models, and none is named (or kept)")
    if args.quick:  # a look in a minute: a few games of every experiment
        return Settings(4, 2, 1, 1, args.seed, args.chunk, 1, tuple(args.models), experiments)
    return Settings(args.games, args.duel_games, args.ismcts_games, args.search_games, args.seed, args.chunk,
                    args.model_games, tuple(args.models), experiments)  # fmt: skip


EXPERIMENT = Experiment("algo_experiments", __doc__, options, settings, jobs, play, write, workers=1, job_name="parts")


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
