"""An independent reference for the exact scores of the shipped test sets (tests/data/).

Plain negamax over the board's cells, memoised on the whole grid: no alpha-beta, no move
ordering, no threat analysis, no transposition-table bounds, and no code shared with the
firmware (cmboard, cmsolve, cmthreats).  Slow, and simple enough to check by reading; it
scores the positions tools/make_testsets.py generates and the tests re-score a sample.

Score convention (that of the test sets): for the side to move, a side that wins by placing
its disc when n discs are down scores (W*H + 1 - n) // 2, a loss is the negation, a draw 0.
"""

from __future__ import annotations

import random


class Grid:
    """A W x H board, M in a row: cells[col][row] in 0 (empty), 1, 2 (row 0 at the bottom)."""

    def __init__(self, w: int, h: int, m: int) -> None:
        self.w, self.h, self.m = w, h, m
        self.lines = []
        for c in range(w):
            for r in range(h):
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    cells = [(c + k * dc, r + k * dr) for k in range(m)]
                    if all(0 <= x < w and 0 <= y < h for x, y in cells):
                        self.lines.append(tuple(cells))
        self.memo: dict[tuple[tuple[int, ...], ...], int] = {}  # freed with the Grid
        # the lines through each cell, for the win check after a move
        self.through = {(c, r): [ln for ln in self.lines if (c, r) in ln]
                        for c in range(w) for r in range(h)}

    def after(self, moves: str) -> tuple[tuple[tuple[int, ...], ...], int]:
        """(cells, winner) after 1-based column digits; ValueError on a bad or late move."""
        cells = [[0] * self.h for _ in range(self.w)]
        winner = 0
        for i, ch in enumerate(moves):
            col = int(ch) - 1
            if winner or not 0 <= col < self.w or 0 not in cells[col]:
                raise ValueError("move %d (%s) cannot be played" % (i + 1, ch))
            row = cells[col].index(0)
            cells[col][row] = 1 + i % 2
            if self.wins(cells, col, row):
                winner = 1 + i % 2
        return tuple(tuple(x) for x in cells), winner

    def wins(self, cells, col: int, row: int) -> bool:
        p = cells[col][row]
        return any(all(cells[x][y] == p for x, y in ln) for ln in self.through[(col, row)])

    def score(self, moves: str) -> int:
        """Exact score of the position after moves (not over) for the side to move."""
        cells, winner = self.after(moves)
        if winner or len(moves) == self.w * self.h:
            raise ValueError("the game is over after %s" % moves)
        return self._value(cells, len(moves))

    def _value(self, cells: tuple[tuple[int, ...], ...], n: int) -> int:
        # n follows from cells (the discs on them): the memo needs only cells
        if cells not in self.memo:
            self.memo[cells] = self._search(cells, n)
        return self.memo[cells]

    def _search(self, cells: tuple[tuple[int, ...], ...], n: int) -> int:
        size = self.w * self.h
        me = 1 + n % 2
        best = -size
        for col in range(self.w):
            if 0 not in cells[col]:
                continue
            row = cells[col].index(0)
            grid = [list(x) for x in cells]
            grid[col][row] = me
            if self.wins(grid, col, row):
                return (size + 1 - n) // 2
            if n + 1 == size:
                best = max(best, 0)
            else:
                best = max(best, -self._value(tuple(tuple(x) for x in grid), n + 1))
        return best


def random_position(g: Grid, rng: random.Random, discs: int) -> str | None:
    """Moves of a random game that is not over after ``discs`` discs (None if it ended)."""
    cells = [[0] * g.h for _ in range(g.w)]
    moves = ""
    for i in range(discs):
        cols = [c for c in range(g.w) if 0 in cells[c]]
        col = rng.choice(cols)
        row = cells[col].index(0)
        cells[col][row] = 1 + i % 2
        moves += str(col + 1)
        if g.wins(cells, col, row):
            return None
    return moves
