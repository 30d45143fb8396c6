"""The weights of the Pico's 7x6 evaluation (firmware/cmfit7.py, read by cmsearch7): a
ridge regression of each position's exact outcome on cmsearch7's own terms.

    python tools/fit7x6.py collect OPP SEEDS GAMES OUT   # pico-search's games, labelled
    python tools/fit7x6.py leaves POSITIONS COUNT OUT [--seed S]   # leaves of their searches
    python tools/fit7x6.py fit POSITIONS... [--out firmware/cmfit7.py] [--tanh STEPS]

collect plays `pico-search` against OPP from the tournament's fair 4-ply openings (both
colours, GAMES a colour and seed) and writes every position met (not over, ply 4 on) with
its exact score for the side to move (bitbully, `connectm.exact7x6`): lines "MOVES SCORE".
leaves writes positions as a search's leaves meet them, labelled alike: from the positions
at plies 4-13 of a collect file, 4 to 10 random plies (a study's: docs/pico-7x6.md).
fit reads such files (gzip or plain), each position and its mirror image, and writes
cmfit7.py. The terms are the ones cmsearch7 keeps incrementally (first player's view):
each window's state (1, 2 or 3 discs of one side and none of the other: 6 a window), each
empty cell's threat of each side, alone or above the other side's lower threat in its
column (4 a cell), and a threat right above one of its own side's (2). The target is the
outcome, win 1, draw 0, loss -1, plus a little for a win that comes sooner or a loss that
comes later (SOON). tests/data/fit7x6.txt.gz holds the positions the firmware's weights
were fitted to; tests/test_search7.py checks that fitting them gives cmfit7.py again.
--tanh STEPS reads the outcome through tanh instead (a study's: docs/pico-7x6.md), fitted
from the linear fit in STEPS steps.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "host")]
from connectm import fw  # noqa: E402

fw.load()
import cmboard  # noqa: E402
import cmmoves  # noqa: E402
import cmsearch7  # noqa: E402

W, H, M = 7, 6, 4
SCALE = 1000  # the weights' unit: an outcome of 1
RIDGE = 10.0
SOON = 0.3  # the target's share that grows with the exact score: a sooner win, a later loss
SCORE_MAX = 18  # bitbully's score at ply 4 at most: (42 + 1 - 4) // 2 - 1
OUT = ROOT / "firmware" / "cmfit7.py"


def collect(opp: str, seeds: str, games: int, out: Path) -> int:
    from connectm import exact7x6, players, tournament

    opp = players.canonical(opp)
    pos: dict[str, int] = {}
    for seed in map(int, seeds.split(",")):
        for side in (0, 1):
            pair = ("pico-search", opp) if side == 0 else (opp, "pico-search")
            for job in tournament.make_jobs([(W, H, M)], [pair], games, seed, 4, True, 7):
                opening, p1, p2 = tournament.start(job)
                b = cmboard.Board(W, H, M)
                cmmoves.play_moves(b, opening)
                while not b.over():
                    mv = cmmoves.moves(b)
                    if mv not in pos:
                        pos[mv] = max(exact7x6.scores(b).values())
                    b.play((p1, p2)[b.n & 1].choose(b))
    out.write_text("".join("%s %d\n" % kv for kv in pos.items()))
    return len(pos)


def leaves(bases: list[str], count: int, seed: int, out: Path) -> int:
    """Positions as a search's leaves meet them: from a position of ``bases`` at plies 4-13
    (the top level's roots past a 4-ply opening), 4 to 10 plies of random moves (none that
    lets the other side complete a line where another move exists; stopping early where
    the side to move can complete one), each labelled with its exact score as collect
    does (a search scores such positions, not only the ones its games meet)."""
    import random

    from connectm import exact7x6

    rng = random.Random(seed)
    roots = [mv for mv in bases if 4 <= len(mv) <= 13]
    if not roots:
        raise ValueError("leaves: no position at plies 4-13 to start from")
    pos: dict[str, int] = {}
    b = cmboard.Board(W, H, M)

    def wins(c: int) -> bool:
        b.play(c)
        r = b.over()
        b.undo()
        return bool(r) and r != 3

    while len(pos) < count:
        b.reset()
        cmmoves.play_moves(b, rng.choice(roots))
        for _ in range(rng.randint(4, 10)):
            cols = [c for c in range(W) if b.can_play(c)]
            if not cols or any(wins(c) for c in cols):
                break
            safe = []
            for c in cols:
                b.play(c)
                if not any(wins(d) for d in range(W) if b.can_play(d)):
                    safe.append(c)
                b.undo()
            b.play(rng.choice(safe or cols))
            if b.over():
                b.undo()
                break
        mv = cmmoves.moves(b)
        if not b.over() and mv not in pos:
            pos[mv] = max(exact7x6.scores(b).values())
    out.write_text("".join("%s %d\n" % kv for kv in pos.items()))
    return len(pos)


class Terms:
    """A position's terms, as cmsearch7 reads them (threats() recounts t1 and t2)."""

    def __init__(self) -> None:
        self.b = cmboard.Board(W, H, M)
        self.s = cmsearch7.Search(self.b, 0)
        self.nw = len(self.b.st)
        self.size = W * H
        self.n = 6 * self.nw + 4 * self.size + 2 + 2  # + stacks, bias, side to move

    def of(self, moves: str, mirror: bool) -> list[int]:
        """The indices of the terms present, with a stack's count repeated."""
        b, s = self.b, self.s
        b.reset()
        cmmoves.play_moves(b, "".join(str(W + 1 - int(c)) for c in moves) if mirror else moves)
        s.threats()
        u = b.u
        on = []
        for j in range(self.nw):
            a, o = b.st[j] % u, b.st[j] // u
            if a and not o:
                on.append(6 * j + a - 1)
            elif o and not a:
                on.append(6 * j + 2 + o)
        base = 6 * self.nw
        for c in range(W):
            low = prev = 0
            for e in range(c * H + b.heights[c], c * H + H):
                here = 0
                if s.t1[e]:
                    here = 1
                    on.append(base + 4 * e + (1 if low == 2 else 0))
                    if prev & 1:
                        on.append(self.n - 4)
                if s.t2[e]:
                    here |= 2
                    on.append(base + 4 * e + (3 if low == 1 else 2))
                    if prev & 2:
                        on.append(self.n - 3)
                if not low:
                    low = here
                prev = here
        on.append(self.n - 2)
        if b.n & 1:
            on.append(self.n - 1)
        return on


def read_positions(paths: list[Path]) -> list[tuple[str, int]]:
    out = []
    for p in paths:
        raw = p.read_bytes()
        text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()
        for line in text.split("\n"):
            if line.strip():
                mv, score = line.split()
                out.append((mv, int(score)))
    return out


def fit(positions: list[tuple[str, int]], ridge: float = RIDGE, soon: float = SOON,
        steps: int = 0) -> dict:
    import numpy as np

    t = Terms()
    x = np.zeros((2 * len(positions), t.n))
    y = np.zeros(2 * len(positions))
    for i, (mv, score) in enumerate(positions):
        sign = (score > 0) - (score < 0)
        target = (1 - soon) * sign + soon * score / SCORE_MAX
        target = target if len(mv) % 2 == 0 else -target  # the first player's view
        for k, mirror in enumerate((False, True)):
            for j in t.of(mv, mirror):
                x[2 * i + k, j] += 1
            y[2 * i + k] = target
    w = np.linalg.solve(x.T @ x + ridge * np.eye(t.n), x.T @ y)
    if steps:
        w = fit_tanh(x, y, w, ridge, steps)
    base = 6 * t.nw
    return {
        "windows": [int(round(SCALE * v)) for v in w[:base]],
        "threats": [int(round(SCALE * v)) for v in w[base:base + 4 * t.size]],
        "stacks": [int(round(SCALE * v)) for v in w[t.n - 4:t.n - 2]],
    }


def fit_tanh(x, y, w, ridge: float, steps: int, rate: float = 0.01):  # type: ignore[no-untyped-def]
    """The outcome read through tanh: the least squares of tanh(x w) - y plus the ridge, from
    the linear fit w, by full-batch Adam (fixed steps: the same weights on every run)."""
    import numpy as np

    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for k in range(1, steps + 1):
        z = np.tanh(x @ w)
        g = 2 * (x.T @ ((z - y) * (1 - z * z))) + 2 * ridge * w
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = w - rate * (m / (1 - 0.9 ** k)) / (np.sqrt(v / (1 - 0.999 ** k)) + 1e-8)
    return w


def module(weights: dict, about: str) -> str:
    def rows(vals: list[int], per: int) -> str:
        return "\n".join("    " + ", ".join(str(v) for v in vals[i:i + per]) + ","
                         for i in range(0, len(vals), per))

    return """# cmfit7: the weights of cmsearch7's evaluation on 7x6, connect 4, before ply 16
# (cmsearch7.HAND), in the first player's view (a win is far above: cmboard.WIN).
# Written by tools/fit7x6.py: %s.
# WINDOWS, 6 a window (cmlines' numbering): the window holding 1, 2 or 3 discs of the first
# player and none of the second; then 1, 2 or 3 of the second's and none of the first's.
WINDOWS = (
%s
)
# THREATS, 4 a cell (column-major, row 0 at the bottom): a threat of the first player's
# there (its window one disc short, this cell the gap), the same above a lower threat of the
# second player's in its column; a threat of the second player's, the same above a lower
# one of the first's.
THREATS = (
%s
)
# A threat right above one of the same side's: the first player's, the second's.
STACKS = (%d, %d)
""" % (about, rows(weights["windows"], 6), rows(weights["threats"], 4), *weights["stacks"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="pico-search's games against OPP, every position labelled")
    c.add_argument("opponent")
    c.add_argument("seeds", help="e.g. 2,3")
    c.add_argument("games", type=int, help="games a colour and seed")
    c.add_argument("out", type=Path)
    v = sub.add_parser("leaves", help="leaf positions from those of POSITIONS, labelled")
    v.add_argument("positions", type=Path, help="a collect file (its positions, not scores)")
    v.add_argument("count", type=int)
    v.add_argument("out", type=Path)
    v.add_argument("--seed", type=int, default=1)
    f = sub.add_parser("fit", help="write cmfit7.py from labelled positions")
    f.add_argument("positions", type=Path, nargs="+")
    f.add_argument("--out", type=Path, default=OUT)
    f.add_argument("--ridge", type=float, default=RIDGE)
    f.add_argument("--soon", type=float, default=SOON)
    f.add_argument("--tanh", type=int, default=0, metavar="STEPS",
                   help="read the outcome through tanh, fitted in STEPS steps from the linear fit")
    a = ap.parse_args(argv)
    if a.cmd == "collect":
        print(a.out, collect(a.opponent, a.seeds, a.games, a.out), "positions")
        return 0
    if a.cmd == "leaves":
        if a.count < 1:
            ap.error("leaves: COUNT must be at least 1")
        bases = [mv for mv, _ in read_positions([a.positions])]
        try:
            print(a.out, leaves(bases, a.count, a.seed, a.out), "positions")
        except ValueError as e:
            ap.error(str(e))
        return 0
    positions = read_positions(a.positions)
    about = "ridge %g, soon %g, %d positions and their mirror images" % (
        a.ridge, a.soon, len(positions))
    if a.tanh:
        about += ", through tanh (%d steps)" % a.tanh
    a.out.write_text(module(fit(positions, a.ridge, a.soon, a.tanh), about))
    print(a.out, about)
    return 0


if __name__ == "__main__":
    sys.exit(main())
