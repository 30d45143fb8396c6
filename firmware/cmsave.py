# cmsave: the game survives a reset. save(text) writes 'CM1 <seq> <sum> <text>' to cm0.sav or
# cm1.sav by turns (the micro:bit's os has no rename), so a reset mid-write spoils only the
# file being written and the other keeps the move before. load() returns the text of the
# newest valid file (sum = the sum of its bytes), or None; a corrupt, empty, foreign or
# other-version file (the tag is CM and the format version) is skipped with one line.
n = 0  # the last sequence number


def save(s):
    global n
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
