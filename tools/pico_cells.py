"""The Pico's top level against one opponent from the tournament's fair openings, both
colours: the games `connectm tournament --players pico-search,OPP --sizes 7x6:4 --opening 4
--safe-opening --fair-opening 7 --games N` plays between the two (the same seeds, openings
and players), without the self-play pairs, and the nodes of each of the Pico's moves.

    python tools/pico_cells.py wasp 40             # pico-search (no book), 80 games
    python tools/pico_cells.py wasp 40 --book      # pico (its 7x6 book)
    python tools/pico_cells.py wasp 40 --nodes 40960   # another node budget (a study)
    python tools/pico_cells.py wasp 40 --early 20480   # another budget before ply 14 only
    python tools/pico_cells.py wasp 40 --early 20480 --early-plies 8   # ... before ply 8
    python tools/pico_cells.py wasp 40 --player perfect  # another player on its openings
"""

from __future__ import annotations

import argparse
import time

from connectm import book7x6
from connectm import players as P
from connectm import tournament as T

import cmhw  # noqa: E402  (on sys.path once connectm.players loaded the firmware)
import cmmoves  # noqa: E402
import cmsearch7  # noqa: E402

# --early's plies: from the empty board the book answers every move before its records'
# ply (14), so a budget there changes none of them (its perfect lines search from there on).
EARLY_PLIES = book7x6.PLIES


def early_budget(nodes: int, plies: int = EARLY_PLIES) -> None:
    """A study's: the top level's searches before ply ``plies`` get ``nodes``."""
    go = cmsearch7.Search.go

    def early(self, depth, max_nodes=0, max_ms=0, seed=0):  # type: ignore[no-untyped-def]
        if max_nodes == cmhw.TOP[1] and self.b.n < plies:
            max_nodes = nodes
        return go(self, depth, max_nodes, max_ms, seed)

    cmsearch7.Search.go = early  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("opponent")
    ap.add_argument("games", type=int, help="games a colour")
    ap.add_argument("--book", action="store_true", help="pico (with its book), not pico-search")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=cmhw.TOP[1],
                    help="the top level's node budget (default the Pico's, cmhw.TOP)")
    ap.add_argument("--early", type=int, default=0, metavar="NODES",
                    help="the top level's budget before ply %d (default: --nodes)" % EARLY_PLIES)
    ap.add_argument("--early-plies", type=int, default=EARLY_PLIES, metavar="PLY",
                    help="--early's bound, at most %d (default %d)" % (EARLY_PLIES, EARLY_PLIES))
    ap.add_argument("--player", help="play this player (e.g. perfect) in the top level's "
                    "place, on the same openings and seeds")
    a = ap.parse_args(argv)
    if a.nodes < 1:
        ap.error("--nodes must be at least 1")
    if a.early < 0:
        ap.error("--early must not be negative (0: --nodes before ply %d too)" % EARLY_PLIES)
    if not 0 < a.early_plies <= EARLY_PLIES:
        ap.error("--early-plies must be 1 to %d (the book's records start there)" % EARLY_PLIES)
    cmhw.TOP = (cmhw.TOP[0], a.nodes)  # (read by every search the players make)
    if a.early:
        early_budget(a.early, a.early_plies)
    me_name = "pico" if a.book else "pico-search"
    try:
        opp = P.canonical(a.opponent)
        player = P.canonical(a.player) if a.player else me_name
    except ValueError as e:
        ap.error(str(e))
    res = {"W": 0, "D": 0, "L": 0}
    nodes: list[int] = []
    t0 = time.time()
    for side in (0, 1):
        pair = (me_name, opp) if side == 0 else (opp, me_name)
        for job in T.make_jobs([(7, 6, 4)], [pair], a.games, a.seed, 4, True, 7):
            opening = T.random_opening(7, 6, 4, 4, job.seed, True, 7)
            p1 = P.make_player(player if side == 0 else job.side1, job.seed)
            p2 = P.make_player(player if side == 1 else job.side2, job.seed + 1)
            me = (p1, p2)[side]
            b = P.cmboard.Board(7, 6, 4)
            cmmoves.play_moves(b, opening)
            while not b.over():
                p = (p1, p2)[b.n & 1]
                c = p.choose(b)
                if p is me and player == me_name:
                    s = me.players[(7, 6, 4)].search  # type: ignore[attr-defined]
                    if s.nodes:  # (0: the book answered)
                        nodes.append(s.nodes)
                b.play(c)
            r = b.over()
            res["D" if r == 3 else "W" if r == side + 1 else "L"] += 1
    print("%s vs %s, %d games, seed %d: W/D/L %d/%d/%d; %.0f s" % (
        player if a.player else "%s (%d nodes%s)" % (
            me_name, a.nodes, ", %d before ply %d" % (a.early, a.early_plies) if a.early else ""),
        opp, 2 * a.games,
        a.seed, res["W"], res["D"], res["L"], time.time() - t0))
    if nodes:
        print("searched moves %d, nodes mean %.0f max %d"
              % (len(nodes), sum(nodes) / len(nodes), max(nodes)))


if __name__ == "__main__":
    main()
