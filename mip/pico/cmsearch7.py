# cmsearch7: the Pico's evaluation, which knows Connect 4's threats, and the per-move work
# that cmsearch's one loop calls for it (Search.work: the loop's THREATS blocks). A
# micro:bit never loads it (its builds skip the module and drop those blocks), so its 5x4
# game stays byte for byte as it was; cmpico makes it the game's search. It shares no code
# with cmsearch but a few numbers, its constants and cmtt's, written again by value (a
# const() folds within its own module only), and the seven lines of a leaf's score folded
# into its frontier node's best: leaves() does in viper code for the threat search what
# cmsearch's loop does inline for the window search (a call per frontier node costs a
# micro:bit more than the lines; viper code calls no bytecode).
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

# cmsearch's and cmtt's numbers, by value (the header): viper code then reads no other
# module's names.
INF = const(1 << 29)  # cmtt.NO_SCORE
EXACT = const(1)  # cmtt's bounds
LOWER = const(2)
UPPER = const(3)
NONE = const(255)
SLICE = const(128)  # cmsearch.SLICE
# The weights, the gains and the columns' values are kept in unsigned 16-bit arrays, BIAS
# above their value: viper code reads an array's elements as unsigned, and on a 64-bit
# machine (the unix port in the tests) a negative 32-bit one would not come back negative.
BIAS = const(32768)
TBIAS = const(1 << 23)  # cmtt.BIAS
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


# A build whose work per move is viper code (build.VIPER: a Pico's) sets VIPER: go() then
# passes each array to it as its address, an int that viper code takes as a pointer as it
# is; an array itself costs a viper function ~1.35 us a call to convert (measured on the
# emulated RP2040; some 200,000 conversions a search, from its calls counted on the host).
# Elsewhere the arrays themselves.
VIPER = const(0)


# ---- the per-move work ----------------------------------------------------------------
# Small functions, called once a node (a move made or taken back) or once a frontier node (all
# its leaves): a Pico's build compiles them as viper code (machine code over the arrays'
# bytes: build.VIPER), which the RP2040's emitter takes where it refuses the search's loop;
# elsewhere they run as written, to the same sums. Their arrays come as addresses (VIPER),
# each read through ptr8, ptr16 or ptr32, viper's views of a bytearray's, an array('H')'s
# and an array('i')'s memory (unsigned: BIAS); here, the array itself.
# (A bytecode call to one of them puts its frame on the heap: MicroPython keeps a frame of
# more than 11 words on the C stack only. Viper code keeps its own on the C stack.)
# k: the board's numbers (Search.k): w, h, m, u (a second-player disc's unit), u * u.

def ptr8(a):
    return a


ptr16 = ptr32 = ptr8
from uctypes import addressof


@micropython.viper
def columns(cm: int, keep: int, k: int, heights: int, t1: int, t2: int, wt: int,
            cv: int) -> int:
    # The change of the threat value (first player's view) over the columns in the bits of
    # cm, each from the threat counts of its empty cells, lowest first: a threat counts its
    # cell's weight (wt: the two stacks' weights, then 4 a cell: the first player's threat,
    # the same above a lower threat of the second player's, and the second player's two),
    # the second weight above a lower threat of the other side (which comes first), and a
    # stack's more right above one of its own (the two win once the column reaches them).
    # keep: each column's new value into cv.
    kp = ptr32(k)
    hp = ptr8(heights)
    p1 = ptr8(t1)
    p2 = ptr8(t2)
    wp = ptr16(wt)
    cp = ptr16(cv)
    h = kp[1]
    x = 0
    c = 0
    while cm:
        if cm & 1:
            v = 0
            low = 0  # the sides with a threat lower in the column (1: first, 2: second)
            prev = 0  # ... in the cell right below
            e = c * h + hp[c]
            top = c * h + h
            while e < top:
                a = 0
                if p1[e]:
                    a = 1
                    v += (wp[3 + 4 * e] if low == 2 else wp[2 + 4 * e]) - BIAS
                    if prev & 1:
                        v += wp[0] - BIAS
                if p2[e]:
                    a |= 2
                    v -= (wp[5 + 4 * e] if low == 1 else wp[4 + 4 * e]) - BIAS
                    if prev & 2:
                        v -= wp[1] - BIAS
                if low == 0:
                    low = a
                prev = a
                e += 1
            x += v + BIAS - cp[c]
            if keep:
                cp[c] = v + BIAS
        cm >>= 1
        c += 1
    return x


@micropython.viper
def make(cell: int, odd: int, k: int, wstart: int, wins: int, st: int, g: int, wcells: int,
         rc: int, heights: int, t1: int, t2: int, wt: int, cv: int, hh: int, z1: int,
         z2: int) -> int:
    # Play a disc of the side odd (0: the first player) on cell (heights already raised):
    # each of its windows' state moves (gains g), a window now one short has a new gap
    # (t1, t2), an opponent's one-short window it spoils takes its threat off, and the
    # columns whose threats changed are read again (unless the disc wins: it is scored by
    # its discs); the hash keys hh move with the disc (z1, z2). The gain, threats included,
    # in the mover's view.
    kp = ptr32(k)
    sp = ptr8(st)
    wp = ptr8(wins)
    gp = ptr16(g)
    cp = ptr8(wcells)
    rp = ptr8(rc)
    hp = ptr8(heights)
    sw = ptr16(wstart)
    m = kp[2]
    uu = kp[4]
    if odd:
        u = kp[3]
        tm = ptr8(t2)  # the mover's threat counts, and the opponent's
        to = ptr8(t1)
        ts = m - 1  # the opponent's one-short window state
    else:
        u = 1
        tm = ptr8(t1)
        to = ptr8(t2)
        ts = (m - 1) * kp[3]
    gs = (m - 2) * u  # the mover's window a disc from one short
    nn = rp[2 * cell]
    cm = 0
    if to[cell]:
        cm = 1 << nn
    d = 0
    i = sw[cell]
    top = sw[cell + 1]
    while i < top:
        j = wp[i]
        s = sp[j]
        d += gp[j * uu + s] - BIAS
        sp[j] = s + u
        if s == gs:
            # A new window one short: its gap (the one empty cell left). (Written out here,
            # in unmake and in leaves, as Search.gap: ~5,000 times a search, and a call from
            # viper code costs ~1.6 us an argument on the RP2040.)
            e = 0
            a = j * m
            while a < j * m + m:
                e = cp[a]
                if rp[2 * e + 1] >= hp[rp[2 * e]]:
                    break
                a += 1
            if tm[e] == 0:
                cm |= 1 << rp[2 * e]
            tm[e] += 1
        elif s == ts:
            to[cell] -= 1
        i += 1
    if cm and tm[cell] == 0:
        x = int(columns(cm, 1, k, heights, t1, t2, wt, cv))
        d += 0 - x if odd else x
    kh = ptr32(hh)  # the hash keys, with the disc put in (or taken out)
    zp = ptr32(z1)
    kh[0] ^= zp[2 * cell + odd]
    zp = ptr32(z2)
    kh[1] ^= zp[2 * cell + odd]
    return d


@micropython.viper
def unmake(cell: int, odd: int, k: int, wstart: int, wins: int, st: int, wcells: int,
           rc: int, heights: int, t1: int, t2: int, wt: int, cv: int, hh: int, z1: int,
           z2: int):
    # Take back the side odd's disc from cell (heights already lowered), and its threats: a
    # window now one short by this disc, or an opponent's window it had spoilt when that
    # was one short; the columns whose threats changed are read again; and the hash keys.
    kp = ptr32(k)
    sp = ptr8(st)
    wp = ptr8(wins)
    cp = ptr8(wcells)
    rp = ptr8(rc)
    hp = ptr8(heights)
    sw = ptr16(wstart)
    m = kp[2]
    if odd:
        u = kp[3]
        tm = ptr8(t2)
        to = ptr8(t1)
        ts = (m - 1) * u  # the mover's one-short state, and the opponent's
        tq = m - 1
    else:
        u = 1
        tm = ptr8(t1)
        to = ptr8(t2)
        ts = m - 1
        tq = (m - 1) * kp[3]
    cm = 0
    i = sw[cell]
    top = sw[cell + 1]
    while i < top:
        j = wp[i]
        s = sp[j]
        sp[j] = s - u
        if s == ts:
            e = 0
            a = j * m
            while a < j * m + m:
                e = cp[a]
                if e != cell and rp[2 * e + 1] >= hp[rp[2 * e]]:
                    break
                a += 1
            tm[e] -= 1
            if tm[e] == 0:
                cm |= 1 << rp[2 * e]
        elif s - u == tq:
            to[cell] += 1
            cm |= 1 << rp[2 * cell]
        i += 1
    if cm:
        columns(cm, 1, k, heights, t1, t2, wt, cv)
    kh = ptr32(hh)  # the hash keys, with the disc put in (or taken out)
    zp = ptr32(z1)
    kh[0] ^= zp[2 * cell + odd]
    zp = ptr32(z2)
    kh[1] ^= zp[2 * cell + odd]


@micropython.viper
def urgent(n: int, k: int, heights: int, t1: int, t2: int, o: int) -> int:
    # The immediate threats of the position after n discs (its mover X, the other side Y):
    # 1 if X has a threat it can play (it wins at once); 2 if X is lost: Y has two playable
    # threats, or every column X could play goes just below a threat of Y's (Y would play
    # it); else 0, with the columns X must not play (o[0]: below Y's threats, and all but
    # the block of Y's one playable threat) and that block, plus 1 (o[1]; 0: none).
    kp = ptr32(k)
    hp = ptr8(heights)
    op = ptr32(o)
    w = kp[0]
    h = kp[1]
    if n & 1:
        lm = ptr8(t2)
        lo = ptr8(t1)
    else:
        lm = ptr8(t1)
        lo = ptr8(t2)
    y = 0  # Y's playable threats
    fc = 0
    sk = 0
    pl = 0  # the playable columns
    c = 0
    while c < w:
        lr = hp[c]
        if lr < h:
            lc = c * h + lr
            if lm[lc]:
                return 1
            pl |= 1 << c
            if lo[lc]:
                y += 1
                fc = c
            if lr + 1 < h and lo[lc + 1]:
                sk |= 1 << c
        c += 1
    if y:
        sk |= pl - (pl & (1 << fc))  # only the block is left
    op[0] = sk
    op[1] = 0
    if y > 1 or sk == pl:
        return 2
    if y:
        op[1] = fc + 1
    return 0


@micropython.viper
def probe(t: int, n: int, hh: int, depth: int, alpha: int, beta: int, o: int) -> int:
    # cmtt.TT.cut on the table's bytes t (n slots, cmtt's layout), as viper code, for the
    # position of hash keys hh: the stored score if it settles a search to depth in
    # (alpha, beta), else INF; the stored best column in o[0] (NONE: none) to try first.
    tp = ptr8(t)
    op = ptr32(o)
    hp = ptr32(hh)
    op[0] = NONE
    if n == 0:
        return INF
    h1 = hp[0]
    h2 = hp[1]
    i = (h1 % n) * 8
    if tp[i + 4] == 0 or tp[i] != h2 & 255 or tp[i + 1] != (h2 >> 8) & 255 \
            or tp[i + 2] != (h2 >> 16) & 255:
        return INF
    op[0] = tp[i + 4] & 15
    v = (tp[i + 5] | tp[i + 6] << 8 | tp[i + 7] << 16) - TBIAS
    bound = tp[i + 4] >> 4
    if tp[i + 3] >= depth and (bound == EXACT or bound == LOWER and v >= beta or
                               bound == UPPER and v <= alpha):
        return v
    return INF


@micropython.viper
def put(t: int, n: int, hh: int, depth: int, bc: int, v: int):
    # cmtt.TT.store on the table's bytes t, as viper code (bc: the bound << 4 | the column).
    if n == 0:
        return
    tp = ptr8(t)
    hp = ptr32(hh)
    h1 = hp[0]
    h2 = hp[1]
    i = (h1 % n) * 8
    v += TBIAS
    tp[i] = h2 & 255
    tp[i + 1] = (h2 >> 8) & 255
    tp[i + 2] = (h2 >> 16) & 255
    tp[i + 3] = depth
    tp[i + 4] = bc
    tp[i + 5] = v & 255
    tp[i + 6] = (v >> 8) & 255
    tp[i + 7] = v >> 16


@micropython.viper
def clear(tt):
    # cmtt.TT.clear as viper code (cmpico puts it in cmtt.TT's place): every slot empty.
    t = tt.t
    n = int(len(t))
    tp = ptr8(t)
    i = 4
    while i < n:
        tp[i] = 0
        i += 8


@micropython.viper
def leaves(i: int, sk: int, odd: int, v: int, top: int, last: int, o: int, k: int, ords: int,
           wstart: int, wins: int, st: int, g: int, wcells: int, rc: int, heights: int,
           t1: int, t2: int, wt: int, cv: int, gaps: int) -> int:
    # A frontier node's children (leaves), in the order ords[i:] (to its NONE), scored from
    # their gains without playing them, threats too: the gaps each leaf's disc would make,
    # and the threat it blocks. Not the columns in sk's bits; none of these leaves wins (its
    # mover, odd, has no playable threat: go checks). v: the node's score in the leaves'
    # movers' view; top: the cut; last: the leaf fills the board (scores 0). The best
    # score (-INF: none), its column in o[0] and the leaves scored in o[1].
    kp = ptr32(k)
    op = ptr32(o)
    dp = ptr8(ords)
    sp = ptr8(st)
    wp = ptr8(wins)
    gp = ptr16(g)
    cp = ptr8(wcells)
    rp = ptr8(rc)
    hp = ptr8(heights)
    ap = ptr8(gaps)
    sw = ptr16(wstart)
    h = kp[1]
    m = kp[2]
    uu = kp[4]
    if odd:
        lm = ptr8(t2)
        lo = ptr8(t1)
        gs = (m - 2) * kp[3]
    else:
        lm = ptr8(t1)
        lo = ptr8(t2)
        gs = m - 2
    score = 0 - INF
    bc = NONE
    nodes = 0
    c2 = dp[i]
    while c2 != NONE:
        lr = hp[c2]
        if lr < h and (sk >> c2) & 1 == 0:
            nodes += 1
            lc = c2 * h + lr
            d = 0
            y = 0
            ng = 0
            a = sw[lc]
            a1 = sw[lc + 1]
            while a < a1:
                j = wp[a]
                s = sp[j]
                d += gp[j * uu + s] - BIAS
                if s == gs:
                    y = 1
                a += 1
            cm = 0
            if y:
                # The gaps this leaf makes, marked in lm for now (most leaves make none:
                # looked for only here).
                a = sw[lc]
                while a < a1:
                    j = wp[a]
                    if sp[j] == gs:
                        e = 0
                        b = j * m
                        while b < j * m + m:
                            e = cp[b]
                            if e != lc and rp[2 * e + 1] >= hp[rp[2 * e]]:
                                break
                            b += 1
                        if lm[e] == 0:
                            lm[e] = 1
                            ap[ng] = e
                            ng += 1
                            cm |= 1 << rp[2 * e]
                    a += 1
            y = lo[lc]
            if y:
                # The leaf's disc fills a threat of the other side: its column's value
                # without that threat.
                lo[lc] = 0
                cm |= 1 << c2
            if cm:
                x = int(columns(cm, 0, k, heights, t1, t2, wt, cv))
                d += 0 - x if odd else x
            if y:
                lo[lc] = y
            while ng:
                ng -= 1
                lm[ap[ng]] = 0
            d = 0 if last else d + v
            if d > score:
                score = d
                bc = c2
                if d >= top:
                    break
        i += 1
        c2 = dp[i]
    op[0] = bc
    op[1] = nodes
    return score


class Search(cmsearch.Search):
    tables = None  # the weights' tables (__init__)
    # cmsearch.Search.go's per-move work for this evaluation (its THREATS blocks)
    work = (make, unmake, urgent, probe, put, leaves, addressof)

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
        self.rc = bytearray(2 * size)  # a cell's column and row, without a division per node
        for cell in range(size):
            self.rc[2 * cell] = cell // h
            self.rc[2 * cell + 1] = cell % h
        self.k = array.array('i', [w, h, m, b.u, b.u * b.u])  # the board's numbers (make)
        self.o = array.array('i', [0, 0])  # leaves()' other answers
        self.hh = array.array('i', [0, 0])  # the hash keys in the search (make, unmake)
        self.cv = array.array('H', [BIAS] * b.w)  # each column's threat value (columns())
        self.past = array.array('i', [0] * size)  # the score before each move (go)
        # The evaluation's weights (weigh): a window's by its state (wv, and the gains g1,
        # g2 from them), a threat's to its owner by cell and the stacks' (wt: see
        # columns()). One set for every search of a board size (the game's and cmponder's:
        # 8 KB on 7x6), in t: the size, whether fitted (-1: not yet weighed), the arrays.
        # (BIAS above their values: viper code reads them unsigned.)
        t = Search.tables
        if t is None or t[0] != w * 100 + h * 10 + m:
            k = m - 1
            nw = len(b.st)
            t = [w * 100 + h * 10 + m, -1, array.array('h', [0] * (nw * 2 * k))]
            for n in (2 + 4 * size, nw * b.u * b.u, nw * b.u * b.u):
                t.append(array.array('H', [BIAS] * n))
            Search.tables = t
        self.t = t
        self.wv = t[2]
        self.wt = t[3]
        self.g1 = t[4]
        self.g2 = t[5]
        self.weigh()
        self.gaps = bytearray(8)  # a leaf's new gaps, marked for a moment (leaves())
        # The arrays the work per move reads, as go() passes them (VIPER: their addresses),
        # in make's order, then o, ords and gaps. (Made once: a search allocates nothing.)
        self.a = (addressof(self.k), addressof(b.wstart), addressof(b.wins), addressof(b.st),
                  addressof(self.g1), addressof(self.g2), addressof(self.wcells),
                  addressof(self.rc), addressof(b.heights), addressof(self.t1),
                  addressof(self.t2), addressof(self.wt), addressof(self.cv),
                  addressof(self.hh), addressof(b.z1), addressof(b.z2), addressof(self.o),
                  addressof(self.ords), addressof(self.gaps))
        self.pc = SLICE  # (go's, made here: a new attribute may grow the object, allocate)

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
        wt = self.wt
        if fitted:
            for i in range(len(wv)):
                wv[i] = cmfit7.WINDOWS[i]
            th = cmfit7.THREATS
            for e in range(b.size):
                wt[2 + 4 * e] = BIAS + th[4 * e]
                wt[3 + 4 * e] = BIAS + th[4 * e + 1]
                wt[4 + 4 * e] = BIAS - th[4 * e + 2]
                wt[5 + 4 * e] = BIAS - th[4 * e + 3]
            wt[0] = BIAS + cmfit7.STACKS[0]
            wt[1] = BIAS - cmfit7.STACKS[1]
        else:
            for i in range(len(wv)):
                a = i % k + 1
                wv[i] = 1 << (3 * (3 - m + a)) if a >= m - 3 else 0
                if i % (2 * k) >= k:
                    wv[i] = -wv[i]
            for e in range(b.size):
                r = self.rc[2 * e + 1]
                a = GOOD1 if r & 1 == 0 else BAD
                o = GOOD2 if r & 1 else BAD
                wt[2 + 4 * e] = BIAS + a
                wt[3 + 4 * e] = BIAS + (a >> LATE)
                wt[4 + 4 * e] = BIAS + o
                wt[5 + 4 * e] = BIAS + (o >> LATE)
            wt[0] = wt[1] = BIAS + STACK
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
                g1[j * uu + s] = g2[j * uu + s] = BIAS
                if a + o < m and not (a + 1 == m and not o):
                    g1[j * uu + s] = BIAS + self.worth(j, s + 1) - self.worth(j, s)
                if a + o < m and not (o + 1 == m and not a):
                    g2[j * uu + s] = BIAS + self.worth(j, s) - self.worth(j, s + u)

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

    def gap(self, j, cell):
        # The empty cell of window j other than cell (heights as the search has them).
        m = self.b.m
        heights = self.b.heights
        for i in range(j * m, j * m + m):
            e = self.wcells[i]
            if e != cell and self.rc[2 * e + 1] >= heights[self.rc[2 * e]]:
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
        for c in range(b.w):
            self.cv[c] = BIAS
        a = self.a
        return columns((1 << b.w) - 1, 1, a[0], a[8], a[9], a[10], a[11], a[12])
