# cmsave: the game survives a reset. save(text) writes 'CM1 <seq> <sum> <text>' to cm0.sav or
# cm1.sav by turns (the micro:bit's os has no rename), so a reset mid-write spoils only the
# file being written and the other keeps the move before. load() returns the text of the
# newest valid file (sum = the sum of its bytes), or None; a corrupt, empty, foreign or
# other-version file (the tag is CM and the format version) is skipped with one line.
# restore(text) starts cmgame from a save text, or a new game (text None or bad).
n = 0  # the last sequence number


def save(s):
    global n
    from utime import sleep_ms
    sleep_ms(10)  # the serial line's last line out first: a flash write stalls the CPU
    n += 1
    f = open('cm%d.sav' % (n & 1), 'w')
    f.write('CM1 %d %d %s' % (n, sum(bytes(s, 'utf8')), s))  # no str.encode() on a micro:bit
    f.close()


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
            if v[0] != 'CM1' or int(v[2]) != sum(bytes(v[3], 'utf8')):
                raise ValueError
            if int(v[1]) > n:
                n, r = int(v[1]), v[3]
        except Exception:
            print('E bad file cm%d.sav' % i)
    return r


def restore(v):
    # v: 'lv hp moves scores..' (cmgame.play writes it). Bad text: one line, a new game.
    # The caller then calls cmgame.cpu(): the computer moves if it is its turn (a reset came
    # during its search). The scores are read digit by digit: a micro:bit has little RAM
    # left at boot, and split() would make a string of each.
    import cmgame as g  # loaded by then (save and load work without it)
    b = g.b
    g.new()
    g.st = 0
    if v is not None:
        try:
            v = v.split(' ', 3)
            n = bytearray(len(g.sc))
            i = d = 0  # numbers read; digits in this one
            for c in bytes(v[3] + ' ', 'utf8'):
                if 48 <= c <= 57:
                    n[i] = n[i] * 10 + c - 48  # past 255, or past the last: an error
                    d = 1
                elif c == 32:
                    i += d
                    d = 0
                else:
                    raise ValueError
            if i != len(n) or not 0 <= int(v[0]) < len(g.LEVELS) or v[1] not in ('1', '2'):
                raise ValueError
            for c in '' if v[2] == '-' else v[2]:
                if not b.can_play(ord(c) - 49):
                    raise ValueError
                b.play(ord(c) - 49)
            g.lv = int(v[0])
            g.hp = int(v[1])
            g.sc = n
            g.st = 2 if b.over() else 1 if b.n else 0
            if g.st == 2:
                g.line = g.win()
        except Exception:
            print('E bad save, new game')
            g.new()
    g.draw()
