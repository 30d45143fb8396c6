"""connectm perft: how many move sequences of a length start from a position."""

from __future__ import annotations

import argparse
import time

from connectm import engine
from connectm.cmd_search import add_position_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("perft", help="count move sequences of a length (rules check)")
    add_position_args(p)
    p.add_argument("--depth", type=int, default=6, help="sequence length (default 6)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import cmperft

    if args.depth < 0:
        raise ValueError("--depth must be 0 or more")
    board = engine.position(args.size, args.connect, args.moves, keys=0)
    t0 = time.perf_counter()
    count = cmperft.perft(board, args.depth)
    print("perft %d: %d  (%.0f ms)" % (args.depth, count, (time.perf_counter() - t0) * 1000))
    return 0
