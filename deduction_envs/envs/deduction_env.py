"""The generic Gymnasium env that drives any single-player deduction game."""

from __future__ import annotations

import operator
import weakref
from typing import Any, Literal, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from deduction_envs.core.information_set import InformationSet, information_set_kind, make_information_set
from deduction_envs.core.rules import DeductionRules, Step, check_int, check_options, check_seed
from deduction_envs.envs.observation import ObservationEncoder
from deduction_envs.games import make_rules

__all__ = ["ACTION_MASKS", "MAX_STEPS", "DeductionEnv", "unasked"]

#: The longest episode an env accepts (the observation keeps a slot for every step).
MAX_STEPS = 10_000

#: Information sets after a first query an env keeps (the oldest dropped first).
FIRST_STEPS = 256

#: Games with at most this many secrets keep every information set their env meets, with its legal queries and
#: the answers to the queries asked there: episodes of a small game keep revisiting the same few sets.
SMALL_GAME_SECRETS = 256

#: Entries (sets, answers and moves between sets) the envs of a small game keep, about 280 bytes each (56 MB);
#: past it they are dropped and built again as they are met.
SMALL_GAME_ENTRIES = 200_000

ObsType = dict[str, Any]  # named numpy arrays (Gymnasium's Dict space types its samples so)


class _Node:
    """An information set an env has met, with what the env derived from it (each computed once)."""

    __slots__ = ("answers", "children", "knowledge", "mask")

    def __init__(self, knowledge: InformationSet) -> None:
        self.knowledge = knowledge
        self.mask: np.ndarray | None = None
        #: Feedback of a query asked here against every secret (games whose queries depend on knowledge only).
        self.answers: dict[int, np.ndarray] = {}
        #: The node after a (query, feedback) from here.
        self.children: dict[tuple[int, int], _Node] = {}

    def __reduce__(self) -> tuple:
        return _Node, (self.knowledge,)  # a pickled env takes its set, not the graph below it


class _KnowledgeGraph:
    """The information sets the envs of one game configuration have met in this process, as a graph from the
    initial one, each with its legal queries: shared, like the rules' feedback memo, by every env built for
    the configuration.

    Every episode starts from the same set, so the sets after a first query (random play's costliest step,
    over every secret) are kept, up to FIRST_STEPS of them. A small game (at most SMALL_GAME_SECRETS secrets)
    keeps every set met, one node per set however it was reached, with the answers to the queries asked there
    when they depend on knowledge: its episodes keep revisiting the same few sets.
    """

    def __init__(self, rules: DeductionRules, kind: str | None, consistent: bool) -> None:
        self.rules, self.consistent = rules, consistent
        self.small = rules.num_secrets <= SMALL_GAME_SECRETS
        self.root = _Node(make_information_set(rules, kind))
        self._answers = self.small and rules.knowledge_dependent_actions
        self._secrets = np.arange(rules.num_secrets)
        self._nodes: dict[bytes, _Node] = {}
        self._entries = 0
        self._key = (kind, consistent)

    def __reduce__(self) -> tuple:
        return _knowledge_graph, (self.rules, *self._key)  # the unpickling process's own graph

    def mask(self, node: _Node) -> np.ndarray:
        if node.mask is None:
            node.mask = self.rules.action_mask(node.knowledge, self.consistent)
        return node.mask

    def feedback(self, node: _Node, action: int, secret: int) -> int:
        if not self._answers:
            return int(self.rules.feedback_at(node.knowledge, action, secret))
        row = node.answers.get(action)
        if row is None:
            row = node.answers[action] = self.rules.feedback_at(node.knowledge, action, self._secrets)
            self._entries += 1
        return int(row[secret])

    def child(self, node: _Node, action: int, feedback: int) -> _Node:
        """The node after ``action`` answered ``feedback`` at ``node`` (the root, or any node of a small game)."""
        child = node.children.get((action, feedback))
        if child is not None:
            return child
        knowledge = node.knowledge.update(action, feedback)
        if not self.small:  # the root's children only, the oldest dropped first
            if len(node.children) >= FIRST_STEPS:
                node.children.pop(next(iter(node.children)), None)  # None: another thread's env may have
            child = node.children[action, feedback] = _Node(knowledge)
            return child
        if self._entries >= SMALL_GAME_ENTRIES:  # start again from a new root with the same knowledge
            fresh = _Node(self.root.knowledge)
            node = fresh if node is self.root else node
            self.root, self._nodes, self._entries = fresh, {}, 0
        # Different histories reach the same set: one node for it.
        child = self._nodes.get(key := knowledge.key)
        if child is None:
            child = self._nodes[key] = _Node(knowledge)
        node.children[action, feedback] = child
        self._entries += 2
        return child


_graphs: weakref.WeakKeyDictionary[DeductionRules, dict[tuple, _KnowledgeGraph]] = weakref.WeakKeyDictionary()


def _knowledge_graph(rules: DeductionRules, kind: str | None, consistent: bool) -> _KnowledgeGraph:
    kind = information_set_kind(rules, kind)  # checked before it is a key
    graphs = _graphs.setdefault(rules, {})
    graph = graphs.get((kind, consistent))
    if graph is None:
        graph = graphs[kind, consistent] = _KnowledgeGraph(rules, kind, consistent)
    return graph


#: The env's ``action_mask`` modes: the rules' legal queries; only those that could still be the secret; the
#: rules' legal queries not yet asked this episode.
ACTION_MASKS = ("all", "consistent", "unasked")


def unasked(mask: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """``mask`` without the queries ``asked`` (bool, the same shape; rows for a batch), except where that would
    leave nothing legal: there ``mask`` itself (a game whose every legal query was asked allows them again)."""
    kept = mask & ~asked
    empty = ~kept.any(axis=-1)
    if empty.any():
        kept[empty] = mask[empty]
    return kept


def checked_arguments(
    rules: DeductionRules | str, sizes: dict[str, Any], max_steps: int | None, action_mask: str, illegal_action: str
) -> tuple[DeductionRules, int]:
    """The rules (built from a game name and ``sizes``) and the step limit of an env's arguments, each checked
    with a clear error (the single env's and the batched env's arguments alike)."""
    if isinstance(rules, str):
        rules = make_rules(rules, **sizes)
    elif sizes:
        raise TypeError(f"size parameters {sorted(sizes)} go with a game name, not with a rules object")
    elif not isinstance(rules, DeductionRules):
        raise TypeError(f"rules must be a DeductionRules object or a game name, got {type(rules).__name__}")
    if max_steps is None:
        max_steps = rules.default_max_steps
    max_steps = check_int("max_steps", max_steps, low=1, high=MAX_STEPS)
    if action_mask not in ACTION_MASKS:
        raise ValueError(f"action_mask must be one of {', '.join(map(repr, ACTION_MASKS))}, got {action_mask!r}")
    if illegal_action not in ("waste", "raise"):
        raise ValueError(f"illegal_action must be 'waste' or 'raise', got {illegal_action!r}")
    if action_mask == "consistent" and not rules.queries_name_secrets:
        raise ValueError(f"action_mask='consistent' needs queries that name secrets, which {rules.name} lacks")
    return rules, max_steps


class DeductionEnv(gym.Env[ObsType, np.int64]):
    """A single-player deduction game: find the hidden secret in as few queries as possible.

    ## Description
    The env hides a secret drawn uniformly (with the env's seeded generator)
    from the game's secret space. Each step the agent asks one query; a
    truthful oracle answers it with feedback computed by the game's rules, and
    the env narrows the agent's information set (the secrets consistent with
    every answer so far). The rules come from :mod:`deduction_envs.games`;
    this class holds no game logic. Registered ids build it by game name:
    ``gym.make("Mastermind-v0", pegs=5, colors=8)``.

    ## Action Space
    ``Discrete(N)`` over every query of the game, numbered as the rules
    number them (for the code games, code ``i`` in lexicographic order; see
    ``env.unwrapped.rules.format_action(i)``). :meth:`action_masks` (for
    sb3-contrib's ``MaskablePPO``) and ``info["action_mask"]`` give the legal
    queries: those the rules allow in the current state (every query, except
    in games such as Fake Coin whose queries depend on what the player knows),
    and with ``action_mask="consistent"`` only those that could still be the
    secret; with ``action_mask="unasked"`` those not yet asked this episode (a
    repeated query tells nothing; should every legal query have been asked,
    they are all legal again). Any action in the space can be stepped (Gymnasium's contract, which
    ``check_env`` tests): a masked action is answered with nothing, costs a
    step (reward -1, counted toward ``max_steps``) and sets
    ``info["illegal_action"]``, so learners without masks can train on every
    env. ``illegal_action="raise"`` is the strict mode: a masked action raises
    ValueError and changes nothing.

    ## Observation Space
    A ``Dict`` with two entries, both built from public knowledge only:

    * ``"information_set"``: ``Box(0, 1, (sum(secret_nvec) + 1,), float32)``,
      the probability that each component of the secret takes each value
      under the information set (for Mastermind: each colour at each peg),
      then the information set's entropy divided by the initial entropy.
    * ``"history"``: ``MultiDiscrete``, the queries and answers so far, one
      slot per step up to ``max_steps``; a slot holds the query's components
      then the feedback's components, each plus one, and is all zeros until
      used.

    With ``query_features=True`` a third entry, ``"query_features"``:
    ``Box(0, 1, (N, 3), float32)``, state-dependent features of every query
    computed from the information set alone: whether it could be the secret,
    its expected information gain as a share of the current entropy, and the
    probability of its likeliest answer (rows of masked queries are 0; see
    :class:`~deduction_envs.envs.observation.ObservationEncoder`). Off by
    default: they hand a policy much of what ISES computes, so results with
    them are reported apart from results without.

    ## Rewards
    -1 for every query, so the return is minus the number of queries (the
    paper scores by steps taken).

    ## Episode End
    Terminates when the rules say the game is over (for the code games: the
    guess equals the secret). Truncates after ``max_steps`` queries. A step
    after the end raises RuntimeError until :meth:`reset`. A wasted (illegal)
    action counts toward ``max_steps``.

    ``info`` holds ``"candidates"`` (the number of secrets still possible),
    ``"entropy"`` (of the information set, bits), ``"action_mask"`` (int8)
    and, after a step, ``"feedback"`` (the feedback index); at termination
    ``"secret_known"`` says whether one secret is left (in Black Box the game
    can end with layouts that no query tells apart). It never holds the
    secret, and no public attribute exposes it.

    ## Arguments
    * ``rules``: a :class:`~deduction_envs.core.rules.DeductionRules` object, or
      a game name (``"Mastermind"``) with its size parameters as keyword
      arguments.
    * ``max_steps``: truncation limit, 1 to ``MAX_STEPS`` (10,000); the game's default if None.
    * ``action_mask``: ``"all"`` (default), ``"consistent"`` or ``"unasked"``.
    * ``information_set``: ``"enumerated"`` or ``"tabular"``; the game's own if
      None.
    * ``illegal_action``: ``"waste"`` (default) or ``"raise"`` (strict), what a
      masked action does (see Action Space).
    * ``query_features``: add the ``"query_features"`` observation (default False).
    * ``render_mode``: None, ``"ansi"`` (text), ``"human"`` (the text printed
      after every reset and step; no pygame needed) or ``"rgb_array"``.

    ``reset(options={"secret": i})`` plays secret ``i``, for exhaustive
    evaluation over all secrets; it sets the secret and never reveals it.

    ## Version History
    * v0: initial version. A masked action is a wasted step by default since
      issue 16 (it raised before; ``illegal_action="raise"`` keeps that).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        rules: DeductionRules | str,
        *,
        max_steps: int | None = None,
        action_mask: Literal["all", "consistent", "unasked"] = "all",
        information_set: Literal["enumerated", "tabular"] | None = None,
        illegal_action: Literal["waste", "raise"] = "waste",
        query_features: bool = False,
        render_mode: str | None = None,
        **sizes: Any,
    ) -> None:
        rules, max_steps = checked_arguments(rules, sizes, max_steps, action_mask, illegal_action)
        if not isinstance(query_features, (bool, np.bool_)):
            raise ValueError(f"query_features must be True or False, got {query_features!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")

        self._rules = rules
        self._max_steps = max_steps
        self._action_mask_mode = action_mask
        self._illegal_action = illegal_action
        # Masks that never change are built once; the others after every step.
        self._mask_varies = action_mask != "all" or rules.knowledge_dependent_actions
        self.render_mode = render_mode
        # Every episode starts at the graph's root, the game's initial information set (immutable).
        self._graph = _knowledge_graph(rules, information_set, action_mask == "consistent")
        # Where this episode is in the graph; None once it has left the part kept.
        self._node: _Node | None = None
        self._initial_entropy = max(self._graph.root.knowledge.entropy(), 1e-12)

        self._encoder = ObservationEncoder(rules, max_steps, self._initial_entropy, bool(query_features))
        self.action_space = spaces.Discrete(rules.num_actions)
        self.observation_space = self._encoder.space

        self._secret: int | None = None
        self._knowledge: InformationSet | None = None
        self._entropy = self._initial_entropy
        self._history: list[Step] = []
        self._steps = 0  # queries asked, wasted ones included
        self._mask: np.ndarray | None = None
        self._asked = np.zeros(rules.num_actions, dtype=bool)  # queries answered this episode
        self._done = False

    # ------------------------------------------------------------ public view
    @property
    def rules(self) -> DeductionRules:
        """The game's rules (immutable; every player knows them)."""
        return self._rules

    @property
    def information_set(self) -> InformationSet:
        """The player's current information set (immutable, public knowledge)."""
        if self._knowledge is None:
            raise RuntimeError("the env has no information set before reset()")
        return self._knowledge

    @property
    def history(self) -> tuple[Step, ...]:
        """The (query, feedback) pairs of this episode so far."""
        return tuple(self._history)

    @property
    def max_steps(self) -> int:
        """The truncation limit in queries."""
        return self._max_steps

    def reveal(self) -> int:
        """End the episode and return the secret's index: for a person who gives up or has run out of queries.

        An agent never has a handle on the env, so this is for tools such as
        terminal play; the episode cannot be continued afterwards.
        """
        if self._secret is None:
            raise RuntimeError("reset() must be called before reveal()")
        self._done = True
        return self._secret

    def action_masks(self) -> np.ndarray:
        """Legal queries as a bool array of length ``N`` (the sb3-contrib hook)."""
        return self._legal_actions().copy()

    # ---------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[ObsType, dict]:
        """Draw a new secret (seeded by ``seed``, an int >= 0; None continues the generator), or take
        ``options={"secret": index}``; return the first observation and info (see the class)."""
        # Everything is checked before the generator is touched: a refused reset changes nothing.
        seed = check_seed(seed)
        secret = check_options(options, ["secret"]).get("secret")
        if secret is not None:
            secret = check_int("options['secret']", secret, low=0, high=self._rules.num_secrets - 1)
        super().reset(seed=seed)
        if secret is None:
            secret = self.np_random.integers(self._rules.num_secrets)
        self._secret = int(secret)
        self._node = self._graph.root
        self._knowledge = self._node.knowledge
        self._entropy = self._knowledge.entropy()
        self._history = []
        self._steps = 0
        self._encoder.reset()
        self._mask = None
        self._asked = np.zeros(self._rules.num_actions, dtype=bool)
        self._done = False
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[ObsType, SupportsFloat, bool, bool, dict]:
        """Ask query ``action``; return the observation, reward, terminated, truncated and info (see the class).

        Raises:
            ValueError: an action outside the action space, or a masked one with ``illegal_action="raise"``.
        """
        action = self._check_action(action)
        self._steps += 1
        if not self._legal_actions()[action]:  # only reached with illegal_action="waste"
            truncated = self._steps >= self._max_steps
            self._done = truncated
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -1.0, False, truncated, info
        rules = self._rules
        feedback = self._feedback(action)
        self._knowledge = knowledge = self._update(action, feedback)
        self._entropy = knowledge.entropy()
        if self._mask_varies:
            self._mask = None

        self._encoder.record(action, feedback)
        self._history.append((action, feedback))
        self._asked[action] = True

        terminated = bool(rules.is_terminal(action, feedback, knowledge))
        truncated = not terminated and self._steps >= self._max_steps
        self._done = terminated or truncated
        info = self._info()
        info["feedback"] = feedback
        if terminated:
            # Usually true; a Black Box layout can end the game still hidden among look-alikes.
            info["secret_known"] = knowledge.size == 1
        if self.render_mode == "human":
            self.render()
        return self._observation(), -1.0, terminated, truncated, info

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn(
                "render() was called without a render mode; pass render_mode='ansi' or 'rgb_array' to the env"
            )
            return None
        knowledge = self.information_set
        if self.render_mode == "rgb_array":
            return self._rules.render_rgb(self._history, knowledge, self._max_steps)
        text = self._rules.render_text(self._history, knowledge, self._max_steps)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # -------------------------------------------------------------- internals
    def _check_action(self, action: Any) -> int:
        if self._knowledge is None:
            raise RuntimeError("reset() must be called before step()")
        if self._done:
            raise RuntimeError("the episode has ended (terminated or truncated); call reset() before step()")
        n = self._rules.num_actions
        try:
            index = None if isinstance(action, (bool, np.bool_)) else operator.index(action)
        except TypeError:
            index = None
        if index is None or not 0 <= index < n:
            raise ValueError(f"action must be an integer in [0, {n}) for {self._rules!r}, got {action!r}")
        if self._illegal_action == "raise" and not self._legal_actions()[index]:
            why = {
                "consistent": "only queries that could still be the secret are legal",
                "unasked": "it was asked already this episode, or the rules do not allow it in this state",
            }.get(self._action_mask_mode, "the rules do not allow it in this state")
            raise ValueError(
                f"action {index} ({self._rules.format_action(index)}) is masked: {why} (see action_masks())"
            )
        return index

    def _feedback(self, action: int) -> int:
        secret = self._secret
        assert secret is not None, "reset() draws the secret"
        if self._node is None:
            return int(self._rules.feedback_at(self.information_set, action, secret))
        return self._graph.feedback(self._node, action, secret)

    def _update(self, action: int, feedback: int) -> InformationSet:
        """The information set after ``action`` answered ``feedback``."""
        if self._node is None:
            return self.information_set.update(action, feedback)
        child = self._graph.child(self._node, action, feedback)
        self._node = child if self._graph.small else None
        return child.knowledge

    def _legal_actions(self) -> np.ndarray:
        if self._mask is None:
            if self._node is None:
                self._mask = self._rules.action_mask(self.information_set, self._action_mask_mode == "consistent")
            else:
                self._mask = self._graph.mask(self._node)
            if self._action_mask_mode == "unasked":
                self._mask = unasked(self._mask, self._asked)
        return self._mask

    def _observation(self) -> ObsType:
        return self._encoder.encode(self.information_set, self._entropy)

    def _info(self) -> dict[str, Any]:
        return {
            "candidates": self.information_set.size,
            "entropy": self._entropy,
            # A bool array viewed as int8 is already 0/1; the copy keeps ours private.
            "action_mask": self._legal_actions().view(np.int8).copy(),
        }
