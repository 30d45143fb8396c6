# cmmoves: moves as text, the test sets' notation: 1-based column digits from the empty
# board, first player first ("4453").


class MoveError(ValueError):
    pass


def play_moves(b, text):
    # All or nothing: a bad move undoes the ones this call played and puts back the history
    # bytes they overwrote, then raises MoveError.
    done = 0
    hist = bytes(b.hist)
    try:
        for ch in text:
            col = ord(ch) - 49
            if not 0 <= col < b.w:
                raise MoveError('move %d: %r is not a column 1..%d' % (done + 1, ch, b.w))
            if b.over():
                raise MoveError('move %d: the game is already over' % (done + 1))
            if b.heights[col] >= b.h:
                raise MoveError('move %d: column %d is full' % (done + 1, col + 1))
            b.play(col)
            done += 1
    except MoveError:
        for _ in range(done):
            b.undo()
        for i in range(len(hist)):  # (no slice assignment on a micro:bit's bytearray)
            b.hist[i] = hist[i]
        raise


def moves(b):
    return ''.join([chr(49 + b.hist[i]) for i in range(b.n)])
