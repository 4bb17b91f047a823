"""Expert iteration over exact information sets: a single-player policy learned without a teacher.

AlphaZero's loop, made exact for the single-player games whose information set the env computes exactly
(Mastermind, Wordle, Bulls and Cows, Low-Middle-High): a network reads the set of secrets still possible and
gives a policy over queries and a value (the queries still to make); at training, a search improves on the
network, and the network is fitted to what the search found; at play, the network alone decides, one forward pass
a query, no search.

The search is one ply, exhaustive and exact: for every query, the rules partition the set by the answer each
secret would give, and the query costs ``1 + sum_a p(a) V(S_a)``, with ``V`` the network's own value of each
child set (0 for the answer that ends the game). The policy is fitted to the cheapest query, the value to its
cost (fitted value iteration: the only ground truth is the rules' end of the game). Nothing else teaches it: no
agent's decision, no hand-written score, no reward from ISES or from entropy.

What the network reads (the "kind" of the policy): the exact set of secrets still possible, as the mean of a
learned embedding of its members, and the set's size (``log2 |S| / log2 N``, its entropy share). Its policy head is
a generic linear layer, started by PyTorch's default initialisation, plus one learned weight, started at 0, on
whether a query names a secret still possible.

The games are played for training along the search's choices (half the decisions), the network's own (the
other half) and random queries (``explore``); every state met is searched once an iteration. The deterministic
policy is evaluated exactly, over every secret, by walking its decision tree (:func:`tree_evaluation`), which
equals playing every secret through the env with :class:`SetPolicyAgent` (a test checks it).

Command (resumable: ``--output`` keeps ``checkpoint.pt``; a run started again continues):

    python -m train.expert_iteration --env Mastermind-v0 --size pegs=4 --size colors=6 --iterations 60 \\
        --seed 0 --output runs/ei-mastermind-4x6-seed-0
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from agents.set_policy import GAMES, SetNetwork, SetPolicyAgent, bags, greedy_queries, load_network, new_network
from deduction_envs.core.rules import DeductionRules
from deduction_envs.games import make_rules

#: SetNetwork, SetPolicyAgent and load_network live in agents.set_policy (the agent layer: a saved network plays
#: without the trainer); they are named here too, where expert iteration's users have found them.
__all__ = ["GAMES", "SetNetwork", "SetPolicyAgent", "Settings", "load_network", "search", "train", "tree_evaluation"]

@torch.no_grad()
def search(network: SetNetwork, rules: DeductionRules, table: np.ndarray, members: np.ndarray,
           queries: np.ndarray | None = None, block: int = 1 << 21) -> np.ndarray:  # fmt: skip
    """Each query's cost from the set ``members`` (``queries``, default every query): ``1 + sum_a p(a)
    V(S_a)``, exact over the answers (the rules' ``table`` of feedback, queries x secrets), ``V`` the network's
    value of each child set and 0 after the answer that ends the game. Queries are scored in blocks of about
    ``block`` (query, secret) cells."""
    queries = np.arange(table.shape[0]) if queries is None else np.asarray(queries, dtype=np.int64)
    n, answers = members.size, rules.num_feedbacks
    cost = np.ones(queries.size)
    step = max(1, block // max(n, 1))
    for start in range(0, queries.size, step):
        chosen = queries[start : start + step]
        rows = np.arange(start, start + chosen.size)
        feedback = table[chosen][:, members].astype(np.int64)
        order = np.argsort(feedback, axis=1, kind="stable")
        cells = (feedback + (np.arange(rows.size) * answers)[:, None]).ravel()
        counts = np.bincount(cells, minlength=rows.size * answers)
        present = np.flatnonzero(counts)
        query, answer, size = present // answers, present % answers, counts[present]
        ends = np.asarray(rules.terminal_batch(chosen[query], answer, size), dtype=bool)
        bag_members = torch.as_tensor(members[order].ravel(), dtype=torch.long)
        sizes = torch.as_tensor(size, dtype=torch.long)
        offsets = torch.as_tensor(np.concatenate([[0], np.cumsum(size)[:-1]]))
        value = network.values(bag_members, offsets, sizes).double().numpy()
        value = np.where(ends, 0.0, np.maximum(value, 1.0))  # a set not ended needs one query at least
        cost[rows] += np.bincount(query, weights=size / n * value, minlength=chosen.size)
    return cost


@dataclass
class Settings:
    """One run's settings (``run.json``)."""

    env: str
    sizes: dict[str, int]
    seed: int = 0
    iterations: int = 60
    games: int = 256
    explore: float = 0.1
    width: int = 128
    learning_rate: float = 1e-3
    epochs: int = 4
    batch: int = 256
    keep: int = 6
    candidates: int = 0
    commit: str = ""
    kind: str = field(default="expert iteration: one-ply exact search at training with the network's own values; "
                      "one forward pass at play")  # fmt: skip


@torch.no_grad()
def tree_evaluation(network: SetNetwork, rules: DeductionRules, table: np.ndarray, max_queries: int,
                    nodes_out: list[np.ndarray] | None = None) -> dict:  # fmt: skip
    """The greedy policy (:func:`greedy_queries`, never a query twice) over every secret, exactly, by walking its
    decision tree level by level: the mean
    queries (an unsolved secret counts ``max_queries``), the most, the share solved within ``max_queries``, and the
    decisions (tree nodes) it took; each node's set is appended to ``nodes_out`` if given."""
    network.eval()
    level, asked = [np.arange(rules.num_secrets)], [np.zeros(0, dtype=np.int64)]
    total, solved, worst, nodes = 0.0, 0, 0, 0
    for depth in range(1, max_queries + 1):
        if not level:
            break
        actions = greedy_queries(network, level, asked)
        nodes += len(level)
        if nodes_out is not None:
            nodes_out.extend(level)
        following, following_asked = [], []
        for members, action, before in zip(level, actions, asked, strict=True):
            feedback = table[action, members]
            for answer in np.unique(feedback):
                child = members[feedback == answer]
                if rules.terminal_batch(np.array([action]), np.array([answer]), np.array([child.size]))[0]:
                    total += depth * child.size
                    solved += child.size
                    worst = depth
                else:
                    following.append(child)
                    following_asked.append(np.append(before, action))
        level, asked = following, following_asked
    unsolved = rules.num_secrets - solved
    total += unsolved * max_queries
    return {"mean": total / rules.num_secrets, "most": max_queries if unsolved else worst,
            "solved": solved / rules.num_secrets, "decisions": nodes}


def feedback_table(rules: DeductionRules) -> np.ndarray:
    """The rules' feedback of every query against every secret (queries x secrets); an error if they keep none."""
    table = rules.feedback_table(np.arange(rules.num_actions))
    if table is None:
        raise ValueError(f"{type(rules).__name__} has no feedback memo: expert iteration needs one")
    return np.asarray(table)


def _searched(network: SetNetwork, rules: DeductionRules, table: np.ndarray, members: np.ndarray,
              settings: Settings, rng: np.random.Generator) -> tuple[np.ndarray, int, float]:  # fmt: skip
    """The search from ``members``: (members, the cheapest query, its cost). With ``settings.candidates`` K,
    over the network's K likeliest queries, the queries naming a secret still possible and K queries drawn at
    random (AlphaZero's prior narrowing the search); else over every query."""
    queries = None
    if settings.candidates:
        with torch.no_grad():
            logits, _ = network(*bags([members]))
        named = network.guess_of[torch.as_tensor(members)].numpy()
        queries = np.unique(np.concatenate([
            torch.topk(logits[0], min(settings.candidates, rules.num_actions)).indices.numpy(),
            named[named >= 0], rng.integers(rules.num_actions, size=settings.candidates)]))  # fmt: skip
    cost = search(network, rules, table, members, queries)
    best = int(np.argmin(cost))
    return members, best if queries is None else int(queries[best]), float(cost[best])


def _play_for_data(network: SetNetwork, rules: DeductionRules, table: np.ndarray, settings: Settings,
                   rng: np.random.Generator, max_queries: int) -> list[tuple[np.ndarray, int, float]]:  # fmt: skip
    """Search every node of the greedy policy's decision tree (every state it meets over every secret) and every
    state met in ``settings.games`` games from random secrets played along the search's choices, the network's
    and random queries: (members, the search's cheapest query, its cost) for each state, once."""
    searched: dict[bytes, tuple[np.ndarray, int, float]] = {}
    nodes: list[np.ndarray] = []
    tree_evaluation(network, rules, table, max_queries, nodes)
    for members in nodes:
        if members.tobytes() not in searched:
            searched[members.tobytes()] = _searched(network, rules, table, members, settings, rng)
    for secret in rng.integers(rules.num_secrets, size=settings.games):
        members, asked = np.arange(rules.num_secrets), []
        for _ in range(max_queries):
            key = members.tobytes()
            if key not in searched:
                searched[key] = _searched(network, rules, table, members, settings, rng)
            draw = rng.random()
            if draw < settings.explore:
                action = int(rng.integers(rules.num_actions))
            elif draw < settings.explore + (1 - settings.explore) / 2:
                action = searched[key][1]
            else:
                action = int(greedy_queries(network, [members], [np.array(asked, dtype=np.int64)])[0])
            asked.append(action)
            feedback = table[action, secret]
            members = members[table[action, members] == feedback]
            if rules.terminal_batch(np.array([action]), np.array([feedback]), np.array([members.size]))[0]:
                break
    return list(searched.values())


def _packed(part: list[tuple[np.ndarray, int, float]]) -> dict[str, torch.Tensor]:
    """An iteration's searched states as tensors (a checkpoint holds tensors and plain values only)."""
    return {
        "members": torch.from_numpy(np.concatenate([m for m, _, _ in part]).astype(np.int64, copy=False)),
        "sizes": torch.tensor([m.size for m, _, _ in part], dtype=torch.int64),
        "queries": torch.tensor([q for _, q, _ in part], dtype=torch.int64),
        "costs": torch.tensor([c for _, _, c in part], dtype=torch.float64),
    }


def _unpacked(part: dict[str, torch.Tensor]) -> list[tuple[np.ndarray, int, float]]:
    """:func:`_packed` undone."""
    members = np.split(part["members"].numpy(), np.cumsum(part["sizes"].numpy())[:-1])
    return [(m, int(q), float(c)) for m, q, c in zip(members, part["queries"].tolist(), part["costs"].tolist(),
                                                     strict=True)]  # fmt: skip


def _read_checkpoint(path: Path, settings: Settings) -> dict[str, Any]:
    """The checkpoint at ``path`` of a run of ``settings``, read as tensors and plain values only (``weights_only``:
    a planted pickle is refused, never run).

    Raises:
        ValueError: the file does not read as such a checkpoint, or was written with other settings.
    """
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a file it cannot read
        first = (str(error).splitlines() or [type(error).__name__])[0]
        raise ValueError(f"{path} is not a checkpoint of python -m train.expert_iteration: {first}") from None
    keys = {"settings", "network", "optimiser", "rng", "torch_rng", "buffer", "iteration", "seconds"}
    if not isinstance(saved, dict) or set(saved) != keys:
        raise ValueError(f"{path} is not a checkpoint of python -m train.expert_iteration: it lacks its parts")
    if saved["settings"] != {k: v for k, v in asdict(settings).items() if k != "commit"}:
        raise ValueError(f"{path} was written with other settings: {saved['settings']}")
    return saved


def _fit(network: SetNetwork, optimiser: torch.optim.Optimizer, data: list[tuple[np.ndarray, int, float]],
         settings: Settings, rng: np.random.Generator) -> tuple[float, float]:  # fmt: skip
    """Fit the policy to the searched queries and the value to their costs: mean losses of the last epoch."""
    network.train()
    losses = (0.0, 0.0)
    for _ in range(settings.epochs):
        order = rng.permutation(len(data))
        policy_sum = value_sum = 0.0
        for start in range(0, len(order), settings.batch):
            batch = [data[i] for i in order[start : start + settings.batch]]
            logits, value = network(*bags([b[0] for b in batch]))
            target = torch.as_tensor([b[1] for b in batch])
            worth = torch.as_tensor([b[2] for b in batch], dtype=value.dtype)
            policy_loss = nn.functional.cross_entropy(logits, target)
            value_loss = nn.functional.mse_loss(value, worth)
            optimiser.zero_grad()
            (policy_loss + value_loss).backward()
            optimiser.step()
            policy_sum += policy_loss.item() * len(batch)
            value_sum += value_loss.item() * len(batch)
        losses = (policy_sum / len(data), value_sum / len(data))
    network.eval()
    return losses


def train(settings: Settings, output: Path, progress: bool = True, until: int | None = None,
          torch_threads: int = 1) -> dict:  # fmt: skip
    """Run (or resume) expert iteration; write ``output``'s ``checkpoint.pt``, ``model.pt``, ``run.json`` and
    ``curve.csv`` (iteration, the greedy policy's exact mean over every secret, solved share, losses, seconds);
    return the last evaluation. ``until`` stops after that many iterations (the run resumes from its
    checkpoint, exactly as if it had not stopped); ``model.pt`` is written when the run is complete.

    The same settings give the same curve, iteration by iteration, with the same ``torch_threads`` (the torch
    threads it computes with, 1 by default, set here and restored after): torch sums in another order on another
    number of threads, and the runs part at the second iteration (Mastermind 4x6, seed 0: 10.5324 queries with one
    thread, 10.5216 with two). Another CPU or BLAS build may round differently too."""
    previous = torch.get_num_threads()
    torch.set_num_threads(torch_threads)
    try:
        return _train(settings, Path(output), progress, until)
    finally:
        torch.set_num_threads(previous)


def _train(settings: Settings, output: Path, progress: bool, until: int | None) -> dict:
    output.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(settings.seed)
    rules = make_rules(settings.env, **settings.sizes)
    table = feedback_table(rules)
    env = gym.make(settings.env, **settings.sizes)
    max_queries = int(env.unwrapped.max_steps)  # type: ignore[attr-defined]
    env.close()
    network = new_network(rules, settings.width)
    optimiser = torch.optim.Adam(network.parameters(), lr=settings.learning_rate)
    rng = np.random.default_rng(settings.seed)
    buffer: list[list[tuple[np.ndarray, int, float]]] = []
    start_iteration, seconds = 0, 0.0
    checkpoint = output / "checkpoint.pt"
    if checkpoint.exists():
        saved = _read_checkpoint(checkpoint, settings)
        try:
            network.load_state_dict(saved["network"])
            optimiser.load_state_dict(saved["optimiser"])
            rng.bit_generator.state = saved["rng"]
            torch.set_rng_state(saved["torch_rng"])
            buffer = [_unpacked(part) for part in saved["buffer"]]
            start_iteration, seconds = int(saved["iteration"]), float(saved["seconds"])
        except (RuntimeError, ValueError, TypeError, KeyError, IndexError) as error:
            raise ValueError(f"{checkpoint} is damaged: {type(error).__name__}: {error}") from None
    else:
        (output / "curve.csv").write_text("iteration,mean,solved,decisions,policy_loss,value_loss,states,seconds\n")
    (output / "run.json").write_text(json.dumps(asdict(settings), indent=1) + "\n")
    result = tree_evaluation(network, rules, table, max_queries)
    end = settings.iterations if until is None else min(until, settings.iterations)
    bar = tqdm(range(start_iteration, end), initial=start_iteration, total=settings.iterations,
               disable=not progress, desc=f"expert iteration {settings.env}")  # fmt: skip
    for iteration in bar:
        began = time.perf_counter()
        decay = 0.05 + 0.475 * (1 + math.cos(math.pi * iteration / settings.iterations))
        for group in optimiser.param_groups:  # a cosine from the learning rate down to a twentieth of it
            group["lr"] = settings.learning_rate * decay
        buffer = [*buffer, _play_for_data(network, rules, table, settings, rng, max_queries)][-settings.keep :]
        data = [item for part in buffer for item in part]
        policy_loss, value_loss = _fit(network, optimiser, data, settings, rng)
        result = tree_evaluation(network, rules, table, max_queries)
        seconds += time.perf_counter() - began
        with (output / "curve.csv").open("a") as curve:
            curve.write(f"{iteration + 1},{result['mean']:.6f},{result['solved']:.6f},{result['decisions']},"
                        f"{policy_loss:.6f},{value_loss:.6f},{len(buffer[-1])},{seconds:.1f}\n")  # fmt: skip
        bar.set_postfix(mean=f"{result['mean']:.4f}", solved=f"{result['solved']:.3f}")
        state = {"settings": {k: v for k, v in asdict(settings).items() if k != "commit"},
                 "network": network.state_dict(), "optimiser": optimiser.state_dict(),
                 "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
                 "buffer": [_packed(part) for part in buffer],
                 "iteration": iteration + 1, "seconds": seconds}  # fmt: skip
        torch.save(state, output / "checkpoint.tmp")
        (output / "checkpoint.tmp").replace(checkpoint)
    if end == settings.iterations:
        torch.save({"settings": asdict(settings), "network": network.state_dict()}, output / "model.pt")
    return result


def main(argv: list[str] | None = None) -> dict:
    """``python -m train.expert_iteration``: train and print the exact evaluation."""
    from train import arguments

    parser = argparse.ArgumentParser(prog="python -m train.expert_iteration", description=__doc__.split("\n")[0])
    parser.add_argument("--env", choices=GAMES, default="Mastermind-v0")
    arguments.add_size_option(parser)
    parser.add_argument("--seed", type=arguments.seed, default=0)
    parser.add_argument("--iterations", type=arguments.count(1), default=60)
    parser.add_argument("--games", type=arguments.count(1), default=256, help="games played for data an iteration")
    parser.add_argument("--explore", type=arguments.number(0, 1), default=0.1, help="share of random queries")
    parser.add_argument("--width", type=arguments.count(1), default=128)
    parser.add_argument(
        "--candidates",
        type=arguments.count(0),
        default=0,
        help="0 (default): search every query; K: the network's K likeliest, the queries naming a secret still "
        "possible and K at random (for games of many queries, such as Wordle)",
    )
    parser.add_argument("--torch-threads", type=arguments.count(1), default=1,
                        help="torch threads (default 1): the same settings give the same curve on the same count")
    parser.add_argument("--output", type=arguments.output_folder, required=True)
    args = parser.parse_args(argv)
    sizes = dict(args.size)
    try:
        make_rules(args.env, **sizes)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    from train.run_files import code_commit

    settings = Settings(env=args.env, sizes=sizes, seed=args.seed, iterations=args.iterations, games=args.games,
                        explore=args.explore, width=args.width, candidates=args.candidates,
                        commit=code_commit())  # fmt: skip
    result = train(settings, args.output, torch_threads=args.torch_threads)
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
