# cmbook: an opening book too big to scan line by line (a Pico's 7x6: `connectm book --size
# 7x6`), found in flash by binary search: at most 16 reads of one record for up to 65,536
# positions, and nothing held in RAM. The file: records of w + 1 bytes, sorted by their
# first w, the key: a byte a column, its discs from the bottom (bit r set: row r holds the
# second player's disc) under a 1 just above them; the position's key or its mirror
# image's, whichever is smaller, so a position and its mirror share a record. The last
# byte: the column to play in the key's orientation. (The micro:bit's small book is a line
# scan: cmsave.book.)
NAME = 'book.bin'


def key(b):
    # (the book key of the position on board b, 1 if it is its mirror image's)
    w = b.w
    k = bytearray(w)
    m = bytearray(w)  # the mirror image's key
    for c in range(w):
        x = 1
        for r in range(b.heights[c] - 1, -1, -1):
            x = x << 1 | (b.cells[c * b.h + r] == 2)
        k[c] = m[w - 1 - c] = x
    f = 0  # 1: the mirror image's key is the smaller
    for c in range(w):
        if k[c] != m[c]:
            f = m[c] < k[c]
            break
    return (m, 1) if f else (k, 0)


def find(b):
    # The book's column for board b, or 255 (no book, not in it, or a record that is no
    # legal move). A file that is not whole records is no book: one 'E' line.
    w = b.w
    k, f = key(b)
    try:
        fh = open(NAME, 'rb')
    except OSError:
        return 255
    r = bytearray(w + 1)
    lo = 0
    hi = fh.seek(0, 2)
    if hi % (w + 1):
        print('E bad book')
        hi = 0
    hi //= w + 1
    c = 255
    while lo < hi:
        i = (lo + hi) // 2
        fh.seek(i * (w + 1))
        fh.readinto(r)
        x = 0  # r's key against k: -1 below, 1 above, 0 the same
        for j in range(w):
            if r[j] != k[j]:
                x = 1 if r[j] > k[j] else -1
                break
        if x < 0:
            lo = i + 1
        elif x:
            hi = i
        else:
            c = r[w]
            if f and c < w:
                c = w - 1 - c
            break
    fh.close()
    return c if b.can_play(c) else 255
