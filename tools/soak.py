"""Soak test: self-play games on CPython, every move checked against a brute-force rules
checker (a plain 2-D grid, a full-board scan for lines of M).

    .venv/bin/python tools/soak.py --games 10000 --seed 1

Random sizes (3..9 each), M (3..max(W, H)), search depths (1..3) and seeds, and random
moves mixed in so the games differ.  After every move: the move was legal, the board's
``won``/``over()`` agree with the brute force, and a finished game is not extended (the
engine offers no move and ``play_moves`` refuses one).  Prints one summary line; exit 1 on
any exception or disagreement.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "host"))

from connectm import fw  # noqa: E402

fw.load()
import cmboard  # noqa: E402
import cmmoves  # noqa: E402
import cmsearch  # noqa: E402


class Grid:
    """The independent rules: grid[x][y], y = 0 at the bottom; 0 empty, 1 or 2."""

    def __init__(self, w: int, h: int, m: int) -> None:
        self.w, self.h, self.m = w, h, m
        self.grid = [[0] * h for _ in range(w)]
        self.n = 0

    def legal(self, col: int) -> bool:
        return 0 <= col < self.w and self.grid[col][self.h - 1] == 0

    def drop(self, col: int) -> None:
        column = self.grid[col]
        column[column.index(0)] = 1 + self.n % 2
        self.n += 1

    def winner(self) -> int:
        """0, or the player with M in a row anywhere (full scan, 4 directions)."""
        found = set()
        for x in range(self.w):
            for y in range(self.h):
                p = self.grid[x][y]
                if not p:
                    continue
                for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    ex, ey = x + dx * (self.m - 1), y + dy * (self.m - 1)
                    if not (0 <= ex < self.w and 0 <= ey < self.h):
                        continue
                    if all(self.grid[x + dx * k][y + dy * k] == p for k in range(self.m)):
                        found.add(p)
        assert len(found) <= 1, "both players have a line"
        return found.pop() if found else 0

    def outcome(self) -> int:
        """As Board.over(): 0 on, 1 or 2 the winner, 3 a draw."""
        win = self.winner()
        if win:
            return win
        return 3 if self.n == self.w * self.h else 0


def play_game(rng: random.Random) -> dict[str, Any]:
    """One game; raises AssertionError on a disagreement."""
    w, h = rng.randint(3, 9), rng.randint(3, 9)
    m = rng.randint(3, max(w, h))
    depths = (rng.randint(1, 3), rng.randint(1, 3))
    p_random = rng.choice((0.0, 0.1, 0.3, 0.7))
    tt = rng.choice((0, 0, 1 << 12))
    b = cmboard.Board(w, h, m, keys=1 if tt else rng.randint(0, 1))
    s = cmsearch.Search(b, tt)
    g = Grid(w, h, m)
    moves = ""
    while True:
        over = g.outcome()
        assert b.over() == over, "over() %d, brute force %d after %s" % (b.over(), over, moves)
        assert bool(b.won) == (over in (1, 2)), "won %d after %s" % (b.won, moves)
        assert b.n == g.n and cmmoves.moves(b) == moves
        for c in range(w):
            assert b.can_play(c) == (not over and g.legal(c)), "can_play(%d) after %s" % (
                c, moves)
        if over:
            break
        if rng.random() < p_random:
            col = rng.choice([c for c in range(w) if g.legal(c)])
        else:
            col = s.go(depths[b.n % 2], seed=rng.randint(0, 1 << 20))
        assert g.legal(col), "illegal column %d after %s (%dx%d:%d)" % (col, moves, w, h, m)
        b.play(col)
        g.drop(col)
        moves += str(col + 1)
    # A finished game is not extended: play_moves refuses any further move, changing nothing.
    for c in range(w):
        try:
            cmmoves.play_moves(b, str(c + 1))
        except cmmoves.MoveError:
            pass
        else:
            raise AssertionError("play_moves extended a finished game %s by %d" % (moves, c + 1))
        assert cmmoves.moves(b) == moves
    return {"size": "%dx%d:%d" % (w, h, m), "moves": moves, "result": over}


def soak(games: int, seed: int, quiet: bool = False) -> dict[str, Any]:
    t0 = time.perf_counter()
    exceptions = disagreements = plies = 0
    results = [0, 0, 0, 0]
    for i in range(games):
        rng = random.Random("%d:%d" % (seed, i))  # each game replays alone: --seed S, game i
        try:
            r = play_game(rng)
        except AssertionError as e:
            disagreements += 1
            print("game %d (seed %d): disagreement: %s" % (i, seed, e), file=sys.stderr)
            continue
        except Exception:
            exceptions += 1
            print("game %d (seed %d): exception" % (i, seed), file=sys.stderr)
            traceback.print_exc()
            continue
        plies += len(r["moves"])
        results[r["result"]] += 1
    secs = time.perf_counter() - t0
    out = {"games": games, "exceptions": exceptions, "disagreements": disagreements,
           "plies": plies, "wins1": results[1], "wins2": results[2], "draws": results[3],
           "seconds": secs}
    if not quiet:
        print("soak: %(games)d games, %(plies)d plies (%(wins1)d/%(wins2)d/%(draws)d "
              "W1/W2/D), %(exceptions)d exceptions, %(disagreements)d disagreements, "
              "%(seconds).1f s" % out)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    out = soak(args.games, args.seed)
    return 1 if out["exceptions"] or out["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
