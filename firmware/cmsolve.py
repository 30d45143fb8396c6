# cmsolve: the exact game-theoretic score of a position, in the test sets' convention: a side
# that wins by placing its disc with n discs down scores (W*H + 1 - n) // 2, a loss is the
# negation, a draw 0. Null-window negamax (the scheme of Pascal Pons' solver: only moves that
# do not hand the opponent a win, threat-count ordering, upper and lower bounds kept in the
# transposition table), with its own stack instead of recursion.
from micropython import const
import array
import cmtt

PUSHED = const(127)  # no score fits here: |score| <= 41


def _half(x):
    # C's x / 2 (toward zero): the window-splitting steps follow Pons' integer arithmetic.
    return -(-x // 2) if x < 0 else x // 2


def wins_at(b, cell, p):
    # Would p complete a line with a disc on this empty cell?
    cnt, m1 = b.cnt, b.m - 1
    mine = (p - 1) * b.nwin
    for k in range(b.wstart[cell], b.wstart[cell + 1]):
        wid = b.wins[k]
        if cnt[mine + wid] == m1 and cnt[b.nwin - mine + wid] == 0:
            return 1
    return 0


def threats_after(b, col):
    # How many windows col would bring one disc short of a line for the side to move. The
    # threats it held before are the same whatever it plays, so they need not be counted.
    cell = col * b.h + b.heights[col]
    cnt, m = b.cnt, b.m
    mine = (b.n & 1) * b.nwin
    t = 0
    for k in range(b.wstart[cell], b.wstart[cell + 1]):
        wid = b.wins[k]
        if cnt[mine + wid] + 2 == m and cnt[b.nwin - mine + wid] == 0:
            t += 1
    return t


class Solver:
    def __init__(self, board, tt_bytes=0):
        self.b = board
        d = board.size + 2
        self.alpha = array.array('i', [0] * d)
        self.beta = array.array('i', [0] * d)
        self.moves = bytearray(d * board.w)  # each ply's columns, best first
        self.count = bytearray(d)
        self.next = bytearray(d)
        self.rank = bytearray(board.w)  # threat counts while sorting one node's moves
        self.tt = cmtt.TT(tt_bytes)
        self.nodes = 0

    def solve(self):
        # Exact score of the position for the side to move (the game must not be over).
        b = self.b
        n, size, h = b.n, b.size, b.h
        for c in range(b.w):
            if b.heights[c] < h and wins_at(b, c * h + b.heights[c], 1 + (n & 1)):
                return (size + 1 - n) // 2
        lo = -((size - n) // 2)
        hi = (size + 1 - n) // 2
        while lo < hi:
            # Narrow [lo, hi] with null windows, probing near 0 first as Pons does.
            med = lo + (hi - lo) // 2
            if med <= 0 and _half(lo) < med:
                med = _half(lo)
            elif med >= 0 and _half(hi) > med:
                med = _half(hi)
            r = self._negamax(med, med + 1)
            if r <= med:
                hi = r
            else:
                lo = r
        return lo

    def best_move(self, score):
        # A column that keeps the exact score (solve() first): the first, in search order,
        # whose position scores no better than -score for the opponent.
        b = self.b
        h = b.h
        for i in range(b.w):
            c = b.order[i]
            if b.heights[c] < h:
                if wins_at(b, c * h + b.heights[c], 1 + (b.n & 1)):
                    return c
                b.play(c)
                r = -score if b.won else self._negamax(-score, 1 - score)
                b.undo()
                if r <= -score:
                    return c
        return 255

    def _enter(self, ply, alpha, beta):
        # Start the node at ply (the side to move cannot win at once): return its score if
        # it is known without children, else set up its moves and return PUSHED.
        b = self.b
        self.nodes += 1
        n, w, h, size, heights = b.n, b.w, b.h, b.size, b.heights
        q = 2 - (n & 1)  # the opponent
        forced = 255
        for c in range(w):
            if heights[c] < h and wins_at(b, c * h + heights[c], q):
                if forced != 255:
                    return -((size - n) // 2)  # two threats to block: lost next move
                forced = c
        moves, rank, base = self.moves, self.rank, ply * w
        k = 0
        for i in range(w):
            c = b.order[i]
            if heights[c] < h and (forced == 255 or c == forced) and not (
                    heights[c] + 1 < h and wins_at(b, c * h + heights[c] + 1, q)):
                # Insertion sort: most threats first, ties in centre-out order.
                r = threats_after(b, c)
                j = k
                while j > 0 and rank[j - 1] < r:
                    moves[base + j] = moves[base + j - 1]
                    rank[j] = rank[j - 1]
                    j -= 1
                moves[base + j] = c
                rank[j] = r
                k += 1
        if k == 0:
            return -((size - n) // 2)  # every move lets the opponent win
        if n >= size - 2:
            return 0  # neither side can still win
        lo = -((size - 2 - n) // 2)
        hi = (size - 1 - n) // 2
        i = self.tt.find(b.h1, b.h2)
        if i >= 0:
            if self.tt.t[i + 4] >> 4 == cmtt.UPPER:
                hi = min(hi, self.tt.score(i))
            else:
                lo = max(lo, self.tt.score(i))
        if alpha < lo:
            alpha = lo
            if alpha >= beta:
                return alpha
        if beta > hi:
            beta = hi
            if alpha >= beta:
                return beta
        self.alpha[ply] = alpha
        self.beta[ply] = beta
        self.count[ply] = k
        self.next[ply] = 0
        return PUSHED

    def _negamax(self, alpha, beta):
        b, tt = self.b, self.tt
        alphas, betas, moves, count, nxt = self.alpha, self.beta, self.moves, self.count, self.next
        w = b.w
        score = self._enter(0, alpha, beta)
        if score != PUSHED:
            return score
        ply = 0
        while True:
            k = nxt[ply]
            if k < count[ply]:
                nxt[ply] = k + 1
                b.play(moves[ply * w + k])
                score = self._enter(ply + 1, -betas[ply], -alphas[ply])
                if score == PUSHED:
                    ply += 1
                    continue
                b.undo()
                score = -score
            else:
                # No move reached beta: alpha is an upper bound of this node.
                score = alphas[ply]
                tt.store(b.h1, b.h2, 0, cmtt.UPPER, 0, score)
                if ply == 0:
                    return score
                ply -= 1
                b.undo()
                score = -score
            # Fold the child's score into the node at ply; a cutoff passes up at once.
            while score >= betas[ply]:
                tt.store(b.h1, b.h2, 0, cmtt.LOWER, 0, score)
                if ply == 0:
                    return score
                ply -= 1
                b.undo()
                score = -score
            if score > alphas[ply]:
                alphas[ply] = score
