"""The evaluation of a chat model (issue 66, item 4), against a local OpenAI-compatible endpoint started here whose
replies come from a text agent: a reference agent through the text layer must reach exactly the agent's own
figures; a text agent that answers badly, an endpoint that fails or is slow, and bad options take every error
path; the key is never written."""

from __future__ import annotations

import json

import pytest

from train.llm.chat import ChatClient, ChatError
from train.llm.endpoint import serve
from train.llm.evaluate import LLMSettings, evaluate_model, main, summary


def test_ises_through_a_chat_endpoint_reaches_its_own_figure_on_every_secret(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-written")
    with serve("Mastermind-v0") as url:
        main(["--base-url", url, "--model", "ises", "--all-secrets", "--output", str(tmp_path), "--no-progress",
              "--workers", "2"])
    table = capsys.readouterr().out
    assert "| ises | 1296 | 100.0% | 4.415 " in table and "| 0.00 | 1.000 |" in table  # 5722 queries, as ISES
    assert "| ISES | 1296 | 100.0% | 4.415 | 0 |" in table
    saved = json.loads((tmp_path / "llm.json").read_text())
    assert sum(game["queries"] for game in saved["games"]) == 5722 and saved["summary"]["errors"] == 0
    written = [path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()]
    assert len(written) > 1296 and not any(b"sk-never-written" in data for data in written)


def test_bad_replies_are_counted_never_played_and_end_games(tmp_path):
    with serve("Mastermind-v0") as url:
        records = evaluate_model(LLMSettings(url, "bad", "Mastermind-v0", max_invalid=3), 6, 0, 1, tmp_path,
                                 progress=False)  # fmt: skip
    assert all(r.error is None and r.invalid <= 3 for r in records)
    assert {r.invalid for r in records} == {3} and not any(r.solved for r in records)  # 3 bad replies end each
    assert all(r.queries >= 1 for r in records)  # the good replies among the bad were played
    figures = summary(records, max_steps=12)
    assert figures["queries"] == 12 and figures["invalid"] == 3 and figures["solved"] == 0


def test_endpoint_failures_are_retried_a_bounded_number_of_times_and_reported(tmp_path):
    with serve("Mastermind-v0", fail_every=2) as url:  # every other call is an HTTP 503
        records = evaluate_model(LLMSettings(url, "ises", "Mastermind-v0", backoff=0), 3, 0, 1, tmp_path / "a",
                                 progress=False)  # fmt: skip
    assert all(r.error is None and r.solved for r in records) and sum(r.retried for r in records) > 0
    with serve("Mastermind-v0", fail_every=1) as url:  # every call fails
        (record,) = evaluate_model(LLMSettings(url, "ises", "Mastermind-v0", retries=2, backoff=0), 1, 0, 1,
                                   tmp_path / "b", progress=False)  # fmt: skip
        assert record.retried == 2 and "gave no reply in 3 tries; the last: HTTP 503" in record.error
        with pytest.raises(ChatError, match=r"answered HTTP 404: .*no model 'gpt-9'"):
            ChatClient(url, "gpt-9", retries=0).reply([{"role": "user", "content": "hi"}])
    with serve("Mastermind-v0", delay=1.0) as url:
        with pytest.raises(ChatError, match=r"no whole reply within 0\.2 s"):
            ChatClient(url, "ises", timeout=0.2, retries=1, backoff=0).reply([{"role": "user", "content": "x"}])
    with pytest.raises(ChatError, match="ConnectionError"):
        ChatClient("http://127.0.0.1:1/v1", "ises", retries=0).reply([])
    assert summary([*records, record], 12)["errors"] == 1


def test_a_finished_evaluation_is_kept_and_not_played_again(tmp_path):
    with serve("Mastermind-v0") as url:
        first = evaluate_model(LLMSettings(url, "ises", "Mastermind-v0"), 4, 7, 1, tmp_path, progress=False)
    again = evaluate_model(LLMSettings(url, "ises", "Mastermind-v0"), 4, 7, 1, tmp_path, progress=False)
    assert again == first  # the endpoint is gone: every game came from the store


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--base-url", "ftp://x", "--model", "m"], "base_url must be an http:// or https:// URL"),
        (["--base-url", "http://x/v1", "--model", " "], "model must be a model's name"),
        (["--base-url", "http://x/v1", "--model", "m", "--games", "0"], "--games"),
        (["--base-url", "http://x/v1", "--model", "m", "--games", "3", "--all-secrets"], "not allowed with"),
        (["--model", "m"], "--base-url"),
    ],
)
def test_bad_options_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert message in capsys.readouterr().err


def test_a_model_in_one_seat_of_each_multiplayer_game_beside_the_references_on_the_same_deals(tmp_path, capsys):
    from dataclasses import asdict

    from train.llm.multiplayer import MODEL, TableSettings, play_seat

    for env, sizes in [("algo_v0", {"players": 2}), ("generalized_clue_v0", {"cards": 8, "players": 3})]:
        with serve(env, sizes) as url:
            main(["--base-url", url, "--model", "random", "--env", env, *(f"--size={k}={v}" for k, v in sizes.items()),
                  "--games", "4", "--references", "random,max_entropy" if env == "algo_v0" else "random,scoreboard",
                  "--output", str(tmp_path / env), "--no-progress"])  # fmt: skip
        table = capsys.readouterr().out
        assert "| random (the model) | 4 | " in table and "| 0.00 | 0 |" in table  # legal replies only
        saved = json.loads((tmp_path / env / "llm.json").read_text())
        seats = {(game["player"], game["game"]): game["seat"] for game in saved["games"]}
        assert {seats[MODEL, g] for g in range(4)} == {g % sizes["players"] for g in range(4)}  # rotated
        assert all(seats[player, g] == seats[MODEL, g] for player, g in seats)  # the references in the same seats
        assert all(game["bits"] and 0 <= game["efficiency"] <= 1 for game in saved["games"])
    # the references' games do not depend on the model: the same deals and seeds played again are the same games
    settings = TableSettings(LLMSettings("http://127.0.0.1:1/v1", "unused", "algo_v0"), (("players", 2),),
                             ("epsilon_greedy",), ("max_entropy",))  # fmt: skip
    again = [json.loads(json.dumps(asdict(play_seat((g, "max_entropy"), settings, 0)))) for g in range(4)]
    first = json.loads((tmp_path / "algo_v0" / "llm.json").read_text())["games"]
    assert again == [g for g in first if g["player"] == "max_entropy"] and again


def test_bad_replies_in_a_seat_are_bounded_and_a_forfeit_scores_last_place(tmp_path):
    from train.llm.multiplayer import MODEL, TableSettings, evaluate_table

    with serve("clue_v0", {"players": 3}) as url:
        settings = TableSettings(LLMSettings(url, "random_bad", "clue_v0", max_invalid=3), (("players", 3),),
                                 ("deduction_sheet",), ())  # fmt: skip
        records = evaluate_table(settings, 3, 0, 1, tmp_path, progress=False)
    model = [r for r in records if r.player == MODEL]
    assert len(model) == 3 and all(r.error is None and r.invalid <= 3 for r in model)
    assert all(r.reward == -0.5 and not r.won for r in model if r.forfeit) and any(r.forfeit for r in model)


def test_multiplayer_options_are_checked(capsys):
    for argv, message in [
        (["--env", "clue_v0", "--all-secrets"], "--all-secrets is for the single-player games"),
        (["--env", "Mastermind-v0", "--opponents", "random"], "--opponents and --references are for the multiplayer"),
        (["--env", "clue_v0", "--opponents", "knuth"], "clue_v0's agents are random, deduction_sheet"),
        (["--env", "chess_v0"], "--env is one of Mastermind-v0"),
    ]:
        with pytest.raises(SystemExit):
            main(["--base-url", "http://127.0.0.1:1/v1", "--model", "m", *argv])
        assert message in capsys.readouterr().err


@pytest.mark.parametrize(("env", "sizes"), [("clue_v0", {"players": 3}), ("generalized_clue_v0", {}),
                                            ("algo_v0", {"players": 3})])  # fmt: skip
def test_the_endpoints_random_seat_reads_every_legal_move_from_the_text_alone(env, sizes):
    from deduction_envs import registry
    from deduction_envs.text import TextAECEnv
    from train.llm.endpoint import RandomSeatText

    player = RandomSeatText(seed=1)
    for seed in range(2):
        text = TextAECEnv(registry.game(env).make_env(**sizes), max_invalid=1)
        text.reset(seed=seed)
        raw, replies = text.unwrapped, 0
        for agent in text.agent_iter():
            _, _, terminated, truncated, _ = text.last(observe=False)
            if terminated or truncated:
                text.step(None)
                continue
            text.step(player.reply(text.prompt(agent), text.observe(agent)))
            replies += 1
        assert text.invalid_replies == 0 and raw.table.over and replies > 3  # one bad reply would have ended it


def test_a_reply_that_trickles_in_is_cut_off_at_the_timeout():
    """``--timeout`` bounds the whole reply: a server that sends a byte every 0.1 s (each wait far below the
    timeout) used to hold a call for as long as it kept dripping."""
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Dripping(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(1000):
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.1)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Dripping)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        began = time.monotonic()
        with pytest.raises(ChatError, match=r"no whole reply within 1 s"):
            ChatClient(f"http://127.0.0.1:{server.server_port}/v1", "m", timeout=1.0, retries=0).reply([])
        assert time.monotonic() - began < 10  # the reply would have taken 100 s
    finally:
        server.shutdown()
        server.server_close()


def test_failed_games_are_played_again_by_the_same_command_which_says_they_failed(tmp_path, capsys):
    """Games stopped by the endpoint's errors were kept as done: the same command made no call again, exited 0, and
    wrote NaN into llm.json."""
    argv = ["--model", "ises", "--games", "2", "--retries", "0", "--output", str(tmp_path), "--no-progress"]
    with serve("Mastermind-v0", fail_every=1) as url:
        assert main(["--base-url", url, *argv]) == 1
    failed = json.loads((tmp_path / "llm.json").read_text(), parse_constant=lambda name: pytest.fail(name))
    assert failed["summary"]["errors"] == 2 and failed["summary"]["solved"] is None
    assert "run the same command again" in capsys.readouterr().err
    with serve("Mastermind-v0") as url:
        assert main(["--base-url", url, *argv]) == 0
    out = capsys.readouterr().out
    assert f"written to {tmp_path / 'llm.md'}" in out
    assert json.loads((tmp_path / "llm.json").read_text())["summary"]["errors"] == 0


def test_the_endpoint_answers_bad_requests_as_openai_does_never_with_a_500():
    """Each of these was a 500 and a traceback (or read a 200 MB body whole): now a 4xx with a message. And GET
    /v1/models lists its agents, ``n`` gives that many choices, ``usage`` counts (words)."""
    import requests

    from train.llm.endpoint import MAX_BODY

    ask = {"model": "ises", "messages": [{"role": "user", "content": "Mastermind: 0 of at most 12 queries asked."}]}
    with serve("Mastermind-v0") as url:
        post = f"{url}/chat/completions"
        cases = [
            ({**ask, "stream": True, "stream_options": "yes"}, 400, "'stream_options' must be an object"),
            ({**ask, "model": ["ises"]}, 400, "'model' must be a model's name"),
            ({**ask, "messages": []}, 400, "'messages' must be a non-empty list"),
            ({**ask, "messages": [{"role": "user", "content": 7}]}, 400, "messages[0] must have"),
            ({**ask, "n": 0}, 400, "'n' must be an integer from 1 to 8"),
            ({**ask, "model": "gpt-9"}, 404, "no model 'gpt-9'"),
        ]
        for body, status, message in cases:
            response = requests.post(post, json=body, timeout=30)
            assert response.status_code == status and message in response.json()["error"]["message"], body
        for raw, message in ((b"[" * 100_000, "nests too deeply"), (b"{", "not JSON")):
            response = requests.post(post, data=raw, headers={"Content-Type": "application/json"}, timeout=30)
            assert response.status_code == 400 and message in response.json()["error"]["message"]
        response = requests.post(post, data=b" " * (MAX_BODY + 1), timeout=30)
        assert response.status_code == 413 and "larger than" in response.json()["error"]["message"]
        listed = requests.get(f"{url}/models", timeout=30).json()
        assert [model["id"] for model in listed["data"]] == ["ises", "random_consistent", "bad"]
        answered = requests.post(post, json={**ask, "n": 2}, timeout=30).json()
        assert [choice["index"] for choice in answered["choices"]] == [0, 1]
        assert answered["usage"]["prompt_tokens"] == 8 and answered["usage"]["completion_tokens"] > 0
    with serve("algo_v0") as url:
        chat = [{"role": "system", "content": "no rules"}, {"role": "user", "content": "hi"}]
        response = requests.post(f"{url}/chat/completions", json={"model": "random", "messages": chat}, timeout=30)
        assert response.status_code == 400 and "is not this endpoint's game" in response.json()["error"]["message"]


def test_the_random_seat_never_stops_where_the_refusal_of_its_last_reply_names_stop():
    """After a refused reply the note lists every kind of move, 'stop' too; the random seat read it as allowed and
    answered 'stop' where it was not (12 of 20)."""
    from deduction_envs import registry
    from deduction_envs.text import TextAECEnv
    from train.llm.endpoint import RandomSeatText

    text = TextAECEnv(registry.game("algo_v0").make_env(players=2), max_invalid=100)
    text.reset(seed=0)
    agent = text.agent_selection
    text.step("Answer: nonsense")  # refused: the note names 'stop'
    observation = text.observe(agent)
    assert "'stop'" in observation and "'stop'" not in observation.strip().splitlines()[-1]
    player = RandomSeatText(seed=0)
    assert all(player.move(text.prompt(agent), observation) != "stop" for _ in range(40))


def test_a_model_plays_clue_on_its_board_beside_the_references(tmp_path, capsys):
    """Clue on the board was refused by the text layer; now a model's seat plays it (rolls, moves on the board it
    is shown, suggests in the room it entered), every reply legal, beside a reference agent in the same seats."""
    with serve("clue_v0", {"players": 3, "board": True}) as url:
        main(["--base-url", url, "--model", "random", "--env", "clue_v0", "--size", "players=3", "--size",
              "board=true", "--games", "3", "--references", "random", "--output", str(tmp_path), "--no-progress"])
    table = capsys.readouterr().out
    assert "| random (the model) | 3 | " in table and "| 0.00 | 0 |" in table  # legal replies only
    saved = json.loads((tmp_path / "llm.json").read_text())
    assert ["board", True] in saved["settings"]["sizes"] and len(saved["games"]) == 6
    assert any(game["bits"] for game in saved["games"] if game["player"] == "model")  # it suggested, scored
