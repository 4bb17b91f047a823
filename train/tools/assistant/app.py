"""The Clue table assistant as a Textual app: the sheet, the case file, advice, the log, one command line.

    python -m train.tools.assistant --players Ann Bill Cy Dee --me Ann --hand scar must knife kitchen ballroom
    python -m train.tools.assistant --resume clue-game.json
    python -m train.tools.assistant --resume clue-game.json --web        # the game as a web page instead
    python -m train.tools.assistant --deck 12 2 --players Ann Bo Cy --me Ann --hand 0 1 2 3   # Generalized Clue

Everything is typed on one line (``help`` lists the commands; cards and
players by the start of a word). On the board, ``board hall roll 7`` ranks where to move as Velma would
(``board hall`` before rolling: roll or passage), with the board's map and its numbered squares. The sheet
shows where each card is: ``✔``
(green) certainly, ``✘`` (red) certainly not, else the exact probability
(bold from one half up), or sampled with its error when counting is over budget; suspects, weapons and rooms
apart; a player who is out is marked. The log is
saved after every entry and undo (``--log``, default ``clue-game.json``).
"""

from __future__ import annotations

import itertools
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Header, Input, Static

from train.tools.assistant.board import board_page
from train.tools.assistant.session import COMMANDS, ClueSession, parse_board

__all__ = ["AssistantApp"]


class AssistantApp(App):
    """The assistant on a :class:`ClueSession`; see the module docstring."""

    TITLE = "Clue assistant"
    CSS = """
    #sheet { width: 3fr; }
    #side { width: 2fr; }
    #status, #cases, #advice { height: auto; margin-bottom: 1; }
    #log { height: 1fr; }
    #message { height: auto; color: $warning; }
    """
    BINDINGS: ClassVar = [
        Binding("ctrl+z", "undo", "Undo", priority=True),
        Binding("ctrl+a", "advice", "Advice", priority=True),  # before the input's own ctrl+a
        Binding("ctrl+q", "quit", "Quit"),
    ]

    def __init__(self, session: ClueSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield DataTable(id="sheet", zebra_stripes=True, cursor_type="none")
            with Vertical(id="side"):
                yield Static(id="status", markup=False)
                yield Static(id="cases", markup=False)
                yield Static(id="advice", markup=False)
                yield Static(id="log", markup=False)
        yield Static(id="message", markup=False)  # what people type is never markup
        yield Input(placeholder="s bill: plum, rope, hall pass cy refute dee   (help lists the commands)", id="command")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_view()
        self.query_one("#command", Input).focus()

    # ------------------------------------------------------------------ what it shows
    def refresh_view(self) -> None:
        """Redraw the sheet, the case files and the log from the session."""
        session = self.session
        solution = session.solution()
        sheet = session.knowledge.deduction_sheet(solution=solution)
        table = self.query_one("#sheet", DataTable)
        table.clear(columns=True)  # the columns too: a player who went out is marked
        names = [f"{name} (out)" if out else name for name, out in zip(session.players, session.out(), strict=True)]
        table.add_columns(*(Text(label) for label in ("card", *names, "case")))  # a name is text, never markup
        sizes = [len(category) for category in session.knowledge.categories] if session.deck is None else []
        starts = dict(zip(itertools.accumulate([0, *sizes[:-1]]), ("Suspects", "Weapons", "Rooms"), strict=False))
        for card, name in enumerate(session.card_names):
            if card in starts:  # a separator row between suspects, weapons and rooms
                table.add_row(Text(starts[card], style="bold reverse"), *([""] * (len(names) + 1)))
            table.add_row(Text(name), *(_cell(s, p, e) for s, p, e in zip(
                sheet[card], solution.probabilities[card], solution.errors[card], strict=True)))  # fmt: skip
        if solution.method == "exact":
            count = f"{solution.count:,} consistent deals (exact)"
        else:
            count = f"figures from {solution.samples:,} sampled deals ({solution.method}; errors shown as ±)"
        self.query_one("#status", Static).update(f"Case file entropy: {solution.entropy:.2f} bits\n{count}")
        lines = [f"{p:6.1%}  {', '.join(cards)}" for cards, p in session.case_files(5)]
        self.query_one("#cases", Static).update("Likeliest case files:\n" + "\n".join(lines))
        log = session.log()
        self.query_one("#log", Static).update("Log:\n" + "\n".join(f"{i}. {e}" for i, e in enumerate(log[-12:], 1)))

    def say(self, text: str) -> None:
        self.query_one("#message", Static).update(text)

    # ------------------------------------------------------------------ what a person does
    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""  # a refused line comes back below, to mend rather than type again
        if not text:
            return
        if text.lower() in ("help", "?"):
            self.say(COMMANDS)
            return
        if text.lower().startswith(("advice", "advise", "hint")):
            self.show_advice(text.split(maxsplit=1)[1] if " " in text else None)
            return
        if text.split()[0].lower() == "board":
            self.show_board(text, event.input)
            return
        try:
            self.say(self.session.enter(text))
        except ValueError as error:  # a contradiction is a ValueError too: nothing changed
            self.say(f"Not taken: {error}")
            event.input.value = text
            event.input.cursor_position = len(text)  # at its end, to mend
            return
        self.query_one("#advice", Static).update("")
        self.refresh_view()

    def show_advice(self, room: str | None = None) -> None:
        try:
            advice = self.session.advice(room)
        except ValueError as error:
            self.say(f"Not taken: {error}")
            return
        self.query_one("#advice", Static).update(f"Advice: {advice}")

    def show_board(self, text: str, line: Input) -> None:
        """``board AT [roll N] [others SQ; SQ] [summoned]``: the ranked moves and the map, in the advice panel."""
        try:
            at, roll, others, summoned = parse_board(text.split(maxsplit=1)[1] if " " in text.strip() else "")
            view = board_page(self.session, at, "" if roll is None else str(roll), "; ".join(others), summoned)
        except ValueError as error:
            self.say(f"Not taken: {error}")
            line.value = text
            line.cursor_position = len(text)
            return
        options = [f"{i}. {option}" for i, option in enumerate(view["options"], start=1)]  # type: ignore[arg-type]
        more = [f"({view['more']} more, each worse)"] if view["more"] else []
        lines = [str(view["head"]), *([str(view["accusation"])] if view["accusation"] else []), *options, *more]
        self.query_one("#advice", Static).update("\n".join([*lines, "", str(view["map"])]))

    def action_undo(self) -> None:
        try:
            self.say(self.session.enter("undo"))
        except ValueError as error:
            self.say(f"Not taken: {error}")
            return
        self.refresh_view()

    def action_advice(self) -> None:
        self.show_advice()


def _cell(state: int, probability: float, error: float) -> Text:
    """A sheet cell: the mark says what the colour says (as on the web page): ✔ held, ✘ not held, else the
    probability, bold from one half up."""
    if state == 1:
        return Text("✔", style="bold green")
    if state == 0:
        return Text("✘", style="red")
    text = f"{100 * probability:.0f}%" + (f"±{100 * error:.0f}" if error > 0.005 else "")
    return Text(text, style="bold yellow" if probability >= 0.5 else "")
