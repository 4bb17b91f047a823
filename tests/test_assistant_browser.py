"""The assistant's web page in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright.

A game of several turns typed and picked, a refused contradiction, undo, two browsers entering at once, a
reload, and the page at 360 px wide with every column of the sheet in view. ``.ci/run`` installs Chromium and
sets ``DEDUCTION_ENVS_BROWSER_TESTS=1``, which makes a missing browser a failure rather than a skip.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from train.tools.assistant import ClueSession

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REQUIRED = os.environ.get("DEDUCTION_ENVS_BROWSER_TESTS") == "1"
if CHROMIUM is None or not all(importlib.util.find_spec(m) for m in ("playwright", "uvicorn")):
    if REQUIRED:
        raise RuntimeError("the browser tests need Debian's chromium, playwright and uvicorn (see .ci/run)")
    pytest.skip("no chromium, playwright or uvicorn here (.ci/run installs them)", allow_module_level=True)

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from train.tools.assistant.web import create_app  # noqa: E402

#: Chromium as this machine runs it: no sandbox (root), and none of its own network traffic.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]  # fmt: skip
PLAYERS = ["Ann", "Bill", "Cy", "Dee", "Eve", "Fay"]  # six players: the widest sheet
HAND = ["scar", "knife", "kitchen"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[str, ClueSession]]:
    """The page of a new six-player game, served on a free loopback port."""
    import uvicorn

    session = ClueSession(PLAYERS, "ann", HAND, path=tmp_path / "game.json")
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(session), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/", session
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def enter(page: Page, line: str) -> str:
    page.fill("#line", line)
    page.click("#line-form button")
    return page.inner_text("#said")


def test_a_game_typed_and_picked_with_a_refusal_and_an_undo(served, browser):
    url, session = served
    page = browser.new_page()
    page.goto(url)
    assert enter(page, "s bill: plum, knife, study pass cy, dee, eve, fay refutes ann").startswith("Bill suggested")
    refused = enter(page, "s cy: plum, pipe, study pass dee, eve, fay refute ann")
    assert refused.startswith("Not taken") and "Ann would hold none" in refused  # my own seat is checked
    assert page.input_value("#line") == "s cy: plum, pipe, study pass dee, eve, fay refute ann"  # to mend
    page.click("#pickers summary")
    page.select_option("#suggestion-form select[name=asker]", "Ann")
    for index, card in enumerate(("Mrs. White", "Rope", "Hall")):
        page.select_option(f"#suggestion-form select[name=card{index}]", card)
    page.check("#suggestion-form input[value=Bill]")
    page.select_option("#suggestion-form select[name=refuter]", "Cy")
    page.select_option("#suggestion-form select[name=shown]", "Rope")
    page.click("#suggestion-form button")
    assert page.inner_text("#said") == "Ann suggested Mrs. White, Rope, Hall; Bill passed; Cy refuted with Rope"
    rope = page.locator("#sheet tr", has_text="Rope").locator("td").nth(2)  # Cy's column
    assert rope.inner_text() == "✔" and "held" in rope.get_attribute("class")
    assert page.locator("#log li").count() == 3
    page.locator("#log li").nth(1).locator("button").click()  # undo entry 2, Bill's suggestion
    assert page.inner_text("#said").startswith("undone: Bill suggested")
    assert page.locator("#log li").count() == 2 and len(session.entries) == 2


def test_two_browsers_entering_at_once_keep_both_entries_and_a_reload_shows_them(served, browser):
    url, session = served
    pages = [browser.new_context().new_page() for _ in range(2)]
    for page in pages:
        page.goto(url)
    pages[0].fill("#line", "showed knife to bill")
    pages[1].fill("#line", "showed kitchen to cy")
    for page in pages:  # both submitted before either answer is read
        page.locator("#line-form button").click(no_wait_after=True)
    for page in pages:
        page.wait_for_selector("#said")
    assert sorted(e["cards"][0] for e in session.entries[1:]) == ["Kitchen", "Knife"]
    for page in pages:
        page.reload()
        assert page.locator("#log li").count() == 3  # both, in every browser
    # One browser undoes entry 2; the other, not reloaded, presses undo beside its entry 2: told to reload, and
    # nothing else is undone (it used to remove whatever was entry 2 by then).
    pages[0].locator("#log li").nth(1).locator("button").click()
    assert pages[0].inner_text("#said").startswith("undone: ")
    pages[1].locator("#log li").nth(1).locator("button").click()
    assert "no longer in the log" in pages[1].inner_text("#said") and "reload" in pages[1].inner_text("#said")
    assert len(session.entries) == 2 and pages[1].locator("#log li").count() == 2


def test_at_phone_width_every_column_of_the_sheet_is_in_view(served, browser, tmp_path):
    url, _ = served
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.goto(url)
    enter(page, "s bill: plum, knife, study pass cy, dee, eve, fay refutes ann")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # nothing to scroll sideways
    headers = page.locator("#sheet thead th")
    assert headers.count() == 1 + len(PLAYERS) + 1
    for i in range(headers.count()):
        box = headers.nth(i).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360, (headers.nth(i).inner_text(), box)
    page.screenshot(path=str(tmp_path / "phone.png"))
    assert (tmp_path / "phone.png").stat().st_size > 10_000


def test_at_phone_width_advice_comes_into_view_and_long_logs_keep_their_numbers_on_screen(served, browser):
    """The advice was drawn below the bottom of a phone's screen with nothing to scroll to it; log numbers of
    10 and above touched the screen's edge."""
    url, session = served
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.goto(url)
    for card in ("knife", "kitchen", "scar"):
        for player in PLAYERS[1:]:
            session.enter(f"showed {card} to {player}")
    page.reload()
    assert page.locator("#log li").count() >= 10
    page.click("#advice button")
    text = page.locator("#advice-text")
    assert text.inner_text().startswith("suggest ")
    box, height = text.bounding_box(), page.evaluate("window.innerHeight")
    assert 0 <= box["y"] and box["y"] + box["height"] <= height, (box, height)  # scrolled to, on screen
    markers = page.evaluate("""() => [...document.querySelectorAll('#log li')].map((li, i) => {
        const context = document.createElement('canvas').getContext('2d');
        context.font = getComputedStyle(li).font;
        return li.getBoundingClientRect().left - context.measureText(`${i + 1}. `).width; })""")
    assert min(markers) >= 4, markers  # room for "10." left of each entry, inside the screen


def test_the_board_advice_at_phone_width(served, browser):
    """The board's form filled and sent: the ranked moves and the map with the squares the roll reaches; the map
    scrolls in its own box, the page does not scroll sideways; a wrong square is refused in words."""
    url, _ = served
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.goto(url)
    page.fill("#board-form input[name=at]", "17,0")
    page.select_option("#board-form select[name=roll]", "5")
    page.select_option("#board-form select[name=rule]", "room")
    page.click("#board-form button")
    assert page.inner_text("#board-text").startswith("On the board at square 17,0, rolled 5")
    options = page.locator("#board-options li")
    assert options.count() == 6 and options.first.inner_text().startswith("move to ")
    rows = page.inner_text("#board-map").splitlines()
    assert rows[2 + 17][3] == "@" and "*" in "".join(rows)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert page.input_value("#board-form input[name=at]") == "17,0"  # the form keeps what was asked
    page.fill("#board-form input[name=at]", "0,0")
    page.click("#board-form button")
    assert page.inner_text("#board-text").startswith("Not taken: square 0,0 is a wall")
