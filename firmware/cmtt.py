# cmtt: a transposition table in one bytearray allocated once, 8 bytes a slot:
#   0-2 check (low 24 bits of the position's second hash), 3 depth searched,
#   4 bound << 4 | best column (0 means empty), 5-7 score + BIAS.
# Scores are absolute (a win's value depends on the disc count, not on the ply), so a
# stored score is valid wherever the position recurs. A new entry always replaces the old.
from micropython import const

EXACT = const(1)
LOWER = const(2)
UPPER = const(3)
BIAS = const(1 << 23)
NO_SCORE = const(1 << 29)  # outside every score


class TT:
    def __init__(self, nbytes=0):
        self.n = nbytes // 8
        self.t = bytearray(self.n * 8)
        self.col = 255

    def find(self, h1, h2):
        # Byte offset of this position's slot, or -1.
        if not self.n:
            return -1
        i = (h1 % self.n) * 8
        t = self.t
        if t[i + 4] and t[i] == h2 & 255 and t[i + 1] == (h2 >> 8) & 255 \
                and t[i + 2] == (h2 >> 16) & 255:
            return i
        return -1

    def cut(self, h1, h2, depth, alpha, beta):
        # The stored score if it settles a search to depth in (alpha, beta), else NO_SCORE;
        # self.col gets the stored best column (255 for none) to try first.
        self.col = 255
        i = self.find(h1, h2)
        if i < 0:
            return NO_SCORE
        t = self.t
        self.col = t[i + 4] & 15
        s = self.score(i)
        bound = t[i + 4] >> 4
        if t[i + 3] >= depth and (bound == EXACT or bound == LOWER and s >= beta or
                                  bound == UPPER and s <= alpha):
            return s
        return NO_SCORE

    def score(self, i):
        t = self.t
        return (t[i + 5] | t[i + 6] << 8 | t[i + 7] << 16) - BIAS

    def store(self, h1, h2, depth, bound, col, score):
        if not self.n:
            return
        i = (h1 % self.n) * 8
        t = self.t
        score += BIAS
        t[i] = h2 & 255
        t[i + 1] = (h2 >> 8) & 255
        t[i + 2] = (h2 >> 16) & 255
        t[i + 3] = depth
        t[i + 4] = bound << 4 | col
        t[i + 5] = score & 255
        t[i + 6] = (score >> 8) & 255
        t[i + 7] = score >> 16

    def clear(self):
        # Every slot empty: find() reads a slot only while its byte 4 (bound, column) is not
        # 0, so that byte alone is cleared. A plain loop: both micro:bit firmwares lack slice
        # assignment on bytearray and memoryview (the v1 has no memoryview at all), and the
        # loop allocates nothing (docs/firmware-features.md). 1 slot in 8 bytes: a Pico's
        # ~166 KB table is ~21,000 steps, cleared once a computer move.
        t = self.t
        for i in range(4, len(t), 8):
            t[i] = 0
