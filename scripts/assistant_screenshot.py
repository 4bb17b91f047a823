"""Write docs/assistant.svg, the README's screenshot of the Clue table assistant, from a scripted game.

python -m scripts.assistant_screenshot
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from train.tools.assistant import ClueSession
from train.tools.assistant.app import AssistantApp

OUT = Path(__file__).resolve().parent.parent / "docs"
ENTRIES = [
    "s ann: white, rope, hall pass bill refute cy show rope",
    "s bill: plum, wrench, study pass cy refute dee",
    "s cy: green, pipe, lounge refute dee",
    "s dee: peacock, candle, library pass ann, bill refute cy",
]


async def shoot() -> str:
    session = ClueSession(["Ann", "Bill", "Cy", "Dee"], "Ann", ["scar", "must", "knife", "kitchen", "ballroom"])
    for line in ENTRIES:
        session.enter(line)
    app = AssistantApp(session)
    async with app.run_test(size=(150, 42)) as pilot:
        await pilot.pause()
        app.show_advice()
        await pilot.pause()
        return app.save_screenshot("assistant.svg", path=str(OUT))


def main() -> None:
    OUT.mkdir(exist_ok=True)
    print(asyncio.run(shoot()))


if __name__ == "__main__":
    main()
