"""The framework adapters (issue 66, item 2), tested against the frameworks' own packages from PyPI: the games as
an OpenEnv server played through OpenEnv's GenericEnvClient, and as a verifiers environment evaluated by
verifiers' own ``vf-eval`` against a local chat endpoint. A reference agent played through either reaches its own
figures on the same games."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agents import ISES
from agents.evaluation import episode_plan, play_episodes
from train.llm.endpoint import RandomSeatText, serve, text_agent

ISES_QUERIES = play_episodes(ISES(), "Mastermind-v0", {}, episode_plan(3, "sample", 0))[0]


def test_ises_through_openenvs_own_client_reaches_its_own_figures_and_bad_replies_are_explained():
    from openenv import GenericEnvClient

    from train.llm.openenv_server import serve as serve_openenv

    agent = text_agent("ises", "Mastermind-v0")
    with serve_openenv("Mastermind-v0") as url, GenericEnvClient(base_url=url).sync() as env:
        for game, queries in enumerate(ISES_QUERIES):
            result = env.reset(game=game, seed=0)
            assert "find the hidden secret" in result.observation["prompt"] and not result.done
            rewards = []
            while not result.done:
                result = env.step({"reply": agent.reply(result.observation["text"])})
                rewards.append(result.reward)
            outcome = result.observation["outcome"]
            assert outcome["solved"] and outcome["queries"] == queries and outcome["efficiency"] == pytest.approx(1)
            assert rewards == [-1.0] * queries  # the env's reward: -1 a query
        result = env.reset(game=0)
        result = env.step({"reply": "I think it is red."})
        assert result.reward == -1.0 and not result.done
        assert "Your last reply was not played: 'I think it is red' is not a query" in result.observation["text"]


def test_a_seat_of_clue_through_openenv_against_the_reference_agents():
    from openenv import GenericEnvClient

    from train.llm.openenv_server import serve as serve_openenv

    player = RandomSeatText(seed=3)
    with serve_openenv("clue_v0", {"players": 3}, opponents=["deduction_sheet"]) as url:
        with GenericEnvClient(base_url=url).sync() as env:
            for game in range(3):
                result = env.reset(game=game, seed=1)
                prompt, total = result.observation["prompt"], 0.0
                assert f"you are P{game % 3}" in prompt
                while not result.done:
                    result = env.step({"reply": player.reply(prompt, result.observation["text"])})
                    total += result.reward
                outcome = result.observation["outcome"]
                assert outcome["seat"] == game % 3 and outcome["invalid"] == 0 and outcome["bits"]
                assert total == outcome["reward"] and outcome["reward"] in (1.0, -0.5)


def test_the_openenv_server_refuses_bad_settings_clearly():
    from train.llm.openenv_env import DeductionEnvironment
    from train.llm.openenv_server import app

    with pytest.raises(ValueError, match="unknown game 'chess_v0'; the games are Mastermind-v0"):
        app("chess_v0")
    env = DeductionEnvironment("Mastermind-v0")
    with pytest.raises(ValueError, match="reset takes seed, episode_id, game and secret, got colour"):
        env.reset(colour=3)
    with pytest.raises(ValueError, match="game"):
        env.reset(game=-1)
    with pytest.raises(ValueError, match="no game in progress: reset"):
        DeductionEnvironment("clue_v0").step(None)  # type: ignore[arg-type]
    # Checked at start: it served, then failed every reset.
    with pytest.raises(ValueError, match=r"clue_v0's agents are .*, got nobody"):
        app("clue_v0", opponents=["nobody"])


def test_the_openenv_server_answers_a_refused_request_with_a_4xx_and_a_closed_session_quietly(caplog):
    """A refused reset was a 500 with a traceback; each client that hung up logged two tracebacks."""
    import logging

    import requests
    from openenv import GenericEnvClient

    from train.llm.openenv_server import serve as serve_openenv

    with caplog.at_level(logging.WARNING), serve_openenv("Mastermind-v0", {"pegs": 2, "colors": 3}) as url:
        for path, body, status, message in (
            ("reset", {"game": -1}, 400, "game must be an integer >= 0"),
            ("reset", {"colour": 3}, 400, "reset takes seed, episode_id, game and secret"),
            ("step", {"action": {"reply": "AB"}}, 409, "no game in progress"),
        ):
            response = requests.post(f"{url}/{path}", json=body, timeout=30)
            assert response.status_code == status and message in response.json()["detail"], path
        for _ in range(2):
            with GenericEnvClient(base_url=url).sync() as env:
                env.reset(game=0, seed=0)
        time.sleep(0.5)  # the server's side of the closed sessions
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


def vf_eval(tmp_path: Path, env_id: str, sizes: dict, model: str, *options: str) -> tuple[subprocess.Popen, Any]:
    """``vf-eval deduction-verifiers`` on ``env_id`` against a local endpoint answering as ``model``, started;
    the process and the endpoint (a context to leave once it is done)."""
    endpoint = serve(env_id, sizes)
    url = endpoint.__enter__()
    process = subprocess.Popen(
        [sys.executable, "-c", "from verifiers.v1.cli.eval.main import main; main()", "deduction-verifiers",
         "-m", model, "--client.base-url", url, "--no-push", "--no-rich", "--env.player.runtime.type", "subprocess",
         "-o", str(tmp_path), "--env.taskset.game", env_id, "--env.taskset.sizes", json.dumps(sizes), *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**os.environ, "OPENAI_API_KEY": "unused"},
    )  # fmt: skip
    return process, endpoint


def traces_of(tmp_path: Path, process: subprocess.Popen, endpoint: Any) -> list[dict]:
    """Each episode's first trace (its task's name, rewards, metrics) once ``process`` has ended."""
    try:
        _, err = process.communicate(timeout=600)
    finally:
        endpoint.__exit__(None, None, None)
    assert process.returncode == 0, err[-3000:]
    (traces,) = tmp_path.glob("*/traces.jsonl")
    episodes = [json.loads(line) for line in traces.read_text().splitlines()]
    assert all(not e["errors"] for e in episodes)
    return sorted(({"name": e["task"]["data"]["name"], **e["traces"][0]} for e in episodes), key=lambda t: t["name"])


def test_verifiers_own_eval_plays_ises_to_its_own_figures_and_a_seat_to_a_forfeit(tmp_path):
    """Two ``vf-eval`` runs at once (verifiers relaunches its chat harness every turn, about a second each): ISES
    on three Mastermind games, and a Generalized Clue seat answering badly now and then (two bad replies end it)."""
    ises = vf_eval(tmp_path / "ises", "Mastermind-v0", {}, "ises", "--env.taskset.games", "3")
    seat = vf_eval(tmp_path / "seat", "generalized_clue_v0", {"cards": 8}, "random_bad", "--env.taskset.games", "1",
                   "--env.taskset.max-invalid", "2")  # fmt: skip
    traces = traces_of(tmp_path / "ises", *ises)
    assert [t["name"] for t in traces] == [f"Mastermind-v0#{i}" for i in range(3)]
    assert [t["rewards"]["solved"]["score"] for t in traces] == [1.0] * 3
    assert [t["metrics"]["queries"] for t in traces] == ISES_QUERIES
    assert all(t["rewards"]["efficiency"]["score"] == pytest.approx(1) for t in traces)
    assert all(t["metrics"]["invalid_replies"] == 0 for t in traces)
    (trace,) = traces_of(tmp_path / "seat", *seat)
    reward, metrics = trace["rewards"]["game"]["score"], trace["metrics"]
    assert -1.0 <= reward <= 1.0 and 0 < metrics["invalid_replies"] <= 2
    assert (reward == -1.0) if metrics["forfeit"] else metrics["invalid_replies"] < 2  # a forfeit: last place
    assert metrics["bits_expected"] <= metrics["bits_best"] + 1e-9
