#!/usr/bin/env python3
"""Write the test sets that ship with connectm (tests/data/*.txt): positions of random games,
scored by the independent reference solver tests/refsolve.py (never by firmware/cmsolve.py).

    python tools/make_testsets.py            # rewrite tests/data/
    python tools/make_testsets.py --check    # regenerate and compare (exit 1 on a change)

Each file: '#' comment lines (board, source), then one position a line, 'MOVES SCORE' (the
format of Pascal Pons' benchmark sets; `connectm solve --file F --size WxH --connect M`).
Seeded: the same files every run.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import refsolve  # noqa: E402

# (file, W, H, M, fewest discs, most discs, positions, seed)
SETS = [
    ("7x6c4_late.txt", 7, 6, 4, 24, 38, 100, 1),
    ("5x4c4.txt", 5, 4, 4, 6, 14, 40, 2),
    ("4x4c3.txt", 4, 4, 3, 2, 10, 40, 3),
]


def can_win_now(g: refsolve.Grid, moves: str) -> bool:
    return any(g.after(moves + str(c + 1))[1] for c in range(g.w)
               if moves.count(str(c + 1)) < g.h)


def make(w: int, h: int, m: int, lo: int, hi: int, count: int, seed: int) -> list[str]:
    """count positions, distinct, with lo..hi discs, 3 in 4 without a win in one for the
    side to move (those test the search; the others the immediate-win check)."""
    g = refsolve.Grid(w, h, m)
    rng = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    quick = 0
    while len(out) < count:
        moves = refsolve.random_position(g, rng, rng.randint(lo, hi))
        if moves is None or moves in seen or len(moves) == w * h:
            continue
        if can_win_now(g, moves):
            if 4 * (quick + 1) > count:
                continue
            quick += 1
        seen.add(moves)
        out.append("%s %d" % (moves, g.score(moves)))
    return out


def text(name: str, w: int, h: int, m: int, lo: int, hi: int, count: int, seed: int) -> str:
    head = [
        "# %dx%d connect %d: %d positions of seeded random games, %d to %d discs down" % (
            w, h, m, count, lo, hi),
        "# written by tools/make_testsets.py (seed %d); exact scores by tests/refsolve.py" % seed,
        "# check: connectm solve --file tests/data/%s --size %dx%d --connect %d" % (
            name, w, h, m),
    ]
    return "\n".join(head + make(w, h, m, lo, hi, count, seed)) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--check", action="store_true",
                   help="regenerate and compare with tests/data/ (write nothing)")
    p.add_argument("--out", type=Path, default=ROOT / "tests" / "data")
    a = p.parse_args(argv)
    changed = 0
    for spec in SETS:
        t0 = time.perf_counter()
        new = text(*spec)
        path = a.out / spec[0]
        if a.check:
            same = path.is_file() and path.read_text() == new
            changed += not same
            print("%s: %s (%.1f s)" % (path, "same" if same else "DIFFERS",
                                       time.perf_counter() - t0))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(new)
            print("wrote %s (%.1f s)" % (path, time.perf_counter() - t0))
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
