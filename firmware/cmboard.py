# cmboard: the Connect-M board. A bytearray of cells, make/unmake in place, and a heuristic
# score kept up to date on every move through the window tables of cmlines (a window counts
# for a side while the other side has no disc in it).
# An import circle with cmlines, kept: Board() imports cmlines only to build its tables,
# and cmlines reads HIT and SizeError from here; a copy in either would cost a micro:bit
# v1's boot RAM, where the circle costs nothing (each module is imported once).
from micropython import const

WIN = const(65536)  # a win's score unit: above anything the window weights can sum to
HIT = const(32768)  # the gain of a disc that completes a window: above any other gain
# 0 in the micro:bit build (connectm deploy): the compiler then drops the hash-key code.
KEYS = const(1)


class SizeError(ValueError):
    pass


class Board:
    def __init__(self, w=7, h=6, m=4, keys=1):
        # keys=0 skips the hash keys: a search without a transposition table needs none.
        # The checks and the tables are made by cmlines, which a device short of RAM may
        # free once its board exists.
        import cmlines
        cmlines.build(self, w, h, m, keys)

    def reset(self):
        # Back to the empty board (a new game): cheaper than undoing every move.
        for a in (self.cells, self.heights, self.st):
            for i in range(len(a)):
                a[i] = 0
        self.n = self.won = self.score = 0
        if KEYS:
            self.h1 = self.h2 = 0

    def can_play(self, col):
        return 0 <= col < self.w and self.heights[col] < self.h and not self.won

    def over(self):
        # 0 while the game goes on; else the outcome: 1 or 2 for that winner, 3 for a draw.
        if self.won:
            return 2 - (self.n & 1)
        return 3 if self.n == self.size else 0

    def play(self, col):
        # The caller checks can_play(col): the search never offers an illegal column.
        # One name per assignment in play() and undo(): the micro:bit's compiler builds a
        # tuple (allocates) for `a, b = x, y`, and the search must not allocate.
        n = self.n
        cell = col * self.h + self.heights[col]
        self.cells[cell] = 1 + (n & 1)
        self.heights[col] += 1
        self.hist[n] = col
        self.past[n] = self.score
        self.n = n + 1
        st = self.st
        wins = self.wins
        g = self.g2 if n & 1 else self.g1
        u = self.u if n & 1 else 1
        d = 0
        for k in range(self.wstart[cell], self.wstart[cell + 1]):
            i = wins[k]
            s = st[i]
            d += g[s]
            st[i] = s + u
        # Once won, the score means nothing: the search scores a win by its disc count.
        self.won = d >= HIT
        self.score += -d if n & 1 else d
        if KEYS and self.z1:
            self.h1 ^= self.z1[2 * cell + (n & 1)]
            self.h2 ^= self.z2[2 * cell + (n & 1)]

    def undo(self):
        n = self.n - 1
        self.n = n
        col = self.hist[n]
        self.heights[col] -= 1
        cell = col * self.h + self.heights[col]
        self.cells[cell] = 0
        self.score = self.past[n]
        self.won = False
        st = self.st
        wins = self.wins
        u = self.u if n & 1 else 1
        for k in range(self.wstart[cell], self.wstart[cell + 1]):
            st[wins[k]] -= u
        if KEYS and self.z1:
            self.h1 ^= self.z1[2 * cell + (n & 1)]
            self.h2 ^= self.z2[2 * cell + (n & 1)]
        return col
