# cmperft: counts the move sequences of a given length from a position (a finished game is
# not extended, so it does not count), with an explicit stack like the search: a check of
# make/unmake and the rules.


def perft(b, depth):
    if depth == 0:
        return 1
    nxt = bytearray(depth + 1)  # next column to try at each ply
    base = b.n
    count = 0
    while True:
        ply = b.n - base
        if ply == depth or b.over() or nxt[ply] >= b.w:
            # A sequence counts when it reaches depth; a game that ended sooner does not.
            count += ply == depth
            if ply == 0:
                return count
            b.undo()
            continue
        col = nxt[ply]
        nxt[ply] = col + 1
        if b.heights[col] < b.h:
            b.play(col)
            nxt[ply + 1] = 0
