"""Training on one seat of a multiplayer env, self-play leagues, and the trained policy against the reference agents.

    python -m train --env algo_v0 --opponents epsilon_greedy
    python -m train --env clue_v0 --size players=4 --opponents deduction_sheet --timesteps 500000
    python -m train --env generalized_clue_v0 --opponents scoreboard,random --league

The learner plays one seat of the env's :class:`SingleSeatEnv` (drawn each
episode); each other seat is an opponent drawn from a pool: the reference
agents named by ``--opponents`` (:mod:`agents.roster`) and, with
``--league``, frozen snapshots of the learner. A snapshot joins the pool when
the learner's mean reward over its last ``--league-window`` games reaches
``--league-threshold`` (every game's rewards sum to 0, so 0 is parity);
reference agents stay in the pool.

:func:`evaluate_seat_policy` seats the trained policy with ``players - 1``
copies of one reference agent, rotated through the seats over fixed seeds,
and reports its win rate and mean rank with 95% intervals and the tests
against parity (``python -m train.evaluate --env clue_v0 ...`` does it for a
saved model).
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agents.multiplayer import TOURNAMENT_MAX_ACTIONS, SeatAgent, play_match
from agents.roster import agent_names, seat_agent
from agents.sb3_policy import SB3SeatPolicy
from deduction_envs import registry
from deduction_envs.core.entropy import DEFAULT_ENTROPY_END
from deduction_envs.core.multiplayer import ranks_from_rewards
from deduction_envs.envs.batched_tables import SELF
from deduction_envs.envs.multiplayer_env import MultiplayerAECEnv
from deduction_envs.envs.single_seat import SingleSeatEnv
from deduction_envs.executor import Executor, as_executor, run_jobs

__all__ = [
    "default_sizes",
    "is_multiplayer",
    "multiplayer_envs",
    "OpponentPool",
    "BACKENDS",
    "SeatEvaluation",
    "batched_seat_games",
    "evaluate_seat_policy",
    "SeatEnvs",
    "league_callback",
    "make_seat_envs",
    "raw_env",
    "seat_evaluation",
    "seat_games",
    "write_seat_evaluation",
]


def multiplayer_envs() -> list[str]:
    """The multiplayer envs ``python -m train --env`` accepts (the registry's, by module name)."""
    return [game.env_id for game in registry.games(multiplayer=True)]


def is_multiplayer(env: str) -> bool:
    """Whether ``env`` names a registered multiplayer game."""
    return env in multiplayer_envs()


def default_sizes(env: str) -> dict[str, Any]:
    """The sizes a multiplayer env is built with unless ``--size`` says otherwise: its rules' defaults."""
    return registry.game(env).default_sizes()


#: The file listing a league's snapshots, next to the model.
LEAGUE_FILE = "league.json"


def raw_env(env: str, **kwargs: Any) -> MultiplayerAECEnv:
    """The raw multiplayer env that training uses, by its module name (``clue_v0``), with its keyword
    arguments: the game's env with what only training reads (its registry entry's ``training_env``,
    :mod:`train.training_envs`: observation pointers, and Algo's ``exposure`` and ``playouts`` entries)."""
    if not is_multiplayer(env):
        raise ValueError(f"env must be one of {', '.join(multiplayer_envs())}, got {env!r}")
    return registry.game(env).make_training_env(**kwargs)


def check_opponents(env: str, names: Sequence[str]) -> list[str]:
    """``names`` if each is a reference agent of ``env`` or a mixed table of them (``sheet+entropy+velma``, see
    :func:`table_agents`); else ValueError naming the choices."""
    names = list(names)
    if not names:
        raise ValueError("give at least one opponent")
    for name in names:
        for part in str(name).split("+"):
            seat_agent(env, part)  # raises with the choices
    return names


def panel_tables(env: str, sizes: dict[str, Any] | None = None) -> list[str]:
    """The evaluation panel of ``env`` at ``sizes`` (its env keywords; default its default sizes): the registry's
    ``panel`` (a variant's own where ``sizes`` selects one), a table of each panel agent alone, then every mixed
    table of the panel's agents but random, ``players - 1`` seats of at least two kinds
    (``deduction_sheet+entropy+entropy``: each multiset once, its agents in panel order after the policy's seat).

    Raises:
        ValueError: ``env`` has no panel; bad sizes (the rules' own message).
    """
    from itertools import combinations_with_replacement

    game = registry.game(env)
    if not game.panel:
        raise ValueError(f"{env} has no evaluation panel (the multiplayer games have one)")
    sizes = {**default_sizes(env), **(sizes or {})}
    panel = next((game.variant_panels[k] for k in game.variant_panels if sizes.get(k) is True), game.panel)
    players = raw_env(env, **sizes).rules.players
    mixed = [
        "+".join(table)
        for table in combinations_with_replacement([name for name in panel if name != "random"], players - 1)
        if len(set(table)) > 1
    ]
    return [*panel, *mixed]


def table_agents(env: str, opponent: str, count: int) -> list[Any]:
    """The ``count`` seat agents of ``env`` that sit beside a policy against ``opponent``: copies of one reference
    agent, or a mixed table, ``NAME+NAME+...``, its agents in that order after the policy's seat, cycled."""
    names = str(opponent).split("+")
    return [seat_agent(env, names[i % len(names)]) for i in range(count)]


class OpponentPool:
    """The opponents of one single-seat env: each episode, every other seat gets an entry drawn uniformly.

    Entries are reference-agent names of ``env`` and paths of saved models
    (snapshots of the learner, played by :class:`SB3SeatPolicy` sampling from
    its policy). Each (entry, seat slot) keeps one agent, so the agents of one
    game are distinct objects. Give every env copy its own pool.
    """

    def __init__(
        self,
        env: str,
        names: Sequence[str],
        env_kwargs: dict[str, Any],
        snapshots: Sequence[str] = (),
        algo: str = "maskable_ppo",
    ) -> None:
        self.env, self.env_kwargs, self.algo = env, dict(env_kwargs), algo
        self.entries: list[str] = check_opponents(env, names) + [str(s) for s in snapshots]
        self._agents: dict[tuple[str, int], SeatAgent] = {}
        self._encoder = raw_env(env, **env_kwargs)  # the snapshots' observations; the players

    def add(self, entry: str | Path) -> None:
        """Add a snapshot (a saved model's path) or a reference agent's name."""
        entry = str(entry)
        if entry not in agent_names(self.env) and not Path(entry).exists():
            raise ValueError(f"{entry!r} is neither a reference agent of {self.env} nor a saved model")
        self.entries.append(entry)

    def __call__(self, rng: np.random.Generator) -> list[SeatAgent]:
        picks = rng.integers(len(self.entries), size=self._encoder.rules.players - 1)
        return [self._agent(self.entries[i], slot) for slot, i in enumerate(picks)]

    def _agent(self, entry: str, slot: int) -> SeatAgent:
        key = (entry, slot)
        if key not in self._agents:
            if entry in agent_names(self.env):
                self._agents[key] = seat_agent(self.env, entry)
            else:
                self._agents[key] = SB3SeatPolicy.load(entry, self._encoder, self.algo, deterministic=False)
                self._agents[key].name = f"snapshot {Path(entry).stem}"
        return self._agents[key]


def single_seat_env(
    env: str,
    env_kwargs: dict[str, Any],
    opponents: Sequence[str],
    snapshots: Sequence[str],
    torch_threads: int,
    entropy: bool = False,
    algo: str = "maskable_ppo",
) -> SingleSeatEnv:
    """One learner's env with its own opponent pool (made in each worker of a ``SubprocVecEnv``)."""
    import torch

    torch.set_num_threads(torch_threads)  # snapshots play in this process: keep to the run's threads
    pool = OpponentPool(env, opponents, env_kwargs, snapshots, algo)
    return SingleSeatEnv(raw_env(env, **env_kwargs), pool, entropy=entropy)


@dataclass(frozen=True)
class SeatEnvs:
    """What a multiplayer run trains on, stated once for every vector env :func:`make_seat_envs` builds from it.

    Args:
        env: the multiplayer env (``clue_v0``); ``sizes`` its keyword arguments.
        opponents: the pool (reference agents by their roster names; ``"self"`` is self-play on the batched twin);
            ``snapshots``: a league's saved models, added to the pool.
        n_envs: the copies of the AEC env, or the games of the batched twin.
        seed: seeds the envs (SB3's ``seed`` for the copies, the batch's streams for the twin).
        monitor_dir: where the monitors log every game (``append``: add to their logs, as a resumed run does).
        algo: the algorithm the snapshots were saved with.
        entropy_reward: the scale of the entropy-shaped reward of the learner's bits (None: none), ``gamma`` its
            discount and ``entropy_end`` what it pays at a game's last step (the batched twin only).
        torch_threads: the threads each copy's snapshots use (the AEC env's copies in subprocesses).
    """

    env: str
    sizes: dict[str, Any]
    opponents: Sequence[str]
    n_envs: int
    seed: int
    monitor_dir: Path
    snapshots: Sequence[str] = ()
    append: bool = False
    algo: str = "maskable_ppo"
    entropy_reward: float | None = None
    gamma: float = 1.0
    entropy_end: str = DEFAULT_ENTROPY_END
    torch_threads: int = 1

    @property
    def self_play(self) -> bool:
        """Whether the pool holds the learner itself (``"self"``)."""
        return SELF in self.opponents


def make_seat_envs(spec: SeatEnvs, vec_env: str = "dummy") -> Any:
    """The SB3 vector env of ``spec``, monitored (each game's reward, length, ``rank`` and ``won``):

    * ``"dummy"`` / ``"subproc"``: ``n_envs`` copies of :class:`SingleSeatEnv`, each with its own pool, in this
      process or in subprocesses; the entropy shaping is :class:`EntropyRewardWrapper`'s, outside the monitor;
    * ``"batched"``: ``n_envs`` games of the batched twin (:class:`~train.batched_seats.BatchedSeatsVecEnv`), or
      with ``"self"`` in the pool self-play (:class:`~train.self_play.BatchedSelfPlayVecEnv`, a monitor row a
      learner's seat); the shaping is added after the monitor has logged the game's own reward.
    """
    pool = [*spec.opponents, *spec.snapshots]
    monitor_dir = Path(spec.monitor_dir)
    if vec_env == "batched" and spec.self_play:
        from stable_baselines3.common.monitor import ResultsWriter

        from train.self_play import BatchedSelfPlayVecEnv

        monitor_dir.mkdir(parents=True, exist_ok=True)
        writer = ResultsWriter(str(monitor_dir / "batched"), header={"t_start": time.time(), "env_id": spec.env},
                               extra_keys=("rank", "won"), override_existing=not spec.append)  # fmt: skip
        venv = BatchedSelfPlayVecEnv(spec.env, spec.sizes, pool, spec.n_envs, spec.seed, spec.entropy_reward,
                                     spec.gamma, spec.entropy_end, algo=spec.algo, monitor=writer)  # fmt: skip
        venv.seed(spec.seed)
        return venv
    if vec_env == "batched":
        from train.batched_seats import BatchedSeatsVecEnv
        from train.vec_env import Shaped, monitored

        adapter = BatchedSeatsVecEnv(spec.env, spec.sizes, pool, spec.n_envs, spec.seed, spec.entropy_reward,
                                     spec.gamma, spec.entropy_end, algo=spec.algo)  # fmt: skip
        adapter.seed(spec.seed)
        watched = monitored(adapter, monitor_dir, spec.env, spec.append, keys=("rank", "won"))
        return watched if spec.entropy_reward is None else Shaped(watched, adapter)
    if vec_env not in ("dummy", "subproc"):
        raise ValueError(f"vec_env must be dummy, subproc or batched, got {vec_env!r}")
    if spec.self_play:
        raise ValueError("'self' in the pool (self-play) plays on the batched twin: vec_env='batched'")
    if spec.entropy_end != DEFAULT_ENTROPY_END:
        raise ValueError(f"entropy_end={spec.entropy_end!r} is for the batched twin (the copies pay "
                         f"{DEFAULT_ENTROPY_END!r})")  # fmt: skip
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from deduction_envs.wrappers import EntropyRewardWrapper

    shaped = spec.entropy_reward is not None
    one = partial(single_seat_env, spec.env, dict(spec.sizes), list(spec.opponents), list(spec.snapshots),
                  spec.torch_threads, shaped, spec.algo)  # fmt: skip
    return make_vec_env(
        one,
        n_envs=spec.n_envs,
        seed=spec.seed,
        monitor_dir=str(monitor_dir),
        monitor_kwargs={"override_existing": not spec.append, "info_keywords": ("rank", "won")},
        vec_env_cls=SubprocVecEnv if vec_env == "subproc" else DummyVecEnv,
        wrapper_class=EntropyRewardWrapper if shaped else None,
        wrapper_kwargs={"scale": spec.entropy_reward, "gamma": spec.gamma} if shaped else None,
    )


def read_league(folder: Path) -> list[str]:
    """The snapshots a league run has added so far (none if it has no league file)."""
    path = folder / LEAGUE_FILE
    return json.loads(path.read_text())["snapshots"] if path.exists() else []


def league_callback(envs: Any, folder: Path, threshold: float, window: int, snapshots: Sequence[str] = ()) -> Any:
    """An SB3 callback that adds a snapshot of the learner to every env's pool when its mean reward over its
    last ``window`` games reaches ``threshold``; snapshots go to ``folder/league/`` and are listed in
    ``folder/league.json`` (which a resumed run reads)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class League(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.snapshots = list(snapshots)
            self.recent: deque[float] = deque(maxlen=window)

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "episode" in info:
                    self.recent.append(float(info["episode"]["r"]))
            if len(self.recent) == window and np.mean(self.recent) >= threshold:
                path = folder / "league" / f"snapshot_{len(self.snapshots) + 1}_{self.num_timesteps}"
                path.parent.mkdir(parents=True, exist_ok=True)
                self.model.save(path)
                entry = str(path.with_suffix(".zip"))
                envs.env_method("add_opponent", entry)
                self.snapshots.append(entry)
                (folder / LEAGUE_FILE).write_text(json.dumps({"snapshots": self.snapshots}, indent=1) + "\n")
                self.logger.record("league/snapshots", len(self.snapshots))
                print(
                    f"\nleague: mean reward {np.mean(self.recent):+.3f} over {window} games; "
                    f"snapshot {len(self.snapshots)} joins the pool",
                    flush=True,
                )
                self.recent.clear()  # the learner must now beat the pool with its snapshot in it
            return True

    return League()


# ---------------------------------------------------------------------- evaluation
@dataclass(frozen=True)
class SeatEvaluation:
    """The trained policy against ``players - 1`` copies of one reference agent, seats rotated.

    ``p_win`` tests (one-sided, binomial) that the policy wins more often
    than ``1 / players``; ``p_rank`` (one-sided t-test) that its mean rank
    is better (lower) than ``(players + 1) / 2``, the mean of everyone's ranks,
    that is, better than its opponents' mean rank in the same games.
    """

    opponent: str
    games: int
    players: int
    wins: int
    win_ci: tuple[float, float]
    p_win: float
    mean_rank: float
    rank_ci: tuple[float, float]
    p_rank: float
    truncated: int = 0  #: games stopped at the action cap (nobody's win), in ``games``
    backend: str = "python"  #: "python": the Python agents on the AEC rules; "batched": their compiled twins

    @property
    def win_rate(self) -> float:
        return self.wins / self.games


def _play_part(
    job: tuple[str, int, int], env: str, env_kwargs: dict, model: str, algo: str, seed: int, trust_model: bool = False
) -> list:
    """Games ``[start, start + games)`` against ``opponent``: each game's policy seat and rewards."""
    import torch

    torch.set_num_threads(1)
    opponent, start, games = job
    encoder = raw_env(env, **env_kwargs)
    policy = SB3SeatPolicy.load(model, encoder, algo, trust_model=trust_model)
    others = table_agents(env, opponent, encoder.rules.players - 1)
    return seat_games(encoder.rules, policy, others, games, seed, start)


def seat_games(rules: Any, agent: Any, others: Sequence[Any], games: int, seed: int, start: int = 0) -> list:
    """Games ``[start, start + games)`` of ``agent`` against ``others`` (seat agents), seats rotated, game g
    seeded ``(seed, g)``, a game stopped as nobody's win after
    :data:`~agents.multiplayer.TOURNAMENT_MAX_ACTIONS` actions: each game's (agent's seat, rewards, truncated)."""
    match = play_match(rules, [agent, *others], games, seed=seed, start=start, max_actions=TOURNAMENT_MAX_ACTIONS,
                       truncate=True)  # fmt: skip
    return [
        (lineup.index(0), game.rewards, game.truncated) for game, lineup in zip(match.games, match.lineups, strict=True)
    ]


def seat_evaluation(
    opponent: str, played: Sequence[tuple[int, Any, bool]], players: int, backend: str = "python"
) -> SeatEvaluation:
    """The figures of :func:`seat_games`' games against ``opponent``: wins with a Wilson interval and the
    one-sided binomial test above 1/players, the mean rank with a t interval and the one-sided t-test below
    (players + 1) / 2, and the games stopped unfinished."""
    from scipy.stats import binomtest, ttest_1samp

    from train.stats import interval, t_interval

    ranks = np.array([ranks_from_rewards(rewards)[seat] for seat, rewards, _ in played])
    wins = int((ranks == 1.0).sum())
    parity = (players + 1) / 2
    if np.ptp(ranks) > 0:
        p_rank = float(ttest_1samp(ranks, parity, alternative="less").pvalue)
        rank_ci = t_interval(ranks)
    else:
        rank_ci, p_rank = (float(ranks[0]), float(ranks[0])), float(ranks[0] >= parity)
    return SeatEvaluation(
        opponent=opponent,
        games=len(played),
        players=players,
        wins=wins,
        win_ci=interval(wins, len(played)),
        p_win=float(binomtest(wins, len(played), 1 / players, alternative="greater").pvalue),
        mean_rank=float(ranks.mean()),
        rank_ci=(float(rank_ci[0]), float(rank_ci[1])),
        p_rank=p_rank,
        truncated=sum(truncated for _, _, truncated in played),
        backend=backend,
    )


#: Where :func:`evaluate_seat_policy` plays: the Python agents, the compiled twins, or the twins where they exist.
BACKENDS = ("python", "batched", "auto")


def batched_seat_games(model: str | Path, env: str, env_kwargs: dict[str, Any], opponent: str, games: int,
                       seed: int = 0, algo: str = "maskable_ppo", trust_model: bool = False) -> list:  # fmt: skip
    """:func:`seat_games` on the twin: the saved model's most likely legal action (one forward pass for every game
    it is to act in) against ``opponent``'s compiled agents (a name or a table ``NAME+NAME+...``), seats rotated,
    each game to its end or the action cap, the games dealt by the batch's generator seeded ``seed``."""
    import torch

    from agents.sb3_policy import load_model, masked_probabilities
    from deduction_envs.envs.batched_tables import BatchedMatches

    torch.set_num_threads(1)  # as each worker of the Python route
    sizes = {**env_kwargs, "max_cycles": TOURNAMENT_MAX_ACTIONS}
    matches = BatchedMatches(env, sizes, str(opponent).split("+"), games, seed)
    policy = load_model(model, algo, trust_model=trust_model).policy
    if policy.observation_space.shape != matches.observation_space.shape:
        raise ValueError(f"{model} observes {policy.observation_space.shape}, {env} {env_kwargs} "
                         f"{matches.observation_space.shape}")  # fmt: skip
    seats, rewards, truncated = matches.play(lambda obs, masks: masked_probabilities(policy, obs, masks).argmax(1))
    return [(int(seat), tuple(row), bool(cut)) for seat, row, cut in zip(seats, rewards, truncated, strict=True)]


def evaluate_seat_policy(
    model: str | Path,
    env: str,
    env_kwargs: dict[str, Any],
    opponents: Sequence[str],
    games: int,
    seed: int = 0,
    algo: str = "maskable_ppo",
    workers: int | Executor = 1,
    store: str | Path | None = None,
    trust_model: bool = False,
    backend: str = "python",
) -> list[SeatEvaluation]:
    """The saved model at ``model`` against each of ``opponents`` (reference-agent names of ``env``).

    Each match is ``games`` games (rounded up to a multiple of the players so
    that every seat is played equally), game ``g`` seeded ``(seed, g)``, the
    same games for every model; ``workers`` (local processes or an executor) share them,
    in parts of at most about 100 games. A game not over after
    :data:`~agents.multiplayer.TOURNAMENT_MAX_ACTIONS` actions (a policy that
    never ends it, such as a Clue policy that never accuses) is stopped there as
    nobody's win and counted in ``truncated``. ``store``: a folder keeping each finished
    part, so that the same call after an interruption plays only the rest (the
    caller names it after the model's contents). ``trust_model``: load the model with SB3's own load, which runs
    code the file may hold (:func:`~agents.model_files.load_model`); only for a file you trust.
    ``backend``: ``"python"`` (the above), ``"batched"`` (every opponent's compiled twin, in this process:
    :func:`batched_seat_games`, the same table from other deals) or ``"auto"`` (the twin for each opponent whose
    agents all have one at these sizes, else the Python agents); a row says which it played.

    Raises:
        ValueError: an unknown opponent or backend, or ``backend="batched"`` where the twin cannot play.
    """
    from deduction_envs.envs.batched_tables import batched_refusal
    from train.stats import chunks

    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    players = raw_env(env, **env_kwargs).rules.players
    check_opponents(env, opponents)
    games = -(-games // players) * players
    batched = {}
    for name in opponents if backend != "python" else ():
        why = batched_refusal(env, {**env_kwargs, "max_cycles": TOURNAMENT_MAX_ACTIONS}, str(name).split("+"))
        if why and backend == "batched":
            raise ValueError(f"--backend batched against {name}: {why}")
        if not why:
            batched[name] = seat_evaluation(name, batched_seat_games(model, env, env_kwargs, name, games, seed, algo,
                                                                     trust_model), players, "batched")  # fmt: skip
    workers = as_executor(workers)
    size = max(players, min(-(-games // (4 * workers.workers)), 100) // players * players)
    jobs = [(name, start, n) for name in opponents if name not in batched for start, n in chunks(games, size)]
    parts = run_jobs(_play_part, jobs, workers, "evaluating", env, env_kwargs, str(model), algo, seed,
                     trust_model, store=store) if jobs else {}  # fmt: skip
    return [
        batched[name] if name in batched else
        seat_evaluation(name, [game for job in jobs if job[0] == name for game in parts[job]], players)
        for name in opponents
    ]  # fmt: skip


def write_seat_evaluation(results: Sequence[SeatEvaluation], path: Path | None, title: str) -> str:
    """The evaluation as a markdown table (written to ``path`` unless None); returns the text. It gives the
    wins as a count beside the rate, so that tables of several seeds can be pooled."""
    from train.stats import format_p

    players = results[0].players if results else 0
    lines = [
        f"# {title}",
        "",
        f"The policy in one seat, the opponent in the other {players - 1}, seats rotated, game g "
        f"seeded (seed, g). Parity: win rate {1 / max(players, 1):.3f}, mean rank {(players + 1) / 2:g}.",
        "",
        "| opponent | games | wins | win rate [95% CI] | p (wins > parity) | mean rank [95% CI] | p (rank < parity) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        lines.append(
            f"| {r.opponent} | {r.games} | {r.wins} | {r.win_rate:.3f} [{r.win_ci[0]:.3f}, {r.win_ci[1]:.3f}] "
            f"| {format_p(r.p_win)} | {r.mean_rank:.3f} [{r.rank_ci[0]:.3f}, {r.rank_ci[1]:.3f}] "
            f"| {format_p(r.p_rank)} |"
        )
    if len(results) > 1:
        worst = min(results, key=lambda r: r.win_rate)
        last = max(results, key=lambda r: r.mean_rank)
        lines += ["", f"Worst case over the {len(results)} tables: win rate {worst.win_rate:.3f} "
                  f"[{worst.win_ci[0]:.3f}, {worst.win_ci[1]:.3f}] against {worst.opponent} (parity "
                  f"{1 / players:.3f}); mean rank {last.mean_rank:.3f} [{last.rank_ci[0]:.3f}, {last.rank_ci[1]:.3f}] "
                  f"against {last.opponent} (parity {(players + 1) / 2:g})."]  # fmt: skip
    compiled = [r.opponent for r in results if r.backend == "batched"]
    if compiled:
        lines += ["", f"Against {', '.join(compiled)}: the agents' compiled twins on the batched game (its deals "
                  "drawn by the batch's generator from the seed), not the games seeded (seed, g)."]  # fmt: skip
    stopped = [f"{r.truncated} of the {r.games} against {r.opponent}" for r in results if r.truncated]
    if stopped:
        lines += [
            "",
            f"Games stopped at the cap of {TOURNAMENT_MAX_ACTIONS:,} actions (nobody's win): {', '.join(stopped)}.",
        ]
    text = "\n".join(lines) + "\n"
    if path is not None:
        path.write_text(text)
    return text
