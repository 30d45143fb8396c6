"""connectm book: build a board's opening book, deployed with the game: 5x4's (the level's
corrections: firmware/5x4c4.bk, or 5x4c4t32768.bk for a micro:bit v2's search with its
table, 5x4c4.bk's lines and its own corrections) or the Pico's 7x6 book
(firmware/7x6c4.bin, bitbully)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from connectm import book, engine, levels
from connectm.cmd_move import add_table_arg
from connectm.cmd_search import add_position_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("book", help="build the opening book that makes a level perfect")
    add_position_args(p, moves=False, default_size="5x4")
    p.add_argument("--level", default="top", help="level 1..N, its name, or top (default top)")
    p.add_argument("--plies", type=int,
                   help="7x6: the book's positions are those before this ply (default 14)")
    p.add_argument("--no-lines", dest="lines", action="store_false",
                   help="7x6: without the perfect lines (the top level's corrections in every "
                   "game it plays against perfect play after any opening: first, any first "
                   "two opponent moves; second, any first move)")
    p.add_argument("--jobs", type=int, default=1,
                   help="7x6: the perfect lines' searches in this many processes first (the "
                   "same book; default 1)")
    add_table_arg(p)
    p.add_argument("--out", type=Path,
                   help="book file (default firmware/WxHcM.bk, with a table WxHcMtBYTES.bk; "
                   "7x6: firmware/7x6c4.bin)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    w, h = engine.parse_size(args.size)
    engine.position(args.size, args.connect)  # the size's one-line errors
    level = levels.index(args.level)
    seek = (w, h, args.connect) == (7, 6, 4)
    if args.plies is not None and not (seek and 1 <= args.plies <= w * h):
        raise ValueError("--plies is for 7x6 connect 4 only, 1..42")
    if not args.lines and not seek:
        raise ValueError("--no-lines is for 7x6 connect 4 only")
    if args.jobs < 1 or args.jobs > 1 and not (seek and args.lines):
        raise ValueError("--jobs is for the 7x6 book's perfect lines, 1 or more")
    if args.table and seek:
        raise ValueError("--table: the 7x6 book holds exact moves, for any search")
    if seek:
        from connectm import book7x6, exact7x6
        if not exact7x6.available():
            raise ValueError("the 7x6 book needs bitbully (pip install bitbully, or the "
                             "test extra)")
        out = args.out or book7x6.path()
    else:
        out = args.out or book.book_path(w, h, args.connect, args.table)
    t0 = time.perf_counter()
    built: dict
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    # Built beside the book, then renamed: a half-built book never replaces a whole one.
    tmp = out.parent / "build" / out.name
    try:
        tmp.parent.mkdir(exist_ok=True)
        if seek:
            built = book7x6.build(args.plies or book7x6.PLIES, log, args.lines,
                                  jobs=args.jobs)
            tmp.write_bytes(book7x6.encode(built))
        else:
            # A board with a table: its book starts from the lines of the book without one
            # (a v2's from the v1's), which its levels below the top read in the opening as a
            # v1's do: with its own corrections alone they drew less often with perfect play.
            plain = book.book_path(w, h, args.connect)
            base = book.decode(plain.read_bytes()) if args.table and plain.is_file() else None
            built = book.build(w, h, args.connect, level, tmp, log, args.table, base)
        tmp.replace(out)
        tmp.parent.rmdir()
    except OSError as e:
        raise ValueError("cannot write %s: %s" % (e.filename, e.strerror)) from None
    print("book %s: %d entries, %d bytes (%.0f s)"
          % (out.name, len(built), out.stat().st_size, time.perf_counter() - t0))
    return 0
