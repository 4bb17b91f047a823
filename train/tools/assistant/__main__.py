"""``python -m train.tools.assistant``: the Clue table assistant, in the terminal (:mod:`train.tools.assistant.app`)
or as a web page (``--web``, :mod:`train.tools.assistant.web`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from train import arguments
from train.tools.assistant.app import __doc__ as APP_DOC


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(
        prog="python -m train.tools.assistant",
        description=APP_DOC,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--players", nargs="+", help="the players' names in seat order (Clue: 2 to 6)")
    parser.add_argument("--me", help="your name (or seat number)")
    parser.add_argument("--hand", nargs="+", help="your cards (names or the start of a word: scar, pipe, bill)")
    parser.add_argument(
        "--deck",
        type=arguments.count(1, 62),
        nargs=2,
        metavar=("CARDS", "HIDDEN"),
        help="a Generalized Clue deck (default: Clue)",
    )
    parser.add_argument(
        "--log", type=arguments.file_to_write, default=Path("clue-game.json"), help="the log to save to"
    )
    parser.add_argument("--resume", type=arguments.existing_file, help="resume the game saved in this log")
    parser.add_argument(
        "--web",
        "--serve",
        dest="web",
        action="store_true",
        help="serve the game as a web page for a phone or a laptop (--serve: the old name) instead of the terminal app",
    )
    parser.add_argument(
        "--host",
        type=arguments.host,
        default="127.0.0.1",
        help="the address --web listens on (default 127.0.0.1, this computer only; 0.0.0.0: the local network too)",
    )
    parser.add_argument("--port", type=arguments.port, default=8000, help="the port of --web (default 8000)")
    parser.add_argument(
        "--accusations",
        choices=("anywhere", "room"),
        help="the table's accusation rule, for the board's advice: anywhere in one's turn (the default of a new "
        "game) or only in the room entered (the classic rule); on --resume, it replaces the log's",
    )
    args = parser.parse_args(argv)
    from train.tools.assistant.session import ClueSession

    sock = None
    if args.web:  # the port first: a port in use is said before a game is started and its log written
        from train.tools.assistant.web import listen

        try:
            sock = listen(args.host, args.port)
        except OSError as error:
            parser.error(str(error))
    try:
        if args.resume is not None:
            session = ClueSession.load(args.resume)
        else:
            if not (args.players and args.me and args.hand):
                parser.error("start a game with --players, --me and --hand, or --resume a log")
            if args.log.exists():
                parser.error(f"{args.log} exists: --resume it, or give another --log")
            me = int(args.me) if args.me.isdigit() else args.me
            deck = None if args.deck is None else tuple(args.deck)
            session = ClueSession(args.players, me, args.hand, args.log, deck=deck,
                                  accusations=args.accusations or "anywhere")  # fmt: skip
        if args.accusations is not None and args.accusations != session.accusations:
            session.accusations = args.accusations
            session.save()
    except (ValueError, OSError) as error:
        parser.error(str(error))
    if args.web:
        from train.tools.assistant.web import serve

        serve(session, args.host, args.port, sock=sock)
        return
    from train.tools.assistant.app import AssistantApp

    AssistantApp(session).run()


if __name__ == "__main__":
    main()
