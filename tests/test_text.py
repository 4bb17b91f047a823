"""The text layer (issue 66): every single-player game as a prompt, an observation and a reader of replies.

A text agent that answers with ISES's query plays exactly as ISES (Mastermind 4x6: 5722 queries over the 1296
secrets, 4.415 a game); replies of any form, length, encoding or content get a bounded, clear outcome and never
play an action outside the mask; the wrapped envs pass Gymnasium's checker."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import ISES
from deduction_envs import registry
from deduction_envs.text import TAIL, ReplyError, TextEnv, answer_of

SINGLE = [game.env_id for game in registry.games(multiplayer=False)]


def test_ises_through_the_text_plays_exactly_as_ises_on_every_secret_of_mastermind():
    env = TextEnv(gym.make("Mastermind-v0"))
    rules, agent, total = env.unwrapped.rules, ISES(), 0
    for secret in range(rules.num_secrets):
        env.reset(options={"secret": secret})
        agent.reset(rules)
        over = False
        while not over:
            query = agent.act()
            _, _, terminated, truncated, info = env.step(f"Thinking...\n<answer>{rules.format_action(query)}</answer>")
            assert "invalid" not in info and info["query"] == rules.format_action(query)
            agent.observe(query, info["feedback"])
            total, over = total + 1, terminated or truncated
            gained, expected, best = info["bits"]
            assert expected == pytest.approx(best, abs=1e-9) and gained >= 0  # ISES asks the best question
        assert info["efficiency"] == pytest.approx(1.0)
    assert total == 5722 and round(total / rules.num_secrets, 3) == 4.415  # Neuwirth (1982)


def test_a_question_is_weighed_against_the_best_from_the_same_knowledge_and_the_rewards_are_built_from_it():
    """By hand on Treasure Hunt 4x4 (16 cells, a query is a rectangle, the answer inside or outside): the first
    query A1:A1 (one cell) is expected to gain H(1/16) = 0.337 bits, the best (half the board) 1 bit."""
    env = TextEnv(gym.make("TreasureHunt-v0"), reward="efficiency")
    env.reset(options={"secret": 15})
    _, reward, _, _, info = env.step("A1:A1")
    gained, expected, best = info["bits"]
    h = -(1 / 16) * np.log2(1 / 16) - (15 / 16) * np.log2(15 / 16)
    assert gained == pytest.approx(4 - np.log2(15)) and expected == pytest.approx(h) and best == pytest.approx(1.0)
    assert reward == pytest.approx(h) and info["efficiency"] == pytest.approx(h)
    _, reward, _, _, info = env.step("A1:D2")  # half of the board: the best there is, 1 bit of 15 cells' 3.9
    assert info["bits"][1] == pytest.approx(info["bits"][2]) and reward == pytest.approx(1.0)
    assert info["efficiency"] == pytest.approx((h + info["bits"][1]) / (1 + info["bits"][2]))
    bits = TextEnv(gym.make("TreasureHunt-v0"), reward="bits")
    bits.reset(seed=0)
    assert bits.step("A1:A1")[1] == pytest.approx(h)
    plain = TextEnv(gym.make("TreasureHunt-v0"), score=False)
    plain.reset(seed=0)
    _, reward, _, _, info = plain.step("A1:A1")
    assert reward == -1 and "bits" not in info and "efficiency" not in info
    for kwargs, message in [({"reward": "wins"}, "reward must be one of queries, bits, efficiency"),
                            ({"reward": "bits", "score": False}, "needs score=True"),
                            ({"score": "yes"}, "score must be True or False"),
                            ({"invalid_reward": float("nan")}, "invalid_reward must be a finite number")]:  # fmt: skip
        with pytest.raises(ValueError, match=message):
            TextEnv(gym.make("TreasureHunt-v0"), **kwargs)


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ("ABCD", "ABCD"),
        ("I will try a mix of colours.\n\nAnswer: ABCD", "ABCD"),
        ("Final answer: **ABCD**.", "ABCD"),
        ("My guess = `ABCD`", "ABCD"),
        ("<answer> ABCD </answer>\nthat is my query", "ABCD"),
        ("<ANSWER>AAAA</ANSWER> no, better <answer>ABCD</answer>", "ABCD"),
        ("Answer: AAAA\nOn reflection:\nAnswer: ABCD", "ABCD"),
        ("Let me think.\n'ABCD'\n\n", "ABCD"),
        ("<answer>ABCD", "ABCD"),  # a tag left open
        ("x" * 100_000 + "\nAnswer: ABCD", "ABCD"),  # only the tail is read
        (b"Answer: ABCD", "ABCD"),
        ("Query:\tABCD\x00", "ABCD"),
    ],
)
def test_the_answer_is_found_in_the_reasonable_forms_of_a_reply(reply, answer):
    assert answer_of(reply) == answer


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("", "the reply was empty"),
        ("  \n\t ", "the reply was empty"),
        (None, "a reply is text, got NoneType"),
        (42, "a reply is text, got int"),
        ("<answer></answer>", "the answer was empty"),
        ("Answer: " + "A" * 300, "the answer is 300 characters long"),
    ],
)
def test_a_reply_with_no_answer_says_why(reply, message):
    with pytest.raises(ReplyError, match=message):
        answer_of(reply)


def test_every_bad_reply_is_explained_not_played_and_too_many_end_the_game():
    env = TextEnv(gym.make("Mastermind-v0", action_mask="consistent"), max_invalid=4)
    env.reset(seed=3)
    observation, reward, _, _, info = env.step("Answer: ABCD")
    assert info["query"] == "ABCD" and "1. ABCD -> black" in observation and reward == -1
    history = env.unwrapped.history
    for reply, message in [
        ("Answer: ABCD", "you asked 'ABCD' already (its answer was 'black"),
        ("Answer: ZZZZ", "'ZZZZ' is not a query: a code is 4 symbols from 'ABCDEF'"),
        ("Answer: " + env.unwrapped.rules.format_action(_inconsistent(env)), "is not a legal query now"),
    ]:
        observation, reward, terminated, truncated, info = env.step(reply)
        assert message in info["invalid"] and f"Your last reply was not played: {info['invalid']}" in observation
        assert (reward, terminated, truncated) == (-1.0, False, False) and env.unwrapped.history == history
    observation, _, terminated, truncated, info = env.step("\xff\u2603")
    assert truncated and not terminated and info["invalid_replies"] == 4 and env.unwrapped.history == history
    assert "4 replies were not a query, the most a game allows" in observation and observation in env.observation_space
    with pytest.raises(RuntimeError, match="the game is over"):
        env.step("ABCD")


def _inconsistent(env: TextEnv) -> int:
    return int(np.flatnonzero(~env.unwrapped.action_masks())[0])


@pytest.mark.parametrize("env_id", SINGLE)
def test_every_single_player_game_reads_back_its_own_notation_and_passes_gymnasiums_checker(env_id):
    env = TextEnv(gym.make(env_id))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*different from the unwrapped")
        check_env(env, skip_render_check=True)
    observation, info = env.reset(seed=0)
    assert info["prompt"] == env.prompt and "Rules:" in env.prompt and "<answer>QUERY</answer>" in env.prompt
    assert observation in env.observation_space and observation.endswith("Your next query?")
    rng = np.random.default_rng(0)
    over = False
    while not over:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        fresh = legal[~np.isin(legal, [a for a, _ in env.unwrapped.history])]
        query = int(rng.choice(fresh))
        observation, _, terminated, truncated, info = env.step(f"I pick\n{env.text.action_text(query)}")
        assert "invalid" not in info and env.unwrapped.history[-1][0] == query  # the notation reads back
        assert observation in env.observation_space
        assert env.text.history_of(observation) == list(env.unwrapped.history)  # and so does the whole game
        over = terminated or truncated
    assert "The game is over" in observation
    with pytest.raises(ValueError, match="not a line of this game's history"):
        env.text.history_of("1. " + env.text.action_text(0) + " -> no such answer")


@pytest.mark.parametrize("env_id", SINGLE)
def test_an_observation_stays_in_its_space_whatever_the_replies(env_id):
    """A reply of 200 emoji left the declared Text space in 7 of the 8 games (each escaped to ten characters, quoted
    twice in the message), and a control character left its charset."""
    env = TextEnv(gym.make(env_id), max_invalid=100)
    env.reset(seed=0)
    query = env.text.action_text(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    emoji = "\U0001f600"
    for reply in (emoji * 200, "Answer: " + emoji * 150, f"Answer: {query}\x00\x07",
                  "Answer: " + "\x1b[31m" * 20, f"<answer>{query}</answer>", f"Answer: {query}\u2603" * 40,
                  "Answer: " + "Z" * 199):  # fmt: skip
        observation, *_ = env.step(reply)
        assert observation in env.observation_space, (reply[:20], len(observation))


@settings(max_examples=150, deadline=None)
@given(reply=st.one_of(st.text(max_size=300), st.binary(max_size=300),
                       st.text(alphabet="ABCDEFG <>/answer:\n", max_size=40)))  # fmt: skip
def test_any_reply_gets_a_clear_outcome_and_never_an_action_outside_the_mask(reply):
    env = TextEnv(gym.make("Mastermind-v0", action_mask="consistent"), max_invalid=3)
    env.reset(seed=1)
    env.step("ABCD")
    legal = env.unwrapped.action_masks()
    before = len(env.unwrapped.history)
    observation, _, _, _, info = env.step(reply)
    assert observation in env.observation_space
    if "invalid" in info:
        assert info["invalid"] and len(env.unwrapped.history) == before
    else:
        played = env.unwrapped.history[-1][0]
        assert legal[played] and played != env.unwrapped.history[0][0]


def test_only_a_single_player_env_is_wrapped_and_the_bound_is_checked():
    with pytest.raises(TypeError, match="TextEnv wraps a single-player deduction env, got CartPoleEnv"):
        TextEnv(gym.make("CartPole-v1"))
    with pytest.raises(ValueError, match="max_invalid"):
        TextEnv(gym.make("Mastermind-v0"), max_invalid=0)
    assert TAIL >= 1000


def test_the_language_model_page_shows_the_prompt_as_it_is_and_its_example_runs(capsys):
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "llm.md").read_text()
    (shown,) = re.findall(r"```text\n(.+?)\n```", page, flags=re.S)
    assert shown == TextEnv(gym.make("Mastermind-v0")).prompt
    python = re.findall(r"```python\n(.+?)\n```", page, flags=re.S)
    (example,) = [code for code in python if "TextEnv(gym.make(" in code]
    exec(compile(example, "docs/llm.md", "exec"), {})
    out = capsys.readouterr().out
    assert "1. AABB -> black" in out and "'ZZZZ' is not a query" in out


@pytest.mark.parametrize("env_id", SINGLE)
def test_every_prompt_spells_out_its_games_notation_and_its_example_query_reads(env_id):
    import re

    env = TextEnv(gym.make(env_id))
    rules = env.unwrapped.rules
    notation = rules.notation()
    assert notation and notation in env.prompt
    example = re.search(r"e\.g\. '([^']+)'", notation)[1]
    rules.parse_action(example)  # the example of a query is one


def test_the_rules_text_writes_this_games_sizes_where_they_count_something():
    from deduction_envs.envs import algo_v0, generalized_clue_v0
    from deduction_envs.text import TextAECEnv
    from deduction_envs.text.single import plain_text

    assert "There are 9 coins, numbered from 1." in TextEnv(gym.make("FakeCoin-v0", coins=9)).prompt
    assert "BullsAndCows (4 distinct symbols out of 10)" in TextEnv(gym.make("BullsAndCows-v0")).prompt
    assert "Mastermind (pegs x colors, repeats allowed)" in TextEnv(gym.make("Mastermind-v0")).prompt
    gc = TextAECEnv(generalized_clue_v0.env(cards=10, hidden=3))
    assert "Deal. 10 cards of one kind; 3 of them go to the case" in gc.prompt("player_0")
    assert "(numbers is a\n  size parameter, default 12)" in TextAECEnv(algo_v0.env()).prompt("player_0")
    assert plain_text("``n`` = 3 and ``n`` cards", {"n": 5}) == "n = 3 and 5 cards"


def test_each_prompt_describes_its_own_game_only_names_no_code_and_says_the_seat_order():
    """Mastermind's and Simple Mastermind's rules described Bulls and Cows too; Clue's named
    ClueRules.allowed_rooms, Generalized Clue's deal_sizes and GeneralizedClueRules.asks_to_certainty, Black Box's
    info["secret_known"]; no multiplayer prompt said which seats are to a mover's left; Black Box's cells were
    named like its edge positions (cell B2, edge position "exit at B2")."""
    import re

    from deduction_envs.text import TextAECEnv

    others = {"Mastermind-v0": ("SimpleMastermind", "BullsAndCows"), "SimpleMastermind-v0": ("BullsAndCows",
              "(black, white). Classic"), "BullsAndCows-v0": ("SimpleMastermind", "repeats allowed")}  # fmt: skip
    # (Mastermind's formula, white = sum_s min(count_guess(s), count_secret(s)) - black, is mathematics, not code.)
    code = re.compile(r"\b[A-Z]\w*Rules\b|\b[A-Z]\w*\.[a-z_]{2,}|\b(?!sum_s\b|count_)[a-z]+_[a-z_]+\b|info\[|:[a-z]+:`")
    for game in registry.games():
        if game.multiplayer:
            text = TextAECEnv(game.make_env())
            text.reset(seed=0)
            prompt = text.prompt(text.possible_agents[0])
            players = text.unwrapped.rules.players
            assert f"Seats take turns in the order {', '.join(f'P{i}' for i in range(players))}, then P0" in prompt
        else:
            prompt = TextEnv(gym.make(game.env_id)).prompt
        assert not code.findall(prompt), (game.env_id, code.findall(prompt))
        assert not any(other in prompt for other in others.get(game.env_id, ())), game.env_id
    prompt = TextEnv(gym.make("BlackBox-v0")).prompt
    assert "column 3, row 2" in prompt and not re.search(r"(?<!exit )\b(?:at|in) [A-E][1-5]\b", prompt)
