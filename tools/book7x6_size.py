"""How big a perfect 7x6 opening book before ply P would be: the positions a device
meets from the empty board, first and second, against every human line, when it plays a
value-keeping move (exact7x6's scores, the first in centre-out order) before ply P.

    .venv/bin/python tools/book7x6_size.py [--free K] [P ...]   (default P: 8 10 12)

Needs bitbully (connectm.exact7x6). --free K: the first K plies are any moves of both sides
(the tournament's random K-ply openings), the device's book moves start at ply K.

A position and its mirror image count once (a book would look up either). `connectm book
--size 7x6` builds the Pico's (before ply 14: connectm.book7x6), choosing each column in the
orientation it looks up, which adds a few positions (55,477 there against 54,379 here). Such a book
holds a move for every position, the ones the search already plays right too: the book
that only holds corrections is smaller, but building it needs the search's move in each
position (~0.5 s each on the host for the Pico's top level), where this needs ~1 ms.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "host")]

from connectm import book, exact7x6, fw  # noqa: E402

fw.load()
import cmboard  # noqa: E402


def key(b: cmboard.Board) -> bytes:
    """The position or its mirror image, whichever is smaller (cells column by column)."""
    cells = bytes(b.cells)
    h = b.h
    mirror = b"".join(cells[c * h:(c + 1) * h] for c in reversed(range(b.w)))
    return min(cells, mirror)


def count(plies: int, free: int = 0) -> list[int]:
    """Book positions at each ply below ``plies`` (device first and second together), the
    first ``free`` plies any moves."""
    b = cmboard.Board(7, 6, 4)
    per_ply = [0] * plies
    for device in (0, 1):
        seen: set[bytes] = set()

        def walk() -> None:
            if b.n >= plies or b.over():
                return
            k = key(b)
            if k in seen:
                return
            seen.add(k)
            if b.n >= free and b.n & 1 == device:
                per_ply[b.n] += 1
                cols = [book.first_best(b.order, exact7x6.scores(b))]
            else:
                cols = [c for c in range(b.w) if b.can_play(c)]
            for c in cols:
                b.play(c)
                walk()
                b.undo()

        walk()
    return per_ply


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--free", type=int, default=0, metavar="K")
    p.add_argument("plies", type=int, nargs="*", default=[8, 10, 12], metavar="P")
    args = p.parse_args()
    for plies in args.plies:
        per_ply = count(plies, args.free)
        print("before ply %d: %d positions (%s by ply)"
              % (plies, sum(per_ply), ", ".join(str(n) for n in per_ply)))


if __name__ == "__main__":
    main()
