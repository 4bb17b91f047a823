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
        with pytest.raises(ChatError, match=r"no reply within 0.2 s"):
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
        (["--base-url", "http://x/v1", "--model", "m", "--env", "algo_v0"], "--env is a single-player env id"),
        (["--base-url", "http://x/v1", "--model", "m", "--games", "0"], "--games"),
        (["--base-url", "http://x/v1", "--model", "m", "--games", "3", "--all-secrets"], "not allowed with"),
        (["--model", "m"], "--base-url"),
    ],
)
def test_bad_options_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert message in capsys.readouterr().err
