# cmlines: the tables a Board builds once for its (W, H, M). Only Board() needs this module,
# so a device short of RAM may drop it (or, on a micro:bit, its functions: cmgame.init
# deletes them by name) once its board exists.
# An import circle with cmboard, kept: see cmboard.
#
# Every length-M line (a "window") gets an id; wins[wstart[cell]:wstart[cell + 1]] lists the
# windows through a cell. Cells are column-major: cell = col * H + row, row 0 at the bottom.
# A window's state is one byte, st = a + u * b with a discs of player 1, b of player 2 and
# u = M + 1: a disc of player 1 adds 1, one of player 2 adds u. g1[st] and g2[st] are what a
# disc of player 1 or 2 gains there, so the heuristic moves with one table read per window.
import array


def build(b, w, h, m, keys):
    from cmboard import HIT, SizeError  # loaded: only its Board() calls build()
    if not (3 <= w <= 9 and 3 <= h <= 9):
        raise SizeError('board %dx%d out of range: width and height must be 3..9' % (w, h))
    if not 3 <= m <= max(w, h):
        raise SizeError('connect %d out of range for %dx%d: must be 3..%d'
                        % (m, w, h, max(w, h)))
    b.w = w
    b.h = h
    b.m = m
    b.size = w * h
    b.cells = bytearray(w * h)  # 0 empty, 1 or 2
    b.heights = bytearray(w)
    b.hist = bytearray(w * h)  # the columns played, in order
    # The score before each move, so that undo() need not recompute it.
    b.past = array.array('h', [0] * (w * h))
    b.n = b.won = b.score = b.h1 = b.h2 = 0
    # Small functions: on a micro:bit each function's bytecode needs one free block.
    windows(b, w, h, m)
    gains(b, m, HIT)
    orders(b, w)
    b.z1 = b.z2 = None
    if keys:
        zobrist(b, w * h)


def windows(b, w, h, m):
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
    b.wstart = start
    b.wins = wins
    b.st = bytearray(wid)


def gains(b, m, hit):
    # A window holding k discs of one side and none of the other is worth 64 to that side
    # when one disc is missing, 8 for two, 1 for three, 0 further away (the sum over every
    # window of a 9x9 board stays below cmboard.WIN). A disc gains the rise of its own
    # window, or the whole value of the opponent's window it spoils.
    u = m + 1
    b.u = u
    wt = [0] * u
    for k in range(max(1, m - 3), m):
        wt[k] = 1 << (3 * (3 - m + k))
    b.g1 = array.array('H', [0] * (u * u))
    b.g2 = array.array('H', [0] * (u * u))
    for own in range(m):
        for other in range(m + 1 - own):
            g = hit if other == 0 and own + 1 == m else \
                wt[own + 1] - wt[own] if other == 0 else wt[other] if own == 0 else 0
            b.g1[own + u * other] = g
            b.g2[other + u * own] = g


def orders(b, w):
    # Centre-out column order (Pons' formula), written out so every interpreter agrees.
    b.order = bytearray(w)
    for i in range(w):
        b.order[i] = w // 2 + (1 - 2 * (i % 2)) * ((i + 1) // 2)
    # For the search: row f (f < w) of ords is column f, then the order without f; row w is
    # the order itself. Each row ends with 255, and so does ords (a cutoff jumps there). A
    # node walks the row of the column it tries first.
    b.ords = bytearray((w + 1) * (w + 1) + 1)
    i = 0
    for f in range(w + 1):
        if f < w:
            b.ords[i] = f
            i += 1
        for c in b.order:
            if c != f:
                b.ords[i] = c
                i += 1
        b.ords[i] = 255
        i += 1
    b.ords[i] = 255


def zobrist(b, cells):
    # Zobrist keys per (cell, player): h1 picks a table slot, h2 verifies it. Two 15-bit
    # LCG steps make one 30-bit key, so every product stays a small int on every port.
    b.z1 = array.array('i', [0] * (2 * cells))
    b.z2 = array.array('i', [0] * (2 * cells))
    x = 1
    for i in range(4 * cells):
        y = (x * 3993 + 12345) % 32749
        x = (y * 3993 + 12345) % 32749
        (b.z2 if i & 1 else b.z1)[i >> 1] = (y << 15) | x
