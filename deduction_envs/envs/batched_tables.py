"""Many games of a multiplayer game's compiled twin at once, seen from the learner's seats: the batched multiplayer
vector env of the library (issue 82), beside the single-player ``make_vec``.

:class:`BatchedTables` plays ``n`` games of a game's twin (Clue's
:class:`~deduction_envs.envs.clue_batched.BatchedClueSeats` and the like). In each game the learner holds one seat,
drawn each game, and every other seat is an opponent drawn per game from a pool: the game's compiled reference
agents by their roster names (the registry's ``batched_agents``), any player object the caller supplies (a
policy's snapshot: ``choose(observations, masks, uniforms)``). :class:`BatchedSelfPlay` is the same tables where the
pool may hold the learner itself (``"self"``: every seat drawn so is the learner's, and every one of them decides;
``train.self_play`` trains so)::

    from deduction_envs.envs.batched_tables import BatchedTables

    tables = BatchedTables("clue_v0", {"players": 4, "probabilities": False}, ["deduction_sheet"], 1024, seed=0)
    observations = tables.reset()                      # the learner's, one row a game
    masks = tables.action_masks()                      # (1024, actions) bool
    actions = masks.argmax(axis=1)                     # the learner's policy here: its first legal action
    observations, rewards, dones, infos = tables.step(actions)

A step plays the learner's action in every game, then the opponents until the learner must decide again or the
game ends; a game that ends is dealt anew in the same step (its last observation, the learner's, is in
``infos[i]["terminal_observation"]``, with ``rank``, ``won`` and ``seat``). Ranks come from
:func:`~deduction_envs.core.multiplayer.batched_ranks`. With ``entropy_reward``, the entropy shaping of the
learner's bits is computed for every game (:data:`~deduction_envs.core.entropy.ENTROPY_ENDS` say
what its last step pays), left in :attr:`BatchedTables.shaping` for the caller to add after it has logged the
game's own reward. ``train.batched_seats`` and ``train.self_play`` adapt these to stable-baselines3.

The games are those of the AEC env (``tests/test_conformance.py``); their random streams are not the AEC env's
(the deals and seats come from the batch's generators, seeded by ``seed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from deduction_envs import registry
from deduction_envs.core.entropy import DEFAULT_ENTROPY_END, ENTROPY_ENDS, check_shaping, entropy_shaping
from deduction_envs.core.multiplayer import batched_ranks
from deduction_envs.core.rules import check_int

__all__ = [
    "SELF",
    "BatchedMatches",
    "BatchedSelfPlay",
    "BatchedTables",
    "batched_refusal",
    "compiled_probabilities",
    "has_entropy",
    "has_probabilities",
    "twin",
]

#: The opponent entry that is the learner's own current policy.
SELF = "self"


def twin(env: str) -> tuple[Any, Any, Any]:
    """The game's batched games' factory (``(rules, n, seed)``), seats class and compiled agents' factory
    (ValueError if it has none)."""
    game = registry.game(env)
    if game.batched_seats is None or game.batched_agents is None:
        twins = [g.env_id for g in registry.games(multiplayer=True) if g.batched_seats is not None]
        raise ValueError(f"{env} has no batched twin yet (batched: {', '.join(twins)})")
    make_games, seats_class = (registry.load(name) for name in game.batched_seats)
    return make_games, seats_class, registry.load(game.batched_agents)


def has_probabilities(env: str) -> bool:
    """Whether ``env``'s batched twin writes the probability pieces (False if it has no twin)."""
    try:
        return bool(twin(env)[1].has_probabilities)
    except ValueError:
        return False


def compiled_probabilities(env: str) -> bool:
    """Whether ``env``'s batched twin counts the probability pieces compiled across the batch (False if it has no
    twin, or counts them one seat at a time with the AEC env's engine)."""
    try:
        seats_class = twin(env)[1]
    except ValueError:
        return False
    return bool(seats_class.has_probabilities and seats_class.compiled_probabilities)


def has_entropy(env: str) -> bool:
    """Whether ``env``'s batched twin gives each seat's entropy in bits (False if it has no twin)."""
    try:
        return bool(twin(env)[1].has_entropy)
    except ValueError:
        return False


def _seat_options(seats_class: Any, sizes: dict[str, Any]) -> dict[str, Any]:
    """The seats' keywords from the env's: ``max_cycles`` if given (else the env's default), and
    ``probabilities`` (the env's default, True) where the twin has them."""
    options = {"max_cycles": sizes["max_cycles"]} if "max_cycles" in sizes else {}
    if seats_class.has_probabilities:
        options["probabilities"] = bool(sizes.get("probabilities", True))
    return options


def batched_refusal(
    env: str, sizes: dict[str, Any], opponents: Sequence[str], entropy_reward: float | None = None
) -> str | None:
    """Why ``env`` at ``sizes`` (the env's keyword arguments) against ``opponents``, with the entropy-shaped reward
    of scale ``entropy_reward`` (None: none), cannot train on the batched twin, or None if it can."""
    try:
        make_games, seats_class, agent = twin(env)
    except ValueError as error:
        return str(error)
    if entropy_reward is not None and not seats_class.has_entropy:
        return f"{env}'s batched twin has no entropy in bits yet: the entropy-shaped reward is not available on it"
    if entropy_reward is not None and SELF in [str(name) for name in opponents]:
        return "self-play trains without the entropy-shaped reward for now (one seat a game has it)"
    options = dict(sizes)
    if options.pop("probabilities", True) and not seats_class.has_probabilities:
        return "the batched twin observes without the probability pieces: give --size probabilities=false"
    try:
        rules = registry.game(env).make_rules(**{k: v for k, v in options.items() if k != "max_cycles"})
        seats = seats_class(make_games(rules, 1), **_seat_options(seats_class, sizes))
    except (TypeError, ValueError) as error:
        return f"{env} {sizes}: {error}"
    for name in opponents:
        if name == SELF or Path(name).suffix == ".zip":
            continue
        try:
            made = agent(name)
        except ValueError as error:
            return str(error)
        why = made.refusal(seats) if hasattr(made, "refusal") else None  # a compiled agent that plays some sizes
        if why:
            return f"{name}: {why}"
    return None




class BatchedTables:
    """The learner's seat of ``n_envs`` batched games of ``env``; see the module docstring.

    Args:
        env: a multiplayer env with a batched twin (``clue_v0``).
        sizes: the env's keyword arguments (its rules' sizes, ``probabilities=False``, ``max_cycles``).
        opponents: the pool's entries: compiled reference agents by their roster names (and ``"self"`` where
            :attr:`learns_self`); a caller adds its own players with :meth:`add_opponent`.
        n_envs: the number of games.
        seed: seeds the deals, the learner's seats, the opponents' draws and their random decisions.
        entropy_reward: the scale of the entropy-shaped reward (None: none), with ``gamma`` its discount.
        entropy_end: what that reward pays at the last step of a game (:data:`ENTROPY_ENDS`).

    Raises:
        ValueError: the game has no batched twin at these sizes, or an opponent has no compiled twin.
    """

    #: Whether ``"self"`` may be in the pool (the learner on several seats: self-play).
    learns_self = False

    def __init__(
        self,
        env: str,
        sizes: dict[str, Any],
        opponents: Sequence[str],
        n_envs: int,
        seed: int = 0,
        entropy_reward: float | None = None,
        gamma: float = 1.0,
        entropy_end: str = DEFAULT_ENTROPY_END,
    ) -> None:
        opponents = list(opponents)
        if not opponents:
            raise ValueError("give at least one opponent")
        why = batched_refusal(env, sizes, opponents, entropy_reward)
        if why:
            raise ValueError(why)
        make_games, seats_class, self._agent = twin(env)
        if entropy_reward is not None:
            check_shaping(entropy_reward, gamma)
        if entropy_end not in ENTROPY_ENDS:
            raise ValueError(f"entropy_end must be one of {', '.join(ENTROPY_ENDS)}, got {entropy_end!r}")
        self.entropy_reward, self.gamma, self.entropy_end = entropy_reward, gamma, entropy_end
        options = {k: v for k, v in sizes.items() if k not in ("probabilities", "max_cycles")}
        self.rules = registry.game(env).make_rules(**options)
        n = check_int("n_envs", n_envs, low=1)
        self.env_name, self.num_envs = env, n
        self.seats = seats_class(make_games(self.rules, n, seed), **_seat_options(seats_class, sizes))
        aec = registry.game(env).make_raw_env(**sizes)  # the observation space of the env users get
        self.observation_space = aec.observation_space(aec.possible_agents[0])["observation"]
        self.action_space = aec.action_space(aec.possible_agents[0])
        self.entries: list[str] = []
        self._players: dict[str, Any] = {}  # entry -> compiled agent or a caller's player (None: self, the learner)
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
    def add_opponent(self, entry: str | Path, player: Any = None) -> None:
        """Add a pool entry: a compiled reference agent's roster name, ``"self"`` where the learner learns from
        several seats (:attr:`learns_self`), or any name with its ``player``: an object that decides for the
        games it is given, either as the compiled agents do (``draws(rules)`` and ``act(seats, games,
        uniforms)``) or from observations (``choose(observations, masks, uniforms)``: one uniform a game, the
        actions).

        Raises:
            ValueError: a name without a compiled twin, or ``"self"`` where the learner holds one seat.
        """
        entry = str(entry)
        if player is not None:
            self._players[entry] = player
        elif entry == SELF:
            if not self.learns_self:
                raise ValueError("'self' in the pool is self-play: the learner on every seat drawn so "
                                 "(python -m train --vec-env batched --opponents self,...)")  # fmt: skip
            self._players[entry] = None
        else:
            self._players[entry] = self._agent(entry)
        self.entries.append(entry)

    # ------------------------------------------------------------------ the vector env
    def reset(self, seed: int | None = None) -> np.ndarray:
        """Deal every game anew (with ``seed``, the streams start again from it) and play up to the learner's
        first decision; the learner's observation in each game."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.seats.games.rng = np.random.default_rng(seed)
        self._start(np.arange(self.num_envs))
        self._started = True
        if self.entropy_reward is not None:
            self._entropy = self.seats.entropy(np.ones(self.num_envs, dtype=bool), self.learner)
        return self.seats.observe(self.learner)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Play the learner's ``actions`` (one a game), then the opponents up to its next decision, dealing anew
        the games that end: the learner's observations, rewards (float32) and dones, and each game's info."""
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)
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
        after = self._entropy
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
                if not hasattr(player, "act"):  # a player that decides from observations (a snapshot)
                    observations = self.seats.observe(movers, theirs)[theirs]
                    actions[theirs] = player.choose(observations, games.legal_masks()[theirs],
                                                    self.rng.random(len(observations)))  # fmt: skip
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


class BatchedSelfPlay(BatchedTables):
    """:class:`BatchedTables` where every seat drawn as ``"self"`` is the learner's too (-1 in :attr:`seated`):
    self-play. A step plays each game's mover (always a learner's seat), then the other entries of the pool until a
    learner's seat is to act again; it returns the mover's observation and reward, as a one-seat env would. Besides
    those, a step leaves what a collector that follows every seat reads: :attr:`step_rewards` (every seat's),
    :attr:`ended` (the games that ended, dealt anew), :attr:`ended_seated`, :attr:`ended_returns`,
    :attr:`ended_decisions` and :attr:`ended_ranks` (their seats' entries, whole returns, decisions and ranks), and
    :attr:`final_observations` (every seat's last observation of the games truncated)::

        from deduction_envs.envs.batched_tables import BatchedSelfPlay

        tables = BatchedSelfPlay("algo_v0", {"players": 2, "probabilities": False}, ["self"], 64, seed=0)
        observations = tables.reset()                  # each game's mover's (a learner's seat)
        observations, rewards, dones, infos = tables.step(tables.action_masks().argmax(axis=1))
        every_seat = tables.step_rewards               # (64, 2)

    Args: those of :class:`BatchedTables`; ``opponents`` must hold ``"self"``, and there is no entropy-shaped
    reward (one seat a game has it).

    Raises:
        ValueError: no ``"self"`` in the pool, or an ``entropy_reward``; and what :class:`BatchedTables` refuses.
    """

    learns_self = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if SELF not in self.entries:
            raise ValueError("self-play needs 'self' in the pool")
        n, players = self.num_envs, self.rules.players
        #: Every seat's rewards in the last step's games (before the games dealt anew play their first moves).
        self.step_rewards = np.zeros((n, players))
        self._returns = np.zeros((n, players))
        self._decisions = np.zeros((n, players), dtype=np.int64)
        self.ended = np.zeros(0, dtype=np.int64)
        self.ended_seated = np.zeros((0, players), dtype=np.int64)
        self.ended_returns = np.zeros((0, players))
        self.ended_ranks = np.zeros((0, players))
        self.ended_decisions = np.zeros((0, players), dtype=np.int64)
        #: Every seat's last observation of each game truncated by the last step (a dict: game -> (players, size)).
        self.final_observations: dict[int, np.ndarray] = {}

    def _draw_seats(self, games: np.ndarray) -> None:
        super()._draw_seats(games)
        drawn = self.seated[games]
        own = np.isin(drawn, [i for i, entry in enumerate(self.entries) if entry == SELF])
        self.seated[games] = np.where(own, -1, drawn)
        self._returns[games] = 0.0
        self._decisions[games] = 0

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Deal every game anew (with ``seed``, the streams start again from it) and play up to a learner's seat's
        first decision; each game's mover's observation."""
        super().reset(seed)
        return self.seats.observe()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Play each game's mover's action, then the pool's other entries up to a learner's seat's next decision,
        dealing anew the games that end: the movers' observations, the rewards of the seats that moved (float32),
        the dones and an info a game (``illegal_action`` where the action was not legal)."""
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)
        if not self._started:
            raise RuntimeError("reset() deals the games first")
        seats, n, rows = self.seats, self.num_envs, np.arange(self.num_envs)
        movers = seats.games.mover.copy()
        self._rewards[:] = 0.0
        self._terminated[:], self._truncated[:] = False, False
        self._decisions[rows, movers] += 1
        self._play(self._actions, ~seats.games.over)
        illegal = seats.illegal.copy()
        self._advance()
        self.step_rewards = self._rewards.copy()
        self._returns += self.step_rewards
        dones = self._terminated | self._truncated
        self.ended = np.flatnonzero(dones)
        self.ended_seated = self.seated[self.ended].copy()
        self.ended_returns = self._returns[self.ended].copy()
        self.ended_decisions = self._decisions[self.ended].copy()
        self.ended_ranks = batched_ranks(self.ended_returns)
        self.final_observations = {}
        truncated = np.flatnonzero(self._truncated & ~self._terminated)
        if truncated.size:
            mask = np.zeros(n, dtype=np.bool_)
            mask[truncated] = True
            every = np.stack([seats.observe(np.full(n, p), mask) for p in range(self.rules.players)], axis=1)
            self.final_observations = {int(g): every[g] for g in truncated}
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        for g in np.flatnonzero(illegal):
            infos[g]["illegal_action"] = int(self._actions[g])
        if self.ended.size:
            self._start(self.ended)
        rewards = self.step_rewards[rows, movers].astype(np.float32)
        return seats.observe(), rewards, dones, infos


class BatchedMatches(BatchedTables):
    """``games`` games of a twin, each played once to its end, a player in seat ``g mod players`` of game ``g`` (seats
    rotated) and the ``table``'s compiled agents in the other seats, in its order after the player's seat (cycled):
    the batched route of measuring a policy against reference agents, as :func:`agents.multiplayer.play_match`
    rotates its lineups. A game over before the player's first decision counts, and nothing is dealt anew.

    ::

        from deduction_envs.envs.batched_tables import BatchedMatches

        matches = BatchedMatches("clue_v0", {"players": 3, "probabilities": False}, ["deduction_sheet"], 300, seed=0)
        seats, rewards, truncated = matches.play(lambda observations, masks: masks.argmax(axis=1))

    Args:
        env, sizes, seed: as :class:`BatchedTables`'s (``sizes["max_cycles"]`` caps a game's actions: stopped there,
            every reward 0, ``truncated``).
        table: the compiled agents' roster names beside the player, in seat order after it.
        games: how many games.

    Raises:
        ValueError: what :class:`BatchedTables` refuses, and an empty table.
    """

    def __init__(self, env: str, sizes: dict[str, Any], table: Sequence[str], games: int, seed: int = 0) -> None:
        table = [str(name) for name in table]
        if not table or SELF in table:
            raise ValueError(f"the table is compiled agents' roster names, got {table!r}")
        self.table = table
        super().__init__(env, sizes, list(dict.fromkeys(table)), games, seed)

    def _draw_seats(self, games: np.ndarray) -> None:
        players = self.rules.players
        self.learner[games] = games % players
        for k in range(players - 1):
            seat = (self.learner[games] + 1 + k) % players
            self.seated[games, seat] = self.entries.index(self.table[k % len(self.table)])
        self.seated[games, self.learner[games]] = -1

    def _start(self, games: np.ndarray) -> None:
        """Deal the games and play up to the player's first decision (a game may end before it)."""
        self.seats.reset_games(games)
        self._draw_seats(games)
        self._advance()

    def play(self, choose: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play every game to its end, ``choose(observations, masks)`` deciding for the player in the games where
        it is to act (its observations and legal masks, a row a game; it returns an action a row): each game's
        player's seat, every seat's rewards and whether the game was stopped at the cap."""
        self.reset()
        games, n = self.seats.games, self.num_envs
        while not games.over.all():
            live = ~games.over
            actions = np.zeros(n, dtype=np.int64)
            rows = np.flatnonzero(live)
            observations = self.seats.observe(self.learner, live)[rows]
            actions[rows] = np.asarray(choose(observations, games.legal_masks()[rows]), dtype=np.int64)
            self._play(actions, live)
            self._advance()
        truncated = self._truncated & ~self._terminated
        return self.learner.copy(), self._rewards.copy(), truncated
