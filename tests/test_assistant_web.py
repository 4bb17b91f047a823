"""The assistant's web page (``clue-assistant --web``), through Starlette's test client: the sheet in its
categories, entries typed and picked, refusals that change nothing, undo, one game for every browser, entries
written to the log before they are acknowledged and none lost when browsers enter at once."""

from __future__ import annotations

import json
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from starlette.testclient import TestClient

from train.tools.assistant import ClueSession
from train.tools.assistant.web import create_app

PLAYERS = ["Ann", "Bill", "Cy", "Dee"]
HAND = ["scar", "must", "knife", "kitchen", "ballroom"]


def game(tmp_path) -> tuple[ClueSession, TestClient]:
    session = ClueSession(PLAYERS, "ann", HAND, path=tmp_path / "game.json")
    return session, TestClient(create_app(session))


def said(page: str) -> str:
    match = re.search(r'<p id="said" class="(\w+)">(.*?)</p>', page, re.S)
    return "" if match is None else f"{match[1]}: {match[2]}"


def logged(tmp_path) -> list[dict]:
    return json.loads((tmp_path / "game.json").read_text())["entries"]


def test_the_page_shows_the_sheet_by_category_and_fetches_nothing_from_elsewhere(tmp_path):
    _, client = game(tmp_path)
    page = client.get("/").text
    assert [m for m in re.findall(r'<tr class="category"><th colspan="6">(\w+)</th>', page)] == [
        "Suspects", "Weapons", "Rooms"]  # fmt: skip
    assert len(re.findall(r'<th class="card" scope="row">', page)) == 21
    assert '<th class="card" scope="row">Miss Scarlet</th><td class="held"' in page  # my own card: marked held
    assert not re.search(r"(?:src|href)=\"(?:https?:)?//", page)  # no asset from another host
    assert client.get("/static/style.css").status_code == 200


def test_an_entry_is_logged_before_it_is_acknowledged_and_a_refusal_changes_nothing(tmp_path):
    _, client = game(tmp_path)
    response = client.post("/entry", data={"line": "s ann: white, rope, hall pass bill refute cy show rope"},
                           follow_redirects=False)  # fmt: skip
    assert response.status_code == 303
    assert [e["kind"] for e in logged(tmp_path)] == ["hand", "suggestion"]  # on disk when the answer came
    page = client.get(response.headers["location"]).text
    assert said(page) == "ok: Ann suggested Mrs. White, Rope, Hall; Bill passed; Cy refuted with Rope"
    before = (tmp_path / "game.json").read_text()
    page = client.post("/entry", data={"line": "s cy: plum, pipe, study pass dee refute ann"}).text
    assert said(page).startswith("refused: Not taken: Cy suggested") and "since Ann would hold none" in said(page)
    assert (tmp_path / "game.json").read_text() == before
    page = client.post("/entry", data={"line": "s bill: <script>alert(1)</script>, [/b], hall"}).text
    assert "<script>alert" not in page and "&lt;script&gt;" in page  # what people type is text, never markup


def test_pickers_undo_advice_and_help(tmp_path):
    session, client = game(tmp_path)
    form = {"asker": "Bill", "card0": "Professor Plum", "card1": "Knife", "card2": "Study", "passed": ["Cy", "Dee"],
            "refuter": "Ann"}  # fmt: skip
    assert said(client.post("/suggestion", data=form).text) == (
        "ok: Bill suggested Professor Plum, Knife, Study; Cy, Dee passed; Ann refuted"
    )
    form = {"player": "Dee", "card0": "Mr. Green", "card1": "Candlestick", "card2": "Lounge", "correct": "wrong"}
    page = client.post("/accusation", data=form).text
    assert said(page) == "ok: Dee accused Mr. Green, Candlestick, Lounge: wrong"
    assert '<th class="out" title="Dee is out"><s>Dee</s><br>out</th>' in page and session.out() == [False] * 3 + [True]
    assert len(session.entries) == 3
    page = client.post("/undo", data={"entry": str(session.ids[1])}).text
    assert said(page).startswith("ok: undone: Bill suggested") and len(logged(tmp_path)) == 2
    page = client.get("/?advice=1&room=Hall").text
    assert re.search(r'<p id="advice-text">suggest [^<]*Hall', page)
    assert "advice [ROOM]" in client.post("/entry", data={"line": "help"}).text


def test_every_browser_sees_one_game_and_no_entry_is_lost_when_they_enter_at_once(tmp_path):
    session, _ = game(tmp_path)
    app = create_app(session)
    lines = [f"showed {card} to {player}" for card in ("knife", "kitchen", "ballroom") for player in PLAYERS[1:]]
    start = threading.Barrier(len(lines))

    def enter(line: str) -> int:
        with TestClient(app) as client:  # a browser of its own
            start.wait()
            return client.post("/entry", data={"line": line}, follow_redirects=False).status_code

    with ThreadPoolExecutor(len(lines)) as pool:
        assert list(pool.map(enter, lines)) == [303] * len(lines)
    entries = logged(tmp_path)
    assert len(entries) == 1 + len(lines) and entries == session.entries  # the file is the game in memory
    assert sorted(f"showed {e['cards'][0]} to {e['player']}" for e in entries[1:]) == sorted(
        f"showed {session.card_names[session.card(c)]} to {p}" for c, p in (line.split()[1::2] for line in lines)
    )
    # Another browser, and a reload, see the same game; so does a server started again on the log.
    pages = [TestClient(app).get("/").text for _ in range(2)]
    restarted = TestClient(create_app(ClueSession.load(tmp_path / "game.json"))).get("/").text
    log = [re.search(r'<section id="log">.*?</section>', p, re.S)[0] for p in (*pages, restarted)]
    assert log[0] == log[1] == log[2] and log[0].count("<li>") == 1 + len(lines)


def test_a_generalized_clue_deck_has_one_group_and_the_typed_entry_only(tmp_path):
    session = ClueSession(["Ann", "Bo", "Cy"], "ann", [0, 1, 2, 3], path=tmp_path / "gc.json", deck=(12, 2))
    client = TestClient(create_app(session))
    page = client.get("/").text
    assert re.findall(r'<tr class="category"><th colspan="5">(\w+)</th>', page) == ["Cards"]
    assert 'id="suggestion-form"' not in page
    assert said(client.post("/entry", data={"line": "ask ann bo: 4, 5 yes show 5"}).text) == (
        "ok: Ann asked Bo about 4, 5: yes, showing 5"
    )


def test_the_command_line_serves_a_game_on_the_address_asked(tmp_path, monkeypatch, capsys):
    from train.tools.assistant import __main__ as cli
    from train.tools.assistant import web

    served = {}
    monkeypatch.setattr(web, "listen", lambda host, port: ("listening", host, port))
    monkeypatch.setattr(web, "serve", lambda session, host, port, sock: served.update(
        host=host, port=port, log=session.path, sock=sock))  # fmt: skip
    log = tmp_path / "game.json"
    cli.main(["--players", *PLAYERS, "--me", "ann", "--hand", *HAND, "--log", str(log), "--web"])
    assert served == {"host": "127.0.0.1", "port": 8000, "log": log,  # this computer only, by default
                      "sock": ("listening", "127.0.0.1", 8000)}  # fmt: skip
    cli.main(["--resume", str(log), "--serve", "--host", "0.0.0.0", "--port", "8123"])  # --serve: the old name
    assert served == {"host": "0.0.0.0", "port": 8123, "log": log, "sock": ("listening", "0.0.0.0", 8123)}
    for bad in (["--host", "a b"], ["--port", "0"]):
        with pytest.raises(SystemExit):
            cli.main(["--resume", str(log), "--web", *bad])
        assert "error: argument" in capsys.readouterr().err


def undo_buttons(page: str) -> dict[str, str]:
    """The log's undo buttons: the id each names, by the entry's text."""
    return dict(
        re.findall(
            r'<li>([^<]*?)\s*<form method="post" action="/undo" class="undo"><input type="hidden" '
            r'name="entry" value="(\d+)">',
            page,
        )
    )


def test_a_stale_page_never_undoes_another_entry(tmp_path):
    """Two phones at one table: one undoes an entry, the other, not reloaded, presses undo beside the entry it
    shows at that place in the log (it used to remove whatever was there now: a true entry, silently)."""
    session, phone = game(tmp_path)
    other = TestClient(create_app(session))  # shares the game, as a second browser does
    for line in ("showed knife to bill", "showed kitchen to cy", "showed ballroom to dee"):
        phone.post("/entry", data={"line": line})
    stale = undo_buttons(phone.get("/").text)
    assert list(stale) == ["you showed Knife to Bill", "you showed Kitchen to Cy", "you showed Ballroom to Dee"]
    other.post("/undo", data={"entry": stale["you showed Knife to Bill"]})  # the other phone undoes entry 2
    page = phone.post("/undo", data={"entry": stale["you showed Knife to Bill"]}).text  # the stale page, entry 2
    assert said(page).startswith("refused: Not taken: that entry is no longer in the log") and "reload" in said(page)
    assert [e["cards"] for e in logged(tmp_path)[1:]] == [["Kitchen"], ["Ballroom"]]  # nothing else removed
    page = phone.post("/undo", data={"entry": stale["you showed Ballroom to Dee"]}).text  # still named right
    assert said(page) == "ok: undone: you showed Ballroom to Dee" and len(logged(tmp_path)) == 2
    # An id is never given again: a new entry after an undo is not the undone one's id.
    phone.post("/entry", data={"line": "showed ballroom to dee"})
    assert session.ids[-1] not in map(int, stale.values())
    # A typed undo by number is refused on the page (its number may name another entry now); the line stays.
    page = phone.post("/entry", data={"line": "undo 2"}).text
    assert said(page).startswith("refused: Not taken: undo an entry with its button") and len(session.entries) == 3
    assert 'value="undo 2"' in page
    for bad in ("", "x", "-1", "1"):  # not an id; an id no entry has; your hand's
        assert said(phone.post("/undo", data={"entry": bad}).text).startswith("refused: Not taken: ")
    assert len(session.entries) == 3


def test_a_link_cannot_make_the_page_say_anything_and_a_refused_line_comes_back(tmp_path):
    """``/?said=ANY+TEXT&ok=1`` showed any text as a green "taken" notice."""
    _, client = game(tmp_path)
    page = client.get("/?said=Your+entry+was+taken&ok=1&notice=made-up").text
    assert said(page) == "" and "Your entry was taken" not in page
    line = "s cy: plum, pipe, study pass dee refute ann"  # refused: Ann holds none of them
    page = client.post("/entry", data={"line": line}).text
    assert said(page).startswith("refused: ") and f'value="{line}"' in page  # to mend, not to type again
    page = client.post("/entry", data={"line": "showed knife to bill"}).text
    assert said(page).startswith("ok: ") and 'id="line"' in page and 'value=""' in page  # a taken line is cleared


def test_advice_is_scrolled_to(tmp_path):
    _, client = game(tmp_path)
    response = client.post("/entry", data={"line": "advice hall"}, follow_redirects=False)
    assert response.headers["location"].endswith("#advice")
    assert 'action="/#advice"' in client.get("/").text


def test_the_web_server_checks_its_port_first_and_a_client_that_leaves_mid_entry_is_no_traceback(tmp_path):
    """On a port in use, ``--web`` printed "open http://..." (another server's game) and wrote the new game's log
    before failing; a browser that disconnected in the middle of its form printed an ASGI traceback."""
    import socket
    import subprocess
    import sys
    import time

    from train.tools.assistant.web import listen

    holder = listen("127.0.0.1", 0)
    port = holder.getsockname()[1]
    command = [sys.executable, "-m", "train.tools.assistant", "--web", "--players", *PLAYERS, "--me", "ann",
               "--hand", *HAND, "--port", str(port)]  # fmt: skip
    busy = subprocess.run([*command, "--log", str(tmp_path / "busy.json")], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert busy.returncode == 2 and "open http" not in busy.stdout
    assert f"cannot listen on 127.0.0.1:{port}: the port is in use" in busy.stderr
    assert not (tmp_path / "busy.json").exists()  # no game was started
    holder.close()
    server = subprocess.Popen([*command, "--log", str(tmp_path / "game.json")], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert "open http://127.0.0.1:" in server.stdout.readline()
        deadline = time.monotonic() + 30
        while True:  # uvicorn answers once it has started
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as browser:
                    browser.sendall(b"POST /entry HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-"
                                    b"urlencoded\r\nContent-Length: 1000\r\n\r\nline=showed+kni")  # fmt: skip
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        time.sleep(1)
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert "Traceback" not in errors and "Exception" not in errors, errors
    assert [e["kind"] for e in logged(tmp_path)] == ["hand"]  # the half-sent entry was not taken
