"""The assistant's Textual app, driven by Textual's pilot: entries typed, refused, undone, resumed."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("textual")

from textual.widgets import DataTable, Input, Static

from train.tools.assistant import ClueSession
from train.tools.assistant.app import AssistantApp

PLAYERS = ["Ann", "Bill", "Cy", "Dee"]
HAND = ["scar", "must", "knife", "kitchen", "ballroom"]


def text(app, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


async def type_line(pilot, line: str) -> None:
    await pilot.press(*line)
    await pilot.press("enter")
    await pilot.pause()


def test_enter_refuse_undo_and_resume(tmp_path):
    log = tmp_path / "game.json"

    async def scenario() -> None:
        app = AssistantApp(ClueSession(PLAYERS, "ann", HAND, path=log))
        async with app.run_test(size=(160, 50)) as pilot:
            table = app.query_one("#sheet", DataTable)
            assert table.row_count == 21 + 3 and len(table.columns) == 6  # and a separator a category
            assert [str(table.get_cell_at((row, 0))) for row in (0, 7, 14)] == ["Suspects", "Weapons", "Rooms"]
            assert "consistent deals (exact)" in text(app, "#status")
            await type_line(pilot, "s ann: white, rope, hall pass bill refute cy show rope")
            assert "Cy refuted with Rope" in text(app, "#message") and "Cy refuted with Rope" in text(app, "#log")
            rope = app.session.card("rope") + 2  # after the suspects' and the weapons' separators
            assert str(table.get_cell_at((rope, 0))) == "Rope" and str(table.get_cell_at((rope, 3))) == "✔"
            await type_line(pilot, "s dee: plum, rope, study pass ann, bill, cy")  # Cy holds the Rope: refused
            assert text(app, "#message").startswith("Not taken:") and len(app.session.entries) == 2
            command = app.query_one("#command", Input)
            assert command.value == "s dee: plum, rope, study pass ann, bill, cy"  # back, to mend
            await pilot.press("ctrl+u")  # cleared as a person would
            assert command.value == ""
            await type_line(pilot, "advice")
            assert text(app, "#advice").startswith("Advice: suggest ")
            await type_line(pilot, "a dee: green, candle, lounge wrong")
            assert [str(c.label) for c in table.columns.values()][4] == "Dee (out)"  # a player who is out
            await pilot.press("ctrl+z")
            await pilot.pause()
            await pilot.press("ctrl+z")
            await pilot.pause()
            assert "undone" in text(app, "#message") and len(app.session.entries) == 1
            await type_line(pilot, "s ann: white, rope, hall pass bill refute cy show rope")
            app.save_screenshot("assistant.svg", path=str(tmp_path))
        resumed = AssistantApp(ClueSession.load(log))
        async with resumed.run_test(size=(160, 50)):
            assert len(resumed.session.entries) == 2 and "Cy refuted with Rope" in text(resumed, "#log")

    asyncio.run(scenario())
    assert (tmp_path / "assistant.svg").read_text().startswith("<svg")


def test_command_line_refuses_an_incomplete_start(capsys, tmp_path):
    from train.tools.assistant.__main__ import main

    with pytest.raises(SystemExit):
        main(["--players", "Ann", "Bill", "Cy", "--log", str(tmp_path / "x.json")])
    assert "--players, --me and --hand" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--players", "Ann", "--me", "Ann", "--hand", "scar", "--log", str(tmp_path / "x.json")])
    assert "2 to 6 players" in capsys.readouterr().err


def test_player_names_are_text_never_markup(tmp_path):
    """``--players Ann "Bo[/]b" Cy`` ended the app with Rich's MarkupError, and the saved game ended it again on
    every ``--resume``; ``[bold red]Eve`` was drawn red."""
    players = ["Ann", "Bo[/]b", "[bold red]Eve", "Cy"]

    async def scenario(app: AssistantApp) -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            await type_line(pilot, "s [bold: white, rope, hall pass cy, ann refute bo[")
            labels = [c.label for c in app.query_one("#sheet", DataTable).columns.values()]
            assert [label.plain for label in labels] == ["card", *players, "case"]
            assert all(not label.spans and not label.style for label in labels)  # not drawn in any style
            assert "[bold red]Eve suggested Mrs. White" in text(app, "#log")

    session = ClueSession(players, "ann", HAND, path=tmp_path / "game.json")
    asyncio.run(scenario(AssistantApp(session)))
    asyncio.run(scenario(AssistantApp(ClueSession.load(tmp_path / "game.json"))))  # and resumed


def test_typed_text_is_never_markup_and_the_shortcuts_work_while_typing(tmp_path):
    """``[/b]`` in an entry ended the app with Rich's MarkupError; the help lost ``[ROOM]``; Ctrl+A did nothing
    while the command line had the focus (it always has)."""

    async def scenario() -> None:
        app = AssistantApp(ClueSession(PLAYERS, "ann", HAND, path=tmp_path / "game.json"))
        async with app.run_test(size=(160, 50)) as pilot:
            await type_line(pilot, "s bill: [/b], rope, hall")
            assert "Not taken" in text(app, "#message") and "[/b]" in text(app, "#message")
            await pilot.press("ctrl+u")  # the refused line, kept to mend, cleared
            await type_line(pilot, "help")
            assert "[ROOM]" in text(app, "#message")
            await pilot.press("ctrl+a")
            await pilot.pause()
            assert text(app, "#advice").startswith("Advice: suggest ")

    asyncio.run(scenario())
