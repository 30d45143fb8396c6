# cmsearch: depth-limited negamax alpha-beta with iterative deepening, without recursion.
#
# Python recursion dies after ~6 calls on a micro:bit, so the search keeps its own stack: one
# slot per ply in arrays allocated once, and make/unmake on the shared board. Nothing is
# allocated per node (tests run it under micropython.heap_lock()).
from micropython import const
import array
from utime import ticks_ms, ticks_diff

# Not imported from cmboard: on a micro:bit each module must compile alone, largest first.
WIN = const(65536)  # cmboard.WIN
INF = const(1 << 29)  # cmtt.NO_SCORE
EXACT = const(1)  # cmtt's bounds
LOWER = const(2)
UPPER = const(3)
NONE = const(255)


class Search:
    def __init__(self, board, tt_bytes=0):
        # tt_bytes > 0 adds a transposition table (the board needs hash keys, keys=1).
        self.b = board
        d = board.size + 2
        self.alpha = array.array('i', [0] * d)
        self.beta = array.array('i', [0] * d)
        self.best = array.array('i', [0] * d)  # best score so far at each ply
        self.bestcol = bytearray(d)
        self.next = bytearray(d)  # 0: try first[ply] next; k > 0: order[k - 1]
        self.first = bytearray(d)  # column to try first: the table's, or the last iteration's
        self.tt = None
        if tt_bytes:
            import cmtt
            self.tt = cmtt.TT(tt_bytes)
        self.move = NONE
        self.score = self.depth = self.nodes = self.seed = 0
        self.stopped = False

    def go(self, depth, max_nodes=0, max_ms=0, seed=0):
        # Deepens 1, 2, .. depth and keeps the move of the last iteration that completed;
        # stops early on a proven result or a spent budget (nodes, or ms of ticks_ms()).
        # seed > 0 picks at random among equally good moves. Returns the column, 0-based.
        b = self.b
        self.move = NONE
        self.score = self.depth = self.nodes = 0
        self.seed = seed
        self.stopped = False
        if b.over():
            return NONE
        t0 = ticks_ms()
        for d in range(1, min(depth, b.size - b.n) + 1):
            # Depth 1 always completes, so there is always a move to return.
            if not self._root(d, max_nodes if d > 1 else 0, max_ms if d > 1 else 0, t0):
                self.stopped = True
                break
            self.move = self.bestcol[0]
            self.score = self.best[0]
            self.depth = d
            if self.score >= WIN or self.score <= -WIN:
                break
        return self.move

    def _root(self, target, max_nodes, max_ms, t0):
        b = self.b
        tt = self.tt
        # One name per assignment: the micro:bit's compiler builds a tuple (allocates) for
        # `a, b = x, y`, which would break the no-allocation-per-node rule.
        alpha = self.alpha
        beta = self.beta
        best = self.best
        bestcol = self.bestcol
        nxt = self.next
        first = self.first
        order = b.order
        heights = b.heights
        h = b.h
        w = b.w
        size = b.size
        seed = self.seed
        ties = ply = 0
        nodes = self.nodes
        alpha[0] = best[0] = -INF
        beta[0] = INF
        nxt[0] = 0
        first[0] = self.move
        while True:
            # The next child: first[ply] once, then the centre-out order.
            col = NONE
            while col == NONE and nxt[ply] <= w:
                k = nxt[ply]
                nxt[ply] = k + 1
                c = order[k - 1] if k else first[ply]
                if c != NONE and heights[c] < h and (k == 0 or c != first[ply]):
                    col = c
            if col == NONE:
                # Every child seen, or a cutoff: the node's score goes to its parent.
                if ply == 0:
                    break
                score = best[ply]
                if tt:
                    # alpha on entry was -beta of the parent, which has not changed since.
                    tt.store(b.h1, b.h2, target - ply,
                             LOWER if score >= beta[ply] else
                             EXACT if score > -beta[ply - 1] else UPPER,
                             bestcol[ply], score)
                score = -score
                ply -= 1
                col = b.undo()
            else:
                nodes += 1
                if nodes & 255 == 0 and (max_nodes and nodes >= max_nodes or max_ms and
                                         ticks_diff(ticks_ms(), t0) >= max_ms):
                    for _ in range(ply):
                        b.undo()
                    self.nodes = nodes
                    return 0
                if ply + 1 >= target:
                    score = b.leaf(col)
                else:
                    b.play(col)
                    if b.won:
                        # The mover placed a disc with n - 1 down: (size + 1 - (n - 1)) // 2.
                        score = WIN * ((size + 2 - b.n) // 2)
                    elif b.n == size:
                        score = 0
                    else:
                        score = INF
                        f = NONE
                        if tt:
                            score = tt.cut(b.h1, b.h2, target - ply - 1, -beta[ply], -alpha[ply])
                            f = tt.col
                        if score == INF:
                            # Descend: the child becomes the node at ply + 1.
                            ply += 1
                            alpha[ply] = -beta[ply - 1]
                            beta[ply] = -alpha[ply - 1]
                            best[ply] = -INF
                            nxt[ply] = 0
                            first[ply] = f
                            continue
                        score = -score
                    b.undo()
            # Fold the child's score (from this node's side) into this node.
            if ply == 0 and seed:
                # Seeded variety: keep the root window open by one so that equal moves get
                # exact scores, and pick among them by reservoir sampling.
                if score > best[0]:
                    ties = 1
                    best[0] = score
                    alpha[0] = score - 1
                    bestcol[0] = col
                elif score == best[0]:
                    ties += 1
                    seed = (seed * 75 + 74) % 65537
                    if seed % ties == 0:
                        bestcol[0] = col
            elif score > best[ply]:
                best[ply] = score
                bestcol[ply] = col
                if score > alpha[ply]:
                    alpha[ply] = score
                    if score >= beta[ply]:
                        nxt[ply] = w + 1
        self.seed = seed
        self.nodes = nodes
        return 1
