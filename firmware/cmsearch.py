# cmsearch: depth-limited negamax alpha-beta with iterative deepening, without recursion.
#
# Python recursion dies after ~6 calls on a micro:bit, so the search keeps its own stack:
# one slot per ply in arrays allocated once, and make/unmake on the shared board. Nothing is
# allocated per node (tests run it under micropython.heap_lock()).
from micropython import const
import array
from utime import ticks_ms, ticks_diff
from cmboard import WIN
import cmtt

INF = const(1 << 29)
NONE = const(255)


class Search:
    def __init__(self, board, tt_bytes=0):
        self.b = board
        d = board.size + 2
        self.alpha = array.array('i', [0] * d)
        self.alpha0 = array.array('i', [0] * d)  # alpha on entry, to tell exact from bound
        self.beta = array.array('i', [0] * d)
        self.best = array.array('i', [0] * d)  # best score found so far at each ply
        self.bestcol = bytearray(d)
        self.next = bytearray(d)  # 0: try first[ply]; k > 0: order[k - 1] is next
        self.first = bytearray(d)  # column to try first (the TT's, or last iteration's)
        self.tt = cmtt.TT(tt_bytes)
        self.move = NONE
        self.score = self.depth = self.nodes = self.rand = 0
        self.stopped = False

    def go(self, depth, max_nodes=0, max_ms=0, seed=0):
        # Deepens 1, 2, .. depth; stops early on a proven result or a spent budget, and keeps
        # the move of the last iteration that completed. Returns the column (0-based).
        b = self.b
        self.move = NONE
        self.score = self.depth = self.nodes = 0
        self.rand = seed
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
        alpha, alpha0, beta, best = self.alpha, self.alpha0, self.beta, self.best
        bestcol, nxt, first = self.bestcol, self.next, self.first
        order, heights, h, w, size = b.order, b.heights, b.h, b.w, b.size
        tt = self.tt
        t = tt.t
        seed = self.rand
        ties = 0
        nodes = self.nodes
        ply = 0
        alpha[0] = alpha0[0] = best[0] = -INF
        beta[0] = INF
        nxt[0] = 0
        first[0] = self.move
        while True:
            # Next child of this node: first[ply] once, then the centre-out order.
            col = NONE
            while col == NONE and nxt[ply] <= w:
                k = nxt[ply]
                nxt[ply] = k + 1
                c = first[ply] if k == 0 else order[k - 1]
                if c != NONE and heights[c] < h and (k == 0 or c != first[ply]):
                    col = c
            if col == NONE:
                # All children seen (or cut off): the node's value goes to its parent.
                if ply == 0:
                    break
                s = best[ply]
                bound = cmtt.LOWER if s >= beta[ply] else (
                    cmtt.EXACT if s > alpha0[ply] else cmtt.UPPER)
                tt.store(b.h1, b.h2, target - ply, bound, bestcol[ply], s)
                score = -s
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
                        a = -beta[ply]
                        z = -alpha[ply]
                        f = NONE
                        score = NONE
                        i = tt.find(b.h1, b.h2)
                        if i >= 0:
                            f = t[i + 4] & 15
                            if t[i + 3] >= target - ply - 1:
                                s = tt.score(i)
                                bound = t[i + 4] >> 4
                                if bound == cmtt.EXACT or bound == cmtt.LOWER and s >= z or \
                                        bound == cmtt.UPPER and s <= a:
                                    score = -s
                        if score == NONE:
                            # Descend: the child becomes the node at ply + 1.
                            ply += 1
                            alpha[ply] = alpha0[ply] = a
                            beta[ply] = z
                            best[ply] = -INF
                            nxt[ply] = 0
                            first[ply] = f
                            continue
                    b.undo()
            # Fold the child's score (from this node's side) into this node.
            if ply == 0 and seed:
                # Seeded variety: keep the window open by one so equal root moves get exact
                # scores, and pick among them by reservoir sampling.
                if score > best[0]:
                    ties = 1
                    best[0] = score
                    bestcol[0] = col
                    alpha[0] = score - 1
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
        self.rand = seed
        self.nodes = nodes
        return 1
