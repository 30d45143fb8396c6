"""Pondering on a Pico: how long the human waits for the reply, with and without it.

    .venv/bin/python tools/ponder_bench.py [GAMES]

CPython, 7x6, the top level (cmhw.TOP, as on a board with a table), the game's own code
(cmgame, cmponder, cmsearch) with a Pico's table (195 KB, cleared before each reply as on
the board). Time is virtual: search nodes at
the emulated Pico's ~3,400 nodes/s with the table (an earlier build). The "human" of each game
(seeded) picks a column (a depth-4 search, a random column one move in four), thinks
THINK s with the cursor where it was, moves it one key per STEP s, rests REST s on the
column, then drops. Pondering runs whenever no key is due; its poll stops it when the next
key is (so a key waits at most one poll: SLICE nodes, ~40 ms). The wait is the nodes the
game searches after the drop; a reused reply waits for none.
"""

from __future__ import annotations

import contextlib
import io
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "host")]

from connectm import fw, levels  # noqa: E402
from connectm.book import Quiet  # noqa: E402

RATE = 3400  # nodes per second: the emulated Pico with its table
THINK, STEP = 2.0, 0.3  # s: before the first key, between cursor keys
RESTS = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0)  # s on the chosen column before the drop


class Dark(Quiet):
    def text(self, s: str) -> None:
        pass


def play(game: int, rest: float, ponder: bool) -> list[int]:
    """One game; the nodes searched after each of the human's drops."""
    import cmboard
    import cmgame as g
    import cmponder
    import cmsearch

    g.LEVELS = levels.on_board(levels.PICO_TABLE, 7, 6)  # as cmmain gives them to a Pico
    top = len(g.LEVELS) // 3 - 1
    b = cmboard.Board(7, 6, 4)
    g.b, g.d, g.sv, g.lv, g.st, g.hp, g.cur = b, Dark(), None, top, 1, 1 + (game & 1), 3
    g.s = s = cmsearch.Search(b, levels.PICO_TABLE, g.LEVELS[3 * top])
    pb = cmboard.Board(7, 6, 4)
    g.pd = pd = cmponder.Ponder(pb, s) if ponder else None
    waits: list[int] = []
    go = s.go

    def counted(depth: int, nodes: int) -> int:
        r = go(depth, nodes)
        waits.append(s.nodes)
        return r

    s.go = counted  # the game's search: only the reply after a drop runs it
    rnd = random.Random(game)
    hb = cmboard.Board(7, 6, 4)
    human = cmsearch.Search(hb, 0, 4)
    g.cpu()  # the device's first move when it starts
    del waits[:]
    while g.st == 1:
        hb.reset()
        for i in range(b.n):
            hb.play(b.hist[i])
        col = human.go(4, 256)
        if rnd.random() < 0.25:
            col = rnd.choice([c for c in range(7) if b.can_play(c)])
        keys = [(THINK, "")]
        t = THINK
        for _ in range(abs(col - g.cur)):
            t += STEP
            keys.append((t, "r" if col > g.cur else "l"))
        keys.append((t + rest, "d"))
        now = 0.0
        for due, k in keys:
            if pd and now < due:
                start = now

                def poll(nodes: int, due: float = due, start: float = start) -> bool:
                    if start + nodes / RATE < due:
                        return False
                    pd.k = k  # the key that stops it, as Ponder.poll keeps it
                    return True

                pd.poll = poll  # (Ponder.run gives the search self.poll)
                pd.run(g, None)
            now = due
            if k == "d":
                n, moves = len(waits), b.n
                g.key(k)
                if len(waits) == n and b.n == moves + 2:
                    waits.append(0)  # the pondered reply: no search after the drop
            elif k:
                g.key(k)
    return waits


def main(argv: list[str]) -> int:
    games = int(argv[0]) if argv else 20
    fw.load()
    print("7x6, top level, %d games a row; the human thinks %.1f s, moves the cursor a column "
          "per %.1f s, rests on its column, drops. Wait after the drop at %d nodes/s:"
          % (games, THINK, STEP, RATE))
    print("rest on the column | replies | reused | wait without pondering: mean / max s "
          "| with pondering: mean / max s")
    for rest in RESTS:
        rows = []
        for ponder in (False, True):
            waits: list[int] = []
            with contextlib.redirect_stdout(io.StringIO()):  # the game's B lines
                for game in range(games):
                    waits += play(game, rest, ponder)
            rows.append(waits)
        plain, pondered = rows
        assert len(plain) == len(pondered), (len(plain), len(pondered))
        print("%17.2f s | %7d | %5.0f%% | %21.3f / %.3f | %22.3f / %.3f" % (
            rest, len(plain), 100.0 * pondered.count(0) / len(pondered),
            sum(plain) / len(plain) / RATE, max(plain) / RATE,
            sum(pondered) / len(pondered) / RATE, max(pondered) / RATE))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
