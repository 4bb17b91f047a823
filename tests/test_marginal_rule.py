"""The marginals rule (agents.MarginalRule) against a plain count over the codes still possible."""

from __future__ import annotations

import pytest

from agents import MarginalRule
from deduction_envs.games import make_rules


def _plain_choice(rules, codes_left, asked):
    """The query whose pegs' colours are the likeliest, by counting the codes still possible peg by peg."""
    best, best_score = None, -1.0
    for query in range(rules.num_actions):
        if query in asked:
            continue
        colours = rules.code_of(query)
        score = sum(sum(rules.code_of(s)[p] == c for s in codes_left) for p, c in enumerate(colours))
        score /= len(codes_left)
        if score > best_score + 1e-12:
            best, best_score = query, score
    return best


@pytest.mark.parametrize(("pegs", "colors"), [(2, 3), (3, 3)])
def test_it_plays_every_secret_as_a_plain_count_does(pegs, colors):
    rules = make_rules("Mastermind-v0", pegs=pegs, colors=colors)
    agent = MarginalRule()
    for secret in range(rules.num_secrets):
        agent.reset(rules)
        left, asked = list(range(rules.num_secrets)), []
        for _ in range(12):
            query = agent.act()
            assert query == _plain_choice(rules, left, asked)
            feedback = int(rules.feedback(query, secret))
            if query == secret:
                break
            agent.observe(query, feedback)
            asked.append(query)
            left = [s for s in left if int(rules.feedback(query, s)) == feedback]


def test_its_first_query_and_the_games_without_such_a_rule():
    """At the start every colour is equally likely, so the first query is the first code; a game whose queries
    name no values of the secret's components is refused."""
    rules = make_rules("Mastermind-v0", pegs=4, colors=6)
    agent = MarginalRule()
    agent.reset(rules)
    assert agent.act() == 0
    with pytest.raises(ValueError, match="no marginal pointers"):
        MarginalRule().reset(make_rules("FakeCoin-v0"))
