"""A native batched ``VectorEnv``: many games of one single-player deduction game, advanced in numpy at once.

    import gymnasium as gym
    import deduction_envs

    gym.register_envs(deduction_envs)
    envs = gym.make_vec("Mastermind-v0", num_envs=1024)   # the batched env: the registry's vector entry point
    envs = gym.make_vec("Mastermind-v0", num_envs=1024, vectorization_mode="sync")  # N DeductionEnvs instead

Each sub-env is the :class:`~deduction_envs.envs.deduction_env.DeductionEnv` of
the same arguments: the same spaces, rewards, ends and info keys, and with the
same seeds and actions the same observations (a test checks it step by step).
What is batched: the information sets are rows of a boolean matrix
(games x secrets); a step takes the feedback rows of the N queries from the
rules' memo in one gather, keeps the secrets that answer like each game's
secret, and computes every game's marginals as one matrix product.

Games it plays: those with uniform (enumerated) information sets, queries that
do not depend on knowledge, a feedback memo, and an end rule that reads the
feedback or the number of secrets left (:meth:`DeductionRules.terminal_batch`):
Mastermind, Simple Mastermind, Bulls and Cows, Wordle, Treasure Hunt and
Low-Middle-High. Fake Coin and Black Box are refused with a ValueError
(``gym.make_vec(..., vectorization_mode="sync")`` plays them).
"""

from __future__ import annotations

import operator
from functools import lru_cache
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from numba import njit

from deduction_envs.core.entropy import uniform_entropy_bits
from deduction_envs.core.information_set import readonly
from deduction_envs.core.rules import DeductionRules, check_int, check_options, check_seed, component_offsets
from deduction_envs.envs.deduction_env import checked_arguments, unasked
from deduction_envs.envs.observation import ObservationEncoder

__all__ = ["BATCH_BYTES", "BatchedDeductionEnv", "batch_refusal"]

#: The memory bound of a batch, at 5 bytes a (game, secret) cell: the candidate matrix (bool) and each game's
#: list of its candidates (int32).
BATCH_BYTES = 1 << 30


#: Why a masked query is masked, by ``action_mask`` mode (the batched env plays games whose queries are all legal).
_WHY = {"consistent": "only queries that could still be the secret are legal", "unasked": "it was asked already"}


def batch_refusal(rules: DeductionRules) -> str | None:
    """Why :class:`BatchedDeductionEnv` cannot play ``rules``, or None if it can."""
    if rules.information_set_kind != "enumerated":
        return f"{rules.name}'s information sets are tabular (weighted), not uniform"
    if rules.knowledge_dependent_actions:
        return f"{rules.name}'s queries depend on the player's knowledge"
    if rules._feedback_rows is None:
        return f"{rules!r}'s feedback table is too large to memoise"
    empty = np.zeros(0, dtype=np.int64)
    if rules.terminal_batch(empty, empty, empty) is None:
        return f"{rules.name}'s end of game needs more than the feedback and the number of secrets left"
    return None


class BatchedDeductionEnv(gym.vector.VectorEnv):
    """``num_envs`` games of one single-player deduction game, stepped together (Gymnasium 1.x ``VectorEnv``).

    Args:
        num_envs: the number of games.
        rules: a :class:`~deduction_envs.core.rules.DeductionRules` object, or a
            game name with its size parameters as keyword arguments.
        max_steps, action_mask, illegal_action: as :class:`DeductionEnv`
            (``illegal_action="raise"`` refuses the whole batch, changing nothing).
        information_set: None or ``"enumerated"`` (the batch keeps uniform sets).
        autoreset_mode: ``AutoresetMode.NEXT_STEP`` (Gymnasium's default: a
            finished game is reset by the next ``step``, which ignores its
            action and returns reward 0) or ``SAME_STEP`` (reset at once; the
            last observation and info go in ``info["final_obs"]`` and
            ``info["final_info"]``).
        render_mode: None (a batch has no picture; render one sub-env with
            ``gym.make``).
        query_features: False only: the batch does not compute the single
            env's optional ``"query_features"`` observation (a clear error).

    Observations are the sub-envs' ``Dict`` batched (``"information_set"``
    ``(N, features)`` float32, ``"history"`` ``(N, slots)`` int64); actions an
    integer array of shape ``(N,)``. ``info`` follows Gymnasium's vector
    convention (each key with a ``_key`` mask): ``candidates``, ``entropy``,
    ``action_mask`` (``(N, actions)`` int8; read-only when every query is
    always legal), and after a step ``feedback``, ``illegal_action`` and
    ``secret_known`` where the single env gives them. :meth:`action_masks`
    is the batch's bool mask, as sb3-contrib asks.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        rules: DeductionRules | str,
        *,
        max_steps: int | None = None,
        action_mask: Literal["all", "consistent", "unasked"] = "all",
        information_set: Literal["enumerated"] | None = None,
        illegal_action: Literal["waste", "raise"] = "waste",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: None = None,
        query_features: bool = False,
        **sizes: Any,
    ) -> None:
        self.num_envs = check_int("num_envs", num_envs, low=1)
        if query_features:
            raise ValueError("the batched env has no query_features observation; use vectorization_mode='sync'")
        rules, max_steps = checked_arguments(rules, sizes, max_steps, action_mask, illegal_action)
        self.action_mask = action_mask
        refusal = batch_refusal(rules)
        if refusal:
            raise ValueError(f"the batched env cannot play this game: {refusal}; use vectorization_mode='sync'")
        if information_set not in (None, "enumerated"):
            raise ValueError(f"information_set must be None or 'enumerated' (batched), got {information_set!r}")
        try:
            self.autoreset_mode = AutoresetMode(autoreset_mode)
        except ValueError:
            raise ValueError(f"autoreset_mode must be next-step or same-step, got {autoreset_mode!r}") from None
        if self.autoreset_mode == AutoresetMode.DISABLED:
            raise ValueError("autoreset_mode must be next-step or same-step (the batch resets its own games)")
        if render_mode is not None:
            raise ValueError(f"the batched env does not render (render_mode must be None), got {render_mode!r}")
        n, secrets = self.num_envs, rules.num_secrets
        if n * secrets * 5 > BATCH_BYTES:
            raise ValueError(
                f"{n} games of {secrets:,} secrets need {n * secrets * 5 / 2**20:,.0f} MiB of candidates, over "
                f"{BATCH_BYTES >> 20} MiB: use fewer num_envs"
            )

        self.rules = rules
        self.max_steps = max_steps
        self.illegal_action = illegal_action
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        self._initial_entropy = max(uniform_entropy_bits(secrets), 1e-12)
        encoder = ObservationEncoder(rules, max_steps, self._initial_entropy)
        self.single_observation_space = encoder.space
        self.single_action_space = gym.spaces.Discrete(rules.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)

        # Each secret's components as columns of the marginals (a component's values after the previous ones').
        offsets = component_offsets(tuple(rules.secret_nvec))
        self._components = np.ascontiguousarray(rules.secret_components(np.arange(secrets)) + offsets, dtype=np.int64)
        fresh = np.bincount(self._components.ravel(), minlength=sum(rules.secret_nvec)) / secrets
        # And the entropy's share: 1, or 0 for a game of one secret (no entropy), as the single env computes it.
        self._fresh_marginals = np.append(fresh, uniform_entropy_bits(secrets) / self._initial_entropy).astype(
            np.float32
        )
        self._log2 = _log2_table(secrets)
        self._action_parts = rules.action_components(np.arange(rules.num_actions)).astype(np.int64)
        self._slot = ObservationEncoder.slot_size(rules)
        self._feedback_parts = rules.feedback_components(np.arange(rules.num_feedbacks))
        self._guess_secret: np.ndarray | None = None  # with the consistent mask: the secret each query names
        if action_mask == "consistent":
            every = np.arange(secrets)
            self._guess_secret = np.full(rules.num_actions, -1, dtype=np.int64)
            self._guess_secret[rules.guess_actions(every)] = every
        else:
            self._all_legal = np.broadcast_to(np.ones(rules.num_actions, dtype=bool), (n, rules.num_actions))
            self._all_legal_int8 = np.broadcast_to(np.ones(rules.num_actions, dtype=np.int8), (n, rules.num_actions))
        # action_mask="unasked": each game's queries answered so far (None in the other modes).
        self._asked = np.zeros((n, rules.num_actions), dtype=bool) if action_mask == "unasked" else None

        self._rngs: list[np.random.Generator] = [seeding.np_random()[0] for _ in range(n)]
        self._secrets = np.zeros(n, dtype=np.int64)
        self._candidates = np.zeros((n, secrets), dtype=bool)  # the information sets
        self._members = np.zeros((n, secrets), dtype=np.int32)  # the same, listed: game i's first sizes[i] entries
        self._sizes = np.zeros(n, dtype=np.int64)
        self._steps = np.zeros(n, dtype=np.int64)  # queries asked, wasted ones included
        self._recorded = np.zeros(n, dtype=np.int64)  # answered queries, in the history
        self._codes = np.full((n, max_steps * self._slot), -1, dtype=np.int64)
        self._features = np.zeros((n, sum(rules.secret_nvec) + 1), dtype=np.float32)
        self._autoreset = np.zeros(n, dtype=bool)
        self._started = False

    # ---------------------------------------------------------------- the API
    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Reset every game (or those of ``options["reset_mask"]``); ``seed`` an int (game ``i`` gets
        ``seed + i``, as ``SyncVectorEnv``) or one seed (or None) per game."""
        n = self.num_envs
        which = check_options(options, ["reset_mask"]).get("reset_mask")
        if which is None:
            which = np.ones(n, dtype=bool)
        elif not (isinstance(which, np.ndarray) and which.dtype == np.bool_ and which.shape == (n,)):
            raise ValueError(f"options['reset_mask'] must be a bool numpy array of shape ({n},)")
        elif not self._started and not which.all():
            raise ValueError("the first reset must reset every game (no reset_mask, or all True)")
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            start = check_seed(seed)
            assert start is not None
            seeds = [start + i for i in range(n)]
        elif isinstance(seed, (list, tuple)) and len(seed) == n:
            seeds = [check_seed(s, f"seed[{i}]") for i, s in enumerate(seed)]
        else:
            raise ValueError(f"seed must be None, an int, or a list of {n} seeds (ints or None), got {seed!r}")
        for i in np.flatnonzero(which):
            if seeds[i] is not None or not self._started:
                self._rngs[i] = seeding.np_random(seeds[i])[0]
        self._start_games(np.flatnonzero(which))
        self._autoreset[which] = False
        self._started = True
        return self._observation(), self._info(which)

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Ask each game's query; finished games are reset as ``autoreset_mode`` says."""
        if not self._started:
            raise RuntimeError("reset() must be called before step()")
        actions = self._check_actions(actions)
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        restart = self._autoreset.copy()  # next-step mode: games that ended last step start again now
        playing = np.flatnonzero(~restart)
        legal = self._legal(playing, actions[playing])
        if self.illegal_action == "raise" and not legal.all():
            bad = int(playing[~legal][0])
            raise ValueError(
                f"action {int(actions[bad])} ({self.rules.format_action(int(actions[bad]))}) of game {bad} is "
                f"masked ({_WHY[self.action_mask]}; see action_masks()); nothing changed"
            )
        self._start_games(np.flatnonzero(restart))
        rewards[playing] = -1.0
        self._steps[playing] += 1
        asked = playing[legal]
        if self._asked is not None:
            self._asked[asked, actions[asked]] = True
        feedback = self._answer(asked, actions[asked])
        terminated[asked] = self.rules.terminal_batch(actions[asked], feedback, self._sizes[asked])
        truncated[playing] = ~terminated[playing] & (self._steps[playing] >= self.max_steps)
        ended = terminated | truncated
        observation = self._observation()
        # What only a step tells; the candidates, entropy and mask come from _info, after any restart.
        step_info: dict[str, Any] = {}
        stepped = np.zeros(n, dtype=bool)
        stepped[asked] = True
        feedbacks = np.zeros(n, dtype=np.int64)
        feedbacks[asked] = feedback
        self._add(step_info, "feedback", stepped, feedbacks)
        wasted = np.zeros(n, dtype=bool)
        wasted[playing[~legal]] = True
        self._add(step_info, "illegal_action", wasted, wasted.copy())
        self._add(step_info, "secret_known", terminated, terminated & (self._sizes == 1))
        every = np.ones(n, dtype=bool)
        if self.autoreset_mode == AutoresetMode.SAME_STEP and ended.any():
            # As SyncVectorEnv: the ended games' last observation and info aside, then the new games' own.
            final_obs = np.full(n, None, dtype=object)
            for i in np.flatnonzero(ended):
                final_obs[i] = {key: value[i] for key, value in observation.items()}
            final_info = _select({**self._info(every), **step_info}, ended)
            self._start_games(np.flatnonzero(ended))
            observation = self._observation()
            info = {**self._info(every), **_select(step_info, ~ended)}
            self._add(info, "final_obs", ended, final_obs)
            self._add(info, "final_info", ended, final_info)
        else:
            self._autoreset = ended
            info = {**self._info(every), **step_info}
        return observation, rewards, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The legal queries of every game, bool ``(num_envs, actions)`` (the sb3-contrib hook)."""
        if self._asked is not None:
            return unasked(self._all_legal, self._asked)
        if self._guess_secret is None:
            return self._all_legal
        mask = np.zeros((self.num_envs, self.rules.num_actions), dtype=bool)
        named = self._guess_secret >= 0
        mask[:, named] = self._candidates[:, self._guess_secret[named]]
        return mask

    def close_extras(self, **kwargs: Any) -> None:
        self._candidates = self._candidates[:0]

    # -------------------------------------------------------------- internals
    def _check_actions(self, actions: Any) -> np.ndarray:
        n, count = self.num_envs, self.rules.num_actions
        array = np.asarray(actions)
        if array.shape != (n,) or not np.issubdtype(array.dtype, np.integer):
            wrong = ValueError(f"actions must be {n} integers in [0, {count}), one per game, got {actions!r}")
            if array.ndim != 1 or array.dtype == np.bool_:  # a list of Python ints, but not floats or bools
                raise wrong
            try:
                array = np.array([operator.index(a) for a in array], dtype=np.int64)
            except TypeError:
                raise wrong from None
            if array.shape != (n,):
                raise wrong
        array = array.astype(np.int64, copy=False)
        if array.min() < 0 or array.max() >= count:
            raise ValueError(f"actions must be integers in [0, {count}) for {self.rules!r}, got {actions!r}")
        return array

    def _legal(self, games: np.ndarray, actions: np.ndarray) -> np.ndarray:
        if self._asked is not None:
            return self.action_masks()[games, actions]
        if self._guess_secret is None:
            return np.ones(games.size, dtype=bool)
        named = self._guess_secret[actions]
        return (named >= 0) & self._candidates[games, np.maximum(named, 0)]

    def _start_games(self, games: np.ndarray) -> None:
        if games.size == 0:
            return
        self._secrets[games] = [self._rngs[i].integers(self.rules.num_secrets) for i in games]
        _restart(games, self._candidates, self._members, self._sizes, self._steps, self._recorded, self._codes,
                 self._features, self._fresh_marginals)  # fmt: skip
        if self._asked is not None:
            self._asked[games] = False

    def _answer(self, games: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Feed back each query to its game's secret, narrow the candidates, record it, update the features."""
        if games.size == 0:
            return np.zeros(0, dtype=np.int64)
        table = self.rules.feedback_table(actions)
        feedback = np.empty(games.size, dtype=np.int64)
        _narrow(table, games, actions, self._secrets, self._candidates, self._members, self._components,
                self._sizes, self._features, self._log2, self._initial_entropy, feedback)  # fmt: skip
        _record(games, actions, feedback, self._action_parts, self._feedback_parts, self._recorded, self._codes)
        return feedback

    def _observation(self) -> dict[str, np.ndarray]:
        return {"information_set": self._features.copy(), "history": self._codes + 1}

    def _info(self, which: np.ndarray) -> dict[str, Any]:
        sizes = self._sizes
        every_legal = self._guess_secret is None and self._asked is None
        mask = self._all_legal_int8 if every_legal else self.action_masks().view(np.int8)
        info: dict[str, Any] = {}
        self._add(info, "candidates", which, sizes.copy())
        self._add(info, "entropy", which, self._log2[sizes])
        self._add(info, "action_mask", which, mask)
        return info

    @staticmethod
    def _add(info: dict[str, Any], key: str, which: np.ndarray, values: Any) -> None:
        if which.any():
            info[key], info[f"_{key}"] = values, which.copy()

    def __repr__(self) -> str:
        return f"BatchedDeductionEnv({self.rules!r}, num_envs={self.num_envs})"


def make_batched(num_envs: int, **kwargs: Any) -> BatchedDeductionEnv:
    """The registry's vector entry point: ``gym.make_vec(id, num_envs, ...)`` lands here."""
    kwargs.pop("max_episode_steps", None)  # the env truncates itself (max_steps)
    return BatchedDeductionEnv(num_envs, **kwargs)


@lru_cache(maxsize=8)
def _log2_table(secrets: int) -> np.ndarray:
    """``log2(k)`` for k = 0 .. ``secrets`` as the single env computes it (:func:`uniform_entropy_bits`), to the
    last bit (numpy's ``log2`` differs from it in the last bit for some k); entry 0 unused."""
    table = np.fromiter((uniform_entropy_bits(k) for k in range(1, secrets + 1)), dtype=np.float64, count=secrets)
    return readonly(np.concatenate([[0.0], table]))


def _select(info: dict[str, Any], which: np.ndarray) -> dict[str, Any]:
    """The entries of a vector ``info`` for the games of ``which`` only (zeros elsewhere, as Gymnasium fills)."""
    out: dict[str, Any] = {}
    for key, values in info.items():
        if key.startswith("_"):
            continue
        mask = info[f"_{key}"] & which
        if mask.any():
            shaped = mask.reshape(-1, *[1] * (values.ndim - 1))
            out[key], out[f"_{key}"] = np.where(shaped, values, np.zeros_like(values)), mask
    return out


@njit(cache=True)
def _narrow(table, games, actions, secrets, candidates, members, components, sizes, features, log2, initial, feedback):
    """Game ``games[i]`` asks ``actions[i]``: its feedback (into ``feedback[i]``) from the memo ``table``, its
    candidates (the first ``sizes[game]`` of its ``members``, and its row of ``candidates``) narrowed to the
    secrets that answer alike, its size and its features (marginals, then the entropy over ``initial``)
    rewritten. One pass over the game's candidates."""
    width = features.shape[1] - 1
    counts = np.zeros(width, dtype=np.int64)
    for i in range(games.size):
        game, row = games[i], table[actions[i]]
        answer = row[secrets[game]]
        feedback[i] = answer
        counts[:] = 0
        listed = members[game]
        kept = 0
        for t in range(sizes[game]):
            s = listed[t]
            if row[s] == answer:
                listed[kept] = s
                kept += 1
                for j in range(components.shape[1]):
                    counts[components[s, j]] += 1
            else:
                candidates[game, s] = False
        sizes[game] = kept
        for k in range(width):
            features[game, k] = counts[k] / kept
        features[game, width] = log2[kept] / initial


@njit(cache=True)
def _record(games, actions, feedback, action_parts, feedback_parts, recorded, codes):
    """Write each game's answered query into its history: the query's components, then the feedback's."""
    width, answer_width = action_parts.shape[1], feedback_parts.shape[1]
    for i in range(games.size):
        game = games[i]
        start = recorded[game] * (width + answer_width)
        for k in range(width):
            codes[game, start + k] = action_parts[actions[i], k]
        for k in range(answer_width):
            codes[game, start + width + k] = feedback_parts[feedback[i], k]
        recorded[game] += 1


@njit(cache=True)
def _restart(games, candidates, members, sizes, steps, recorded, codes, features, fresh):
    """Start the games ``games`` again: every secret a candidate, no step, no history, the features ``fresh``."""
    for game in games:
        secrets = candidates.shape[1]
        for s in range(secrets):
            candidates[game, s] = True
            members[game, s] = s
        sizes[game] = secrets
        steps[game] = 0
        recorded[game] = 0
        codes[game, :] = -1
        features[game, :] = fresh
