"""The README's picture of the assistant's web page at phone width: a six-player game after a few entries.

    python -m scripts.assistant_screenshot          # writes docs/assistant-phone.png

Needs Debian's ``chromium`` and ``pip install playwright uvicorn`` (the test extra has them).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

from train import arguments
from train.tools.assistant import ClueSession
from train.tools.assistant.web import create_app

OUT = Path(__file__).resolve().parent.parent / "docs" / "assistant-phone.png"
#: Chromium as this machine runs it: no sandbox (root), and none of its own network traffic.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]  # fmt: skip
ENTRIES = [
    "s bill: plum, knife, study pass cy, dee, eve, fay refutes ann",
    "s ann: white, rope, hall pass bill refute cy show rope",
    "s dee: green, pipe, lounge pass eve refute fay",
    "a eve: peacock, wrench, library wrong",
]


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(prog="python -m scripts.assistant_screenshot", description=__doc__)
    parser.add_argument("--port", type=int, default=8799)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        session = ClueSession(["Ann", "Bill", "Cy", "Dee", "Eve", "Fay"], "ann", ["scar", "knife", "kitchen"],
                              path=Path(folder) / "game.json")  # fmt: skip
        for line in ENTRIES:
            session.enter(line)
        server = uvicorn.Server(uvicorn.Config(create_app(session), host="127.0.0.1", port=args.port,
                                               log_level="warning"))  # fmt: skip
        threading.Thread(target=server.run, daemon=True).start()
        while not server.started:
            time.sleep(0.05)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=ARGS)
            page = browser.new_page(viewport={"width": 360, "height": 900}, device_scale_factor=2)
            page.goto(f"http://127.0.0.1:{args.port}/?advice=1&room=Hall")
            page.screenshot(path=str(OUT))
            browser.close()
        server.should_exit = True
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
