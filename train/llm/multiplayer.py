"""A chat model in one seat of Algo, Clue or Generalized Clue, the reference agents in the others
(``python -m train.llm --env clue_v0``).

Game ``g`` is dealt from ``(seed, g)``; the model sits in seat ``g mod players`` (the seats rotated, so that a
multiple of the players gives each seat alike) and every other seat is an opponent agent of the roster
(``--opponents``, cycled over the other seats). The same games are played again with each reference agent
(``--references``) in the model's seat: the same deal, seat and opponents' seeds, so that game ``g`` of the model
and of a reference is a paired comparison. Every seat of the model's or reference's is scored in bits
(:class:`~deduction_envs.text.TextAECEnv`'s ``score``).

Each time the model must act it is asked afresh: the rules as the system message and what its seat has seen so
far (the whole game, as the text layer tells it, and what was wrong with its last reply if it was not a legal
move) as the user message; its earlier replies are not sent back (a game of Clue asks a seat a hundred times). A
game ended by the model's replies (``--max-invalid`` of them) is scored as last place (the game's lowest reward),
not as the env's truncation (reward 0), so that bad replies never pay.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["SeatRecord", "TableSettings", "evaluate_table", "play_seat", "write_table"]

#: The player name of the model in records (the reference agents go by their roster names).
MODEL = "model"


@dataclass(frozen=True)
class TableSettings:
    """What a multiplayer evaluation plays: the chat endpoint (as :class:`~train.llm.evaluate.LLMSettings`), the
    env's keywords, the opponents' and the references' roster names."""

    chat: Any
    sizes: tuple[tuple[str, Any], ...] = ()
    opponents: tuple[str, ...] = ()
    references: tuple[str, ...] = ()


@dataclass
class SeatRecord:
    """One game of one player (the model or a reference agent) in its seat: reward, win, whether the game was
    ended by its replies, invalid replies, information efficiency and each question's ``(gained, expected, best)``
    bits, calls made again, the error that stopped it (then it is not scored)."""

    game: int
    player: str
    seat: int
    reward: float = math.nan
    won: bool = False
    forfeit: bool = False
    truncated: bool = False
    invalid: int = 0
    efficiency: float = math.nan
    bits: list[tuple[float, float, float]] = field(default_factory=list)
    retried: int = 0
    error: str | None = None


def play_seat(job: tuple[int, str], settings: TableSettings, seed: int) -> SeatRecord:
    """Game ``job[0]`` with ``job[1]`` (:data:`MODEL` or a reference agent's roster name) in the rotated seat
    (:class:`~train.llm.session.SeatSession`): one job of :func:`evaluate_table`. Each time the model must act it
    is asked afresh: the rules, then what its seat has seen."""
    from train.llm.chat import ChatError
    from train.llm.session import SeatSession

    game, player = job
    chat = settings.chat
    play = SeatSession(chat.env_id, dict(settings.sizes), settings.opponents, game, seed,
                       None if player == MODEL else player, chat.max_invalid)  # fmt: skip
    client = chat.client() if player == MODEL else None
    while not play.done:
        assert client is not None
        try:
            reply = client.reply([{"role": "system", "content": play.prompt},
                                  {"role": "user", "content": play.observation}])  # fmt: skip
        except ChatError as error:
            return SeatRecord(game, player, play.seat, retried=client.retried, error=str(error))
        play.reply(reply)
    return SeatRecord(game, player, **play.outcome(), retried=0 if client is None else client.retried)


def evaluate_table(settings: TableSettings, games: int, seed: int, workers: Any, output: Path,
                   progress: bool | None = True) -> list[SeatRecord]:  # fmt: skip
    """``games`` games of the model and as many of each reference agent in the same seats and deals, through
    ``workers`` (a number of local processes or an executor), each kept in ``output/.jobs/llm`` as it ends."""
    from deduction_envs.executor import run_jobs
    from train.llm.session import scored

    jobs = [(g, player) for player in (MODEL, *settings.references) for g in range(games)]
    done = run_jobs(play_seat, jobs, workers, f"{settings.chat.model} on {settings.chat.env_id}", settings, seed,
                    store=Path(output, ".jobs", "llm"), progress=progress, keep=scored)  # fmt: skip
    return list(done.values())


def _row(name: str, records: list[SeatRecord], model: dict[int, SeatRecord]) -> str:
    from scipy import stats

    from train.stats import format_p, interval, t_interval

    scored = [r for r in records if r.error is None]
    if not scored:
        return f"| {name} | 0 | - | - | - | - | - | - |"
    rewards = np.array([r.reward for r in scored])
    wins = sum(r.won for r in scored)
    low, high = interval(wins, len(scored))
    bottom, top = t_interval(rewards)
    half = (top - bottom) / 2 if len(scored) > 1 else 0.0
    pairs = [(r.reward, model[r.game].reward) for r in scored if r.game in model and r.player != MODEL]
    versus = "-"
    if pairs:
        ours, theirs = np.array(pairs).T
        difference = float((ours - theirs).mean())
        p = stats.ttest_rel(ours, theirs).pvalue if len(pairs) > 1 and (ours - theirs).std() > 0 else 1.0
        versus = f"{difference:+.3f} (p {format_p(float(p))})"
    efficiency = [r.efficiency for r in scored if not math.isnan(r.efficiency)]
    shown = f"{np.mean(efficiency):.3f}" if efficiency else "-"
    return (f"| {name} | {len(scored)} | {wins / len(scored):.1%} [{low:.1%}, {high:.1%}] | {rewards.mean():+.3f} ± "
            f"{half:.3f} | {versus} | {np.mean([r.invalid for r in scored]):.2f} | {sum(r.forfeit for r in scored)} "
            f"| {shown} |")  # fmt: skip


def write_table(settings: TableSettings, records: list[SeatRecord], output: Path, command: list[str]) -> str:
    """``output/llm.md`` and ``llm.json``: the model's figures in its seats beside each reference agent's in the
    same seats and deals."""
    import json

    from deduction_envs import registry

    chat = settings.chat
    rules = registry.game(chat.env_id).make_rules(**dict(settings.sizes))
    model = {r.game: r for r in records if r.player == MODEL and r.error is None}
    lines = [
        f"# {chat.model} in one seat of {chat.env_id} {dict(settings.sizes) or ''}".rstrip(),
        "",
        f"Written by `python -m train.llm {' '.join(command)}`.",
        "",
        f"{rules.players} players; the model's seat rotates (game g: seat g mod {rules.players}); the other seats: "
        f"{', '.join(settings.opponents)} (in turn order after it, cycled). Each reference agent played the same "
        "games in the model's seat (same deals, seats and opponents' seeds).",
        "",
        "| in the seat | games | won (95% Wilson) | reward (mean ± 95% t) | reward - model's, same games (paired t) "
        "| invalid replies a game | forfeits | information efficiency |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in (MODEL, *settings.references):
        label = f"{chat.model} (the model)" if name == MODEL else name
        lines.append(_row(label, [r for r in records if r.player == name], model))
    errors = sum(r.error is not None for r in records)
    scale = " ".join((rules.rewards.__doc__ or "").split()).rstrip(".")  # the rules say what they pay
    truncated = sum(r.truncated for r in records)
    lines += [
        "",
        f"Reward: the env's ({scale}); a game the model's replies ended ({chat.max_invalid} replies that were not a "
        "legal move: a forfeit) counts the lowest reward. Information efficiency: over each seat-game's questions "
        "(its expected bits over the best question's, from the seat's knowledge), averaged over the games where it "
        "asked one.",
    ]
    if truncated:
        lines.append(f"\n{truncated} games were stopped at the env's max_cycles (nobody won, rewards 0).")
    if errors:
        lines.append(f"\n{errors} games were stopped by the endpoint's errors after retries and are not scored.")
    lines.append(f"\nCalls made again after an endpoint error: {sum(r.retried for r in records)}.")
    text = "\n".join(lines) + "\n"
    output.mkdir(parents=True, exist_ok=True)
    (output / "llm.md").write_text(text)
    from train.llm.session import strict_json

    document = {"settings": {**asdict(settings), "chat": asdict(chat)}, "games": [asdict(r) for r in records]}
    (output / "llm.json").write_text(json.dumps(strict_json(document), indent=1, allow_nan=False))
    return text
