"""connectm move: the device's column for each position read on standard input.

One position a line (1-based column digits, first player first); one line out each: the
1-based column that ``cmgame.cpu()`` plays there at the level, as on the device (its book
file, its node budgets, its search: without a table as on a micro:bit v1, or ``--table``
bytes cleared before each reply, as a v2 or a Pico does). A bad line: one line on stderr naming
it, exit 2, and nothing for the lines after it.
"""

from __future__ import annotations

import argparse
import sys

from connectm import book, engine, levels
from connectm.cmd_search import add_position_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("move", help="the device's move for positions on standard input")
    add_position_args(p, moves=False)
    p.add_argument("--level", default="top", help="level 1..N, its name, or top (default top)")
    add_table_arg(p)
    p.set_defaults(func=run)


def add_table_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--table", type=int, default=0, metavar="BYTES",
                   help="the board's transposition table: 0 (default) a micro:bit v1, 32768 a "
                   "v2, a Pico's the bytes its boot prints (`T <bytes>`)")


def run(args: argparse.Namespace) -> int:
    import cmmoves

    w, h = engine.parse_size(args.size)
    engine.position(args.size, args.connect)  # the size's one-line errors
    player = book.Player(w, h, args.connect, levels.index(args.level), table=args.table)
    b = player.board
    out = sys.stdout
    for i, line in enumerate(sys.stdin, 1):
        text = line.strip()
        b.reset()
        try:
            cmmoves.play_moves(b, text)
        except ValueError as e:
            raise ValueError("line %d: %s" % (i, e)) from None
        if b.over():
            raise ValueError("line %d: the game is already over after %s" % (i, text or "-"))
        out.write("%d\n" % (player.move() + 1))
    out.flush()
    return 0
