"""connectm search: the engine's best move at a depth, a node budget or a time budget."""

from __future__ import annotations

import argparse
import json
import time

from connectm import engine


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("search", help="best move by depth-limited alpha-beta")
    add_position_args(p)
    p.add_argument("--depth", type=int, default=6, help="deepest iteration (default 6)")
    p.add_argument("--nodes", type=int, default=0, help="node budget (0: none)")
    p.add_argument("--ms", type=int, default=0, help="time budget in ms (0: none)")
    p.add_argument("--tt", type=engine.tt_bytes, default=engine.TT_BYTES,
                   help="transposition table bytes, 0..%d (0: none)" % engine.TT_MAX)
    p.add_argument("--seed", type=int, default=0, help="pick among equal moves (0: off)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def add_position_args(p: argparse.ArgumentParser, moves: bool = True,
                      default_size: str = "7x6") -> None:
    p.add_argument("--size", default=default_size,
                   help="board WxH, 3..9 each (default %s)" % default_size)
    p.add_argument("--connect", type=int, default=4, help="discs in a line to win (default 4)")
    if moves:
        p.add_argument("--moves", default="", help="1-based columns played so far, e.g. 4453")


def run(args: argparse.Namespace) -> int:
    import cmsearch

    if args.depth < 1:
        raise ValueError("--depth must be at least 1")
    board = engine.position(args.size, args.connect, args.moves)
    if board.over():
        raise ValueError("the game is already over after %s" % (args.moves or "no moves"))
    search = cmsearch.Search(board, max(0, args.tt))
    t0 = time.perf_counter()
    col = search.go(args.depth, args.nodes, args.ms, args.seed)
    ms = (time.perf_counter() - t0) * 1000
    out = {"move": col + 1, "score": search.score, "depth": search.depth,
           "nodes": search.nodes, "ms": round(ms, 1)}
    if args.json:
        print(json.dumps(out))
    else:
        print("move %(move)d  score %(score)d  depth %(depth)d  nodes %(nodes)d  %(ms).1f ms"
              % out)
    return 0
