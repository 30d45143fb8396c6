# cmponder: pondering. While the human chooses a column, the board runs, in advance, the
# very search its reply would run after the human drops in the column under the cursor
# (the guess: on buttons, a human moves the cursor to a column, then drops there): the same
# depth, node budget and search set-up, on a board and search of its own that share the
# game's table. The search calls poll() every cmsearch.SLICE nodes (~40 ms on a Pico with
# the table), which reads the keys: any key stops it and the game loop handles the key at
# once; a key that only moves the cursor starts the pondering again for the new column.
# Why the reply may be the pondered one: a move must stay a function of the position (the
# host's `connectm move` computes the device's moves), so pondering never changes a move,
# it only finds it earlier. Both the pondered search and every reply that was not pondered
# start from an empty table (cmgame.cpu), so a pondered search run to its end IS the reply's
# search: when the human drops the guessed column, cmgame.cpu plays reply() and searches
# no node after the drop; any other drop gets the search, as without pondering.
# The display: both searches' polls (the game's, alive(), and the pondering one) give
# cmgame.tick() the time, so the blink goes on while a search runs (a MAX7219 shows the
# computer's discs by blinking them: a frame left in the off phase would hide them).
# Not in the micro:bit builds (cmsearch.PONDER is 0 there, and deploy drops the blocks).
from utime import ticks_ms
import cmsearch
import cmgame


class Ponder:
    def __init__(self, board, search):
        # board: made as the game's (size, hash keys); search: the game's (plies, table).
        self.b = board
        self.s = cmsearch.Search(board, 0, len(search.next) - 2)
        self.s.tt = search.tt
        self.pos = b''  # the moves (and level) of the position pondered to its end
        self.move = 255
        self.k = None
        self.key = None

    def run(self, g, key):
        # Ponder the game g's position plus a drop under its cursor, if it is the human's turn
        # and that is not done yet; key() reads the keys. Returns the key that stopped it
        # (None: none came, or nothing to ponder). A reply the opening book gives (cmgame.cpu
        # asks it first: on a Pico's 7x6, before ply 14) is looked up, not searched.
        gb = g.b
        n = gb.n
        if g.st != 1 or g.lv == g.N or 1 + (n & 1) != g.hp or not gb.can_play(g.cur) or \
                self.pos == self.of(gb.hist, n, g.cur, g.lv):
            return None
        b = self.b
        b.reset()
        for i in range(n):
            b.play(gb.hist[i])
        b.play(g.cur)
        self.pos = b''
        if b.over():
            return None
        L = 3 * g.lv
        c = 255
        if b.n < g.LEVELS[L + 2]:
            import cmsave
            c = cmsave.book(b)
        if c < 9:
            # The book's reply: kept as pondered, so the next call neither searches nor reads.
            self.pos = self.of(gb.hist, n, g.cur, g.lv)
            self.move = c
            return None
        s = self.s
        if s.tt:
            s.tt.clear()
        self.k = None
        self.key = key
        s.poll = self.poll
        s.go(g.LEVELS[L], g.LEVELS[L + 1])
        s.poll = self.key = None
        if self.k is None:
            self.pos = self.of(gb.hist, n, g.cur, g.lv)
            self.move = s.move
        return self.k

    def poll(self, nodes):
        self.alive(nodes)
        self.k = self.key()
        return self.k is not None

    def alive(self, nodes):
        # The game's own search's poll (cmmain sets it): the display only, never a stop.
        cmgame.tick(ticks_ms())
        return False

    def of(self, hist, n, c, lv):
        # A position's key: its moves hist[:n], then c, and the level.
        return bytes(hist[:n]) + bytes((c, 100 + lv))

    def reply(self, b, lv):
        # The pondered reply if b (at level lv) is the position pondered to its end, else 255.
        if b.n and self.pos == self.of(b.hist, b.n - 1, b.hist[b.n - 1], lv):
            return self.move
        return 255
