"""Training one seat of many batched multiplayer games at once (issue 61): the batched twin as an SB3 ``VecEnv``.

    python -m train --env clue_v0 --vec-env batched --opponents deduction_sheet,self --timesteps 1000000

:class:`BatchedSeatsVecEnv` is the batched counterpart of ``n_envs`` copies of
:class:`~deduction_envs.envs.single_seat.SingleSeatEnv`: game ``i`` of a batched twin (Clue's
:class:`~deduction_envs.envs.clue_batched.BatchedClueSeats`) is env ``i``, in which the learner plays one seat
(drawn each game) and every other seat is an opponent drawn per game from a pool:

* the reference agents' compiled twins (:mod:`agents.clue_batched`: ``random``, ``deduction_sheet``;
  :mod:`agents.generalized_clue_batched`: ``random``, ``scoreboard``; :mod:`agents.algo_batched`: ``random``,
  ``epsilon_greedy``);
* snapshots of the learner (saved models; a league adds them with ``env_method("add_opponent", path)``, as it
  does to the single-seat envs), each in one forward pass for its games.

A step plays the learner's action in every game, then the opponents until the learner must decide again or the
game ends; a game that ends is dealt anew in the same step (SB3's convention: its last observation, the
learner's, is in ``infos[i]["terminal_observation"]``, with ``rank``, ``won`` and ``seat`` as the single-seat
env's info carries them for the monitor). Only the learner's decisions are steps of the run (SB3 keeps one
trajectory an env); self-play, where the learner holds several seats of a game and learns from each, is
:mod:`train.self_play`'s subclass (the pool's ``self``).

The games are those of the AEC env (tested observation by observation); their random streams are not the
single-seat envs' (the deals and seats come from the batch's generators, seeded by ``seed``), so a run here and
a run on copies of the AEC env see different games. The trained policy is evaluated on the AEC env against the
Python reference agents (:func:`train.multiplayer.evaluate_seat_policy`), as every multiplayer run is.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from agents.sb3_policy import masked_probabilities, sample_actions
from deduction_envs import registry
from deduction_envs.core.multiplayer import batched_ranks
from deduction_envs.core.rules import check_int
from deduction_envs.wrappers.aec_entropy_reward import DEFAULT_ENTROPY_END, ENTROPY_ENDS
from deduction_envs.wrappers.entropy_reward import EntropyRewardWrapper, entropy_shaping
from train.vec_env import Shaped, monitored

__all__ = [
    "ENTROPY_ENDS",
    "SELF",
    "BatchedSeatsVecEnv",
    "batched_refusal",
    "has_entropy",
    "has_probabilities",
    "make_batched_seat_envs",
]

#: The opponent entry that is the learner's own current policy.
SELF = "self"


def _twin(env: str) -> tuple[Any, Any, Any]:
    """The game's batched games' factory (``(rules, n, seed)``), seats class and compiled agents' factory
    (ValueError if it has none)."""
    game = registry.game(env)
    if game.batched_seats is None:
        twins = [g.env_id for g in registry.games(multiplayer=True) if g.batched_seats is not None]
        raise ValueError(f"{env} has no batched twin yet (batched: {', '.join(twins)})")
    make_games, seats_class = (registry.load(name) for name in game.batched_seats)
    return make_games, seats_class, registry.load(game.batched_agents)


def has_probabilities(env: str) -> bool:
    """Whether ``env``'s batched twin writes the probability pieces (False if it has no twin)."""
    try:
        return bool(_twin(env)[1].has_probabilities)
    except ValueError:
        return False


def has_entropy(env: str) -> bool:
    """Whether ``env``'s batched twin gives each seat's entropy in bits (False if it has no twin)."""
    try:
        return bool(_twin(env)[1].has_entropy)
    except ValueError:
        return False


def _seat_options(seats_class: Any, sizes: dict[str, Any]) -> dict[str, Any]:
    """The seats' keywords from the env's: ``max_cycles`` if given (else the env's default), and
    ``probabilities`` (the env's default, True) where the twin has them."""
    options = {"max_cycles": sizes["max_cycles"]} if "max_cycles" in sizes else {}
    if seats_class.has_probabilities:
        options["probabilities"] = bool(sizes.get("probabilities", True))
    return options


def batched_refusal(env: str, sizes: dict[str, Any], opponents: Sequence[str]) -> str | None:
    """Why ``env`` at ``sizes`` (the env's keyword arguments) against ``opponents`` cannot train on the batched
    twin, or None if it can."""
    try:
        make_games, seats_class, agent = _twin(env)
    except ValueError as error:
        return str(error)
    options = dict(sizes)
    if options.pop("probabilities", True) and not seats_class.has_probabilities:
        return "the batched twin observes without the probability pieces: give --size probabilities=false"
    try:
        rules = registry.game(env).make_rules(**{k: v for k, v in options.items() if k != "max_cycles"})
        seats_class(make_games(rules, 1), **_seat_options(seats_class, sizes))
    except (TypeError, ValueError) as error:
        return f"{env} {sizes}: {error}"
    for name in opponents:
        if name == SELF or Path(name).suffix == ".zip":
            continue
        try:
            agent(name)
        except ValueError as error:
            return str(error)
    return None


class BatchedSeatsVecEnv(VecEnv):
    """The learner's seat of ``n_envs`` batched games of ``env``; see the module docstring.

    Args:
        env: a multiplayer env with a batched twin (``clue_v0``).
        sizes: the env's keyword arguments (its rules' sizes, ``probabilities=False``, ``max_cycles``).
        opponents: the pool's entries: compiled reference agents by name, saved models' paths (and ``"self"`` in
            :class:`~train.self_play.BatchedSelfPlayVecEnv`).
        n_envs: the number of games.
        seed: seeds the deals, the learner's seats, the opponents' draws and their random decisions.
        algo: the algorithm the snapshots were saved with.
        entropy_reward: the scale of the entropy-shaped reward (None: none), with ``gamma`` its discount.
        entropy_end: what that reward pays at the last step of a game (:data:`ENTROPY_ENDS`).

    Raises:
        ValueError: the game has no batched twin at these sizes, or an opponent has no compiled twin.
    """

    #: Whether ``"self"`` may be in the pool (the learner on several seats: :mod:`train.self_play`).
    learns_self = False

    def __init__(
        self,
        env: str,
        sizes: dict[str, Any],
        opponents: Sequence[str],
        n_envs: int,
        seed: int = 0,
        algo: str = "maskable_ppo",
        entropy_reward: float | None = None,
        gamma: float = 1.0,
        entropy_end: str = DEFAULT_ENTROPY_END,
    ) -> None:
        opponents = list(opponents)
        if not opponents:
            raise ValueError("give at least one opponent")
        why = batched_refusal(env, sizes, opponents)
        if why:
            raise ValueError(why)
        if algo != "maskable_ppo":
            raise ValueError(f"the batched seats train with maskable_ppo (their snapshots mask actions), got {algo}")
        make_games, seats_class, self._agent = _twin(env)
        if entropy_reward is not None:
            if not seats_class.has_entropy:
                raise ValueError(f"{env}'s batched twin has no entropy in bits yet: the entropy-shaped reward is not "
                                 "available on it")  # fmt: skip
            EntropyRewardWrapper.check(entropy_reward, gamma)
        if entropy_end not in ENTROPY_ENDS:
            raise ValueError(f"entropy_end must be one of {', '.join(ENTROPY_ENDS)}, got {entropy_end!r}")
        self.entropy_reward, self.gamma, self.entropy_end = entropy_reward, gamma, entropy_end
        options = {k: v for k, v in sizes.items() if k not in ("probabilities", "max_cycles")}
        self.rules = registry.game(env).make_rules(**options)
        n = check_int("n_envs", n_envs, low=1)
        self.env_name, self.algo = env, algo
        self.seats = seats_class(make_games(self.rules, n, seed), **_seat_options(seats_class, sizes))
        aec = registry.game(env).make_raw_env(**sizes)  # the observation space of the env users get
        space = aec.observation_space(aec.possible_agents[0])["observation"]
        self.render_mode = None
        super().__init__(n, space, aec.action_space(aec.possible_agents[0]))
        self.entries: list[str] = []
        self._players: dict[str, Any] = {}  # entry -> compiled agent, or SB3 policy (None: self, the learner)
        for entry in opponents:
            self.add_opponent(entry)
        self.rng = np.random.default_rng(seed)
        self.learner = np.zeros(n, dtype=np.int64)
        #: The pool entry of every seat of every game (-1: the learner's seat).
        self.seated = np.full((n, self.rules.players), -1, dtype=np.int64)
        self._actions = np.zeros(n, dtype=np.int64)
        self._rewards = np.zeros((n, self.rules.players))
        self._decided = np.zeros(n, dtype=np.bool_)  # whether the learner has decided in the game yet
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._started = False
        self._entropy = np.zeros(n)
        #: entropy_end="own": the games whose learner's move is not yet answered, and its entropy once it is
        self._pending, self._answered = np.zeros(n, dtype=bool), np.zeros(n)
        #: The entropy shaping of the last step (zeros without ``entropy_reward``): the learner's bits before
        #: its decision minus ``gamma`` times after the opponents' replies (0 after a game's end), times the scale.
        self.shaping = np.zeros(n)

    # ------------------------------------------------------------------ the pool
    def add_opponent(self, entry: str | Path) -> None:
        """Add a pool entry: a compiled reference agent's name, or a saved model's path (a snapshot); ``"self"``
        where the learner learns from several seats (:class:`~train.self_play.BatchedSelfPlayVecEnv`).

        Raises:
            ValueError: a name without a compiled twin, or a path that is not a saved model of this game.
        """
        entry = str(entry)
        if entry == SELF:
            if not self.learns_self:
                raise ValueError("'self' in the pool is self-play: train.self_play.BatchedSelfPlayVecEnv "
                                 "(python -m train --vec-env batched --opponents self,...)")  # fmt: skip
            self._players[entry] = None
        elif Path(entry).suffix == ".zip" or Path(entry).exists():
            from agents.sb3_policy import load_model

            model = load_model(entry, self.algo)
            if model.observation_space.shape != self.observation_space.shape:
                raise ValueError(f"{entry} observes {model.observation_space.shape}, this game "
                                 f"{self.observation_space.shape}")  # fmt: skip
            self._players[entry] = model.policy
        else:
            self._players[entry] = self._agent(entry)
        self.entries.append(entry)

    # ------------------------------------------------------------------ SB3's VecEnv
    def reset(self) -> np.ndarray:
        if self._seeds[0] is not None:  # seed(s) was called: the run's streams start again from it
            self.rng = np.random.default_rng(self._seeds[0])
            self.seats.games.rng = np.random.default_rng(self._seeds[0])
        self._reset_seeds()
        self._reset_options()
        self._start(np.arange(self.num_envs))
        self._started = True
        self.reset_infos = [{} for _ in range(self.num_envs)]
        if self.entropy_reward is not None:
            self._entropy = self.seats.entropy(np.ones(self.num_envs, dtype=bool), self.learner)
        return self.seats.observe(self.learner)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if not self._started:
            raise RuntimeError("reset() deals the games first")
        seats, n = self.seats, self.num_envs
        self._rewards[:] = 0.0
        self._terminated[:], self._truncated[:] = False, False
        self._play(self._actions, ~seats.games.over)
        illegal = seats.illegal.copy()
        owned = self.entropy_end == "own" and self.entropy_reward is not None
        if owned:  # the learner's entropy when its move is answered, taken in _advance
            self._pending = ~(self._terminated | self._truncated)
            self._answered = np.array(self._entropy)
        self._decided[:] = True
        self._advance()
        dones = self._terminated | self._truncated
        if self.entropy_reward is not None:  # EntropyRewardWrapper's shaping, for every game at once
            after = seats.entropy(np.ones(n, dtype=bool), self.learner)
            if owned:  # nothing for the bits other seats' moves revealed, nor at the end
                self.shaping = np.where(dones, 0.0, self.entropy_reward * (self._entropy - self._answered))
            elif self.entropy_end == "potential":
                self.shaping = entropy_shaping(self._entropy, after, scale=self.entropy_reward, gamma=self.gamma,
                                               terminal=self._terminated)  # fmt: skip
            else:  # "none": a game's last step pays nothing for the bits still unknown, nor for what it revealed
                kept = np.where(dones, self._entropy, after)
                self.shaping = entropy_shaping(self._entropy, kept, scale=self.entropy_reward, gamma=self.gamma)
        rows = np.arange(n)
        rewards = self._rewards[rows, self.learner].astype(np.float32)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        ended = np.flatnonzero(dones)
        if ended.size:
            final = seats.observe(self.learner, dones)
            ranks = batched_ranks(self._rewards[ended])[np.arange(ended.size), self.learner[ended]]
            for k, g in enumerate(ended):
                infos[g] = {
                    "terminal_observation": final[g],
                    "TimeLimit.truncated": bool(self._truncated[g] and not self._terminated[g]),
                    "seat": int(self.learner[g]),
                    "rank": float(ranks[k]),
                    "won": float(ranks[k] == 1.0),
                }
                if illegal[g]:
                    infos[g]["illegal_action"] = int(self._actions[g])
            self._start(ended)
        if self.entropy_reward is not None:  # the bits at the learner's next decision: the new games' anew
            self._entropy = after
            if ended.size:
                self._entropy[ended] = seats.entropy(dones, self.learner)[ended]
        return seats.observe(self.learner), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """Every game's legal actions for the learner, bool ``(num_envs, actions)`` (it is to act in each)."""
        return self.seats.games.legal_masks().copy()

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"the batched games share their attributes; {attr_name!r} cannot be set per game")

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        if method_name == "add_opponent":  # one pool for every game: added once
            self.add_opponent(*method_args, **method_kwargs)
            return [None] * len(rows)
        raise AttributeError(f"the batched seats have no per-game method {method_name!r} "
                             "(action_masks, add_opponent)")  # fmt: skip

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    # ------------------------------------------------------------------ the games
    def _start(self, games: np.ndarray) -> None:
        """Deal the games ``games`` anew, draw the learner's seat and the opponents, and play up to the learner's
        first decision (dealing again a game that ends before it, as the single-seat env does)."""
        while games.size:
            self.seats.reset_games(games)
            self._draw_seats(games)
            self._decided[games] = False
            self._advance()
            over = self.seats.games.over
            games = games[over[games]]  # over before the learner decided

    def _draw_seats(self, games: np.ndarray) -> None:
        """Seat the learner and the opponents of the games ``games`` (indices), just dealt."""
        players = self.rules.players
        self.learner[games] = self.rng.integers(players, size=games.size)
        self.seated[games] = self.rng.integers(len(self.entries), size=(games.size, players))
        self.seated[games, self.learner[games]] = -1

    def _advance(self) -> None:
        """Play the opponents in every game until a learner's seat (-1 in :attr:`seated`) is to act or the game
        is over."""
        games, rows = self.seats.games, np.arange(self.num_envs)
        while True:
            movers = games.mover
            entry = self.seated[rows, movers]
            waiting = ~games.over & (entry >= 0)
            if self._pending.any():  # entropy_end="own" only: the learner's move answered?
                self._take_answered(~waiting | (games.turn != self.learner))
            if not waiting.any():
                return
            actions = np.zeros(self.num_envs, dtype=np.int64)
            for e in np.unique(entry[waiting]):
                theirs = waiting & (entry == e)
                player = self._players[self.entries[e]]
                if not hasattr(player, "act"):  # a snapshot's policy
                    observations = self.seats.observe(movers, theirs)[theirs]
                    chances = masked_probabilities(player, observations, games.legal_masks()[theirs])
                    actions[theirs] = sample_actions(chances, self.rng.random(len(chances)))
                else:
                    uniforms = self.rng.random((self.num_envs, player.draws(self.rules)))
                    actions = np.where(theirs, player.act(self.seats, theirs, uniforms), actions)
            self._play(actions, waiting)

    def _take_answered(self, now: np.ndarray) -> None:
        """For ``entropy_end="own"``: the learner's entropy in the games ``now`` (bool) still waiting for it (its
        move answered: the turn has passed, or the learner is to decide again)."""
        take = self._pending & now
        if take.any():
            self._answered[take] = self.seats.entropy(take, self.learner)[take]
            self._pending &= ~take

    def _play(self, actions: np.ndarray, moving: np.ndarray) -> None:
        rewards, terminated, truncated = self.seats.step(actions, moving)
        self._rewards += rewards
        self._terminated |= terminated
        self._truncated |= truncated


def make_batched_seat_envs(
    env: str,
    sizes: dict[str, Any],
    opponents: Sequence[str],
    n_envs: int,
    seed: int,
    monitor_dir: Path,
    snapshots: Sequence[str] = (),
    append: bool = False,
    algo: str = "maskable_ppo",
    entropy_reward: float | None = None,
    gamma: float = 1.0,
    entropy_end: str = DEFAULT_ENTROPY_END,
) -> VecEnv:
    """:class:`BatchedSeatsVecEnv` with the league's ``snapshots`` in its pool, monitored as
    :func:`train.multiplayer.make_seat_envs` monitors the single-seat envs (each game's reward, length, ``rank``
    and ``won``, in ``monitor_dir/batched.monitor.csv``, appended to with ``append``); with ``entropy_reward``,
    the entropy shaping of that scale and ``gamma`` added to the rewards after the monitor has logged the game's
    own (as :class:`~deduction_envs.wrappers.EntropyRewardWrapper` shapes the single-seat envs'), its last step
    as ``entropy_end`` says (:data:`ENTROPY_ENDS`)."""
    venv = BatchedSeatsVecEnv(env, sizes, [*opponents, *snapshots], n_envs, seed, algo, entropy_reward, gamma,
                              entropy_end)  # fmt: skip
    venv.seed(seed)
    watched = monitored(venv, monitor_dir, env, append, keys=("rank", "won"))
    return watched if entropy_reward is None else Shaped(watched, venv)
