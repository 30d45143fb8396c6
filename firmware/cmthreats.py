# cmthreats: immediate wins and threats, for the exact solver's move generation.
from micropython import const

HIT = const(32768)  # cmboard.HIT


def wins_at(b, cell, p):
    # Would p complete a line with a disc on this empty cell?
    g = b.g2 if p == 2 else b.g1
    for k in range(b.wstart[cell], b.wstart[cell + 1]):
        if g[b.st[b.wins[k]]] >= HIT:
            return 1
    return 0


def threats_after(b, col):
    # How many windows col would bring one disc short of a line for the side to move: those
    # holding m - 2 of its discs and none of the other side's. The threats it held before
    # are the same whatever it plays, so they need not be counted.
    cell = col * b.h + b.heights[col]
    t = (b.m - 2) * (b.u if b.n & 1 else 1)
    k = 0
    for i in range(b.wstart[cell], b.wstart[cell + 1]):
        k += b.st[b.wins[i]] == t
    return k


def can_win(b):
    # Can the side to move complete a line at once?
    for c in range(b.w):
        if b.heights[c] < b.h and wins_at(b, c * b.h + b.heights[c], 1 + (b.n & 1)):
            return 1
    return 0


def safe_moves(b, moves, base, rank):
    # Writes the moves that do not hand the opponent a win at once into moves[base:], most
    # new threats first, ties in centre-out order; returns how many (0: the game is lost).
    w = b.w
    h = b.h
    heights = b.heights
    q = 2 - (b.n & 1)  # the opponent
    forced = 255
    for c in range(w):
        if heights[c] < h and wins_at(b, c * h + heights[c], q):
            if forced != 255:
                return 0  # two wins to block
            forced = c
    k = 0
    for i in range(w):
        c = b.order[i]
        if heights[c] < h and (forced == 255 or c == forced) and not (
                heights[c] + 1 < h and wins_at(b, c * h + heights[c] + 1, q)):
            # Insertion sort into moves and rank (the threat counts).
            r = threats_after(b, c)
            j = k
            while j > 0 and rank[j - 1] < r:
                moves[base + j] = moves[base + j - 1]
                rank[j] = rank[j - 1]
                j -= 1
            moves[base + j] = c
            rank[j] = r
            k += 1
    return k
