"""The Pico's top level in whole games, each reply timed on the board itself: the time of
the game's own reply (cmgame.cpu: the book, else the search from an empty table) in the
board's clock (utime.ticks_ms: simulated time on the emulated RP2040), and each column
checked against the host's (`connectm move --size 7x6 --table T`: book.Player with the
board's table). The opponent is a host player (a middle level by default) from the fair
4-ply openings that `tools/pico_cells.py` starts its games from, each opening played with
the board on both sides.

The board must run the game (`connectm deploy --board pico-max7219 --port PORT`); this
stops it (Ctrl-C: its names stay in the REPL; a board stopped while it booted boots again
first) and leaves it at the REPL (reset it to play).

    python tools/pico_replies.py /work/sim/pico/tty 2             # 2 openings, 4 games
    python tools/pico_replies.py /work/sim/pico/tty 2 --opponent level:2 --seed 5
"""

from __future__ import annotations

import argparse
import time

from mpremote.transport_serial import SerialTransport

from connectm import book, levels
from connectm import players as P
from connectm import tournament as T

# Sent once: the game's own reply (cmgame.cpu) at the top level for a position, timed.
SETUP = """import utime
def R(mv):
    b = g.b
    b.reset()
    for ch in mv:
        b.play(ord(ch) - 49)
    g.st = 1
    g.hp = 2 - (b.n & 1)
    g.lv = len(g.LEVELS) // 3 - 1
    g.s.nodes = 0
    t = utime.ticks_ms()
    g.cpu()
    print('R', b.hist[b.n - 1], utime.ticks_diff(utime.ticks_ms(), t), g.s.nodes)
print('T', len(g.s.tt.t))
"""


# Whether the game's boot has made its names (main.py stopped before it, g is not there)
BOOTED = "try:\n    print(g.s is not None)\nexcept NameError:\n    print(False)\n"


def stopped_game(port: str, wait: float = 900) -> SerialTransport:
    """The board at its raw REPL, the game stopped with its names made (g.b, g.s). Ctrl-C
    stops the game, or its boot if it is still booting (right after a deploy or a mip
    install: the boot compiles its source); then a soft reset boots it again, and it is
    stopped once it plays (its first B line), within ``wait`` seconds of wall time."""
    tr = SerialTransport(port, 115200)
    tr.enter_raw_repl(soft_reset=False)
    if tr.exec_raw(BOOTED, timeout=60)[0].split() == [b"True"]:
        return tr
    tr.exit_raw_repl()
    tr.serial.write(b"\x04")  # the friendly REPL's soft reset: main.py runs
    end = time.monotonic() + wait
    was, tr.serial.timeout = tr.serial.timeout, 1  # (a line read waits 1 s at most)
    while not tr.serial.readline().startswith(b"B "):
        if time.monotonic() > end:
            raise SystemExit("the board: no game within %d s of a soft reset" % wait)
    tr.serial.timeout = was
    tr.enter_raw_repl(soft_reset=False)
    return tr


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("port")
    ap.add_argument("openings", type=int, help="how many openings (two games each)")
    ap.add_argument("--opponent", default="level:3", help="the host's player (level:3)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    jobs = T.make_jobs([(7, 6, 4)], [("pico", "wasp")], a.openings, a.seed, 4, True, 7)
    openings = [T.random_opening(7, 6, 4, 4, j.seed, True, 7) for j in jobs]
    tr = stopped_game(a.port)

    def board(code: str) -> list[str]:
        raw, err = tr.exec_raw(code, timeout=None)
        if err:
            raise SystemExit("the board: " + err.decode().strip().splitlines()[-1])
        return raw.decode().split()

    out = board(SETUP)
    table = int(out[out.index("T") + 1])
    host = book.Player(7, 6, 4, levels.count() - 1, table=table)
    times: list[int] = []
    searched: list[int] = []
    same = 0
    for k, opening in enumerate(openings):
        for side in (0, 1):
            opp = P.make_player(a.opponent, a.seed + k)
            b = P.cmboard.Board(7, 6, 4)
            moves = [int(ch) - 1 for ch in opening]
            for c in moves:
                b.play(c)
            while not b.over():
                if b.n & 1 == side:
                    mv = "".join(str(c + 1) for c in moves)
                    r = board("R(%r)" % mv)
                    i = len(r) - 1 - r[::-1].index("R")
                    col, ms, nodes = int(r[i + 1]), int(r[i + 2]), int(r[i + 3])
                    host.board.reset()
                    for c in moves:
                        host.board.play(c)
                    same += host.move() == col
                    times.append(ms)
                    if nodes:
                        searched.append(ms)
                    print("%-42s column %d %6d nodes %5d ms" % (mv, col, nodes, ms))
                else:
                    col = opp.choose(b)
                b.play(col)
                moves.append(col)
    tr.exit_raw_repl()
    print("table %d B, %d replies: mean %.2f s, max %.2f s; searched %d: mean %.2f s, max "
          "%.2f s; %d of %d the host's" % (
              table, len(times), sum(times) / 1000 / len(times), max(times) / 1000,
              len(searched), sum(searched) / 1000 / max(1, len(searched)),
              max(searched or [0]) / 1000, same, len(times)))


if __name__ == "__main__":
    main()
