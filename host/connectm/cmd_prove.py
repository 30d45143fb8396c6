"""connectm prove: check that a level keeps the exact value against every human line."""

from __future__ import annotations

import argparse
import json

from connectm import book, engine, levels
from connectm.cmd_move import add_table_arg
from connectm.cmd_search import add_position_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("prove", help="check a level against every human line (small boards)")
    add_position_args(p, moves=False, default_size="5x4")
    p.add_argument("--level", default="top", help="level 1..N, its name, or top (default top)")
    add_table_arg(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    w, h = engine.parse_size(args.size)
    engine.position(args.size, args.connect)  # the size's one-line errors
    if w * h > 20:
        raise ValueError("prove walks every line: boards up to 20 cells, not %dx%d" % (w, h))
    level = levels.index(args.level)
    p = book.prove(w, h, args.connect, level, table=args.table)
    out = {"level": level + 1, "positions": p.positions, "value_drops": len(p.drops),
           "games": p.games, "losses": p.losses, "max_nodes": p.max_nodes,
           "max_nodes_at": p.max_nodes_at, "book_entries": p.book_entries,
           "book_bytes": p.book_bytes, "book_met": p.book_met, "seconds": round(p.seconds, 1)}
    if args.json:
        print(json.dumps(out))
    else:
        print("level %(level)d on %(size)s%(table)s: %(positions)d device moves answered, "
              "%(value_drops)d drop the exact value"
              % dict(out, size=args.size,
                     table=" with a %d-byte table" % args.table if args.table else ""))
        print("%(games)d final positions, %(losses)d lost" % out)
        print("largest search: %(max_nodes)d nodes (after %(max_nodes_at)s)" % out)
        print("book: %(book_entries)d entries, %(book_bytes)d bytes, %(book_met)d met" % out)
        for moves in p.drops[:10]:
            print("drop after %s" % moves)
    return 1 if p.drops or p.losses else 0
