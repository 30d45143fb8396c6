# cmsearch: depth-limited negamax alpha-beta with iterative deepening, without recursion.
#
# Python recursion dies after ~6 calls on a micro:bit, so the search keeps its own stack: one
# slot per ply in arrays allocated once, and make/unmake on the shared board. Nothing is
# allocated per node (tests run it under micropython.heap_lock()). The one search loop of
# every board: the window search here, the Pico's threat search in its THREATS blocks.
from micropython import const
import array

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
# Frontier nodes are scored by their parent, their leaves without make/unmake (faster); 0
# in the micro:bit game's build, where the code's RAM counts more: the leaves are then
# played and scored, and the frontier nodes pushed like any other.
LEAVES = const(1)
# go()'s seeded ties (host players' variety); 0 in the micro:bit build, and dropped from a
# Pico's: the game's levels play the first best move, so that a move is a function of the
# position (cmgame.move).
SEED = const(1)
# go()'s time budget (max_ms); 0 in the micro:bit build and dropped from a Pico's: their
# levels count nodes.
CLOCK = const(1)
# The poll between slices of a search (cmponder); 0 in both micro:bit builds, whose deploy
# also drops the `if PONDER...:` blocks from the source.
PONDER = const(1)
SLICE = const(128)  # nodes between polls: ~40 ms at a Pico's ~3,400 nodes/s with the table
# The threat search (cmsearch7's evaluation: a search whose class gives its per-move work
# in `work`): the same loop with make, unmake and the leaves' scores done by cmsearch7's
# functions, the immediate threats and the table's slots read by them. 0 in both
# micro:bit builds, which never load cmsearch7: their deploy drops the `if THREATS...:`
# blocks and keeps the else blocks, so the loop is byte for byte the window search. A
# Pico's build keeps the threat blocks only (all its searches are cmsearch7's).
THREATS = const(1)
if CLOCK:
    from utime import ticks_ms, ticks_diff


class Search:
    if THREATS:
        # the threat search's per-move functions (cmsearch7.Search.work); None: the windows'
        work = None  # type: tuple | None

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
            # A smaller table when the RAM does not hold this one (down to none), in steps
            # of 1/8 in whole KB: a table sized from the free heap (cmpico) may find the
            # largest free block a little smaller. The serial line says so once.
            import cmtt
            n = tt_bytes
            while n and self.tt is None:
                try:
                    self.tt = cmtt.TT(n)
                except MemoryError:
                    n = n * 7 // 8 // 1024 * 1024
            if n < tt_bytes:
                print('E low memory, table', n)
        self.move = NONE
        self.score = self.depth = self.nodes = 0
        self.stopped = False
        if PONDER:
            self.poll = None  # a function given the node count every SLICE nodes: True stops

    def go(self, depth, max_nodes=0, max_ms=0, seed=0):
        # Deepens 1, 2, .. depth and keeps the move of the last iteration that completed;
        # stops early on a proven result or a spent budget (nodes, or ms of ticks_ms()).
        # seed > 0 picks at random among equally good moves. Returns the column, 0-based.
        # One function, not one per iteration: a function costs a micro:bit RAM.
        if THREATS:
            th = self.work
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
        w = b.w
        h = b.h
        size = b.size
        heights = b.heights
        hist = b.hist
        past = b.past
        wstart = b.wstart
        wins = b.wins
        st = b.st
        g1 = b.g1
        g2 = b.g2
        u2 = b.u
        if TT:  # the micro:bit build's board has no keys
            z1 = b.z1
            z2 = b.z2
        if THREATS and th:
            self.weigh()  # the weights for this ply (cmsearch7)
            # (Unpacking a tuple allocates nothing; calls through locals are the quickest.)
            make, unmake, urgent, probe, put, leaves, addressof = th
            # cmsearch7's arrays as the work per move takes them (Search.a: a Pico's viper
            # build passes their addresses) and the table's bytes and slots (probe, put);
            # and those the loop reads itself: ords with a row [c, NONE] after cmlines' for
            # each forced move c, the 32-bit score history, the threat counts, leaves()'
            # other answers.
            kk, wstart, wins, st, g1, g2, wcells, rc, hp, p1, p2, wt, cv, hk, z1, z2, op, \
                dp, gaps = self.a
            tb = addressof(tt.t) if tt else 0
            ords = self.ords
            one = done + 1  # the forced move c's row: one + 2 * c
            skip = self.skip
            past = self.past
            t1 = self.t1
            t2 = self.t2
            o = self.o
            hh = self.hh
            tn = tt.n if tt else 0
        self.move = NONE
        self.score = self.depth = self.nodes = 0
        self.stopped = False
        if b.over():
            return NONE
        if THREATS and th:
            tv = self.threats() + self.windows()  # the threat search's score, kept from here
        if CLOCK:
            t0 = ticks_ms()
        nodes = target = stop = 0
        if PONDER:
            self.pc = SLICE  # the next poll (an attribute: no local added to go)
        while not stop and target < min(depth, size - b.n, len(nxt) - 2):
            target += 1
            leaf = target - 1  # the ply whose children are the leaves
            # The search plays on the board's heights, window states and history only, and
            # keeps the disc count, score and keys in locals: Board.play() and undo() are
            # inlined here, as a call and attribute lookups cost more than the move itself.
            n = b.n
            if THREATS and th:
                sc = tv  # player 1's view: the windows, and the threats
                hh[0] = b.h1  # the hash keys, moved by make and unmake
                hh[1] = b.h2
                skip[0] = 0
            else:
                sc = b.score  # player 1's view
                if TT:
                    h1 = b.h1
                    h2 = b.h2
            ties = ply = 0
            check = nodes + 256  # budgets are checked every 256 nodes, from depth 2 on
            alpha[0] = best[0] = -INF
            beta[0] = INF
            nxt[0] = (w + 1) * min(self.move, w)
            if PONDER and self.poll:
                check = self.pc  # polls every SLICE nodes, wherever an iteration begins
            while True:
                i = nxt[ply]
                c = ords[i]
                # The next child in this node's row of ords (the threat search: not one of
                # the columns the node's immediate threats rule out).
                if THREATS and th:
                    while c != NONE and (heights[c] >= h or skip[ply] >> c & 1):
                        i += 1
                        c = ords[i]
                else:
                    while c != NONE and heights[c] >= h:
                        i += 1
                        c = ords[i]
                nxt[ply] = i + 1
                if c == NONE:
                    # Every child seen, or a cutoff: the node's score goes to its parent.
                    if ply == 0:
                        break
                    score = best[ply]
                    if TT and tt and not stop:
                        # alpha on entry was -beta of the parent, unchanged since.
                        if THREATS and th:
                            put(tb, tn, hk, target - ply,
                                (LOWER if score >= beta[ply] else
                                 EXACT if score > -beta[ply - 1] else UPPER) << 4
                                | bestcol[ply], score)
                        else:
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
                    if THREATS and th:
                        pass  # (unmake steps the windows itself)
                    else:
                        u = u2 if n & 1 else 1
                else:
                    nodes += 1
                    if nodes >= check and target > 1:
                        check = nodes + 256
                        stop = max_nodes and nodes > max_nodes
                        if CLOCK and max_ms and ticks_diff(ticks_ms(), t0) >= max_ms:
                            stop = 1
                        if PONDER and self.poll:
                            # Checks nearer each other change no move: a node budget stops
                            # only an iteration that would end over it anyway.
                            check = nodes + SLICE
                            self.pc = check
                            if self.poll(nodes):
                                stop = 1
                        if stop:
                            # Out of budget: every ply returns at once (each undoes its
                            # move), and this iteration's result is dropped.
                            for k in range(ply + 1):
                                nxt[k] = done
                            continue
                    # Play c (Board.play; the history and score only when the child is pushed).
                    r = heights[c]
                    heights[c] = r + 1
                    cell = c * h + r
                    if THREATS and th:
                        # make(): the threats the disc makes or blocks too. A disc on its
                        # own side's threat wins: d = HIT (a threat search's gain stays
                        # below it: test_search7 bounds it from the weights).
                        if n & 1:
                            d = make(cell, 1, kk, wstart, wins, st, g2, wcells, rc, hp, p1, p2,
                                     wt, cv, hk, z1, z2)
                            if t2[cell]:
                                d = HIT
                        else:
                            d = make(cell, 0, kk, wstart, wins, st, g1, wcells, rc, hp, p1, p2,
                                     wt, cv, hk, z1, z2)
                            if t1[cell]:
                                d = HIT
                    else:
                        if n & 1:
                            g = g2
                            u = u2
                        else:
                            g = g1
                            u = 1
                        d = 0
                        for k in range(wstart[cell], wstart[cell + 1]):
                            j = wins[k]
                            s = st[j]
                            d += g[s]
                            st[j] = s + u
                        if TT and tt:
                            h1 ^= z1[2 * cell + (n & 1)]
                            h2 ^= z2[2 * cell + (n & 1)]
                    n += 1
                    if d >= HIT:
                        # The mover placed a disc with n - 1 down: (size + 1 - (n - 1)) // 2
                        score = WIN * ((size + 2 - n) // 2)
                        if ply and ply == leaf:
                            nxt[ply] = done  # no sibling beats a win (LEAVES stops here too)
                    elif n == size:
                        score = 0
                    elif ply == leaf:  # a leaf (LEAVES scores most of them below)
                        score = d + sc if n & 1 else d - sc  # the mover's view
                    else:
                        score = INF
                        f = w
                        if TT and tt:
                            if THREATS and th:
                                score = probe(tb, tn, hk, target - ply - 1, -beta[ply],
                                              -alpha[ply], op)
                                f = min(o[0], f)
                            else:
                                score = tt.cut(h1, h2, target - ply - 1, -beta[ply],
                                               -alpha[ply])
                                f = min(tt.col, f)
                        if THREATS and th:
                            sk = 0  # the columns the child must not play (a bit each)
                            if score == INF:
                                # The child's immediate threats: exact scores, which the
                                # search would find a ply or two deeper, and the columns it
                                # must not play or must (urgent()).
                                k = urgent(n, kk, hp, p1, p2, op)
                                if k == 1:
                                    score = WIN * ((size + 1 - n) // 2)  # its mover wins
                                elif k == 2:
                                    score = -WIN * ((size - n) // 2)  # the other side wins
                                else:
                                    sk = o[0]
                                    if o[1]:
                                        f = w + o[1]  # the block (a row of its own, below)
                        if LEAVES and score == INF and ply + 1 == leaf:
                            if THREATS and th:
                                # leaves(): the same, threats too. (None of these leaves
                                # wins: its mover has no playable threat, seen above.)
                                top = -alpha[ply]
                                score = leaves((w + 1) * f if f <= w else one + 2 * (f - w - 1),
                                               sk, n & 1, -sc - d if n & 1 else sc - d, top,
                                               n + 1 == size, op, kk, dp, wstart, wins, st,
                                               g2 if n & 1 else g1, wcells, rc, hp, p1, p2,
                                               wt, cv, gaps)
                                nodes += o[1]
                                if TT and tt:
                                    put(tb, tn, hk, 1, (LOWER if score >= top else EXACT if
                                                        score > -beta[ply] else UPPER) << 4
                                        | o[0], score)
                            else:
                                # The child is a frontier node: its children are leaves,
                                # scored here from the window gains of their cells without
                                # playing them, nor pushing the child (most nodes are leaves).
                                g = g2 if n & 1 else g1
                                # the child's score, its mover's view
                                v = -sc - d if n & 1 else sc - d
                                top = -alpha[ply]  # the child's beta
                                score = -INF
                                bc = NONE
                                last = n + 1 == size  # a leaf that fills the board: a draw
                                i = (w + 1) * f
                                c2 = ords[i]
                                while c2 != NONE:
                                    lr = heights[c2]
                                    if lr < h:
                                        nodes += 1
                                        lc = c2 * h + lr
                                        d = 0
                                        for k in range(wstart[lc], wstart[lc + 1]):
                                            d += g[st[wins[k]]]
                                        if d >= HIT:
                                            score = WIN * ((size + 1 - n) // 2)
                                            bc = c2
                                            break
                                        d = 0 if last else d + v
                                        if d > score:
                                            score = d
                                            bc = c2
                                            if d >= top:
                                                break
                                    i += 1
                                    c2 = ords[i]
                                if TT and tt:
                                    tt.store(h1, h2, 1, LOWER if score >= top else
                                             EXACT if score > -beta[ply] else UPPER, bc, score)
                        if score == INF:
                            # Descend: the child becomes the node at ply + 1.
                            hist[n - 1] = c
                            past[n - 1] = sc
                            sc = sc + d if n & 1 else sc - d
                            ply += 1
                            alpha[ply] = -beta[ply - 1]
                            beta[ply] = -alpha[ply - 1]
                            best[ply] = -INF
                            if THREATS and th:
                                # (f > w: the block's row, after cmlines' rows)
                                nxt[ply] = (w + 1) * f if f <= w else one + 2 * (f - w - 1)
                                skip[ply] = sk
                            else:
                                nxt[ply] = (w + 1) * f
                            continue
                        score = -score
                    n -= 1
                # Take c back (Board.undo; its row, cell and window step are still at hand).
                heights[c] = r
                if THREATS and th:
                    unmake(cell, n & 1, kk, wstart, wins, st, wcells, rc, hp, p1, p2, wt, cv,
                           hk, z1, z2)
                else:
                    for k in range(wstart[cell], wstart[cell + 1]):
                        st[wins[k]] -= u
                    if TT and tt:
                        h1 ^= z1[2 * cell + (n & 1)]
                        h2 ^= z2[2 * cell + (n & 1)]
                # Fold the child's score (from this node's side) into this node.
                if SEED and seed and ply == 0:
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
                    continue
                if score > best[ply]:
                    best[ply] = score
                    bestcol[ply] = c
                    if score > alpha[ply]:
                        alpha[ply] = score
                        if score >= beta[ply]:
                            nxt[ply] = done
            if target > 1 and max_nodes and nodes > max_nodes:
                # Over the node budget by the iteration's end, wherever the checks every 256
                # nodes fell: dropped too, so the move depends on the node count alone (and
                # is the same with LEAVES on or off).
                stop = 1
            if stop:
                self.stopped = True
            else:
                # Depth 1 always completes (no budget), so there is always a move to return.
                self.move = bestcol[0]
                self.score = best[0]
                self.depth = target
                if self.score >= WIN or self.score <= -WIN:
                    break
        self.nodes = nodes
        return self.move
