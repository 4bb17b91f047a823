"""Play a chat model on the deduction games and score it exactly (``python -m train.llm``).

    python -m train.llm --base-url https://api.openai.com/v1 --model gpt-4o-mini --env Mastermind-v0 --games 20
    python -m train.llm --base-url http://127.0.0.1:8000/v1 --model ises --env Mastermind-v0 --all-secrets --workers 4
    python -m train.llm --base-url https://api.openai.com/v1 --model gpt-4o-mini --env clue_v0 --games 12

On Algo, Clue and Generalized Clue (``--env algo_v0``...) the model plays one seat against the reference agents,
as :mod:`train.llm.multiplayer` says. On a single-player game:

Each game is a conversation: the rules as the system message, then the game so far (the text layer's
observation) and the model's reply, in turn, until the game ends (solved, out of queries, or too many replies that
were not a legal new query). Every query is scored against the best from the same information set
(:class:`~deduction_envs.text.TextEnv`). The key is read from ``--api-key-env`` (default ``OPENAI_API_KEY``) and is
never written anywhere. Games run ``--workers`` at a time (the executor seam: ``--executor ray`` too), each kept as
it finishes in ``OUTPUT/.jobs/``: the same command after an interruption plays only the games left. A call that
fails (no connection, a timeout, HTTP 429 or 5xx) is made again up to ``--retries`` times; a game whose call still
fails is reported as an error, not scored, and played again when the command is run again; the command then exits
with status 1. ``--timeout`` bounds each reply as a whole (a reply that trickles in counts from its first byte).

Writes ``OUTPUT/llm.md`` (and ``llm.json``): per game, solved, mean queries (an unsolved game counts the game's
query limit, as the reference agents' evaluation does), invalid replies, information efficiency, errors, beside
exhaustive ISES and random consistent play on the same secrets.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from train.llm.session import scored, strict_json

__all__ = ["GameRecord", "LLMSettings", "evaluate_model", "main", "play_game"]


@dataclass(frozen=True)
class LLMSettings:
    """What an evaluation plays and asks (everything but the key, which stays in the environment)."""

    base_url: str
    model: str
    env_id: str
    sizes: tuple[tuple[str, Any], ...] = ()
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 120.0
    retries: int = 3
    backoff: float = 1.0
    max_invalid: int = 5
    temperature: float | None = None
    max_tokens: int | None = None

    def client(self) -> Any:
        """A :class:`~train.llm.chat.ChatClient` for these settings."""
        from train.llm.chat import ChatClient

        return ChatClient(self.base_url, self.model, self.api_key_env, self.timeout, self.retries, self.backoff,
                          self.temperature, self.max_tokens)  # fmt: skip


@dataclass
class GameRecord:
    """One game's outcome: solved, queries asked, replies that were not a legal new query, the game's
    information efficiency, each query's ``(gained, expected, best)`` bits, calls made again, and the error that
    stopped it (then it is not scored)."""

    game: int
    solved: bool = False
    queries: int = 0
    invalid: int = 0
    efficiency: float = math.nan
    bits: list[tuple[float, float, float]] = field(default_factory=list)
    retried: int = 0
    error: str | None = None


def play_game(game: int, settings: LLMSettings, count: int, all_secrets: bool, seed: int) -> GameRecord:
    """Game ``game`` of ``count`` played by the model, on the secret the reference agents' evaluation plays in its
    episode ``game`` (:func:`agents.evaluation.episode_plan`: secret ``game`` with ``all_secrets``, else a draw
    fixed by ``seed``): one job of :func:`evaluate_model`. The game is one conversation: the rules, then the game
    so far after each reply."""
    from agents.evaluation import episode_plan
    from train.llm.chat import ChatError
    from train.llm.session import GameSession

    client = settings.client()
    reset, _ = episode_plan(count, "all" if all_secrets else "sample", seed)[game]
    play = GameSession(settings.env_id, dict(settings.sizes), reset, settings.max_invalid)
    messages = [{"role": "system", "content": play.prompt}, {"role": "user", "content": play.observation}]
    while not play.done:
        try:
            reply = client.reply(messages)
        except ChatError as error:
            return GameRecord(game, retried=client.retried, error=str(error))
        play.reply(reply)
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": play.observation}]
    outcome = play.outcome()
    return GameRecord(game, outcome["solved"], outcome["queries"], outcome["invalid"], outcome["efficiency"],
                      outcome["bits"], client.retried)  # fmt: skip


def evaluate_model(settings: LLMSettings, games: int | None, seed: int, workers: Any, output: Path,
                   progress: bool | None = True) -> list[GameRecord]:  # fmt: skip
    """Play ``games`` games (None: every secret once) through ``workers`` (a number of local processes or an
    executor), keeping each in ``output/.jobs/llm`` as it ends; returns every game's record."""
    import gymnasium as gym

    from deduction_envs.executor import run_jobs

    rules = gym.make(settings.env_id, **dict(settings.sizes)).unwrapped.rules  # type: ignore[attr-defined]
    count = rules.num_secrets if games is None else games
    done = run_jobs(play_game, list(range(count)), workers, f"{settings.model} on {settings.env_id}", settings,
                    count, games is None, seed, store=Path(output, ".jobs", "llm"), progress=progress,
                    keep=scored)  # fmt: skip
    return list(done.values())


def finished(text: str, output: Path, errors: int) -> int:
    """Print the table and where it was written; the command's exit status: 1 if games were stopped by the
    endpoint's errors (they are played again by the same command), else 0."""
    print(f"{text}\nwritten to {output / 'llm.md'} and {output / 'llm.json'}")
    if errors:
        print(f"{errors} games were stopped by the endpoint's errors: run the same command again to play them",
              file=sys.stderr)  # fmt: skip
    return 1 if errors else 0


def summary(records: list[GameRecord], max_steps: int) -> dict[str, Any]:
    """The scored games' figures: solved share, mean queries (unsolved: ``max_steps``), invalid replies a game,
    mean information efficiency, and the games stopped by an error."""
    scored = [r for r in records if r.error is None]
    queries = np.array([r.queries if r.solved else max_steps for r in scored], dtype=float)
    efficiency = np.array([r.efficiency for r in scored if not math.isnan(r.efficiency)])
    return {
        "games": len(scored),
        "solved": float(np.mean([r.solved for r in scored])) if scored else math.nan,
        "queries": float(queries.mean()) if scored else math.nan,
        "queries_ci95": float(1.96 * queries.std(ddof=1) / math.sqrt(len(queries))) if len(scored) > 1 else 0.0,
        "invalid": float(np.mean([r.invalid for r in scored])) if scored else math.nan,
        "efficiency": float(efficiency.mean()) if efficiency.size else math.nan,
        "errors": len(records) - len(scored),
        "retried": sum(r.retried for r in records),
    }


def write_table(settings: LLMSettings, records: list[GameRecord], references: list[Any], max_steps: int,
                output: Path, command: list[str]) -> str:  # fmt: skip
    """``output/llm.md`` and ``llm.json``: the model's figures beside the reference agents'."""
    figures = summary(records, max_steps)
    lines = [
        f"# {settings.model} on {settings.env_id} {dict(settings.sizes) or ''}".rstrip(),
        "",
        f"Written by `python -m train.llm {' '.join(command)}`.",
        "",
        "| player | games | solved | queries (mean) | invalid replies a game | information efficiency |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        f"| {settings.model} | {figures['games']} | {figures['solved']:.1%} | {figures['queries']:.3f} "
        f"± {figures['queries_ci95']:.3f} | {figures['invalid']:.2f} | {figures['efficiency']:.3f} |",
    ]
    for result in references:
        ci = "" if result.exact else f" ± {result.ci95:.3f}"
        efficiency = "1 (asks the best)" if result.agent == "ISES" else "-"
        lines.append(f"| {result.agent} | {result.episodes} | {result.solve_rate:.1%} | {result.mean_steps:.3f}{ci} "
                     f"| 0 | {efficiency} |")  # fmt: skip
    lines += [
        "",
        f"Queries: an unsolved game counts the limit ({max_steps}). Invalid replies: replies that were not a legal "
        f"new query (never played; {settings.max_invalid} end a game unsolved). Information efficiency: the bits "
        "the model's queries were expected to gain over the bits the best query from the same information set "
        "would have, summed over a game's queries, averaged over games. ± : half a 95% interval.",
    ]
    if figures["errors"]:
        lines.append(f"\n{figures['errors']} games were stopped by the endpoint's errors after retries and are not "
                     "scored (see llm.json).")  # fmt: skip
    lines.append(f"\nCalls made again after an endpoint error: {figures['retried']}.")
    text = "\n".join(lines) + "\n"
    output.mkdir(parents=True, exist_ok=True)
    (output / "llm.md").write_text(text)
    document = {"settings": asdict(settings), "summary": figures, "games": [asdict(r) for r in records]}
    (output / "llm.json").write_text(json.dumps(strict_json(document), indent=1, allow_nan=False))
    return text


def main(argv: list[str] | None = None) -> int:
    """``python -m train.llm``."""
    from agents import ISES, RandomAgent, evaluate
    from train import arguments

    parser = arguments.Parser(prog="python -m train.llm", description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--base-url", required=True, help="the API's base URL, up to /v1")
    parser.add_argument("--model", required=True, help="the model's name at that endpoint")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY", help="the variable holding the key")
    parser.add_argument("--env", default="Mastermind-v0",
                        help="an env id: a single-player one (default Mastermind-v0), or algo_v0, clue_v0, "
                             "generalized_clue_v0 (the model in one seat)")  # fmt: skip
    arguments.add_size_option(parser)
    games = parser.add_mutually_exclusive_group()
    games.add_argument("--games", type=arguments.count(1), default=20, help="games on sampled secrets (default 20)")
    games.add_argument("--all-secrets", action="store_true", help="one game on every secret (exact figures)")
    parser.add_argument("--seed", type=arguments.seed, default=0, help="seed of the sampled secrets (default 0)")
    parser.add_argument("--max-invalid", type=arguments.count(1), default=5, help="bad replies that end a game")
    parser.add_argument("--timeout", type=arguments.number(0, open_low=True), default=120.0, help="seconds a reply")
    parser.add_argument("--retries", type=arguments.count(0), default=3, help="calls made again after an error")
    parser.add_argument("--temperature", type=arguments.number(0), default=None, help="sent if given")
    parser.add_argument("--max-tokens", type=arguments.count(1), default=None, help="sent if given")
    parser.add_argument("--output", type=arguments.output_folder, default=None,
                        help="where llm.md goes (default runs/llm/<model>-<env>)")  # fmt: skip
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    table = parser.add_argument_group("multiplayer games")
    table.add_argument("--opponents", type=arguments.names, default=None, metavar="NAME[,NAME...]",
                       help="roster agents in the other seats, cycled (default: the game's opponent)")  # fmt: skip
    table.add_argument("--references", type=arguments.names, default=None, metavar="NAME[,NAME...]",
                       help="roster agents played in the model's seats, to compare (default: the game's)")  # fmt: skip
    arguments.add_executor_options(parser)
    args = parser.parse_args(argv)
    from deduction_envs import registry

    ids = [game.env_id for game in registry.games()]
    if args.env not in ids:
        parser.error(f"--env is one of {', '.join(ids)}, got {args.env!r}")
    game = registry.game(args.env)
    if game.multiplayer and args.all_secrets:
        parser.error("--all-secrets is for the single-player games; a multiplayer game plays --games deals")
    if not game.multiplayer and (args.opponents or args.references):
        parser.error("--opponents and --references are for the multiplayer games (algo_v0, clue_v0, ...)")
    sizes = tuple(sorted(dict(args.size).items()))
    try:
        settings = LLMSettings(args.base_url, args.model, args.env, sizes, args.api_key_env, args.timeout,
                               args.retries, max_invalid=args.max_invalid, temperature=args.temperature,
                               max_tokens=args.max_tokens)  # fmt: skip
        from train.llm.chat import ChatClient

        ChatClient(settings.base_url, settings.model)  # its checks, before any game
        from train.llm.session import check_session, say_preparing

        say_preparing(args.env)
        opponents, references = args.opponents or (game.opponent,), args.references or game.evaluation
        # The text layer plays it (not Clue on its board), at these sizes, against agents of its roster.
        check_session(args.env, dict(args.size), [*opponents, *references] if game.multiplayer else None)
        env = game.make_env(**dict(args.size))
        if game.multiplayer:
            from train.llm.multiplayer import TableSettings

            table_settings = TableSettings(settings, sizes, tuple(opponents), tuple(references))
    except (ValueError, TypeError) as error:
        parser.error(str(error))
    executor = arguments.executor(args, parser)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in args.model)
    output = Path(args.output or Path("runs", "llm", f"{safe}-{args.env}"))
    command = sys.argv[1:] if argv is None else argv
    if game.multiplayer:
        from train.llm.multiplayer import evaluate_table
        from train.llm.multiplayer import write_table as write_multiplayer

        seats = evaluate_table(table_settings, args.games, args.seed, executor, output, progress=args.progress)
        text = write_multiplayer(table_settings, seats, output, command)
        return finished(text, output, sum(r.error is not None for r in seats))
    count = None if args.all_secrets else args.games
    records = evaluate_model(settings, count, args.seed, executor, output, progress=args.progress)
    max_steps = env.unwrapped.max_steps  # type: ignore[attr-defined]
    plan: dict[str, Any] = {"secrets": "all"} if count is None else {"secrets": "sample", "episodes": count,
                                                                      "seed": args.seed}  # fmt: skip
    references = [evaluate(agent, args.env, dict(args.size), progress=False, **plan)
                  for agent in (ISES(), RandomAgent(consistent=True))]  # fmt: skip
    text = write_table(settings, records, references, max_steps, output, command)
    return finished(text, output, sum(r.error is not None for r in records))
