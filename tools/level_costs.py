"""What each level's move costs per board: search nodes (mean / max) and the seconds they
take at the board's measured node rate.

    .venv/bin/python tools/level_costs.py [GAMES]

CPython (node counts do not depend on the interpreter): GAMES games (default 20) per level
and board, the level's search (cmlevels: depth and node budget, as cmgame.cpu) against a
random player (Python's random, seeded by the game number), the level first in even games.
A 5x4 move the level takes from its opening book (fewer than `book plies` discs down) costs
no search and is not counted (the game goes on with the search's move: the counts are of the
positions such games reach). 7x6 counts every move as searched: the Pico's book answers
only positions before ply 14 on its own lines, which the search's moves seldom follow (a
move from it costs less, so these are upper bounds). Boards: the micro:bit v1 (5x4, no
table), the Pico (7x6) without a table and with the one cmpico sizes from the free heap at
boot (224,640 B: the emulated Pico reported 191,872 B free in a game with the old
32 KB table), cleared before each search as in the game, levels 3 to 5 to cmhw.tabled's
depths and nodes there (a 7x6 board with a table: cmhw.WIDE, cmhw.TOP). Node rates: an
earlier build's, in virtual time (the v1's game build ~650 nodes/s on QEMU; the emulated
RP2040 ~5,300 without the table, ~3,400 with it).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "host"), str(ROOT / "tests" / "fakes")]

from connectm import fw  # noqa: E402

PICO_FREE = 191872 + 32768
# (name, W, H, table: 0 none, -1 cmpico's from PICO_FREE, nodes per second)
BOARDS = [("micro:bit v1", 5, 4, 0, 650), ("Pico, no table", 7, 6, 0, 5300),
          ("Pico, table", 7, 6, -1, 3400)]


def main(argv: list[str]) -> int:
    games = int(argv[0]) if argv else 20
    fw.load()
    import cmboard
    import cmpico
    import cmsearch

    from connectm import levels

    print("board           level depth budget book  moves  mean nodes  max nodes  mean s   max s")
    for name, w, h, tt, rate in BOARDS:
        tt = cmpico.table(PICO_FREE) if tt < 0 else tt
        L = levels.on_board(tt, w, h)
        for lv in range(len(L) // 3):
            depth, budget, plies = L[3 * lv:3 * lv + 3]
            book = plies if (w, h) == (5, 4) else 0
            counts: list[int] = []
            for game in range(games):
                rnd = random.Random(game)
                b = cmboard.Board(w, h, 4, tt > 0)
                s = cmsearch.Search(b, tt, L[-3])
                while not b.over():
                    if (b.n & 1) == (game & 1):
                        searched = b.n >= book
                        if s.tt:
                            s.tt.clear()
                        s.go(depth, budget)
                        if searched:
                            counts.append(s.nodes)
                        b.play(s.move)
                    else:
                        b.play(rnd.choice([c for c in range(w) if b.can_play(c)]))
            mean = sum(counts) / len(counts) if counts else 0
            top = max(counts, default=0)
            print("%-15s %5d %5d %6d %4d %6d %11.0f %10d %7.2f %7.2f" % (
                name, lv + 1, depth, budget, book, len(counts), mean, top, mean / rate,
                top / rate))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
