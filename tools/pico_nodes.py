"""The Pico's top-level search timed on the board itself: its nodes a second in the board's
own clock (utime.ticks_ms: simulated time on the emulated RP2040), and each column checked
against the host's (the same search, `book.Player` with the board's table, no book).

The board must run the game (`connectm deploy --board pico-max7219 --port PORT`); this
stops it (Ctrl-C: its names stay in the REPL; one stopped while it booted boots again
first), searches the positions with the game's own
search and table, and leaves the board at the REPL (reset it to play again). Positions:
the fair 4-ply openings that `tools/pico_cells.py` starts its games from.

    python tools/pico_nodes.py /work/sim/pico/tty 20

(A Pico's build has only the threat search: cmsearch's THREATS blocks, build.unswitched.)
"""

from __future__ import annotations

import argparse

from pico_replies import stopped_game  # (tools/ is this script's folder)

from connectm import book, levels
from connectm import tournament as T

# Sent to the board's REPL: the game's board g.b and its search g.s, the top level's depth
# and nodes
CODE = """import utime
b = g.b
s = g.s
print('T', len(s.tt.t))
for mv in %r:
    b.reset()
    for ch in mv:
        b.play(ord(ch) - 49)
    s.tt.clear()
    t = utime.ticks_ms()
    c = s.go(g.LEVELS[-3], g.LEVELS[-2])
    print('P', mv, c, s.nodes, utime.ticks_diff(utime.ticks_ms(), t))
b.reset()
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("port")
    ap.add_argument("positions", type=int, help="how many openings")
    a = ap.parse_args()
    jobs = T.make_jobs([(7, 6, 4)], [("pico", "wasp")], a.positions, 1, 4, True, 7)
    moves = [T.random_opening(7, 6, 4, 4, j.seed, True, 7) for j in jobs]
    tr = stopped_game(a.port)
    raw, err = tr.exec_raw(CODE % (moves,), timeout=None)
    if err:
        raise SystemExit("the board: " + err.decode().strip().splitlines()[-1])
    out = raw.decode()
    tr.exit_raw_repl()
    lines = [ln.split() for ln in out.splitlines()]
    table = int(lines[0][1])
    p = book.Player(7, 6, 4, levels.count() - 1, seek_file=book.NO_BOOK, table=table)
    nodes = ms = same = 0
    for _, mv, col, n, t in lines[1:]:
        p.board.reset()
        for ch in mv:
            p.board.play(int(ch) - 1)
        host = p.move()
        same += host == int(col)
        nodes += int(n)
        ms += int(t)
        print("%-8s column %s (host %d) %6s nodes %7s ms" % (mv, col, host, n, t))
    print("%d positions, table %d B: %d nodes in %.1f s, %.0f nodes/s, %.1f s a move; "
          "%d of %d columns the host's" % (len(lines) - 1, table, nodes, ms / 1000,
                                           nodes * 1000 / ms, ms / 1000 / (len(lines) - 1),
                                           same, len(lines) - 1))


if __name__ == "__main__":
    main()
