# cmstart: what runs once per boot: init() sets up cmgame's globals (board, search, scores)
# and load() restores a save text. A micro:bit deletes both after boot (cmmain), so only
# cmgame's own code stays in its heap.
import cmboard
import cmsearch
import cmgame as g
from cmlevels import LEVELS


def init(disp, w, h, tt=0):
    # tt: bytes of transposition table wanted (0: none, e.g. on a micro:bit); less is used
    # when the RAM does not hold it.
    g.d = disp
    g.LEVELS = LEVELS
    g.b = cmboard.Board(w, h, 4, tt > 0)
    g.s = None
    n = tt
    while g.s is None:
        try:
            # no deeper than the deepest level: the search's per-ply arrays stay small
            g.s = cmsearch.Search(g.b, n, max([L[0] for L in LEVELS]))
        except MemoryError:
            if not n:
                raise
            n = n // 2 if n > 1024 else 0
    if n < tt:
        print('E low memory, table', n)
    g.sc = bytearray(3 * len(LEVELS))
    g.lv = g.st = g.t = 0
    g.hp = 1
    g.new()
    g.draw()


def load(v):
    # Restores a save text ('lv hp moves scores..'); bad text: one line, a new game. Then
    # the computer moves if it is its turn (a reset came during its search).
    b = g.b
    try:
        v = v.split()
        n = bytearray([int(x) for x in v[3:]])
        if len(n) != len(g.sc) or not 0 <= int(v[0]) < len(LEVELS) or v[1] not in ('1', '2'):
            raise ValueError
        g.new()
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
        g.st = 0
    g.draw()
    g.cpu()
