# cmsolve: the exact game-theoretic score of a position, in the test sets' convention: a side
# that wins by placing its disc with n discs down scores (W*H + 1 - n) // 2, a loss is the
# negation, a draw 0. Null-window negamax (the scheme of Pascal Pons' solver: only moves that
# do not hand the opponent a win, threat-count ordering, upper and lower bounds kept in the
# transposition table), with its own stack instead of recursion.
from micropython import const
import array
import cmthreats

PUSHED = const(127)  # no score fits here: |score| <= 41
LOWER = const(2)  # cmtt.LOWER
UPPER = const(3)  # cmtt.UPPER


def _half(x):
    # C's x / 2 (toward zero): the window-splitting steps follow Pons' integer arithmetic.
    return -(-x // 2) if x < 0 else x // 2


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
        self.tt = None
        if tt_bytes:
            # Imported only when asked for: a micro:bit has no RAM to spare for it.
            import cmtt
            self.tt = cmtt.TT(tt_bytes)
        self.nodes = 0
        # The host's hook: once nodes reaches limit, poll() runs (it may report progress and
        # raise a limit, or raise to stop the solve; the board then holds the moves of the
        # search's path). lo, hi: the score's bounds proven so far.
        self.limit = 0x3fffffff
        self.poll = None
        self.lo = self.hi = 0

    def solve(self):
        # Exact score of the position for the side to move (the game must not be over).
        b = self.b
        n = b.n
        size = b.size
        if cmthreats.can_win(b):
            self.lo = self.hi = (size + 1 - n) // 2
            return self.lo
        lo = -((size - n) // 2)
        hi = (size + 1 - n) // 2
        while lo < hi:
            self.lo = lo
            self.hi = hi
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
        self.lo = self.hi = lo
        return lo

    def wins_within(self, plies):
        # 1 if the side to move can force a win within `plies` plies (its winning disc one
        # of them), -1 if the other side can, else 0. Cheap where solve() is not: a window
        # above the score of every slower win ends each line after `plies` plies.
        b = self.b
        n = b.n
        if cmthreats.can_win(b):
            return 1
        mine = n + (plies - 1) // 2 * 2  # the discs down before the mover's last disc
        t = (b.size + 1 - mine) // 2
        if plies > 2 and self._negamax(t - 1, t) >= t:
            return 1
        theirs = n + 1 + (plies - 2) // 2 * 2  # ... before the other side's last disc
        u = (b.size + 1 - theirs) // 2
        if plies > 1 and self._negamax(-u, 1 - u) <= -u:
            return -1
        return 0

    def best_move(self, score):
        # A column that keeps the exact score (solve() first): the first, in search order,
        # after which the opponent scores no better than -score.
        b = self.b
        for i in range(b.w):
            c = b.order[i]
            if b.heights[c] < b.h:
                b.play(c)
                if b.won:
                    r = -score  # a win now is the best score there is
                elif cmthreats.can_win(b):
                    # The negamax assumes no win at once; this move loses to one.
                    r = (b.size + 1 - b.n) // 2
                else:
                    r = self._negamax(-score, 1 - score)
                b.undo()
                if r <= -score:
                    return c
        return 255

    def _enter(self, ply, alpha, beta):
        # Start the node at ply (the side to move cannot win at once): return its score if
        # it is known without children, else set up its moves and return PUSHED.
        b = self.b
        self.nodes += 1
        if self.nodes >= self.limit:
            self.poll()
        n = b.n
        w = b.w
        size = b.size
        k = cmthreats.safe_moves(b, self.moves, ply * w, self.rank)
        if k == 0:
            return -((size - n) // 2)  # every move lets the opponent win at once
        if n >= size - 2:
            return 0  # neither side can still win
        lo = -((size - 2 - n) // 2)
        hi = (size - 1 - n) // 2
        tt = self.tt
        i = tt.find(b.h1, b.h2) if tt else -1
        if i >= 0:
            if tt.t[i + 4] >> 4 == UPPER:
                hi = min(hi, tt.score(i))
            else:
                lo = max(lo, tt.score(i))
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
        b = self.b
        tt = self.tt
        # One name per assignment: the micro:bit's compiler builds a tuple (allocates) for
        # `a, b = x, y`, which would break the no-allocation-per-node rule.
        alphas = self.alpha
        betas = self.beta
        moves = self.moves
        count = self.count
        nxt = self.next
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
                if score < betas[ply]:
                    if score > alphas[ply]:
                        alphas[ply] = score
                    continue
                bound = LOWER  # a cutoff: the score is a lower bound of this node
            else:
                score = alphas[ply]
                bound = UPPER  # no move reached beta: alpha is an upper bound
            # The node at ply is done: keep its bound, then fold its score into the parent,
            # where it may cut off in turn.
            while True:
                if tt:
                    tt.store(b.h1, b.h2, 0, bound, 0, score)
                if ply == 0:
                    return score
                ply -= 1
                b.undo()
                score = -score
                if score < betas[ply]:
                    if score > alphas[ply]:
                        alphas[ply] = score
                    break
                bound = LOWER
