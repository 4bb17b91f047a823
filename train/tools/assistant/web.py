"""The Clue table assistant as a web page, for a phone or a laptop at the table.

    clue-assistant --web --players Ann Bill Cy Dee --me Ann --hand scar must knife kitchen ballroom
    clue-assistant --web --resume clue-game.json --host 0.0.0.0     # a phone on the same network opens it

One server keeps one game (its log, ``--log``): every browser that opens the page sees that game, entries
from several browsers are taken one at a time, and each is written to the log before the page says it was
taken; a reload shows the game as it is. The page is plain HTML and one local style sheet (no script, no
asset from elsewhere): the sheet (suspects, weapons and rooms apart; a mark and a colour for each
certainty, the probability otherwise), the likeliest case files, advice on request (in the room you are in,
when you give it; on the board, from where you stand and the roll you got: :mod:`train.tools.assistant.board`),
the log with undo, and the entry forms: one line as in the terminal app (``help`` in the
page lists the commands) and pickers for a suggestion and an accusation (Generalized Clue: for an ask).

Built on Starlette (routes, forms, a test client) with Jinja2 templates, which keep the server a few
functions over :class:`~train.tools.assistant.session.ClueSession`, the same session the terminal app uses.
"""

from __future__ import annotations

import secrets
import socket
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from train.tools.assistant.board import board_page
from train.tools.assistant.session import COMMANDS, ClueSession, describe

__all__ = ["create_app", "listen", "serve"]

HERE = Path(__file__).parent
#: Category names of the classic deck, for the sheet's separators.
CATEGORIES = ("Suspects", "Weapons", "Rooms")
#: How many answers to entries the server keeps for the page that follows each (older ones are dropped).
NOTICES_KEPT = 64


def _cell(state: int, probability: float, error: float) -> dict[str, str]:
    """A sheet cell: its text and its class (the colour says what the text says)."""
    if state == 1:
        return {"text": "✔", "kind": "held", "title": "certainly here"}
    if state == 0:
        return {"text": "✘", "kind": "not", "title": "certainly not here"}
    text = f"{100 * probability:.0f}%" + (f"±{100 * error:.0f}" if error > 0.005 else "")
    return {"text": text, "kind": "high" if probability >= 0.5 else "maybe", "title": f"{100 * probability:.1f}%"}


def _sheet(session: ClueSession) -> list[dict[str, Any]]:
    """The sheet's groups (a category each in Clue; one in Generalized Clue): rows of cells by place."""
    solution = session.solution()
    sheet = session.knowledge.deduction_sheet(solution=solution)
    rows = [
        {"card": name, "cells": [_cell(*values) for values in zip(sheet[c], solution.probabilities[c],
                                                                  solution.errors[c], strict=True)]}
        for c, name in enumerate(session.card_names)
    ]  # fmt: skip
    if session.deck is not None:
        return [{"name": "Cards", "rows": rows}]
    sizes = [len(category) for category in session.knowledge.categories]
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    return [{"name": name, "rows": rows[s : s + n]} for name, s, n in zip(CATEGORIES, starts, sizes, strict=True)]


def create_app(session: ClueSession) -> Any:
    """The web app of one game: ``session`` (with its log) is the only game the server keeps."""
    from starlette.applications import Starlette
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import RedirectResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
    from starlette.templating import Jinja2Templates

    templates = Jinja2Templates(directory=HERE / "templates")
    lock = threading.Lock()  # one entry at a time; answers read a consistent game
    # The answer to each entry, kept here and named in the redirect by a random token: a link cannot make the page
    # say anything the server did not (the text itself never travels in the address).
    notices: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def back(said: str, ok: bool, line: str = "") -> RedirectResponse:
        """After a form: to the page, with what was done (a reload then repeats nothing) and, when the entry was
        refused, the line typed, to mend rather than type again."""
        token = secrets.token_urlsafe(12)
        notices[token] = {"said": said, "ok": ok, "line": line}
        while len(notices) > NOTICES_KEPT:
            notices.popitem(last=False)
        return RedirectResponse("/?" + urlencode({"notice": token}), status_code=303)

    def page(request: Request) -> Response:
        query = request.query_params
        notice = notices.get(query.get("notice", ""), {})
        with lock:
            advice = None
            if "advice" in query:
                try:
                    advice = str(session.advice(query.get("room") or None))
                except ValueError as error:
                    advice = f"Not taken: {error}"
            board: dict[str, Any] | None = None
            if "board" in query and session.deck is None:
                try:
                    board = board_page(session, query.get("at", ""), query.get("roll", ""), query.get("others", ""),
                                       "summoned" in query, query.get("rule") or None)  # fmt: skip
                except ValueError as error:
                    board = {"error": f"Not taken: {error}"}
            context = {
                "session": session,
                "places": [*session.players, "Case"],  # the case file (short: a phone column)
                "out": [*session.out(), False],
                "groups": _sheet(session),
                "solution": session.solution(),
                "cases": session.case_files(5),
                "log": list(zip(range(1, len(session.ids) + 1), session.ids, session.log(), strict=True)),
                "advice": advice,
                "board": board,
                "form": {key: query.get(key, "") for key in ("at", "roll", "others", "rule")} | {
                    "summoned": "summoned" in query},
                "rules": ("anywhere", "room"),
                "said": notice.get("said"),
                "ok": notice.get("ok", False),
                "line": notice.get("line", ""),
                "help": COMMANDS if "help" in query else None,
                "rooms": session.card_names[-len(session.knowledge.categories[-1]) :] if session.deck is None else [],
            }
        return templates.TemplateResponse(request, "page.html", context)

    async def entry(request: Request) -> Response:
        form = await request.form()
        line = str(form.get("line", "")).strip()
        if line.lower() in ("help", "?"):
            return RedirectResponse("/?help=1", status_code=303)
        if line.lower().startswith(("advice", "advise", "hint")):
            room = line.split(maxsplit=1)[1] if " " in line else ""
            return RedirectResponse("/?" + urlencode({"advice": 1, "room": room}) + "#advice", status_code=303)
        if line.split(maxsplit=1)[:1] == ["undo"]:  # by number: the number this page showed may name another entry now
            return back("Not taken: undo an entry with its button in the log (a number may name another entry "
                        "once another device changed the log)", False, line)  # fmt: skip
        return _take(lambda: session.enter(line), line)  # an empty line is refused by the session

    async def suggestion(request: Request) -> Response:
        form = await request.form()
        cards = [str(form.get(f"card{i}", "")) for i in range(3)]
        passed = [str(p) for p in form.getlist("passed")]
        refuter = str(form.get("refuter", "")) or None
        shown = str(form.get("shown", "")) or None

        def add() -> str:
            session.suggestion(str(form.get("asker", "")), cards, passed, refuter, shown)
            return session.log()[-1]

        return _take(add)

    async def accusation(request: Request) -> Response:
        form = await request.form()
        cards = [str(form.get(f"card{i}", "")) for i in range(3)]
        correct = str(form.get("correct", "")) == "right"

        def add() -> str:
            session.accusation(str(form.get("player", "")), cards, correct)
            return session.log()[-1]

        return _take(add)

    async def ask(request: Request) -> Response:
        form = await request.form()
        cards = [str(c) for c in form.getlist("cards")]
        shown = str(form.get("shown", "")) or None

        def add() -> str:
            answered = str(form.get("answered", "")) == "yes"
            session.ask(str(form.get("asker", "")), str(form.get("target", "")), cards, answered, shown)
            return session.log()[-1]

        return _take(add)

    async def undo(request: Request) -> Response:
        form = await request.form()
        text = str(form.get("entry", "")).strip()
        if not text.isdigit():
            return back(f"Not taken: undo names an entry by its id, got {text!r}", False)
        return _take(lambda: f"undone: {describe(session.undo_entry(int(text)))}")

    def _take(change: Any, line: str = "") -> RedirectResponse:
        """Make one change under the lock; the session writes the log before it returns."""
        with lock:
            try:
                return back(change(), True)
            except ValueError as error:  # refused: nothing changed
                return back(f"Not taken: {error}", False, line)

    def client_left(request: Request, error: Exception) -> Response:
        """A browser that went away before its form had arrived: nothing was entered, nobody is told."""
        return Response(status_code=400)

    routes = [
        Route("/", page),
        Route("/entry", entry, methods=["POST"]),
        Route("/suggestion", suggestion, methods=["POST"]),
        Route("/accusation", accusation, methods=["POST"]),
        Route("/ask", ask, methods=["POST"]),
        Route("/undo", undo, methods=["POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={ClientDisconnect: client_left})


def lan_address() -> str | None:
    """This machine's address on its local network (the interface a route to a private address would use;
    nothing is sent), or None if it has none."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # UDP: choosing a route sends nothing
            return probe.getsockname()[0]
        except OSError:
            return None


def listen(host: str = "127.0.0.1", port: int = 8000) -> socket.socket:
    """A socket listening on ``host:port``, for :func:`serve`; taken before anything else so that a port in use
    is said before a game is started or its log written.

    Raises:
        OSError: it cannot listen there; the message names the address and why (a port in use, say so).
    """
    import errno

    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
        return socket.create_server((host, port), family=family)
    except OSError as error:
        why = error.strerror or str(error)
        if error.errno == errno.EADDRINUSE:
            why = "the port is in use by another program (another assistant?): give another --port"
        raise OSError(f"cannot listen on {host}:{port}: {why}") from None


def serve(session: ClueSession, host: str = "127.0.0.1", port: int = 8000, sock: socket.socket | None = None) -> None:
    """Serve the page of ``session`` until interrupted (Ctrl+C); prints the address to open.

    ``sock``: a socket from :func:`listen` (default: listen on ``host:port`` now).
    """
    import uvicorn

    sock = listen(host, port) if sock is None else sock
    shown = host
    if host in ("0.0.0.0", ""):
        shown = lan_address() or "127.0.0.1"
    print(f"The Clue assistant: open http://{shown}:{port}/ (Ctrl+C stops it; the game is in {session.path})")
    uvicorn.Server(uvicorn.Config(create_app(session), log_level="warning")).run(sockets=[sock])
