"""The worst cases a fuzzing pass found (issue 41), each under a deadline and a memory limit, with its outcome.

Each reproduction once hung for minutes, took gigabytes or ended in a traceback. Here all of them run in one
subprocess (one import of numpy and numba) under a 3 GiB address-space limit, each with a deadline of its own
(generous: a slow machine must not fail it; the fixed versions take well under a second each, the broken ones
took from 15 s to hours) and must end in the outcome the library documents: an answer, or a clear error of
the documented type. A hang past the deadline, a MemoryError or any other exception fails the case.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

#: Seconds each case may take before it counts as a hang.
DEADLINE = 60

#: (name, code that leaves its answer in ``result``, the outcome expected: "ok" or the exception's type name).
CASES = [
    (
        "a pigeonhole contradiction at hands of 20 (was 75 s)",
        """
        k = ClueKnowledge.generalized(42, 2, 2)
        for i in range(20):
            k.add_holds_one_of(0, [2 * i, 2 * i + 1])
        events = len(k.events)
        try:
            k.add_holds_one_of(0, [40, 41])
        finally:
            assert len(k.events) == events  # refused: nothing changed
        """,
        "ContradictionError",
    ),
    (
        "a pigeonhole contradiction at hands of 30 (was past 90 s at 22)",
        """
        k = ClueKnowledge.generalized(62, 2, 2)
        for i in range(30):
            k.add_holds_one_of(1, [2 * i, 2 * i + 1])
        k.add_holds_one_of(1, [60, 61])
        """,
        "ContradictionError",
    ),
    (
        "groups of overlapping clauses, one of them impossible, last (a search through every other group)",
        """
        k = ClueKnowledge.generalized(62, 2, 2)
        for i in range(13):
            a, b, c = 3 * i, 3 * i + 1, 3 * i + 2
            for pair in ([a, b], [b, c], [a, c]):
                k.add_holds_one_of(0, pair)  # player 0 holds two of each three
            if i < 12:
                k.add_holds_one_of(1, [a, b, c])  # player 1 one of them: the third
        for pair in ([36, 37], [37, 38], [36, 38]):
            k.add_holds_one_of(1, pair)  # now player 1 needs two of the last three as well: four of three
        """,
        "ContradictionError",
    ),
    (
        "an event the search cannot decide within check_limit is refused as undecided, nothing changed",
        """
        k = ClueKnowledge.generalized(62, 2, 2, check_limit=1)
        for pair in ([0, 1], [1, 2], [0, 2]):
            k.add_holds_one_of(0, pair)
        k.add_holds_one_of(1, [0, 1])
        k.add_holds_one_of(1, [1, 2])
        events = len(k.events)
        try:
            k.add_holds_one_of(1, [0, 2])
        finally:
            assert len(k.events) == events
        """,
        "UndecidedError",
    ),
    (
        "the assistant: 19 asks at --deck 56 2 with the last one impossible (was 19 s)",
        """
        session = ClueSession(["ann", "bob", "cy"], "ann", [str(c) for c in range(18)], deck=(56, 2))
        for i in range(18):
            session.enter(f"ask cy bob: {18 + 2 * i}, {19 + 2 * i} yes")
        session.enter("ask cy bob: 54, 55 yes")  # a nineteenth pair: bob holds 18 cards
        """,
        "ContradictionError",
    ),
    (
        "generalized_clue_v0 with 40 cards, 20 hidden, 4 players: the first observation (was 3.5 GB, MemoryError)",
        """
        env = generalized_clue_v0.env(cards=40, hidden=20, players=4)
        env.reset(seed=0)
        observation, *_ = env.last()
        result = observation["observation"].shape
        """,
        "ok",
    ),
    (
        "ClueKnowledge.generalized(62, 31, 2).probabilities() (asked for 3.66 GiB)",
        """
        p = ClueKnowledge.generalized(62, 31, 2).probabilities()
        assert np.allclose(p.sum(axis=1), 1)
        result = p.shape
        """,
        "ok",
    ),
    (
        "sample(10**12): a clear error before allocating",
        "ClueKnowledge.generalized(62, 31, 2).sample(10**12)",
        "ValueError",
    ),
    ("Algo's training env with exposure=10**9 (hung past 60 s)", "AlgoTrainingEnv(exposure=10**9)", "ValueError"),
    ("Algo's training env with playouts=10**9", "AlgoTrainingEnv(playouts=10**9)", "ValueError"),
    (
        "probabilities() with 17 pair clauses at 36 cards (RuntimeError: acceptance too low)",
        """
        k = ClueKnowledge.generalized(36, 2, 2)
        for i in range(17):
            k.add_holds_one_of(0, [2 * i, 2 * i + 1])
        for seed in range(3):
            solution = k.solve(rng=seed)
            assert np.allclose(solution.probabilities.sum(axis=1), 1), solution.probabilities
            assert (solution.probabilities[34:, 0] == 0).all()  # cards 34, 35 cannot be player 0's
        result = solution.method
        """,
        "ok",
    ),
    (
        "the assistant's sheet and advice where few sampled deals are consistent (was 11 to 20 s a sheet)",
        """
        session = ClueSession(["ann", "bob", "cy"], "ann", [str(c) for c in range(18)], deck=(54, 2))
        for i in range(17):
            session.enter(f"ask cy bob: {18 + 2 * i}, {19 + 2 * i} yes")
        sheet = session.sheet()
        assert np.allclose(session.solution().probabilities.sum(axis=1), 1)
        assert str(session.advice()).startswith("ask ")
        result = session.solution().method
        """,
        "ok",
    ),
    ("ClueKnowledge(seconds=inf)", "ClueKnowledge.generalized(12, 2, 3, seconds=float('inf'))", "ValueError"),
    ("solve(seconds=inf)", "ClueKnowledge.generalized(40, 2, 2).solve('sample', seconds=float('inf'))", "ValueError"),
]

SCRIPT = """
import json, resource, signal, sys, textwrap, time
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
import numpy as np
from deduction_envs.envs import algo_v0, generalized_clue_v0
from train.training_envs import AlgoTrainingEnv
from deduction_envs.reasoning import ClueKnowledge
from train.tools.assistant.session import ClueSession

class Hang(Exception):
    pass

def alarm(*_):
    raise Hang

signal.signal(signal.SIGALRM, alarm)
for name, code, _ in json.loads(sys.argv[1]):
    start = time.perf_counter()
    signal.alarm(int(sys.argv[2]))
    scope = {**globals(), "result": None}
    try:
        exec(textwrap.dedent(code), scope)
        outcome, detail = "ok", repr(scope["result"])
    except BaseException as error:
        outcome, detail = type(error).__name__, str(error)[:300]
    signal.alarm(0)
    print(json.dumps({"name": name, "outcome": outcome, "detail": detail,
                      "seconds": round(time.perf_counter() - start, 3)}), flush=True)
"""


@pytest.fixture(scope="module")
def outcomes() -> dict[str, dict]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT), json.dumps(CASES), str(DEADLINE)],
        capture_output=True,
        text=True,
        timeout=DEADLINE * len(CASES),
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stderr[-3000:]
    return {line["name"]: line for line in lines}


@pytest.mark.parametrize(("name", "expected"), [(name, expected) for name, _, expected in CASES])
def test_each_worst_case_ends_in_its_documented_outcome_within_its_deadline(outcomes, name, expected):
    assert name in outcomes, "the subprocess died before this case (the cases before it are reported)"
    got = outcomes[name]
    assert got["outcome"] == expected, got  # "Hang" for a case past its deadline
