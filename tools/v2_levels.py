"""Nodes per computer move at each level, the micro:bit v1's build (no table) against the
v2's (a table of build.V2_TT bytes, kept from move to move as in the game).

    .venv/bin/python tools/v2_levels.py [GAMES]

Self-play on CPython (node counts do not depend on the interpreter): at each level both
sides search to the level's depth with cmgame's seeds (1 + discs + game), no time budget,
GAMES games (default 10); the v1 and the v2 play the same positions (the v1's moves).
Prints per level: mean and max nodes of a move, v1 and v2, and the v2's share.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "host")]

from connectm import build, fw  # noqa: E402


def main(argv: list[str]) -> int:
    games = int(argv[0]) if argv else 10
    fw.load()
    import cmboard
    import cmlevels
    import cmsearch

    print("level depth  v1 mean   v1 max  v2 mean   v2 max  v2/v1")
    for lv, (depth, _ms) in enumerate(cmlevels.LEVELS):
        v1: list[int] = []
        v2: list[int] = []
        for game in range(games):
            b1 = cmboard.Board(5, 4, 4, 0)
            b2 = cmboard.Board(5, 4, 4, 1)
            s1 = cmsearch.Search(b1, 0, depth)
            s2 = cmsearch.Search(b2, build.V2_TT, depth)
            while not b1.over():
                seed = 1 + b1.n + game
                c = s1.go(depth, 0, 0, seed)
                s2.go(depth, 0, 0, seed)
                v1.append(s1.nodes)
                v2.append(s2.nodes)
                b1.play(c)
                b2.play(c)
        m1 = sum(v1) / len(v1)
        m2 = sum(v2) / len(v2)
        print("%5d %5d %8.0f %8d %8.0f %8d  %4.0f%%" % (
            lv + 1, depth, m1, max(v1), m2, max(v2), 100.0 * sum(v2) / sum(v1)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
