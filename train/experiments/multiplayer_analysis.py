"""Who learns from an action: the actor's bits against the other seats' bits, in Algo, Clue and Generalized Clue.

    python -m train.experiments.multiplayer_analysis            # results/multiplayer_analysis.md and .png files
    python -m train.experiments.multiplayer_analysis --quick    # a look in a minute, to runs/quick/

The ISES paper closes with "maximising one's own information while minimising
the information gain of our opponents" as future work. This measures it for
the reference agents. Each game seats one of each of the game's agents
(:data:`TABLES`), the seats rotated from game to game (:func:`agents.play_match`'s
order), on the one game loop; beside every seat a *witness* keeps what that
seat is entitled to know (the game's knowledge, :func:`registry.new_knowledge`,
fed the same projected events), so the bits are those of sound information
sets whatever the agents themselves reason. After every step each witness's
entropy (bits of its uncertainty about the hidden cards) is read; a seat's gain
at a step is its drop.

What a bit is about differs between the games: in Clue and Generalized Clue a
seat's entropy is of the case file's distribution (what it must name to win);
in Algo it is of the opponents' face-down cards (every deal consistent with its
view, equally likely), which is what its attacks must name. The bits are
comparable within a game, not across games.

* **Private draws** (Algo). The event that ends an Algo turn carries the card
  the next player draws, seen by that player alone. What that card tells it
  (:meth:`~deduction_envs.reasoning.algo_hands.AlgoKnowledge.drawn_bits`) is
  nobody's action: it is taken out of the step's gains and reported apart
  (before issue 64 it counted as the ending turn's leak to the others).

* **Turns.** A turn starts with an action of the mover's own (Clue: suggest or
  accuse; Generalized Clue: ask or guess; Algo: each attack, or stop) and takes
  in the responses it calls for (Clue and Generalized Clue: the card shown, by
  another seat). The turn's kind (Algo: the attack's result, hit or miss) and
  its gains: the actor's bits against the bits of every other seat together.
* **Shows** (Clue, Generalized Clue): what the responder's chosen card gives
  away, to the asker and to the spectators.
* **Phase**: the third of the game's turns a turn falls in (early, middle, late).

Reported per game and agent: bits a turn to the actor and to the others, their
ratio (others' bits per bit the actor gains, pooled over its turns: *leak per
bit gained*) with a 95% bootstrap interval over games, by turn kind and by
phase; and the entropy each agent's seat has left after each of its turns
(the paper's Figure 4, one curve per agent) beside its bits by turn kind (the
paper's Figure 3 style bars). Two agents' leaks are compared by a two-sided
Mann-Whitney test over games of each game's per-agent ratio.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from agents import play_game
from deduction_envs import registry
from deduction_envs.core.multiplayer import Table
from train import arguments
from train.experiments.runner import Experiment, Finished, Run, gather, run_experiment
from train.stats import bootstrap_rows, chunks, format_p

#: Each game's table (its registry entry's ``analysis``): rules keyword arguments and the reference agents seated,
#: one of each (registry names).
TABLES: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    game.env_id: (dict(game.analysis[0]), tuple(game.analysis[1]))
    for game in registry.games(multiplayer=True)
    if game.analysis is not None
}
PHASES = ("early", "middle", "late")
RESPONSES = {"show"}  # event kinds that answer another seat's action (Clue, Generalized Clue)
CONTINUATIONS = {"end"}  # the mover's own closing step of a turn (Clue: ending it without accusing)
#: The turns that ask the table for information, each game's (its registry entry's): the leak ranking and the
#: phases count these.
QUESTIONS = {env: set(registry.game(env).questions) for env in TABLES}


def event_kind(event: Any) -> str | None:
    """An event's kind for the tables: Clue and Generalized Clue events carry one; Algo's are named by the move
    (an attack by its result). ``None`` for steps that are not events of their own (a Generalized Clue move's
    intermediate steps, the deal)."""
    kind = getattr(event, "kind", None)
    if kind is None and hasattr(event, "move"):
        move = event.move
        return f"attack ({'hit' if event.hit else 'miss'})" if move.kind == "attack" else move.kind
    return None if kind in ("deal", "step", None) else kind


def make_seat(game: str, name: str) -> Any:
    agent = registry.game(game).make_agent(name)
    agent.name = name  # the table's name (a registry variant, as entropy_own_shows, keeps its class's)
    return agent


def play_traced(game: str, kwargs: dict[str, Any], names: Sequence[str], seed: int, first: int = 0) -> dict:
    """One game (:func:`agents.play_game`) with witnesses: every step's mover, event kind and each seat's entropy
    after it."""
    rules = registry.game(game).make_rules(**kwargs)
    witnesses = [registry.new_knowledge(rules, seat) for seat in range(rules.players)]
    movers: list[int] = []
    kinds: list[str | None] = []
    entropy: list[list[float]] = []
    drawn: list[list[float]] = []  # after each step: what a private draw in it told each seat (Algo)
    private = np.zeros(rules.players)

    def listener(seat: int) -> Any:
        witness = witnesses[seat]

        def update(event: Any) -> None:
            witness.update(event)
            if getattr(event, "drawn", -1) >= 0:  # only the drawer's projection shows the card
                private[seat] += witness.drawn_bits()

        return update

    def watch(table: Table) -> None:
        if table.actions:  # the last step's event and what every seat knows after it
            kinds.append(event_kind(table.last_event))
        entropy.append([w.entropy() for w in witnesses])
        drawn.append(private.tolist())
        private[:] = 0.0
        if not table.over:
            movers.append(table.mover)

    agents = [make_seat(game, name) for name in names]
    listeners = [listener(seat) for seat in range(rules.players)]
    play_game(rules, agents, seed, first, listeners=listeners, watch=watch)
    return {"names": list(names), "movers": movers, "kinds": kinds, "entropy": np.array(entropy).tolist(),
            "drawn": drawn}  # fmt: skip


def turns_of(trace: dict) -> tuple[list[dict], list[dict]]:
    """A traced game as turns (actor, kind, gains of each seat, phase) and shows (responder, asker's and
    spectators' gains). What a private draw told the drawer is no turn's gain (:func:`draws_of`)."""
    entropy = np.array(trace["entropy"])
    gains = entropy[:-1] - entropy[1:] - np.array(trace["drawn"])[1:]  # gains[i, seat]: what step i taught each seat
    turns: list[dict] = []
    shows: list[dict] = []
    open_turn: dict | None = None
    pending = np.zeros(entropy.shape[1])  # gains of steps before the turn's own event (its intermediate steps)
    for step, (mover, kind) in enumerate(zip(trace["movers"], trace["kinds"], strict=True)):
        if kind in RESPONSES and open_turn is not None:
            open_turn["gains"] += gains[step]
            open_turn["last"] = step
            asker = open_turn["actor"]
            spectators = [s for s in range(gains.shape[1]) if s not in (mover, asker)]
            shows.append(
                {
                    "responder": mover,
                    "asker": float(gains[step, asker]),
                    "spectators": float(gains[step, spectators].sum()),
                }
            )
            continue
        if kind in CONTINUATIONS and open_turn is not None:
            open_turn["gains"] += pending + gains[step]
            open_turn["last"] = step
            pending = np.zeros(entropy.shape[1])
            continue
        pending += gains[step]
        if kind is None:
            continue
        open_turn = {"actor": mover, "kind": kind, "gains": pending.copy(), "last": step}
        pending = np.zeros(entropy.shape[1])
        turns.append(open_turn)
    if turns:
        turns[-1]["gains"] += pending
        turns[-1]["last"] = len(trace["movers"]) - 1
    for i, turn in enumerate(turns):
        turn["phase"] = PHASES[min(2, 3 * i // len(turns))]
    return turns, shows


def draws_of(trace: dict, seat: int) -> list[float]:
    """The bits each of ``seat``'s private draws told it in a traced game (Algo; none in the other games)."""
    return [float(step[seat]) for step in trace["drawn"] if step[seat] != 0]


@dataclass(frozen=True)
class Settings:
    games: tuple[str, ...]
    count: int  #: games per table
    seed: int
    chunk: int


def play_part(job: tuple[str, int, int], settings: Settings) -> list[dict]:
    """Games ``[start, start + n)`` of one game's table, the seats rotated: ``job = (game, start, n)``."""
    game, start, n = job
    kwargs, names = TABLES[game]
    out = []
    for g in range(start, start + n):
        shift = g % len(names)
        lineup = names[shift:] + names[:shift]
        out.append(play_traced(game, kwargs, lineup, seed=(settings.seed * 1_000_003 + g)))
    return out


def per_game(traces: list[dict], questions: set[str]) -> dict[str, list[dict]]:
    """Per agent, per game: its turns' bits (count, actor's, others') under keys ``all``, ``questions`` (its turns
    of the kinds in ``questions``), ``kind:K``, and ``phase:P`` (its questions in that third of the game)."""
    out: dict[str, list[dict]] = {}
    for trace in traces:
        turns, shows = turns_of(trace)
        for seat, name in enumerate(trace["names"]):
            mine = [t for t in turns if t["actor"] == seat]
            keyed: dict[str, list[dict]] = {"all": mine, "questions": [t for t in mine if t["kind"] in questions]}
            for t in mine:
                keyed.setdefault(f"kind:{t['kind']}", []).append(t)
            for phase in PHASES:
                keyed[f"phase:{phase}"] = [t for t in keyed["questions"] if t["phase"] == phase]
            row: dict[str, Any] = {"by": {}}
            for key, chosen in keyed.items():
                actor = sum(float(t["gains"][seat]) for t in chosen)
                others = sum(float(t["gains"].sum() - t["gains"][seat]) for t in chosen)
                row["by"][key] = (len(chosen), actor, others)
            given = [s for s in shows if s["responder"] == seat]
            row["shows"] = (len(given), sum(s["asker"] for s in given), sum(s["spectators"] for s in given))
            draws = draws_of(trace, seat)
            row["draws"] = (len(draws), sum(draws))
            out.setdefault(name, []).append(row)
    return out


def ratio(rows: list[dict], key: str) -> float:
    actor = sum(r["by"].get(key, (0, 0.0, 0.0))[1] for r in rows)
    others = sum(r["by"].get(key, (0, 0.0, 0.0))[2] for r in rows)
    return others / actor if actor > 0 else float("nan")


def table_lines(rows_by_agent: dict[str, list[dict]], keys: list[str], label: str, seed: int) -> list[str]:
    lines = [
        f"| agent | {label} | turns | actor bits a turn | others' bits a turn | leak per bit gained [95% CI] |",
        "|---|---|---:|---:|---:|---|",
    ]
    for name, rows in rows_by_agent.items():
        for key in keys:
            n = sum(r["by"].get(key, (0, 0, 0))[0] for r in rows)
            if not n:
                continue
            actor = sum(r["by"].get(key, (0, 0, 0))[1] for r in rows) / n
            others = sum(r["by"].get(key, (0, 0, 0))[2] for r in rows) / n
            low, high = bootstrap_rows(rows, lambda sample, key=key: ratio(sample, key), seed)
            shown = key.split(":", 1)[-1]
            leak = f"{ratio(rows, key):.2f} [{low:.2f}, {high:.2f}]"
            lines.append(f"| {name} | {shown} | {n} | {actor:.3f} | {others:.3f} | {leak} |")
    return lines


def game_ratios(rows: list[dict], key: str = "questions") -> np.ndarray:
    """Each game's leak per bit gained of one agent (games where its turns taught it nothing left out)."""
    return np.array([r["by"][key][2] / r["by"][key][1] for r in rows if r["by"][key][1] > 0])


def event_table(rows: dict[str, list[dict]], key: str, title: str, columns: list[str]) -> list[str]:
    """A table of one kind of event (``key`` of :func:`per_game`'s rows: its count, then bits summed): per agent
    the count and each figure's mean an event; nothing if no agent had one."""
    if not any(r[key][0] for agent_rows in rows.values() for r in agent_rows):
        return []
    lines = [title, "", "| agent | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    for name, agent_rows in rows.items():
        n = sum(r[key][0] for r in agent_rows)
        if n:
            means = [sum(r[key][i] for r in agent_rows) / n for i in range(1, len(columns))]
            lines.append(f"| {name} | {n} | " + " | ".join(f"{m:.3f}" for m in means) + " |")
    return [*lines, ""]


def report(settings: Settings, traces: dict[str, list[dict]], run: Run) -> str:
    lines = [
        "# Who learns from an action: the actor's bits against the other seats'",
        "",
        f"Written by `{run.command}` in {run.minutes:.0f} minutes {run.where}. "
        "The design is in the docstring of `train/experiments/multiplayer_analysis.py`.",
        "",
        "Bits: drops of each seat's entropy of the hidden cards, read from a witness that knows what the seat "
        "is entitled to know. Actor bits a turn: what its own turns taught it; others' bits a turn: what they "
        "taught every other seat together. Leak per bit gained: others' bits over actor's bits, pooled over the "
        "agent's turns, with a 95% bootstrap interval over games. What a bit is about: in Clue and Generalized "
        "Clue the case file's distribution, in Algo the opponents' face-down cards (every deal consistent with the "
        "seat's view); compare bits within a game, not across. An Algo player's own draw is counted apart, not as "
        "the ending turn's leak.",
        "",
    ]
    for game in settings.games:
        kwargs, _ = TABLES[game]
        games = traces.get(game, [])
        if not games:
            continue
        rows = per_game(games, QUESTIONS[game])
        sizes = ", ".join(f"{k}={v}" for k, v in kwargs.items())
        lines += [
            f"## {game} ({sizes}): {len(games)} games, one of each agent, seats rotated",
            "",
            f"![{game}: entropy left by own turn, and bits by turn kind](multiplayer_analysis_{game}.png)",
            "",
        ]
        kinds = sorted({k for r in rows.values() for g in r for k in g["by"] if k.startswith("kind:")})
        lines += [
            f"**By turn kind** (questions: {', '.join(sorted(QUESTIONS[game]))}; all: every turn, the last ones "
            "that reveal a hand or the case file included)",
            "",
            *table_lines(rows, ["questions", "all", *kinds], "kind", settings.seed),
            "",
            "**Questions by phase** (thirds of the game's turns)",
            "",
            *table_lines(rows, [f"phase:{p}" for p in PHASES], "phase", settings.seed),
            "",
        ]
        lines += event_table(rows, "shows", "**Cards shown**: what a responder's chosen card gave away, bits a show",
                             ["shows", "to the asker", "to the spectators"])  # fmt: skip
        lines += event_table(
            rows,
            "draws",
            "**Private draws**: what the card a player drew told it about the others' face-down cards, counted "
            "apart from every turn (the event that ends a turn carries the next player's draw)",
            ["draws", "bits a draw"],
        )
        leaks = {name: ratio(agent_rows, "questions") for name, agent_rows in rows.items()}
        order = sorted((name for name in leaks if np.isfinite(leaks[name])), key=leaks.get)
        ranked = ", ".join(f"{name} ({leaks[name]:.2f})" for name in order)
        lines.append(f"Least leak per bit gained by its questions first: {ranked}.")
        for a, b in itertools.pairwise(order):
            x, y = game_ratios(rows[a]), game_ratios(rows[b])
            if x.size > 1 and y.size > 1:
                p = stats.mannwhitneyu(x, y, alternative="two-sided").pvalue
                lines.append(
                    f"- {a} against {b}: per-game leak medians {np.median(x):.2f} and {np.median(y):.2f}, "
                    f"Mann-Whitney p = {format_p(p)}{' (significant at 5%)' if p < 0.05 else ' (not significant)'}."
                )
        lines.append("")
    return "\n".join(lines) + "\n"


def plot(game: str, traces: list[dict], path: Path) -> None:
    """Left: each agent's entropy left after each of its turns (mean, with the interquartile band; a game that
    ended keeps its last value); right: the bits a question (turn of a kind in :data:`QUESTIONS`) taught its actor
    and every other seat together."""
    import matplotlib

    matplotlib.use("Agg")
    from train.plotting import panel_grid, save

    figure, axes = panel_grid(2, width=6.0, height=4.0)
    left, right = np.ravel(axes)[:2]
    names = TABLES[game][1]
    for k, name in enumerate(names):
        curves = []
        for trace in traces:
            seat = trace["names"].index(name)
            entropy = np.array(trace["entropy"])
            after = [entropy[t["last"] + 1, seat] for t in turns_of(trace)[0] if t["actor"] == seat]
            curves.append([entropy[0, seat], *after])
        length = max(len(c) for c in curves)
        padded = np.array([c + [c[-1]] * (length - len(c)) for c in curves])
        x = np.arange(length)
        left.plot(x, padded.mean(axis=0), color=f"C{k}", label=name)
        left.fill_between(x, *np.percentile(padded, [25, 75], axis=0), color=f"C{k}", alpha=0.15)
    left.set_xlabel("own turns taken")
    left.set_ylabel("entropy of the hidden cards left (bits)")
    left.legend(fontsize=7)
    rows = per_game(traces, QUESTIONS[game])
    kinds = [f"kind:{kind}" for kind in sorted(QUESTIONS[game])]
    width = 0.8 / max(1, len(names))
    for k, name in enumerate(names):
        agent_rows = rows[name]
        actor, others = [], []
        for key in kinds:
            n = sum(r["by"].get(key, (0, 0, 0))[0] for r in agent_rows)
            actor.append(sum(r["by"].get(key, (0, 0, 0))[1] for r in agent_rows) / n if n else 0)
            others.append(sum(r["by"].get(key, (0, 0, 0))[2] for r in agent_rows) / n if n else 0)
        x = np.arange(len(kinds)) + (k - (len(names) - 1) / 2) * width
        right.bar(x, actor, width=width, color=f"C{k}", label=f"{name}: actor")
        right.bar(x, [-o for o in others], width=width, color=f"C{k}", alpha=0.45, label=f"{name}: others")
    right.axhline(0, color="k", linewidth=0.8)
    right.set_xticks(range(len(kinds)), [key.split(":", 1)[1] for key in kinds], fontsize=7)
    right.set_ylabel("bits a question: actor (up), every other seat (down)")
    right.legend(fontsize=6, ncol=2)
    figure.suptitle(game)
    save(figure, path)


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games", nargs="+", default=list(TABLES), choices=list(TABLES), help="the games (default all)"
    )
    parser.add_argument("--count", type=arguments.count(1), default=200, help="games per table (default 200)")
    parser.add_argument("--chunk", type=arguments.count(1), default=20, help="games per job (default 20)")


def settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    if args.quick:
        return Settings(tuple(args.games), 4, args.seed, 4)
    return Settings(tuple(args.games), args.count, args.seed, args.chunk)


def jobs(settings: Settings) -> list[tuple[str, int, int]]:
    return [(game, start, n) for game in settings.games for start, n in chunks(settings.count, settings.chunk)]


def write(settings: Settings, parts: dict[tuple, list[dict]], run: Run) -> str:
    traces = gather(parts)
    traces = {key[0]: value for key, value in traces.items()}
    text = report(settings, traces, run)
    (run.output / "multiplayer_analysis.md").write_text(text)
    for game, games in traces.items():
        plot(game, games, run.output / f"multiplayer_analysis_{game}.png")
    return text


EXPERIMENT = Experiment("multiplayer_analysis", __doc__, options, settings, jobs, play_part, write, job_name="jobs")


def main(argv: list[str] | None = None) -> Finished:
    return run_experiment(EXPERIMENT, argv)


if __name__ == "__main__":
    main()
