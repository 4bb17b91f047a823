"""Knuth's minimax strategy: Knuth's published figures on Mastermind 4x6, and query for query equal to a plain
re-implementation on smaller games."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from agents import Knuth, MarginalRule, evaluate
from deduction_envs.games import make_rules


def test_knuth_reproduces_the_published_5801_queries_on_mastermind_4x6():
    """Knuth (1976): 1122 first, every one of the 1,296 secrets found in at most 5 queries, 5,801 in all."""
    rules = make_rules("Mastermind", pegs=4, colors=6)
    agent = Knuth()
    agent.reset(rules)
    assert rules.code_of(agent.act()) == (0, 0, 1, 1)  # "1122" in Knuth's colours 1 to 6
    result = evaluate(Knuth(), "Mastermind-v0", {"pegs": 4, "colors": 6}, secrets="all", progress=False)
    assert result.episodes == 1296 and result.solve_rate == 1.0
    assert round(result.mean_steps * 1296) == 5801 and result.worst == 5


def _plain_knuth_queries(pegs: int, colors: int, secret: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Knuth's play against ``secret``, written plainly: black and white pegs counted by hand, every code's
    worst answer by a Counter, ties to a code still possible, then to the first in lexicographic order."""

    def score(guess, code):
        black = sum(g == c for g, c in zip(guess, code, strict=True))
        return black, sum((Counter(guess) & Counter(code)).values()) - black

    codes = list(itertools.product(range(colors), repeat=pegs))
    possible, queries = list(codes), []
    while True:
        query = min(codes, key=lambda g: (max(Counter(score(g, c) for c in possible).values()), g not in possible, g))
        queries.append(query)
        if query == secret:
            return queries
        answer = score(query, secret)
        possible = [c for c in possible if score(query, c) == answer]


@pytest.mark.parametrize(("pegs", "colors"), [(3, 4), (2, 5), (4, 3)])
def test_knuth_plays_every_secret_as_a_plain_reimplementation_does(pegs, colors):
    rules = make_rules("Mastermind", pegs=pegs, colors=colors)
    agent = Knuth()
    for secret in range(rules.num_secrets):
        agent.reset(rules)
        queries = []
        while True:
            action = agent.act()
            queries.append(rules.code_of(action))
            feedback = int(rules.feedback(action, np.array([secret]))[0])
            if action == secret:
                break
            agent.observe(action, feedback)
            assert len(queries) <= rules.num_secrets
        assert queries == _plain_knuth_queries(pegs, colors, rules.code_of(secret)), rules.code_of(secret)


def test_knuth_is_a_function_of_the_information_set_and_plays_games_without_secret_queries():
    """The same set gives the same query (deterministic, with or without the process's memo); on Low-Middle-High,
    whose queries do not name secrets, it still finds every secret."""
    from agents import ises

    rules = make_rules("Mastermind", pegs=3, colors=5)
    first = Knuth()
    first.reset(rules, seed=1)
    query = first.act()
    ises._decisions.clear()
    again = Knuth()
    again.reset(rules, seed=2)
    assert again.act() == query
    result = evaluate(Knuth(), "LowMiddleHigh-v0", {}, secrets="all", progress=False)
    assert result.solve_rate == 1.0


def test_the_ladder_plays_every_rung_on_every_secret_and_skips_what_it_is_told(tmp_path, capsys):
    """The quick ladder: each deterministic rung's row is its own evaluation over every secret (Knuth's and
    ISES's on Mastermind 3x4: 3.3750 and 3.2500; the marginals rule's), the random rungs carry an interval, a
    skipped cell says so, and a cell that is not one is refused."""
    from train.experiments import ladder

    argv = ["--quick", "--games", "Mastermind-v0", "LowMiddleHigh-v0", "--no-progress", "--workers", "1"]
    finished = ladder.main([*argv, "--skip", "LowMiddleHigh-v0:ISES", "--output", str(tmp_path / "ladder")])
    text = (tmp_path / "ladder" / "ladder.md").read_text()
    knuth = evaluate(Knuth(), "Mastermind-v0", {"pegs": 3, "colors": 4}, secrets="all", progress=False)
    assert f"| Knuth | 64 | {knuth.mean_steps:.4f} | {knuth.worst} | 100.0% |" in text
    assert "| Knuth | 64 | 3.3750 | 4 | 100.0% |" in text and "| ISES | 64 | 3.2500 | 4 | 100.0% |" in text
    assert "| random consistent | 64 | 3.3906 ± " in text  # one draw of the seeds, with its interval
    assert "| ISES | not played (`--skip`) |" in text and finished.run.quick
    assert ("LowMiddleHigh-v0", "ISES") not in finished.results and len(finished.results) == 11  # 2 games x 6 - 1
    rule = evaluate(MarginalRule(), "Mastermind-v0", {"pegs": 3, "colors": 4}, secrets="all", progress=False)
    assert f"| marginals rule | 64 | {rule.mean_steps:.4f} | {rule.worst} |" in text
    with pytest.raises(SystemExit):
        ladder.main([*argv, "--skip", "Mastermind-v0:nobody", "--output", str(tmp_path / "bad")])
    assert "--skip takes GAME:AGENT cells" in capsys.readouterr().err
