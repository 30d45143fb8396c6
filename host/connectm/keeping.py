"""The share of value-keeping moves of each level over a fixed seeded sample of positions.

A move keeps the value when its exact score (cmsolve, the test sets' convention: a win
sooner scores more) is the best of the position's moves, as ``connectm prove`` checks.
The sample: positions the top level meets. Seeded games of the top level against uniformly
random moves (the top level first in one game, second in the next), each stopped at a
random ply from ``from_ply`` on with the top level to move; a position enters when the game
is not over, the exact solve of every move finishes within ``max_nodes`` solver nodes (on
7x6: the late positions the host's solver answers), and not every move has the same score
(there every move keeps the value, whatever plays). On 5x4 the top level keeps every
value there (``connectm prove`` walks every line against it): the levels below show how far
they fall short of it. Deterministic: the same arguments give the same sample and shares.
The sample's top level plays without the Pico's 7x6 book (firmware/7x6c4.bin): the
positions stay the same whatever that book holds, so the levels keep being compared on one
fixed set (the tables in docs/levels.md).
"""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from connectm import book, fw, levels

fw.load()
import cmmoves  # noqa: E402

HEADER = ["size", "level", "name", "positions", "kept", "share", "seed", "from_ply",
          "max_nodes"]


class TooHard(Exception):
    """The solver spent its node budget on one position."""


@dataclass(frozen=True)
class Position:
    moves: str  # 1-based column digits
    scores: dict[int, int]  # column -> the mover's exact score after it

    def keeps(self, col: int) -> bool:
        return self.scores[col] == max(self.scores.values())


def sample(w: int, h: int, m: int, count: int, seed: int, from_ply: int = 0,
           max_nodes: int = 0) -> list[Position]:
    """``count`` positions (see the module doc); max_nodes 0: no limit."""
    top = book.Player(w, h, m, levels.count() - 1, seek_file=book.NO_BOOK)
    b = top.board
    exact = book.Exact(b)
    solver = exact.solver

    def poll() -> None:
        raise TooHard

    rng = random.Random("keeping:%d:%dx%d:%d" % (seed, w, h, m))
    out: list[Position] = []
    tries = 0
    while len(out) < count:
        tries += 1
        if tries > 1000 * count:
            raise ValueError("no %d positions from ply %d within %d nodes on %dx%d:%d"
                             % (count, from_ply, max_nodes, w, h, m))
        b.reset()
        device = 1 + (tries & 1)
        stop = rng.randrange(from_ply, b.size - 1)
        if (stop & 1) != device - 1:
            stop += 1  # the top level to move
        while b.n < stop and not b.over():
            if 1 + (b.n & 1) == device:
                b.play(top.move())
            else:
                b.play(rng.choice(book.legal(b)))
        if b.over() or b.n < stop:
            continue
        n = b.n
        solver.nodes = 0
        if max_nodes:
            solver.limit, solver.poll = max_nodes, poll
        try:
            scores = exact.scores()
        except TooHard:
            while b.n > n:  # the solver stopped in the middle of its path
                b.undo()
            continue
        if len(set(scores.values())) > 1:
            out.append(Position(cmmoves.moves(b), scores))
    return out


def shares(w: int, h: int, m: int, positions: list[Position], table: int = 0
           ) -> list[dict[str, Any]]:
    """One row (HEADER's fields but seed, from_ply, max_nodes) per level, then ``random``:
    the mean share of value-keeping moves among the legal ones. table: the levels as a board
    with a table of those bytes plays them (a Pico's: levels.PICO_TABLE)."""
    rows = []
    size = "%dx%d:%d" % (w, h, m)
    for lv in range(levels.count()):
        p = book.Player(w, h, m, lv, table=table)
        kept = 0
        for pos in positions:
            p.board.reset()
            cmmoves.play_moves(p.board, pos.moves)
            kept += pos.keeps(p.move())
        rows.append({"size": size, "level": lv + 1, "name": levels.NAMES[lv],
                     "positions": len(positions), "kept": kept,
                     "share": "%.4f" % (kept / len(positions))})
    expected = sum(sum(pos.keeps(c) for c in pos.scores) / len(pos.scores)
                   for pos in positions)
    rows.append({"size": size, "level": "random", "name": "random move",
                 "positions": len(positions), "kept": "%.1f" % expected,
                 "share": "%.4f" % (expected / len(positions))})
    return rows


def write_csv(rows: list[dict[str, Any]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, HEADER, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def report(rows: list[dict[str, Any]]) -> str:
    lines = ["%-7s %-6s %-12s %9s %8s %7s" % ("size", "level", "name", "positions", "kept",
                                               "share")]
    for r in rows:
        lines.append("%-7s %-6s %-12s %9d %8s %6.1f%%" % (
            r["size"], r["level"], r["name"], r["positions"], r["kept"],
            100 * float(r["share"])))
    return "\n".join(lines)


def against_perfect(w: int, h: int, m: int, level: int, device: int,
                    table: int = 0) -> tuple[float, ...]:
    """The level's exact chances (win, draw, loss) against ``perfect`` (players.Perfect: a
    uniformly random value-keeping move), the level moving first (device 1) or second (2),
    its search with a table of ``table`` bytes (0: none, a micro:bit v1; its book the
    table's): the game tree walked with the perfect side's every value-keeping move, each
    weighted by its probability. No sampling noise: what --games N estimates."""
    p = book.Player(w, h, m, level, table=table)
    b = p.board
    exact = book.Exact(b)
    memo: dict[bytes, tuple[float, ...]] = {}

    def chances() -> tuple[float, ...]:
        pos = bytes(b.cells)
        if pos in memo:
            return memo[pos]
        r = b.over()
        out: tuple[float, ...]
        if r:
            out = (float(r == device), float(r == 3), float(r == 3 - device))
        else:
            if 1 + (b.n & 1) == device:
                cols = [p.move()]
            else:
                scores = exact.scores()
                cols = [c for c in scores if scores[c] == max(scores.values())]
            acc = [0.0, 0.0, 0.0]
            for c in cols:
                b.play(c)
                for i, x in enumerate(chances()):
                    acc[i] += x / len(cols)
                b.undo()
            out = tuple(acc)
        memo[pos] = out
        return out

    b.reset()
    return chances()
