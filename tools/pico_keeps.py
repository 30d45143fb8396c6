"""How often the Pico's top level keeps the best exact outcome (win, draw or loss), over a
fixed set of positions where some move loses it: a measure of its play with far less noise
than games won and lost, for comparing two builds of the search (docs/pico-7x6.md).

    python tools/pico_keeps.py collect wasp 101,102,103,104,105,106 OUT   # the positions
    python tools/pico_keeps.py count tests/data/keeps7x6.txt.gz         # this checkout's
    python tools/pico_keeps.py count tests/data/keeps7x6.txt.gz --nodes 20480

collect plays `pico-search` (the top level, no book) against OPP from the tournament's fair
4-ply openings (40 games a colour and seed by default, as tools/pico_cells.py) and writes
each position before ply 16 where the top level was to move and not every move has the
same outcome: lines "MOVES OUTCOMES", an outcome a column (+ win, 0 draw, - loss for the
mover, x full; bitbully, `connectm.exact7x6`). count plays the top level on each and
prints, by the position's ply, how many of its moves keep the best outcome.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "host")]
from connectm import players as P  # noqa: E402
from connectm import tournament as T  # noqa: E402

import cmhw  # noqa: E402  (on sys.path once connectm.players loaded the firmware)
import cmmoves  # noqa: E402

MARKS = "-0+"  # an outcome's mark, by its sign + 1
BANDS = 4  # plies a line of count's output


def outcomes(board: object) -> str:
    from connectm import exact7x6

    sc = exact7x6.scores(board)
    return "".join(MARKS[(sc[c] > 0) - (sc[c] < 0) + 1] if c in sc else "x" for c in range(7))


def collect(opp: str, seeds: list[int], out: Path, games: int = 40) -> int:
    opp = P.canonical(opp)
    found: dict[str, str] = {}
    for seed in seeds:
        for side in (0, 1):
            pair = ("pico-search", opp) if side == 0 else (opp, "pico-search")
            for job in T.make_jobs([(7, 6, 4)], [pair], games, seed, 4, True, 7):
                opening, p1, p2 = T.start(job)
                b = P.cmboard.Board(7, 6, 4)
                cmmoves.play_moves(b, opening)
                while not b.over() and b.n < 16:
                    mv = cmmoves.moves(b)
                    if (b.n & 1) == side and mv not in found:
                        o = outcomes(b)
                        if len(set(o) - {"x"}) > 1:
                            found[mv] = o
                    b.play((p1, p2)[b.n & 1].choose(b))
    out.write_text("".join("%s %s\n" % kv for kv in found.items()))
    return len(found)


def read(path: Path) -> list[tuple[str, str]]:
    """A collect file's lines (gzip or plain); ValueError names the first bad one."""
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        f = line.split()
        if (len(f) != 2 or not f[0].isdigit() or set(f[0]) - set("1234567")
                or len(f[1]) != 7 or set(f[1]) - set(MARKS + "x") or f[1] == "x" * 7):
            raise ValueError("%s line %d: not MOVES OUTCOMES (7 of -0+x): %r" % (path, i, line))
        out.append((f[0], f[1]))
    return out


def count(positions: list[tuple[str, str]]) -> dict[int, tuple[int, int]]:
    """Ply band -> (moves that keep the best outcome, positions)."""
    p = P.make_player("pico-search")
    bands: dict[int, tuple[int, int]] = {}
    for mv, o in positions:
        b = P.cmboard.Board(7, 6, 4)
        cmmoves.play_moves(b, mv)
        best = max(MARKS.index(ch) for ch in o if ch != "x")
        k = len(mv) // BANDS * BANDS
        kept, n = bands.get(k, (0, 0))
        bands[k] = (kept + (MARKS.index(o[p.choose(b)]) == best), n + 1)
    return bands


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="positions of the top level's games, their outcomes")
    c.add_argument("opponent")
    c.add_argument("seeds", help="e.g. 101,102")
    c.add_argument("out", type=Path)
    c.add_argument("--games", type=int, default=40, help="games a colour and seed")
    k = sub.add_parser("count", help="how many the top level keeps")
    k.add_argument("positions", type=Path)
    k.add_argument("--nodes", type=int, default=cmhw.TOP[1],
                   help="the top level's node budget (default the Pico's, cmhw.TOP)")
    a = ap.parse_args(argv)
    if a.cmd == "collect":
        try:
            seeds = [int(s) for s in a.seeds.split(",")]
            opp = P.canonical(a.opponent)
        except ValueError as e:
            ap.error(str(e))
        if a.games < 1:
            ap.error("--games must be at least 1")
        print(a.out, collect(opp, seeds, a.out, a.games), "positions")
        return 0
    if a.nodes < 1:
        ap.error("--nodes must be at least 1")
    try:
        positions = read(a.positions)
    except (OSError, ValueError) as e:
        ap.error(str(e))
    cmhw.TOP = (cmhw.TOP[0], a.nodes)  # (read by every search the player makes)
    bands = count(positions)
    kept = sum(v[0] for v in bands.values())
    n = sum(v[1] for v in bands.values())
    print("  ".join("plies %d-%d: %d of %d" % (b, b + BANDS - 1, v[0], v[1])
                    for b, v in sorted(bands.items())) + "  all: %d of %d" % (kept, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
