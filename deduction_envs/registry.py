"""One registry of games: each game, single-player or multiplayer, declared once.

Registration with Gymnasium and PettingZoo, the rules by name (:func:`deduction_envs.games.make_rules`), the
agent roster, ``python -m train``, ``train.evaluate``, terminal play, the experiments and the tests read it;
nothing else keeps a table of game names. Adding a game is one rules module, one env module (for a
multiplayer game) and one :class:`Game` entry, here or from outside with :func:`register_game`::

    from deduction_envs import registry

    registry.game("algo_v0").make_raw_env(players=3)      # by id, module name or name
    registry.game("Mastermind").make_rules(pegs=5)
    [g.env_id for g in registry.games(multiplayer=True)]  # ['algo_v0', 'clue_v0', 'generalized_clue_v0']

Entries name rules, envs and agents by ``"module:attribute"`` strings, imported on first use: this module
imports only the standard library, so the rules layer can read it, a user of one game pays for no other, and
the agents (a layer above the envs) are named, never imported, until the roster makes one.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import sys
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["Agent", "Game", "game", "games", "load", "new_knowledge", "register_game"]


#: The training tasks of the two kinds of game (named, never imported here: they live in the training layer).
SECRETS_TASK = "train.tasks.secrets:SecretsTask"
SEATS_TASK = "train.tasks.seats:SeatsTask"


def load(path: str) -> Any:
    """The attribute a ``"module:attribute"`` string names, imported."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Agent:
    """A reference agent: ``maker`` (``"module:callable"``) called with ``kwargs`` makes a fresh one."""

    maker: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def make(self) -> Any:
        return load(self.maker)(**self.kwargs)


@dataclass(frozen=True)
class Game:
    """One game's declaration.

    Attributes:
        name: the game's name (``"Mastermind"``, ``"algo"``); terminal play and recorded games use it.
        env_id: Gymnasium's id (``"Mastermind-v0"``), or the AEC env's module name (``"algo_v0"``), which
            ``python -m train --env`` takes.
        rules: the rules class, ``"module:Class"``; its dataclass fields are the size parameters, their
            defaults the default sizes.
        env: multiplayer only: the module with ``env()`` (wrapped) and ``raw_env`` (the AEC env), whose
            docstring is the game's page. Single-player games are played by the one generic env.
        knowledge: multiplayer only: a seat's knowledge class (``Knowledge(rules, player)``): the rules do not
            import the reasoning layer; the registry pairs them (:func:`new_knowledge`).
        aec_id: PettingZoo's registry id (``"deduction_envs/algo-v0"``).
        batched: single-player: ``gym.make_vec`` plays it in one batched env by default.
        agents: multiplayer reference agents by name (the roster; ``--opponents``, evaluations, play).
        opponent: the default training opponent; ``evaluation``: the default evaluation opponents.
        panel: multiplayer: the evaluation panel's reference agents, the strongest included: a policy is measured
            against a table of each of them and against every mixed table of them
            (``train.multiplayer.panel_tables``; ``python -m train.evaluate --panel``). ``variant_panels``: a
            variant's own (by its keyword in :attr:`variants`), where it has other agents.
        play: the terminal game (``"module:function"``), its default opponent and players.
        playthroughs: multiplayer: the recorded games a person can read, as env keyword arguments and a seed
            (:mod:`deduction_envs.envs.playthrough`).
        matches: multiplayer: recorded games between reference agents, as rules keyword arguments, the agents'
            names by seat and a seed (:mod:`agents.matches`).
        training_env: multiplayer: the raw env the training layer builds (``"module:Class"``, a subclass of the
            game's with what only training reads, :mod:`train.training_envs`); default the game's own.
        variants: multiplayer: keywords that, set True, select another rules class (``"module:Class"``), as the
            env's own keyword does (Clue's ``board``): :meth:`make_rules` takes them.
        showcase: multiplayer: the documented episode (its page's picture and animation): env keyword arguments
            and the reference agents by seat.
        analysis: multiplayer: the table the multiplayer analysis seats (``train.experiments.multiplayer_analysis``):
            rules keyword arguments and the reference agents, one of each.
        questions: multiplayer: the kinds of turn that ask the table for information (as the analysis names
            events: Algo's attacks by their result, Clue's suggestions, Generalized Clue's asks).
        task: how the training layer trains on the game (``"module:Class"``, a ``train.tasks.Task``); default
            :data:`SECRETS_TASK` for a single-player game, :data:`SEATS_TASK` for a multiplayer one.
        batched_seats: multiplayer: the compiled batched twin, ``("module:games", "module:SeatsClass")``: what
            makes ``n`` games of the rules in arrays, called ``(rules, n, seed)`` (a class, or a function choosing
            one by the rules' variant), and every seat's knowledge and observation; None if it has none.
        batched_agents: multiplayer: the factory of the twin's compiled reference agents by roster name
            (``"module:function"``).
        text: multiplayer: the game as text for language models (``"module:Class"``, made with the rules;
            :class:`deduction_envs.text.aec.TextAECEnv` plays it); None if it has none.
    """

    name: str
    env_id: str
    rules: str
    env: str | None = None
    knowledge: str | None = None
    aec_id: str | None = None
    batched: bool = False
    agents: Mapping[str, Agent] = field(default_factory=dict)
    opponent: str | None = None
    evaluation: tuple[str, ...] = ()
    panel: tuple[str, ...] = ()
    variant_panels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    play: tuple[str, str, int] | None = None
    playthroughs: tuple[tuple[Mapping[str, Any], int], ...] = ()
    matches: tuple[tuple[Mapping[str, Any], tuple[str, ...], int], ...] = ()
    training_env: str | None = None
    variants: Mapping[str, str] = field(default_factory=dict)
    showcase: tuple[Mapping[str, Any], tuple[str, ...]] | None = None
    analysis: tuple[Mapping[str, Any], tuple[str, ...]] | None = None
    questions: tuple[str, ...] = ()
    task: str | None = None
    batched_seats: tuple[str, str] | None = None
    batched_agents: str | None = None
    text: str | None = None

    @property
    def multiplayer(self) -> bool:
        return self.env is not None

    @property
    def training_task(self) -> str:
        """The training task, ``"module:Class"``: :attr:`task`, else the default of the game's kind."""
        return self.task or (SEATS_TASK if self.multiplayer else SECRETS_TASK)

    def rules_class(self) -> type:
        return load(self.rules)

    def default_sizes(self) -> dict[str, Any]:
        """The size parameters and their defaults, from the rules' dataclass fields."""
        return {f.name: f.default for f in dataclasses.fields(self.rules_class())}

    def make_rules(self, **sizes: Any) -> Any:
        """The rules at ``sizes``.

        Rules are immutable, so equal configurations get the same object while any holder keeps it alive: one
        feedback memo per configuration in this process (every env, sub-env, evaluation chunk and agent built
        by name shares it; Wordle's takes seconds to fill).

        Raises:
            TypeError: a size the game does not have. The rules' own errors for bad values.
        """
        cls = self.rules_class()
        for keyword, variant in self.variants.items():
            chosen = sizes.pop(keyword, False)
            if not isinstance(chosen, bool):
                raise ValueError(f"{keyword} must be True or False, got {chosen!r}")
            if chosen:
                cls = load(variant)
        accepted = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(sizes) - set(accepted))
        if unknown:
            raise TypeError(f"{self.name} has no size parameter {', '.join(map(repr, unknown))}; it accepts {accepted}")
        rules = cls(**sizes)
        return _SHARED.setdefault(rules, rules)

    def env_module(self) -> Any:
        if self.env is None:
            raise ValueError(f"{self.name} is a single-player game: gymnasium.make({self.env_id!r})")
        return importlib.import_module(self.env)

    def make_env(self, **kwargs: Any) -> Any:
        """The env: ``gymnasium.make(env_id, **kwargs)``, or the multiplayer module's wrapped ``env()``."""
        if not self.multiplayer:
            import gymnasium

            return gymnasium.make(self.env_id, **kwargs)
        return self.env_module().env(**kwargs)

    def make_raw_env(self, **kwargs: Any) -> Any:
        """The multiplayer AEC env without PettingZoo's order wrapper."""
        return self.env_module().raw_env(**kwargs)

    def make_training_env(self, **kwargs: Any) -> Any:
        """The raw env the training layer builds (:attr:`training_env`, else :meth:`make_raw_env`)."""
        if self.training_env is None:
            return self.make_raw_env(**kwargs)
        return load(self.training_env)(**kwargs)

    def make_agent(self, name: str) -> Any:
        """A fresh reference agent ``name`` (agents keep their seat's knowledge: every seat needs its own)."""
        if name not in self.agents:
            raise ValueError(f"{self.env_id}'s reference agents are {', '.join(self.agents)}, got {name!r}")
        return self.agents[name].make()


_SINGLE = [
    ("Mastermind", "codes", True),
    ("SimpleMastermind", "codes", True),
    ("BullsAndCows", "codes", True),
    ("Wordle", "wordle", True),
    ("FakeCoin", "fake_coin", False),
    ("TreasureHunt", "treasure_hunt", True),
    ("LowMiddleHigh", "low_middle_high", True),
    ("BlackBox", "black_box", False),
]

_GAMES: dict[str, Game] = {}
#: The one rules object of each configuration (see :meth:`Game.make_rules`).
_SHARED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def register_game(entry: Game) -> None:
    """Add ``entry`` to the registry and register its env with Gymnasium (single-player) or PettingZoo.

    Raises:
        ValueError: a game of that name or id is already registered, differently.
    """
    for key in (entry.name, entry.env_id):
        if key in _GAMES and _GAMES[key] != entry:
            raise ValueError(f"a game {key!r} is registered already")
    _GAMES[entry.name] = _GAMES[entry.env_id] = entry
    if entry.aec_id is not None:
        _GAMES[entry.aec_id] = entry
    if "deduction_envs.envs.registration" in sys.modules:  # registration is under way or done
        load("deduction_envs.envs.registration:register_envs")()


for _name, _module, _batched in _SINGLE:
    register_game(Game(_name, f"{_name}-v0", f"deduction_envs.games.{_module}:{_name}", batched=_batched))

register_game(
    Game(
        "algo",
        "algo_v0",
        "deduction_envs.games.algo:AlgoRules",
        env="deduction_envs.envs.algo",
        knowledge="deduction_envs.reasoning.algo_hands:AlgoKnowledge",
        aec_id="deduction_envs/algo-v0",
        agents=MappingProxyType(
            {
                "random": Agent("agents.multiplayer:RandomSeatAgent"),
                "epsilon_greedy": Agent("agents.algo_agents:AlgoEpsilonGreedy", {"epsilon": 0.1}),
                "max_entropy": Agent("agents.algo_agents:AlgoMaxEntropy"),
                "ismcts": Agent("agents.multiplayer_ismcts:SOISMCTS", {"iterations": 200}),
                "ismcts_greedy": Agent("agents.multiplayer_ismcts:algo_search", {"iterations": 100}),
                # Every root option about 200 play-outs, so that the choice follows their values rather than
                # chance: 100 iterations choose as a precise search would in 84% of stop decisions
                # (results/multiplayer_training.md).
                "ismcts_greedy_precise": Agent(
                    "agents.multiplayer_ismcts:algo_search", {"iterations": 400, "exploration": 10.0}
                ),
            }
        ),
        opponent="epsilon_greedy",
        batched_seats=(
            "deduction_envs.games.algo_batched:BatchedAlgoRules",
            "deduction_envs.envs.algo_batched:BatchedAlgoSeats",
        ),
        batched_agents="agents.algo_batched:batched_agent",
        text="deduction_envs.text.algo:AlgoText",
        evaluation=("random", "epsilon_greedy", "max_entropy"),
        panel=("random", "epsilon_greedy", "max_entropy", "ismcts_greedy"),
        play=("train.tools.play_algo:play", "max_entropy", 2),
        training_env="train.training_envs:AlgoTrainingEnv",
        playthroughs=(({"players": 2}, 2), ({"players": 3, "probabilities": False}, 3), ({"players": 4}, 4)),
        matches=(
            ({"players": 2}, ("epsilon_greedy", "max_entropy"), 1),
            ({"players": 3}, ("ismcts", "random", "ismcts_greedy"), 2),
            ({"players": 4}, ("random", "epsilon_greedy", "max_entropy", "epsilon_greedy"), 3),
        ),
        showcase=(MappingProxyType({"players": 2}), ("max_entropy", "epsilon_greedy")),
        analysis=(MappingProxyType({"players": 3}), ("epsilon_greedy", "max_entropy", "random")),
        questions=("attack (hit)", "attack (miss)"),
    )
)
register_game(
    Game(
        "clue",
        "clue_v0",
        "deduction_envs.games.clue:ClueRules",
        env="deduction_envs.envs.clue",
        knowledge="deduction_envs.reasoning.clue_player:CluePlayerKnowledge",
        aec_id="deduction_envs/clue-v0",
        agents=MappingProxyType(
            {
                "random": Agent("agents.multiplayer:RandomSeatAgent"),
                "deduction_sheet": Agent("agents.clue_agents:ClueDeductionSheet"),
                "entropy": Agent("agents.clue_agents:ClueEntropyAgent"),
                # The entropy agent with its former card to show (its own rule; the default is Velma's).
                "entropy_own_shows": Agent("agents.clue_agents:ClueEntropyAgent", {"show_rule": "own"}),
                "velma": Agent("agents.clue_velma:ClueVelma"),
                "velma_rate": Agent("agents.clue_velma:ClueVelma", {"score": "rate"}),
                "ismcts": Agent("agents.multiplayer_ismcts:clue_search", {"time_limit": 0.25}),
            }
        ),
        opponent="deduction_sheet",
        batched_seats=(
            "deduction_envs.games.clue_board_batched:batched_clue_rules",
            "deduction_envs.envs.clue_batched:BatchedClueSeats",
        ),
        batched_agents="agents.clue_batched:batched_agent",
        text="deduction_envs.text.clue:ClueText",
        # SO-ISMCTS and the entropy agent take seconds a game: evaluated against on request only.
        evaluation=("random", "deduction_sheet"),
        # SO-ISMCTS (a quarter of a second a decision) is left out of the panel: hours a table. Velma is the board's
        # agent: off it, it plays as the entropy agent accusing at 0.79, which made the same games as the entropy
        # agent's in 46 of 46 compared (4 players; the likeliest case file rarely waits in [0.79, 1) at its turn).
        panel=("random", "deduction_sheet", "entropy"),
        variant_panels=MappingProxyType({"board": ("random", "deduction_sheet", "entropy", "velma")}),
        play=("train.tools.play_clue:play", "deduction_sheet", 4),
        training_env="train.training_envs:ClueTrainingEnv",
        playthroughs=(
            ({"players": 3, "max_cycles": 40}, 1),
            ({"players": 6, "probabilities": False, "max_cycles": 20}, 6),
            ({"players": 2, "board": True, "max_cycles": 40}, 2),
        ),
        matches=(
            ({"players": 3}, ("entropy", "deduction_sheet", "random"), 1),
            ({"players": 4}, ("deduction_sheet", "random", "deduction_sheet", "random"), 2),
            ({"players": 6}, ("deduction_sheet",) * 6, 3),
            ({"players": 2, "board": True}, ("velma", "deduction_sheet"), 4),
            ({"players": 4, "board": True}, ("velma_rate", "entropy", "deduction_sheet", "velma"), 5),
        ),
        variants=MappingProxyType({"board": "deduction_envs.games.clue_board:ClueBoardRules"}),
        showcase=(MappingProxyType({"players": 3, "board": True}), ("velma", "entropy", "deduction_sheet")),
        analysis=(MappingProxyType({"players": 4}), ("entropy", "entropy_own_shows", "deduction_sheet", "random")),
        questions=("suggest",),
    )
)
register_game(
    Game(
        "generalized_clue",
        "generalized_clue_v0",
        "deduction_envs.games.generalized_clue:GeneralizedClueRules",
        env="deduction_envs.envs.generalized_clue",
        knowledge="deduction_envs.reasoning.generalized_clue_player:GeneralizedCluePlayerKnowledge",
        aec_id="deduction_envs/generalized_clue-v0",
        agents=MappingProxyType(
            {
                "random": Agent("agents.generalized_clue_agents:GeneralizedClueRandom"),
                "scoreboard": Agent("agents.generalized_clue_agents:GeneralizedClueScoreboard"),
                "interrogation_pattern": Agent(
                    "agents.generalized_clue_agents:GeneralizedClueScoreboard", {"patterns": True}
                ),
                "interrogation_pattern_means": Agent(
                    "agents.generalized_clue_agents:GeneralizedClueScoreboard", {"patterns": "means"}
                ),
                "exact": Agent("agents.generalized_clue_agents:GeneralizedClueExact"),
            }
        ),
        opponent="scoreboard",
        batched_seats=(
            "deduction_envs.games.generalized_clue_batched:BatchedGeneralizedClueRules",
            "deduction_envs.envs.generalized_clue_batched:BatchedGeneralizedClueSeats",
        ),
        batched_agents="agents.generalized_clue_batched:batched_agent",
        text="deduction_envs.text.generalized_clue:GeneralizedClueText",
        evaluation=("random", "scoreboard", "interrogation_pattern", "exact"),
        panel=("random", "scoreboard", "interrogation_pattern", "exact"),
        training_env="train.training_envs:GeneralizedClueTrainingEnv",
        playthroughs=(({"cards": 8, "hidden": 2, "players": 3, "max_cycles": 60}, 1),),
        matches=(
            ({"cards": 14, "hidden": 2, "players": 3}, ("exact", "scoreboard", "interrogation_pattern"), 1),
            ({"cards": 12, "hidden": 2, "players": 4}, ("random", "exact", "scoreboard", "scoreboard"), 2),
        ),
        showcase=(MappingProxyType({}), ("exact", "scoreboard", "interrogation_pattern")),
        analysis=(
            MappingProxyType({"cards": 18, "hidden": 2, "players": 4}),
            ("exact", "interrogation_pattern", "scoreboard", "random"),
        ),
        questions=("ask",),
    )
)


def game(key: str) -> Game:
    """The game with this name, env id or PettingZoo id.

    Raises:
        ValueError: no such game (the message lists them).
    """
    if key not in _GAMES:
        known = ", ".join(g.env_id for g in games())
        raise ValueError(f"unknown game {key!r}; the games are {known}")
    return _GAMES[key]


def new_knowledge(rules: Any, player: int) -> Any:
    """An empty knowledge of seat ``player`` for multiplayer ``rules``: the knowledge class its game declares,
    to be fed the projected deal and then each event.

    Raises:
        ValueError: ``rules`` are not a registered multiplayer game's, or ``player`` is not a seat.
    """
    from deduction_envs.core.rules import check_int

    knowledge = _knowledge_class(type(rules))  # type: ignore[arg-type]  # a class is hashable
    return knowledge(rules, check_int("player", player, low=0, high=rules.players - 1))


@functools.lru_cache(maxsize=64)
def _knowledge_class(rules_type: type) -> Any:
    """The knowledge class of the game whose rules are ``rules_type`` (or a subclass of them); looked up once a
    type, since every env reset and every seat agent asks."""
    entry = next((g for g in games(multiplayer=True) if issubclass(rules_type, g.rules_class())), None)
    if entry is None or entry.knowledge is None:
        raise ValueError(f"{rules_type.__name__} is not the rules of a registered multiplayer game")
    return load(entry.knowledge)


def games(multiplayer: bool | None = None) -> list[Game]:
    """Every game in the order registered (only the multiplayer or single-player ones if asked)."""
    unique = list({id(g): g for g in _GAMES.values()}.values())
    return [g for g in unique if multiplayer is None or g.multiplayer == multiplayer]
