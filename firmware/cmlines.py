# cmlines: the tables a Board builds once for its (W, H, M). Only Board() needs this module,
# so a device short of RAM may drop it from sys.modules once its board exists.
#
# Every length-M line (a "window") gets an id; wins[wstart[cell]:wstart[cell + 1]] lists the
# windows through a cell. Cells are column-major: cell = col * H + row, row 0 at the bottom.
import array


def build(b, keys):
    w, h, m = b.w, b.h, b.m
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
    b.wstart, b.wins, b.nwin = start, wins, wid
    b.cnt = bytearray(2 * wid)
    # Weight of a window holding k discs of one side and none of the other: 64 when one
    # disc is missing, 8 for two, 1 for three, 0 further away. Summed over every window of
    # a 9x9 board this stays below cmboard.WIN.
    b.wt = array.array('i', [0] * (m + 1))
    for k in range(max(1, m - 3), m):
        b.wt[k] = 1 << (3 * (3 - m + k))
    # Centre-out column order (Pons' formula), written out so every interpreter agrees.
    b.order = bytearray(w)
    for i in range(w):
        b.order[i] = w // 2 + (1 - 2 * (i % 2)) * ((i + 1) // 2)
    b.z1 = b.z2 = None
    if keys:
        # Zobrist keys per (cell, player): h1 picks a table slot, h2 verifies it. Two 15-bit
        # LCG steps make one 30-bit key, so every product stays a small int on every port.
        b.z1 = array.array('i', [0] * (2 * w * h))
        b.z2 = array.array('i', [0] * (2 * w * h))
        x = 1
        for i in range(4 * w * h):
            y = (x * 3993 + 12345) % 32749
            x = (y * 3993 + 12345) % 32749
            (b.z2 if i & 1 else b.z1)[i >> 1] = (y << 15) | x
