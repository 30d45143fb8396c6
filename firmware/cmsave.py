# cmsave: the game survives a reset. save(text) writes 'CM2 <seq> <sum> <text>' to cm0.sav or
# cm1.sav by turns (the micro:bit's os has no rename), so a reset mid-write spoils only the
# file being written and the other keeps the move before. load() returns the text of the
# newest valid file (sum = the sum of its bytes), or None; a corrupt, empty, foreign or
# other-version file (the tag is CM and the format version) is skipped with one line.
# parse(text) reads a save text, restore(values) starts cmgame from it, or a new game.
# book(board) reads the opening book (cmgame.cpu): the game's files are all here.
# An import circle with cmgame, kept: see cmgame.
from micropython import const
n = 0  # the last sequence number
BOOK = 'book.txt'  # the board's opening book, if it has one; on a micro:bit 'data' (deploy)
# A board with room reads a binary book first (cmbook); 0 in both micro:bit builds (deploy).
SEEK = const(1)


def save(s):
    global n
    from utime import sleep_ms
    sleep_ms(10)  # the serial line's last line out first: a flash write stalls the CPU
    n += 1
    f = open('cm%d.sav' % (n & 1), 'w')
    f.write('CM2 %d %d %s' % (n, sum(bytes(s, 'utf8')), s))  # no str.encode() on a micro:bit
    f.close()


def book(b):
    # The opening book's column for the position on board b, or 255 (not in the book, or
    # no book). The book (connectm book) is read from flash, never held in RAM: a line a
    # position, KEY << 3 | COLUMN in base 36 (the
    # shortest int() reads), KEY the cells as one little-endian number mod a
    # prime below 2**27 (the book's builder checks that no other position the level meets
    # has a book position's KEY). No new strings here: a micro:bit keeps each in RAM.
    if SEEK:
        import cmbook
        c = cmbook.find(b)
        if c < 9:
            return c
    c = 255
    k = int.from_bytes(b.cells, 'little') % 134217689
    try:
        f = open(BOOK)
        x = f.readline()  # a micro:bit's files are not iterable
        while x:
            if int(x, 36) >> 3 == k:
                c = int(x, 36) & 7
            x = f.readline()
        f.close()
    except OSError:
        pass
    return c


def load():
    global n
    r = None
    for i in (0, 1):
        try:
            f = open('cm%d.sav' % i)
        except OSError:
            continue
        try:
            v = f.read().split(' ', 3)
            f.close()
            if v[0] != 'CM2' or int(v[2]) != sum(bytes(v[3], 'utf8')):
                raise ValueError
            if int(v[1]) > n:
                n, r = int(v[1]), v[3]
        except Exception:
            print('E bad file cm%d.sav' % i)
    return r


def parse(v):
    # v: 'lv hp moves scores' (cmgame.play writes it; scores: 2 hex digits each), or None.
    # Returns [lv, hp, moves, scores] or None (no save, or a bad one: one line). Run first
    # at boot, then freed: restore() checks the rest and plays the moves on the board.
    if v is not None:
        try:
            v = v.split(' ')
            n = bytearray(len(v[3]) // 2)
            for i in range(len(n)):
                n[i] = int(v[3][2 * i:2 * i + 2], 16)
            if len(v) != 4 or v[1] not in ('1', '2'):
                raise ValueError
            return int(v[0]), int(v[1]), '' if v[2] == '-' else v[2], n
        except Exception:
            print('E bad save, new game')


def restore(v):
    # Starts cmgame from parse()'s values, or a new game (v None, or values that do not fit
    # the game). The caller then calls cmgame.cpu(): the computer moves if it is its turn
    # (a reset came during its search).
    import cmgame as g
    b = g.b
    g.new()
    g.st = 0
    if v:
        ok = 0 <= v[0] < len(g.LEVELS) // 3 and len(v[3]) == len(g.sc)
        if g.FAMILY:  # two players too (lv N), and a save from before them (no tally of theirs)
            ok = 0 <= v[0] <= g.N and len(g.sc) - len(v[3]) in (0, 3)
        for c in v[2]:
            ok = ok and b.can_play(ord(c) - 49)
            if ok:
                b.play(ord(c) - 49)
        if ok:
            g.lv = v[0]
            g.hp = v[1]
            g.sc = v[3]
            if g.FAMILY:
                g.sc = v[3] + bytearray(3 * g.N + 3 - len(v[3]))  # their tally at 0 if missing
            g.st = 2 if b.over() else 1 if b.n else 0
            if g.st == 2:
                g.line = g.win()
        else:
            print('E bad save, new game')
            g.new()
    g.draw()
