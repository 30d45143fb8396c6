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
HIT = const(32768)  # cmboard.HIT
INF = const(1 << 29)  # cmtt.NO_SCORE
EXACT = const(1)  # cmtt's bounds
LOWER = const(2)
UPPER = const(3)
NONE = const(255)
# 0 in the micro:bit build (connectm deploy): the compiler then drops the table code.
TT = const(1)
# Frontier nodes score their leaves without make/unmake (faster); 0 in the micro:bit
# build, where the code's RAM counts more: the leaves are then played and scored.
LEAVES = const(1)


class Search:
    def __init__(self, board, tt_bytes=0, plies=0):
        # tt_bytes > 0 adds a transposition table (the board needs hash keys, keys=1).
        # plies > 0 caps the depth below the board's size: the per-ply arrays take less RAM.
        self.b = board
        d = min(plies or board.size, board.size) + 2
        self.alpha = array.array('i', [0] * d)
        self.beta = array.array('i', [0] * d)
        self.best = array.array('i', [0] * d)  # best score so far at each ply
        self.bestcol = bytearray(d)
        self.next = bytearray(d)  # each ply's next index into ords
        self.tt = None
        if TT and tt_bytes:
            # A smaller table when the RAM does not hold this one (down to none); the
            # serial line says so once.
            import cmtt
            n = tt_bytes
            while n and self.tt is None:
                try:
                    self.tt = cmtt.TT(n)
                except MemoryError:
                    n = n // 2 if n > 1024 else 0
            if n < tt_bytes:
                print('E low memory, table', n)
        self.move = NONE
        self.score = self.depth = self.nodes = 0
        self.stopped = False

    def go(self, depth, max_nodes=0, max_ms=0, seed=0):
        # Deepens 1, 2, .. depth and keeps the move of the last iteration that completed;
        # stops early on a proven result or a spent budget (nodes, or ms of ticks_ms()).
        # seed > 0 picks at random among equally good moves. Returns the column, 0-based.
        # One function, not one per iteration: a function costs a micro:bit RAM.
        b = self.b
        tt = self.tt
        # One name per assignment: the micro:bit's compiler builds a tuple (allocates) for
        # `a, b = x, y`, which would break the no-allocation-per-node rule.
        alpha = self.alpha
        beta = self.beta
        best = self.best
        bestcol = self.bestcol
        nxt = self.next
        ords = b.ords
        done = len(ords) - 1
        heights = b.heights
        h = b.h
        size = b.size
        wstart = b.wstart
        wins = b.wins
        st = b.st
        self.move = NONE
        self.score = self.depth = self.nodes = 0
        self.stopped = False
        if b.over():
            return NONE
        t0 = ticks_ms()
        nodes = target = 0
        while target < min(depth, size - b.n, len(nxt) - 2):
            target += 1
            ties = ply = 0
            check = nodes + 256  # budgets are checked every 256 nodes, from depth 2 on
            alpha[0] = best[0] = -INF
            beta[0] = INF
            nxt[0] = (b.w + 1) * min(self.move, b.w)
            while True:
                i = nxt[ply]
                c = ords[i]
                if LEAVES and ply and ply + 1 == target:
                    # A frontier node: each child is a leaf, scored from the window gains
                    # of its cell without playing it (most nodes are leaves).
                    n = b.n
                    g = b.g2 if n & 1 else b.g1
                    v = b.score
                    if n & 1:
                        v = -v
                    while c != NONE:
                        if heights[c] < h:
                            nodes += 1
                            cell = c * h + heights[c]
                            d = 0
                            for k in range(wstart[cell], wstart[cell + 1]):
                                d += g[st[wins[k]]]
                            if d >= HIT:
                                best[ply] = WIN * ((size + 1 - n) // 2)
                                bestcol[ply] = c
                                break
                            d = d + v if n + 1 < size else 0
                            if d > best[ply]:
                                best[ply] = d
                                bestcol[ply] = c
                                if d >= beta[ply]:
                                    break
                        i += 1
                        c = ords[i]
                    c = NONE
                # The next child in this node's row of ords.
                while c != NONE and heights[c] >= h:
                    i += 1
                    c = ords[i]
                nxt[ply] = i + 1
                if c == NONE:
                    # Every child seen, or a cutoff: the node's score goes to its parent.
                    if ply == 0:
                        break
                    score = best[ply]
                    if TT and tt:
                        # alpha on entry was -beta of the parent, unchanged since.
                        tt.store(b.h1, b.h2, target - ply,
                                 LOWER if score >= beta[ply] else
                                 EXACT if score > -beta[ply - 1] else UPPER,
                                 bestcol[ply], score)
                    score = -score
                    ply -= 1
                    c = b.undo()
                else:
                    nodes += 1
                    if nodes >= check:
                        check = nodes + 256
                        if target > 1 and (max_nodes and nodes >= max_nodes or max_ms and
                                           ticks_diff(ticks_ms(), t0) >= max_ms):
                            for _ in range(ply):
                                b.undo()
                            self.nodes = nodes
                            self.stopped = True
                            return self.move
                    b.play(c)
                    if b.won:
                        # The mover placed a disc with n - 1 down: (size + 1 - (n - 1)) // 2
                        score = WIN * ((size + 2 - b.n) // 2)
                        if ply and ply + 1 == target:
                            nxt[ply] = done  # no sibling beats a win (LEAVES stops here too)
                    elif b.n == size:
                        score = 0
                    elif ply + 1 == target:  # a leaf (LEAVES scores most of them above)
                        score = b.score if b.n & 1 else -b.score  # the mover's view
                    else:
                        score = INF
                        f = b.w
                        if TT and tt:
                            score = tt.cut(b.h1, b.h2, target - ply - 1, -beta[ply],
                                           -alpha[ply])
                            f = min(tt.col, f)
                        if score == INF:
                            # Descend: the child becomes the node at ply + 1.
                            ply += 1
                            alpha[ply] = -beta[ply - 1]
                            beta[ply] = -alpha[ply - 1]
                            best[ply] = -INF
                            nxt[ply] = (b.w + 1) * f
                            continue
                        score = -score
                    b.undo()
                # Fold the child's score (from this node's side) into this node.
                if ply == 0 and seed:
                    # Seeded variety: keep the root window open by one so that equal moves
                    # get exact scores, and pick among them by reservoir sampling.
                    if score > best[0]:
                        ties = 1
                        best[0] = score
                        alpha[0] = score - 1
                        bestcol[0] = c
                    elif score == best[0]:
                        ties += 1
                        seed = (seed * 75 + 74) % 65537
                        if seed % ties == 0:
                            bestcol[0] = c
                elif score > best[ply]:
                    best[ply] = score
                    bestcol[ply] = c
                    if score > alpha[ply]:
                        alpha[ply] = score
                        if score >= beta[ply]:
                            nxt[ply] = done
            # Depth 1 always completes (no budget), so there is always a move to return.
            self.move = bestcol[0]
            self.score = best[0]
            self.depth = target
            if self.score >= WIN or self.score <= -WIN:
                break
        self.nodes = nodes
        return self.move
