# cmboard: the Connect-M board. One bytearray of cells, make/unmake in place, and an
# evaluation kept up to date on every move from tables built once per (W, H, M).
#
# Cells are column-major: cell = col * H + row, row 0 at the bottom, so a drop is
# cells[col * H + heights[col]]. Every length-M line (a "window") has an id; for each cell,
# wins[wstart[cell]:wstart[cell + 1]] lists the windows through it. cnt[wid] and
# cnt[nwin + wid] count player 1's and player 2's discs in each window.
from micropython import const
import array

WIN = const(65536)  # score unit of a win: above any heuristic value the weights can sum to


class SizeError(ValueError):
    pass


class MoveError(ValueError):
    pass


def _weights(m):
    # Weight of a window holding k discs of one side and none of the other: 64 when one
    # disc is missing, 8 when two are, 1 when three are, 0 further away, so that the sum over
    # all windows of a 9x9 board stays below WIN.
    t = array.array('i', [0] * (m + 1))
    for k in range(1, m):
        if m - k < 4:
            t[k] = 1 << (3 * (3 - m + k))
    return t


def _rand(x):
    # Two 15-bit LCG steps make one 30-bit key: products stay small ints on every port.
    a = (x * 3993 + 12345) % 32749
    b = (a * 3993 + 12345) % 32749
    return b, (a << 15) | b


class Board:
    def __init__(self, w=7, h=6, m=4):
        if not (3 <= w <= 9 and 3 <= h <= 9):
            raise SizeError('board %dx%d out of range: width and height must be 3..9' % (w, h))
        if not 3 <= m <= max(w, h):
            raise SizeError('connect %d out of range for %dx%d: must be 3..%d'
                            % (m, w, h, max(w, h)))
        self.w, self.h, self.m, self.size = w, h, m, w * h
        self.cells = bytearray(w * h)
        self.heights = bytearray(w)
        self.hist = bytearray(w * h)  # columns played, in order
        self.n = 0  # discs on the board
        self.won = 0  # 1 when the last move made a line
        self.score = 0  # heuristic from player 1's side
        self.threats = array.array('i', [0, 0])  # windows one disc short, per player
        self.wt = _weights(m)
        # Centre-out column order, written out so every interpreter tries moves alike.
        self.order = bytearray(w)
        for i in range(w):
            self.order[i] = w // 2 + (1 - 2 * (i % 2)) * ((i + 1) // 2)
        self._tables()
        # Two Zobrist keys per (cell, player): h1 picks a table slot, h2 verifies it.
        self.z1 = array.array('i', [0] * (2 * w * h))
        self.z2 = array.array('i', [0] * (2 * w * h))
        x = 1
        for i in range(2 * w * h):
            x, self.z1[i] = _rand(x)
            x, self.z2[i] = _rand(x)
        self.h1 = self.h2 = 0

    def _tables(self):
        w, h, m = self.w, self.h, self.m
        start = array.array('H', [0] * (w * h + 1))
        seen = bytearray(w * h)  # windows listed so far, per cell
        wins = None
        for fill in (0, 1):
            wid = 0
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                for c in range(w - (m - 1) * dc):
                    for r in range(m - 1 if dr < 0 else 0, h - (m - 1) * (dr > 0)):
                        for k in range(m):
                            cell = (c + k * dc) * h + r + k * dr
                            if fill:
                                wins[start[cell] + seen[cell]] = wid
                            seen[cell] += 1
                        wid += 1
            if not fill:
                for cell in range(w * h):
                    start[cell + 1] = start[cell] + seen[cell]
                    seen[cell] = 0
                wins = bytearray(start[w * h])
        self.wstart, self.wins, self.nwin = start, wins, wid
        self.cnt = bytearray(2 * wid)

    # --- make / unmake ------------------------------------------------------------------------

    def can_play(self, col):
        return 0 <= col < self.w and self.heights[col] < self.h and not self.won

    def play(self, col):
        # Caller checks can_play: the search never offers an illegal column.
        cell = col * self.h + self.heights[col]
        p = 1 + (self.n & 1)
        self.cells[cell] = p
        self.heights[col] += 1
        self.hist[self.n] = col
        self.n += 1
        self._update(cell, p, 1)

    def undo(self):
        self.n -= 1
        col = self.hist[self.n]
        self.heights[col] -= 1
        cell = col * self.h + self.heights[col]
        p = self.cells[cell]
        self.cells[cell] = 0
        self._update(cell, p, -1)
        return col

    def _update(self, cell, p, step):
        # Adds (step 1) or removes (step -1) p's disc at cell in every window through it.
        # The score change is the same expression before the add and after the remove.
        cnt, wt, m = self.cnt, self.wt, self.m
        mine = (p - 1) * self.nwin
        theirs = self.nwin - mine
        thr = self.threats
        d = 0
        won = 0
        for k in range(self.wstart[cell], self.wstart[cell + 1]):
            wid = self.wins[k]
            a = cnt[mine + wid]
            if step < 0:
                a -= 1
            cnt[mine + wid] = a + (step > 0)
            b = cnt[theirs + wid]
            if b == 0:
                d += wt[a + 1] - wt[a]
                if a + 1 == m:
                    won = 1
                if a + 2 == m:
                    thr[p - 1] += step
                elif a + 1 == m:
                    thr[p - 1] -= step
            elif a == 0:
                d += wt[b]
                if b + 1 == m:
                    thr[2 - p] -= step
        if p == 2:
            d = -d
        self.score += d * step
        self.won = won if step > 0 else 0
        z = 2 * cell + p - 1
        self.h1 ^= self.z1[z]
        self.h2 ^= self.z2[z]

    def leaf(self, col):
        # The score, for the side to move, of the position after it plays col, without
        # playing it: the search's leaves are most of its nodes.
        cell = col * self.h + self.heights[col]
        cnt, wt, m, n = self.cnt, self.wt, self.m, self.n
        mine = (n & 1) * self.nwin
        theirs = self.nwin - mine
        d = 0
        for k in range(self.wstart[cell], self.wstart[cell + 1]):
            wid = self.wins[k]
            a = cnt[mine + wid]
            b = cnt[theirs + wid]
            if b == 0:
                if a + 1 == m:
                    return WIN * ((self.size + 1 - n) // 2)
                d += wt[a + 1] - wt[a]
            elif a == 0:
                d += wt[b]
        if n + 1 == self.size:
            return 0
        return d - self.score if n & 1 else d + self.score

    def threats_after(self, col):
        # How many windows the side to move would hold one disc short of a line after col.
        cell = col * self.h + self.heights[col]
        cnt, m = self.cnt, self.m
        mine = (self.n & 1) * self.nwin
        theirs = self.nwin - mine
        t = self.threats[self.n & 1]
        for k in range(self.wstart[cell], self.wstart[cell + 1]):
            wid = self.wins[k]
            if cnt[mine + wid] + 2 == m and cnt[theirs + wid] == 0:
                t += 1
        return t

    def wins_at(self, cell, p):
        # Would p complete a line by a disc on this empty cell?
        cnt, m1 = self.cnt, self.m - 1
        mine = (p - 1) * self.nwin
        theirs = self.nwin - mine
        for k in range(self.wstart[cell], self.wstart[cell + 1]):
            wid = self.wins[k]
            if cnt[mine + wid] == m1 and cnt[theirs + wid] == 0:
                return 1
        return 0

    # --- text -------------------------------------------------------------------------------

    def play_moves(self, text):
        # 1-based column digits, first player first. All or nothing: a bad move undoes the rest.
        done = 0
        try:
            for ch in text:
                col = ord(ch) - 49
                if not 0 <= col < self.w:
                    raise MoveError('move %d: %r is not a column 1..%d' % (done + 1, ch, self.w))
                if self.won:
                    raise MoveError('move %d: the game is already over' % (done + 1))
                if self.heights[col] >= self.h:
                    raise MoveError('move %d: column %d is full' % (done + 1, col + 1))
                self.play(col)
                done += 1
        except MoveError:
            for _ in range(done):
                self.undo()
            raise

    def moves(self):
        return ''.join([chr(49 + self.hist[i]) for i in range(self.n)])

    def over(self):
        # 0 while the game goes on, else the Outcome: 1 or 2 for a winner, 3 for a draw.
        if self.won:
            return 2 - (self.n & 1)
        return 3 if self.n == self.size else 0
