"""connectm book: build a level's opening book (firmware/WxHcM.bk, deployed with the game)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from connectm import book, engine, levels
from connectm.cmd_search import add_position_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("book", help="build the opening book that makes a level perfect")
    add_position_args(p, moves=False, default_size="5x4")
    p.add_argument("--level", default="top", help="level 1..N, its name, or top (default top)")
    p.add_argument("--out", type=Path, help="book file (default firmware/WxHcM.bk)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    w, h = engine.parse_size(args.size)
    engine.position(args.size, args.connect)  # the size's one-line errors
    level = levels.index(args.level)
    out = args.out or book.book_path(w, h, args.connect)
    t0 = time.perf_counter()
    # Built beside the book, then renamed: a half-built book never replaces a whole one.
    tmp = out.parent / "build" / out.name
    try:
        tmp.parent.mkdir(exist_ok=True)
        entries = book.build(w, h, args.connect, level, tmp,
                             lambda s: print(s, file=sys.stderr, flush=True))
        tmp.replace(out)
        tmp.parent.rmdir()
    except OSError as e:
        raise ValueError("cannot write %s: %s" % (e.filename, e.strerror)) from None
    print("book %s: %d entries, %d bytes (%.0f s)"
          % (out.name, len(entries), out.stat().st_size, time.perf_counter() - t0))
    return 0
