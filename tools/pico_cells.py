"""The Pico's top level against one opponent from the tournament's fair openings, both
colours: the games `connectm tournament --players pico-search,OPP --sizes 7x6:4 --opening 4
--safe-opening --fair-opening 7 --games N` plays between the two (the same seeds, openings
and players), without the self-play pairs, and the nodes of each of the Pico's moves.

    python tools/pico_cells.py wasp 40             # pico-search (no book), 80 games
    python tools/pico_cells.py wasp 40 --book      # pico (its 7x6 book)
"""

from __future__ import annotations

import argparse
import time

from connectm import players as P
from connectm import tournament as T

import cmmoves  # noqa: E402  (on sys.path once connectm.players loaded the firmware)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("opponent")
    ap.add_argument("games", type=int, help="games a colour")
    ap.add_argument("--book", action="store_true", help="pico (with its book), not pico-search")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    me_name = "pico" if a.book else "pico-search"
    opp = P.canonical(a.opponent)
    res = {"W": 0, "D": 0, "L": 0}
    nodes: list[int] = []
    t0 = time.time()
    for side in (0, 1):
        pair = (me_name, opp) if side == 0 else (opp, me_name)
        for job in T.make_jobs([(7, 6, 4)], [pair], a.games, a.seed, 4, True, 7):
            opening = T.random_opening(7, 6, 4, 4, job.seed, True, 7)
            p1, p2 = P.make_player(job.side1, job.seed), P.make_player(job.side2, job.seed + 1)
            me = (p1, p2)[side]
            b = P.cmboard.Board(7, 6, 4)
            cmmoves.play_moves(b, opening)
            while not b.over():
                p = (p1, p2)[b.n & 1]
                c = p.choose(b)
                if p is me:
                    s = me.players[(7, 6, 4)].search  # type: ignore[attr-defined]
                    if s.nodes:  # (0: the book answered)
                        nodes.append(s.nodes)
                b.play(c)
            r = b.over()
            res["D" if r == 3 else "W" if r == side + 1 else "L"] += 1
    print("%s vs %s, %d games: W/D/L %d/%d/%d; searched moves %d, nodes mean %.0f max %d; %.0f s"
          % (me_name, opp, 2 * a.games, res["W"], res["D"], res["L"], len(nodes),
             sum(nodes) / max(1, len(nodes)), max(nodes or [0]), time.time() - t0))


if __name__ == "__main__":
    main()
