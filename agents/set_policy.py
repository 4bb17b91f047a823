"""A set network's policy: the networks :mod:`train.expert_iteration` learns, saved, loaded and played.

A :class:`SetNetwork` reads a single-player game's information set (the secrets still possible) and gives a
policy over queries and a value; :class:`SetPolicyAgent` plays its greedy policy, one forward pass a query;
:func:`load_network` reads a saved ``model.pt`` without running any code it may hold (``weights_only``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.base import Agent
from deduction_envs.core.rules import DeductionRules
from deduction_envs.games import make_rules

__all__ = ["GAMES", "SetNetwork", "SetPolicyAgent", "bags", "greedy_queries", "load_network", "new_network"]

#: The games whose information set is a uniform enumerated set and whose end the rules give per answer.
GAMES = ("Mastermind-v0", "Wordle-v0", "BullsAndCows-v0", "LowMiddleHigh-v0")


class SetNetwork(nn.Module):
    """A policy and a value over an information set given by its members (the secrets still possible).

    The set is read as the mean of a learned embedding of its members and its size (``log2 |S| / log2 N``); a
    two-layer trunk feeds a linear policy head (a logit for each query) and a value head (the expected number of
    queries still to make). Where queries name secrets, a learned weight (started at 0) adds to a query's logit
    whether the secret it names is still possible.
    """

    guess_of: torch.Tensor  #: the query naming each secret (-1: none); a buffer, saved with the weights

    def __init__(self, num_secrets: int, num_actions: int, guesses: np.ndarray | None, width: int = 128) -> None:
        super().__init__()
        self.num_secrets, self.num_actions, self.width = num_secrets, num_actions, width
        self.embed = nn.EmbeddingBag(num_secrets, width, mode="mean")
        self.trunk = nn.Sequential(nn.Linear(width + 1, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.policy = nn.Linear(width, num_actions)
        self.value = nn.Linear(width, 1)
        self.possible = nn.Parameter(torch.zeros(()))
        named = torch.full((num_secrets,), -1, dtype=torch.long)
        if guesses is not None:
            named = torch.as_tensor(np.asarray(guesses, dtype=np.int64))
        self.register_buffer("guess_of", named)  # the query naming each secret (-1: none)
        self.log_secrets = max(math.log2(num_secrets), 1.0)

    def features(self, members: torch.Tensor, offsets: torch.Tensor, sizes: torch.Tensor) -> torch.Tensor:
        """The trunk's output for bags of members (``members`` flat, ``offsets`` where each set starts)."""
        pooled = self.embed(members, offsets)
        share = (torch.log2(sizes.to(pooled.dtype)) / self.log_secrets)[:, None]
        return self.trunk(torch.cat([pooled, share], dim=1))

    def values(self, members: torch.Tensor, offsets: torch.Tensor, sizes: torch.Tensor) -> torch.Tensor:
        """Each set's value: the queries still to make, expected."""
        return self.value(self.features(members, offsets, sizes)).squeeze(1)

    def forward(self, members: torch.Tensor, offsets: torch.Tensor, sizes: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Each set's logits over the queries and its value."""
        hidden = self.features(members, offsets, sizes)
        logits = self.policy(hidden)
        named = self.guess_of[members]
        if bool((named >= 0).any()):
            rows = torch.repeat_interleave(torch.arange(sizes.numel()), sizes)
            keep = named >= 0
            possible = torch.zeros_like(logits)
            possible[rows[keep], named[keep]] = 1.0
            logits = logits + self.possible * possible
        return logits, self.value(hidden).squeeze(1)


def bags(sets: list[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Sets of members as an EmbeddingBag's input: the members flat, where each set starts, and the sizes."""
    sizes = np.array([s.size for s in sets], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    members = np.concatenate(sets) if sets else np.zeros(0, dtype=np.int64)
    return torch.as_tensor(members, dtype=torch.long), torch.as_tensor(offsets), torch.as_tensor(sizes)


class SetPolicyAgent(Agent):
    """A :class:`SetNetwork`'s greedy policy as an agent: the legal query of highest logit, one forward pass a
    decision, from the agent's own information set (it never sees the secret)."""

    name = "expert-iteration"
    deterministic = True

    def __init__(self, network: SetNetwork) -> None:
        super().__init__()
        self.network = network.eval()

    def act(self) -> int:
        members = np.asarray(self.information_set.support, dtype=np.int64)
        barred = np.ones(self.rules.num_actions, dtype=bool)
        barred[self.legal_actions()] = False
        barred[[query for query, _ in self.history]] = True
        return int(greedy_queries(self.network, [members], [np.flatnonzero(barred)])[0])


@torch.no_grad()
def greedy_queries(network: SetNetwork, sets: list[np.ndarray], barred: list[np.ndarray]) -> np.ndarray:
    """The network's query in each set (its members): the one of highest logit, ``barred[i]`` (the queries
    already asked, and any the rules forbid) excepted. The one place a decision of the network is masked."""
    logits = network(*bags(sets))[0].numpy().copy()
    for row, queries in enumerate(barred):
        logits[row, queries] = -np.inf
    return logits.argmax(axis=1)


def new_network(rules: DeductionRules, width: int) -> SetNetwork:
    """An untrained network for ``rules`` (queries naming secrets get the learned 'still possible' weight)."""
    return SetNetwork(rules.num_secrets, rules.num_actions, rules.guess_actions(np.arange(rules.num_secrets)), width)


def load_network(path: str | Path) -> tuple[SetNetwork, dict]:
    """A saved network and its settings (``model.pt``: ``run.json``'s content and the weights).

    Raises:
        FileNotFoundError: no such file. ValueError: a file that is not such a network, named with what is wrong.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no saved network at {path}")
    what = f"{path} is not a network saved by python -m train.expert_iteration"
    try:  # weights_only: a file that is not plain tensors and settings is refused, never run
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a file it cannot read
        raise ValueError(f"{what}: {(str(error).splitlines() or [type(error).__name__])[0]}") from None
    if not isinstance(saved, dict) or set(saved) != {"settings", "network"}:
        raise ValueError(f"{what}: it holds no settings and network")
    settings = saved["settings"]
    if not isinstance(settings, dict) or settings.get("env") not in GAMES:
        raise ValueError(f"{what}: its settings name no game of {', '.join(GAMES)}")
    rules = make_rules(settings["env"], **settings["sizes"])
    network = new_network(rules, settings["width"])
    try:
        network.load_state_dict(saved["network"])
    except RuntimeError as error:
        first = (str(error).splitlines() or [""])[0]
        raise ValueError(f"{what}: its weights do not fit its settings: {first}") from None
    return network.eval(), settings
