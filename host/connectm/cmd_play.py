"""``connectm play``: the device's game in the terminal (see connectm.simulator).

Interactive in a terminal (curses); with ``--keys`` or ``--no-tty`` it feeds the keys and
prints every frame (for tests and scripts).
"""

from __future__ import annotations

import argparse

from connectm.simulator import LAYOUTS


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "play",
        help="play the device's game in the terminal",
        description="Play the firmware's game (firmware/cmgame.py) on a simulated LED matrix. "
        "Keys: left/right or a/d move, space/enter/down drop, 1-9 drop in a column, q quits.",
    )
    p.add_argument("--board", choices=sorted(LAYOUTS), default="max7219",
                   help="display: microbit (5x5 LEDs, 5x4 board) or max7219 (8x8 LEDs, 7x6 "
                   "board; default)")
    p.add_argument("--level", type=int, default=1, help="starting level (1 = easiest)")
    p.add_argument("--opponent", default="engine",
                   help="engine (the device's search at the level; default) or a "
                   "connectm.players spec: random, greedy, mc[:N], engine:D[:MS], level:L")
    p.add_argument("--keys", help="scripted keys (l, r, d = drop, 1-9, q): print each frame")
    p.add_argument("--no-tty", dest="tty", action="store_false", default=None,
                   help="do not use the terminal interactively: print the frames")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from connectm.simulator import play

    opponent = args.opponent if args.opponent != "engine" else "engine"
    return play(args.board, args.level, opponent, args.keys, args.tty)
