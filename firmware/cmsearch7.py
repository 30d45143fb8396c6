# cmsearch7: the Pico's search (issue 48): cmsearch's alpha-beta, with an evaluation that
# knows Connect 4's threats. A micro:bit never loads it (its builds skip the module), so
# its 5x4 game stays byte for byte as it was; cmpico makes it the game's search.
#
# A threat is an empty cell that would complete a line for one side. On 7x6 the middle
# game is decided by them: the board fills up column by column, and with the cells left
# even, the first player gets the odd rows (1, 3, 5 from the bottom: 0-based rows 0, 2, 4)
# and the second the even ones (zugzwang). So a first player's threat on an odd row, or a
# second player's on an even one, is worth far more than one on the other parity; a
# threat on a cell just above the opponent's threat is worth little (the opponent's
# comes first); two threats of one side one above the other win once the column reaches
# them. cmsearch's window counts do not see any of this, and its scores drift with depth.
#
# Bookkeeping: t1[cell] and t2[cell] count each side's windows that are one disc short and
# whose empty cell is this one, kept up to date on every make and unmake inside the search
# loop (no allocation: arrays made once). A window changes status only when a disc makes
# it one short or spoils the opponent's one-short window (the empty cell is then the
# disc's own), so the window's state, read anyway for its gain, tells which to look at; a
# disc on its own side's threat wins. The threat part of the score moves with the same
# gain d that carries the windows' worth (the mover's view), so the search's score keeps
# its one running sum and its undo history (past[]: its own, of 32-bit scores, as the
# fitted weights may sum past the board's 16-bit one).
#
# The windows' worth: g1[j * uu + st] is what a disc of the first player gains in window j
# in state st (cmlines' numbering), g2 the second player's, from the window weights wv
# (cmfit7's on 7x6: each window its own, fitted; cmlines' 1, 8, 64 elsewhere).
from micropython import const
import array
import cmsearch
import cmfit7  # (here, not where a search is made: cmpico sizes the table after this import)

WIN = const(65536)  # cmboard.WIN
INF = const(1 << 29)  # cmtt.NO_SCORE
EXACT = const(1)  # cmtt's bounds
LOWER = const(2)
UPPER = const(3)
NONE = const(255)
PONDER = const(1)  # cmsearch.PONDER
SLICE = const(128)  # cmsearch.SLICE
# On 7x6, connect 4, the evaluation's weights are fitted ones (cmfit7: a weight for each
# window's state and each cell's threat). On other boards they are these, in cmlines'
# units (a window one short counts 64): the first player's threat on an odd row (GOOD1:
# with the second player's even threats elsewhere it still wins the zugzwang), the second
# player's on an even one (GOOD2), either on the other parity (BAD); two of a side's
# threats one above the other (STACK more); a threat above the other side's lower threat
# in its column counts 1/4 (LATE: a shift).
GOOD1 = const(160)
GOOD2 = const(80)
BAD = const(24)
STACK = const(100)
LATE = const(2)
# The fitted weights play the middle game, the hand-set ones from this ply on: measured, the
# fitted keep the exact value more often before it, the hand-set ones after it
# (docs/pico-7x6.md).
HAND = const(16)


class Search(cmsearch.Search):
    tables = None  # the weights' tables (__init__)

    def __init__(self, board, tt_bytes=0, plies=0):
        # (super(): cmpico puts this class in cmsearch.Search's place)
        super().__init__(board, tt_bytes, plies)
        b = board
        h = b.h
        size = b.size
        m = b.m
        self.t1 = bytearray(size)  # first player's one-short windows whose gap is the cell
        self.t2 = bytearray(size)
        # wcells: each window's m cells (cmlines lists a cell's windows, not a window's cells)
        self.wcells = bytearray(len(b.st) * m)
        k = bytearray(len(b.st))
        for cell in range(size):
            for i in range(b.wstart[cell], b.wstart[cell + 1]):
                j = b.wins[i]
                self.wcells[j * m + k[j]] = cell
                k[j] += 1
        d = len(self.next)
        self.skip = array.array('H', [0] * d)  # each ply's columns not to try (a bit each)
        # ords (cmlines) and after it a row [c, 255] for each column c: a forced move.
        w = b.w
        self.ords = bytearray(len(b.ords) + 2 * w)
        for i in range(len(b.ords)):
            self.ords[i] = b.ords[i]
        for c in range(w):
            self.ords[len(b.ords) + 2 * c] = c
            self.ords[len(b.ords) + 2 * c + 1] = NONE
        self.col = bytearray(size)  # a cell's column and row, without a division per node
        self.row = bytearray(size)
        for cell in range(size):
            self.col[cell] = cell // h
            self.row[cell] = cell % h
        self.cv = array.array('i', [0] * b.w)  # each column's threat value (column())
        self.past = array.array('i', [0] * size)  # the score before each move (go)
        # The evaluation's weights (weigh): a window's by its state (wv, and the gains g1,
        # g2 from them), a threat's to its owner by cell (w1 the first player's, w2 the
        # second's; w1l, w2l above the other side's lower threat), the stacks'. One set
        # for every search of a board size (the game's and cmponder's: 8 KB on 7x6), in
        # t: the size, whether fitted (-1: not yet weighed), the stacks, the arrays.
        t = Search.tables
        if t is None or t[0] != w * 100 + h * 10 + m:
            k = m - 1
            nw = len(b.st)
            t = [w * 100 + h * 10 + m, -1, 0, 0]
            for n in (nw * 2 * k, size, size, size, size, nw * b.u * b.u, nw * b.u * b.u):
                t.append(array.array('h', [0] * n))
            Search.tables = t
        self.t = t
        self.wv = t[4]
        self.w1 = t[5]
        self.w2 = t[6]
        self.w1l = t[7]
        self.w2l = t[8]
        self.g1 = t[9]
        self.g2 = t[10]
        self.weigh()
        self.gaps = bytearray(8)  # a leaf's new gaps, marked for a moment (go)

    def weigh(self):
        # The evaluation's weights for the position, into the tables the search reads (go()
        # calls it when they change): cmfit7's on 7x6, connect 4, before ply HAND; else,
        # and on other boards, cmlines' window values and the GOOD/BAD/STACK threats above.
        b = self.b
        m = b.m
        fitted = b.w == 7 and b.h == 6 and m == 4 and b.n < HAND  # (a tuple would allocate)
        t = self.t
        if fitted == t[1]:
            return
        t[1] = fitted
        k = m - 1  # a window's weights: k for the first player's discs, k for the second's
        nw = len(b.st)
        wv = self.wv
        w1l = self.w1l
        w2l = self.w2l
        if fitted:
            for i in range(len(wv)):
                wv[i] = cmfit7.WINDOWS[i]
            th = cmfit7.THREATS
            for e in range(b.size):
                self.w1[e] = th[4 * e]
                w1l[e] = th[4 * e + 1]
                self.w2[e] = -th[4 * e + 2]
                w2l[e] = -th[4 * e + 3]
            t[2] = cmfit7.STACKS[0]
            t[3] = -cmfit7.STACKS[1]
        else:
            for i in range(len(wv)):
                a = i % k + 1
                wv[i] = 1 << (3 * (3 - m + a)) if a >= m - 3 else 0
                if i % (2 * k) >= k:
                    wv[i] = -wv[i]
            for e in range(b.size):
                r = self.row[e]
                self.w1[e] = GOOD1 if r & 1 == 0 else BAD
                self.w2[e] = GOOD2 if r & 1 else BAD
                w1l[e] = self.w1[e] >> LATE
                w2l[e] = self.w2[e] >> LATE
            t[2] = t[3] = STACK
        # The gains: the rise of the mover's window, or the worth it spoils. A disc that
        # completes a window wins (the search sees it from the threat counts): gain 0.
        u = b.u
        uu = u * u
        g1 = self.g1
        g2 = self.g2
        for j in range(nw):
            for s in range(uu):
                a = s % u
                o = s // u
                g1[j * uu + s] = g2[j * uu + s] = 0
                if a + o < m and not (a + 1 == m and not o):
                    g1[j * uu + s] = self.worth(j, s + 1) - self.worth(j, s)
                if a + o < m and not (o + 1 == m and not a):
                    g2[j * uu + s] = self.worth(j, s) - self.worth(j, s + u)

    def worth(self, j, s):
        # Window j's worth in state s (first player's view): one side's discs only, or 0.
        u = self.b.u
        k = self.b.m - 1
        a = s % u
        o = s // u
        if a and not o and a <= k:
            return self.wv[j * 2 * k + a - 1]
        if o and not a and o <= k:
            return self.wv[j * 2 * k + k + o - 1]
        return 0

    def windows(self):
        # The windows' part of the score (first player's view), from their states: the
        # search starts from here.
        v = 0
        for j in range(len(self.b.st)):
            v += self.worth(j, self.b.st[j])
        return v

    def column(self, c):
        # The threat value of column c (first player's view), from the threat counts of its
        # empty cells, lowest first: what a Connect-4 player reads in a column. A threat
        # counts its cell's weight (its row parity), a quarter of it above a lower threat of
        # the other side (which comes first), and STACK more right above one of its own
        # (the two win once the column reaches them).
        b = self.b
        t1 = self.t1
        t2 = self.t2
        h = b.h
        v = 0
        low = 0  # the sides with a threat lower in the column (bit 1: first, bit 2: second)
        prev = 0  # ... in the cell right below
        e = c * h + b.heights[c]
        top = c * h + h
        while e < top:
            a = 0
            if t1[e]:
                a = 1
                v += self.w1l[e] if low == 2 else self.w1[e]
                if prev & 1:
                    v += self.t[2]
            if t2[e]:
                a |= 2
                v -= self.w2l[e] if low == 1 else self.w2[e]
                if prev & 2:
                    v -= self.t[3]
            if not low:
                low = a
            prev = a
            e += 1
        return v

    def gap(self, j, cell):
        # The empty cell of window j other than cell (heights as the search has them).
        m = self.b.m
        heights = self.b.heights
        for i in range(j * m, j * m + m):
            e = self.wcells[i]
            if e != cell and self.row[e] >= heights[self.col[e]]:
                return e
        return NONE

    def threats(self):
        # Recount t1 and t2 from the window states, and return the threat part of the
        # score (first player's view): the search starts from here, and tests compare its
        # incremental counts with this.
        b = self.b
        t1 = self.t1
        t2 = self.t2
        m = b.m
        for i in range(b.size):
            t1[i] = t2[i] = 0
        for j in range(len(b.st)):
            s = b.st[j]
            if s == m - 1:
                t1[self.gap(j, NONE)] += 1
            elif s == (m - 1) * b.u:
                t2[self.gap(j, NONE)] += 1
        v = 0
        for c in range(b.w):
            self.cv[c] = self.column(c)
            v += self.cv[c]
        return v

    def go(self, depth, max_nodes=0):
        # cmsearch.Search.go (iterative deepening, alpha-beta on its own stack, the table,
        # frontier nodes scoring their leaves), the threat bookkeeping added. Returns the
        # column, 0-based; self.move, score, depth, nodes as cmsearch's.
        self.weigh()
        b = self.b
        tt = self.tt
        # One name per assignment (cmsearch.go: a tuple would allocate).
        alpha = self.alpha
        beta = self.beta
        best = self.best
        bestcol = self.bestcol
        nxt = self.next
        ords = self.ords
        done = len(b.ords) - 1
        one = len(b.ords)  # the forced move c's row: one + 2 * c
        skip = self.skip
        w = b.w
        h = b.h
        m = b.m
        size = b.size
        heights = b.heights
        hist = b.hist
        past = self.past
        wstart = b.wstart
        wins = b.wins
        st = b.st
        g1 = self.g1
        g2 = self.g2
        u2 = b.u
        uu = u2 * u2
        z1 = b.z1
        z2 = b.z2
        t1 = self.t1
        t2 = self.t2
        cv = self.cv
        w1 = self.w1
        w2 = self.w2
        w1l = self.w1l
        w2l = self.w2l
        stack1 = self.t[2]
        stack2 = self.t[3]
        gaps = self.gaps
        wcells = self.wcells
        crow = self.row
        ccol = self.col
        self.move = NONE
        self.score = self.depth = self.nodes = 0
        self.stopped = False
        if b.over():
            return NONE
        tv = self.threats() + self.windows()
        nodes = target = stop = 0
        if PONDER:
            self.pc = SLICE
        while not stop and target < min(depth, size - b.n, len(nxt) - 2):
            target += 1
            leaf = target - 1
            n = b.n
            sc = tv  # player 1's view: the windows, and the threats
            h1 = b.h1
            h2 = b.h2
            ply = 0
            check = nodes + 256
            alpha[0] = best[0] = -INF
            beta[0] = INF
            nxt[0] = (w + 1) * min(self.move, w)
            skip[0] = 0
            if PONDER and self.poll:
                check = self.pc
            while True:
                i = nxt[ply]
                c = ords[i]
                while c != NONE and (heights[c] >= h or skip[ply] >> c & 1):
                    i += 1
                    c = ords[i]
                nxt[ply] = i + 1
                if c == NONE:
                    if ply == 0:
                        break
                    score = best[ply]
                    if tt and not stop:
                        tt.store(h1, h2, target - ply,
                                 LOWER if score >= beta[ply] else
                                 EXACT if score > -beta[ply - 1] else UPPER,
                                 bestcol[ply], score)
                    score = -score
                    ply -= 1
                    n -= 1
                    c = hist[n]
                    sc = past[n]
                    r = heights[c] - 1
                    cell = c * h + r
                    u = u2 if n & 1 else 1
                else:
                    nodes += 1
                    if nodes >= check and target > 1:
                        check = nodes + 256
                        stop = max_nodes and nodes > max_nodes
                        if PONDER and self.poll:
                            check = nodes + SLICE
                            self.pc = check
                            if self.poll(nodes):
                                stop = 1
                        if stop:
                            for k in range(ply + 1):
                                nxt[k] = done
                            continue
                    # Play c, and move the threats it makes or blocks.
                    r = heights[c]
                    heights[c] = r + 1
                    cell = c * h + r
                    if n & 1:
                        g = g2
                        u = u2
                        tm = t2  # the mover's threat counts, and the opponent's
                        to = t1
                        ts = m - 1  # the opponent's one-short window state
                    else:
                        g = g1
                        u = 1
                        tm = t1
                        to = t2
                        ts = (m - 1) * u2
                    gs = (m - 2) * u  # the mover's window a disc from one short
                    won = tm[cell]
                    d = 0
                    cm = 1 << c if to[cell] else 0  # the columns whose threats change
                    for k in range(wstart[cell], wstart[cell + 1]):
                        j = wins[k]
                        s = st[j]
                        d += g[j * uu + s]
                        st[j] = s + u
                        if s == gs:
                            # A new window one short: its gap (the one empty cell left).
                            for i in range(j * m, j * m + m):
                                e = wcells[i]
                                if crow[e] >= heights[ccol[e]]:
                                    break
                            if not tm[e]:
                                cm |= 1 << ccol[e]
                            tm[e] += 1
                        elif s == ts:
                            to[cell] -= 1
                    if cm and not won:
                        # The threat value moves with the columns that changed (a win is
                        # scored by its discs, below).
                        x = 0
                        for k in range(w):
                            if cm >> k & 1:
                                # Column k's threat value: Search.column() written out
                                # (a call would allocate: MicroPython puts a frame of
                                # more than 11 words on the heap)
                                v2 = low = prev = 0
                                e = k * h + heights[k]
                                while e < k * h + h:
                                    a = 0
                                    if t1[e]:
                                        a = 1
                                        v2 += w1l[e] if low == 2 else w1[e]
                                        if prev & 1:
                                            v2 += stack1
                                    if t2[e]:
                                        a |= 2
                                        v2 -= w2l[e] if low == 1 else w2[e]
                                        if prev & 2:
                                            v2 -= stack2
                                    if not low:
                                        low = a
                                    prev = a
                                    e += 1
                                x += v2 - cv[k]
                                cv[k] = v2
                        d += -x if n & 1 else x
                    h1 ^= z1[2 * cell + (n & 1)]
                    h2 ^= z2[2 * cell + (n & 1)]
                    n += 1
                    if won:
                        score = WIN * ((size + 2 - n) // 2)
                        if ply and ply == leaf:
                            nxt[ply] = done
                    elif n == size:
                        score = 0
                    elif ply == leaf:
                        score = d + sc if n & 1 else d - sc
                    else:
                        score = INF
                        f = w
                        if tt:
                            score = tt.cut(h1, h2, target - ply - 1, -beta[ply], -alpha[ply])
                            f = min(tt.col, f)
                        if score == INF:
                            # The child's immediate threats (its mover X, the other side Y):
                            # X wins at once if it has a threat it can play; Y's playable
                            # threats must be blocked (two: X is lost); and no disc goes just
                            # below a threat of Y's, which Y would then play. Exact scores,
                            # which the search would find a ply or two deeper.
                            if n & 1:
                                lm = t2
                                lo = t1
                            else:
                                lm = t1
                                lo = t2
                            k = fc = sk = 0
                            pl = 0
                            for c2 in range(w):
                                lr = heights[c2]
                                if lr < h:
                                    lc = c2 * h + lr
                                    if lm[lc]:
                                        score = WIN * ((size + 1 - n) // 2)
                                        break
                                    pl |= 1 << c2
                                    if lo[lc]:
                                        k += 1
                                        fc = c2
                                    if lr + 1 < h and lo[lc + 1]:
                                        sk |= 1 << c2
                            if score == INF:
                                if k:
                                    sk |= pl & ~(1 << fc)  # only the block is left
                                if k > 1 or sk == pl:
                                    score = -WIN * ((size - n) // 2)  # Y wins at its move
                                elif k:
                                    f = w + 1 + fc  # (a row of its own, below)
                        if score == INF and ply + 1 == leaf:
                            # The child is a frontier node: its children (leaves) scored from
                            # their gains without playing them (cmsearch.go), threats too:
                            # the gaps each leaf's disc would make, and the threat it blocks.
                            # (None of these leaves wins: its mover has no playable
                            # threat, seen above.)
                            if n & 1:
                                g = g2
                                lm = t2
                                lo = t1
                                gs = (m - 2) * u2
                            else:
                                g = g1
                                lm = t1
                                lo = t2
                                gs = m - 2
                            v = -sc - d if n & 1 else sc - d
                            top = -alpha[ply]
                            score = -INF
                            bc = NONE
                            last = n + 1 == size
                            i = (w + 1) * f if f <= w else one + 2 * (f - w - 1)
                            c2 = ords[i]
                            while c2 != NONE:
                                lr = heights[c2]
                                if lr < h and not sk >> c2 & 1:
                                    nodes += 1
                                    lc = c2 * h + lr
                                    d = y = ng = 0
                                    for k in range(wstart[lc], wstart[lc + 1]):
                                        j = wins[k]
                                        s = st[j]
                                        d += g[j * uu + s]
                                        if s == gs:
                                            y = 1
                                    cm = 0
                                    if y:
                                        # The gaps this leaf makes, marked in lm for now
                                        # (most leaves make none: looked for only here).
                                        for k in range(wstart[lc], wstart[lc + 1]):
                                            j = wins[k]
                                            if st[j] == gs:
                                                for i2 in range(j * m, j * m + m):
                                                    e = wcells[i2]
                                                    if e != lc and \
                                                            crow[e] >= heights[ccol[e]]:
                                                        break
                                                if not lm[e]:
                                                    lm[e] = 1
                                                    gaps[ng] = e
                                                    ng += 1
                                                    cm |= 1 << ccol[e]
                                    y = 0
                                    if lo[lc]:
                                        # The leaf's disc fills a threat of the other side:
                                        # its column's value without that threat.
                                        y = lo[lc]
                                        lo[lc] = 0
                                        cm |= 1 << c2
                                    if cm:
                                        x = 0
                                        for k in range(w):
                                            if cm >> k & 1:
                                                # (column(), as above)
                                                v2 = low = prev = 0
                                                e = k * h + heights[k]
                                                while e < k * h + h:
                                                    a = 0
                                                    if t1[e]:
                                                        a = 1
                                                        v2 += w1l[e] if low == 2 else w1[e]
                                                        if prev & 1:
                                                            v2 += stack1
                                                    if t2[e]:
                                                        a |= 2
                                                        v2 -= w2l[e] if low == 1 else w2[e]
                                                        if prev & 2:
                                                            v2 -= stack2
                                                    if not low:
                                                        low = a
                                                    prev = a
                                                    e += 1
                                                x += v2 - cv[k]
                                        d += -x if n & 1 else x
                                    if y:
                                        lo[lc] = y
                                    while ng:
                                        ng -= 1
                                        lm[gaps[ng]] = 0
                                    d = 0 if last else d + v
                                    if d > score:
                                        score = d
                                        bc = c2
                                        if d >= top:
                                            break
                                i += 1
                                c2 = ords[i]
                            if tt:
                                tt.store(h1, h2, 1, LOWER if score >= top else
                                         EXACT if score > -beta[ply] else UPPER, bc, score)
                        if score == INF:
                            hist[n - 1] = c
                            past[n - 1] = sc
                            sc = sc + d if n & 1 else sc - d
                            ply += 1
                            alpha[ply] = -beta[ply - 1]
                            beta[ply] = -alpha[ply - 1]
                            best[ply] = -INF
                            nxt[ply] = (w + 1) * f if f <= w else one + 2 * (f - w - 1)
                            skip[ply] = sk
                            continue
                        score = -score
                    n -= 1
                # Take c back, and its threats (a window now one short by this disc, or an
                # opponent's window it had spoilt when that was one short).
                heights[c] = r
                if n & 1:
                    tm = t2
                    to = t1
                    ts = (m - 1) * u2  # the mover's one-short state, and the opponent's
                    tq = m - 1
                else:
                    tm = t1
                    to = t2
                    ts = m - 1
                    tq = (m - 1) * u2
                cm = 0
                for k in range(wstart[cell], wstart[cell + 1]):
                    j = wins[k]
                    s = st[j]
                    st[j] = s - u
                    if s == ts:
                        for i in range(j * m, j * m + m):
                            e = wcells[i]
                            if e != cell and crow[e] >= heights[ccol[e]]:
                                break
                        tm[e] -= 1
                        if not tm[e]:
                            cm |= 1 << ccol[e]
                    elif s - u == tq:
                        to[cell] += 1
                        cm |= 1 << c
                if cm:
                    x = 0
                    for k in range(w):
                        if cm >> k & 1:
                            # (column(), as above)
                            v2 = low = prev = 0
                            e = k * h + heights[k]
                            while e < k * h + h:
                                a = 0
                                if t1[e]:
                                    a = 1
                                    v2 += w1l[e] if low == 2 else w1[e]
                                    if prev & 1:
                                        v2 += stack1
                                if t2[e]:
                                    a |= 2
                                    v2 -= w2l[e] if low == 1 else w2[e]
                                    if prev & 2:
                                        v2 -= stack2
                                if not low:
                                    low = a
                                prev = a
                                e += 1
                            x += v2 - cv[k]
                            cv[k] = v2
                h1 ^= z1[2 * cell + (n & 1)]
                h2 ^= z2[2 * cell + (n & 1)]
                if score > best[ply]:
                    best[ply] = score
                    bestcol[ply] = c
                    if score > alpha[ply]:
                        alpha[ply] = score
                        if score >= beta[ply]:
                            nxt[ply] = done
            if target > 1 and max_nodes and nodes > max_nodes:
                stop = 1
            if stop:
                self.stopped = True
            else:
                self.move = bestcol[0]
                self.score = best[0]
                self.depth = target
                if self.score >= WIN or self.score <= -WIN:
                    break
        self.nodes = nodes
        return self.move
