# cmboard: the Connect-M board. A bytearray of cells, make/unmake in place, and a heuristic
# score kept up to date on every move through the window tables of cmlines: a window counts
# for a side while the other side has no disc in it.
from micropython import const

WIN = const(65536)  # a win's score unit: above anything the window weights can sum to


class SizeError(ValueError):
    pass


class Board:
    def __init__(self, w=7, h=6, m=4, keys=1):
        # keys=0 skips the hash keys: a search without a transposition table needs none.
        if not (3 <= w <= 9 and 3 <= h <= 9):
            raise SizeError('board %dx%d out of range: width and height must be 3..9' % (w, h))
        if not 3 <= m <= max(w, h):
            raise SizeError('connect %d out of range for %dx%d: must be 3..%d'
                            % (m, w, h, max(w, h)))
        self.w = w
        self.h = h
        self.m = m
        self.size = w * h
        self.cells = bytearray(w * h)  # 0 empty, 1 or 2
        self.heights = bytearray(w)
        self.hist = bytearray(w * h)  # the columns played, in order
        self.n = self.won = self.hit = self.score = self.h1 = self.h2 = 0
        import cmlines
        cmlines.build(self, keys)

    def can_play(self, col):
        return 0 <= col < self.w and self.heights[col] < self.h and not self.won

    def over(self):
        # 0 while the game goes on; else the outcome: 1 or 2 for that winner, 3 for a draw.
        if self.won:
            return 2 - (self.n & 1)
        return 3 if self.n == self.size else 0

    def play(self, col):
        # The caller checks can_play(col): the search never offers an illegal column.
        cell = col * self.h + self.heights[col]
        self.cells[cell] = p = 1 + (self.n & 1)
        self.heights[col] += 1
        self.hist[self.n] = col
        self.n += 1
        d = self._update(cell, p, 1)
        self.score += d if p == 1 else -d
        self.won = self.hit

    def undo(self):
        self.n -= 1
        col = self.hist[self.n]
        self.heights[col] -= 1
        cell = col * self.h + self.heights[col]
        p = self.cells[cell]
        self.cells[cell] = 0
        d = self._update(cell, p, -1)
        self.score -= d if p == 1 else -d
        self.won = 0
        return col

    def leaf(self, col):
        # The score, for the side to move, after it plays col, without playing it: leaves are
        # most of a search's nodes, and a probe is half the work of play() and undo().
        n = self.n
        d = self._update(col * self.h + self.heights[col], 1 + (n & 1), 0)
        if self.hit:
            return WIN * ((self.size + 1 - n) // 2)
        if n + 1 == self.size:
            return 0
        return d - self.score if n & 1 else d + self.score

    def _update(self, cell, p, step):
        # p's disc at cell enters (step 1), leaves (-1) or is only tried (0) in every window
        # through cell. Returns the score change for p (the same expression before an add and
        # after a remove) and sets self.hit when the disc completes a window.
        # One name per assignment: the micro:bit's compiler builds a tuple (allocates) for
        # `a, b = x, y`, which would break the no-allocation-per-node rule.
        cnt = self.cnt
        wt = self.wt
        m = self.m
        mine = (p - 1) * self.nwin
        theirs = self.nwin - mine
        d = hit = 0
        for k in range(self.wstart[cell], self.wstart[cell + 1]):
            wid = self.wins[k]
            a = cnt[mine + wid] - (step < 0)
            cnt[mine + wid] = a + (step > 0)
            b = cnt[theirs + wid]
            if b == 0:
                d += wt[a + 1] - wt[a]
                if a + 1 == m:
                    hit = 1
            elif a == 0:
                d += wt[b]
        self.hit = hit
        if step and self.z1:
            self.h1 ^= self.z1[2 * cell + p - 1]
            self.h2 ^= self.z2[2 * cell + p - 1]
        return d
