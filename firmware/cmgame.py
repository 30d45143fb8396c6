# cmgame: Connect-4 on an LED matrix, one state machine in module globals, no hardware
# imports. cmmain (the boot) gives it a display, a board and a search, and cmsave.restore()
# starts it: they run once, so a micro:bit frees their code and keeps only this module's.
# An import circle with cmsave, kept: cpu() imports cmsave for the book only when it reads
# one, and cmsave.restore() sets this module's state; the book reader here would be compiled
# into every micro:bit v1 boot.
#
# Driver contract (disp: a module or any object):
#   disp.px(x, y, v)  pixel x (0 = left), y (0 = top) at brightness v 0..9: 9 = the human's
#                     discs, the cursor and a winning line (blinking, in END), 3 = the
#                     computer's discs (dim), 0 = off. A display without per-pixel
#                     brightness blinks the dim pixels; a colour display gives 9 and 3 the
#                     two players' colours.
#   disp.show()       push the frame drawn by px() to the LEDs.
#   disp.text(s)      show a short text, the result ('W 1-0-0': win/loss/draw, then this
#                     level's wins-losses-draws), without blocking (or do nothing); text('')
#                     stops a text still showing (any key in END does).
# Layout: cursor on row y=0; board row r (0 = bottom) on y = h - r; column c on x = c.
# In MENU the bottom board row shows the level as a bar of lv+1 pixels, and the entry after
# the last level, two players on one board (lv == N), as the two sides' discs by turns.
# The cursor blinks at the brightness of the side to move; while the computer thinks it
# is dim (3) and steady.
#
# Input: key(k), k one character: 'l', 'r', 'd' (drop), or a column digit '1'..'9' (drop
# there, in PLAY). In END, 'l' or 'r' goes back to MENU at the level just played, 'd' starts
# the next game at it. Time: tick(now_ms) blinks (phase = bit 8 of now_ms: the cursor, and the
# winning line in END). Globals a host may read (set by cmmain): d (the display),
# b (cmboard.Board), s (cmsearch.Search), st (0 MENU, 1 PLAY, 2 END), cur (cursor column),
# lv (level number, 0 = the easiest, cmlevels; N: two players, no computer), hp (the human's
# player number: 1 = moves first; alternates each game; 1 in a two-player game: player 1's
# discs are shown as the human's), sc (bytearray: wins, losses, draws of level i at
# 3*i..3*i+2; at 3*N the two-player games: player 1's wins, player 2's, draws),
# line (cells col*h+row of the winning line), t (last blink time), sv (None or a function
# given the save text after every move: cmsave.save).
# Every move prints one line (docs/serial.md):  B 5x4 lv=1 you=1 moves=3344 turn=1 over=0
# (you=0 in a two-player game), and so does a game's start when no computer move follows
# (moves= empty: a line of its own, not play()'s, which a v1 would hold as one more
# function); a game's end 'R L 0-1-0' (the result text; two players: 'R P1 1-0-0'),
# a level shown in MENU 'L 2' (the two-player entry: 'L 2P').
# Bad input prints one line starting with 'E ' and changes nothing; 'E bad key' at most once
# in each 1024 ms of tick()'s clock.
# Sounds: a display with beep(k) (drv_microbit on a v2) hears each drop ('d') and the end
# ('W', 'L', 'D': the human's view); SOUND is 0 in the v1 build (connectm deploy).
# Only the small cmlevels: cmmain compiles this module second, into a heap still unbroken.
from micropython import const
from cmlevels import LEVELS
SOUND = const(1)
# Pondering (cmponder): 0 in both micro:bit builds (connectm deploy). pd: cmponder.Ponder.
PONDER = const(1)
# A board with a table clears it before each reply (cpu); 0 in the v1 build (no table).
FRESH = const(1)
d = b = s = sv = None  # cmmain sets them (sv: when the board has a file system)
if PONDER:
    pd = None
# Another level after a game (END to MENU), two players (menu entry N) and the line a
# game's start prints: 0 in the build for the micro:bit v1's own firmware (connectm deploy),
# whose boot has no room for their code.
FAMILY = const(1)
N = const(5)  # the computer's levels, len(LEVELS) // 3 (a const: a v1's build drops it)
sc = bytearray(len(LEVELS))  # 3 numbers a level, as LEVELS
if FAMILY:
    sc = bytearray(len(LEVELS) + 3)  # and the two players' games
st = cur = lv = t = 0
q = -1  # t >> 10 when the last 'E bad key' line was printed
hp = 1
line = ()


def new():
    global cur, line
    b.reset()
    cur = b.w // 2
    line = ()


def key(k):
    global lv, cur, st, hp, q
    if st == 2:
        d.text('')  # any key ends the result text
    if k == 'l' or k == 'r':
        i = 1 if k == 'r' else -1
        if FAMILY and st != 1:
            if st:  # END: the menu, at the level just played (the next game's sides swap,
                hp = 3 - hp  # as after 'd')
                new()
                st = i = 0
            lv = min(max(lv + i, 0), N)  # N: two players
            print('L', lv + 1 if lv < N else '2P')
            draw()
            return
        if st == 0:
            lv = min(max(lv + i, 0), len(LEVELS) // 3 - 1)
            print('L', lv + 1)
        if st == 1:
            cur = (cur + i) % b.w
    elif k == 'd' or st == 1 and '1' <= k <= '9' and int(k) <= b.w:
        if k != 'd':
            cur = int(k) - 1
        if st == 1:
            if not b.can_play(cur):
                print('E full', k)
                return
            play(cur)
        else:
            if st == 2:
                hp = 3 - hp  # who starts alternates
                new()
            st = 1
            if FAMILY and lv == N:
                hp = 1  # two players: player 1 starts, shown as the human
            draw()
            if FAMILY and hp == 1:
                # the game began: its empty board's line (else the computer's move's)
                print('B %dx%d lv=%d you=%d moves= turn=1 over=0' % (
                    b.w, b.h, lv + 1, 1 if lv < N else 0))
        cpu()
    elif k not in ' \r\n':
        if t >> 10 != q:  # one line in each 1024 ms of tick()'s time at most, the rest dropped
            q = t >> 10
            print('E bad key', k)
        return
    draw()


def cpu():
    # The computer's reply, if it is its turn: a function of the position alone (the host's
    # `connectm move` runs this very code): the opening book's column (cmsave.book) while the
    # level reads the book, else the search's, limited in nodes, not time. The search allocates
    # nothing (tests run it under heap_lock), so it cannot run out of memory.
    if FAMILY and lv == N:
        return  # two players: no computer
    if st == 1 and 1 + (b.n & 1) != hp:
        L = 3 * lv
        d.px(cur, 0, 3)  # thinking: a dim cursor
        d.show()
        c = 255
        if b.n < LEVELS[L + 2]:
            import cmsave
            c = cmsave.book(b)
        if PONDER and c > 9 and pd:
            c = pd.reply(b, lv)  # the search pondered for this very position (cmponder)
        if FRESH and c > 9 and s.tt:
            # Every search from an empty table, as the pondered one: a table kept from move to
            # move would make the move depend on the game's history, not the position (and
            # the table's size: `connectm move --table`).
            s.tt.clear()
        play(s.go(LEVELS[L], LEVELS[L + 1]) if c > 9 else c)


def play(c):
    global st, line
    b.play(c)
    r = b.over()
    if r:
        st = 2
        line = win()
        sc[3 * lv + (2 if r == 3 else r != hp)] += 1
    draw()
    m = ''  # a loop, not a list comprehension: that would be one more function in RAM
    for x in b.hist[:b.n]:
        m += chr(49 + x)
    u = hp
    if FAMILY and lv == N:
        u = 0  # two players: no human's side
    print('B %dx%d lv=%d you=%d moves=%s turn=%d over=%d' % (
        b.w, b.h, lv + 1, u, m, 1 + (b.n & 1), r))
    if SOUND and hasattr(d, 'beep'):  # the human's view (two players: a win is a win)
        d.beep('DWL'[0 if r == 3 else 1 if r == hp or lv == N else 2] if r else 'd')
    if sv:
        sv('%d %d %s ' % (lv, hp, m or '-') + '%02x' * len(sc) % tuple(sc))
    if r:
        m = 'DWL'[0 if r == 3 else 1 if r == hp else 2] + ' %d-%d-%d' % tuple(sc[3 * lv:][:3])
        if FAMILY and lv == N and r < 3:
            m = 'P%d' % r + m[1:]  # two players: the winner
        print('R', m)
        d.text(m)


def win():
    # The winning line(s): the cells of every window the last mover filled. Its state is
    # m discs of player 1 (st = m) or of player 2 (st = m * u); see cmlines.
    f = b.m if b.n & 1 else b.m * b.u
    L = []
    for x in range(b.size):
        for k in range(b.wstart[x], b.wstart[x + 1]):
            if b.st[b.wins[k]] == f:
                L.append(x)
                break
    return L


def tick(now):
    global t
    if (now ^ t) & 256:
        t = now
        draw()


def draw():
    h = b.h
    on = t & 256
    for x in range(b.w):
        d.px(x, 0, 9 if st == 1 and x == cur and on else 0)  # the human's cursor blinks
        if FAMILY and st == 1 and x == cur and 1 + (b.n & 1) != hp:
            d.px(x, 0, 3)  # steady dim: the computer thinking (drawn in its poll), player 2
        for r in range(h):
            i = x * h + r
            c = b.cells[i]
            # the winning line blinks at full brightness: a display without per-pixel
            # brightness (MAX7219) would blink a dim line out of phase, i.e. never light it
            d.px(x, h - r, 0 if not c or on and i in line else 9 if c == hp or i in line else 3)
        if st == 0:
            d.px(x, h, 9 * (x <= lv))
            if FAMILY and lv == N:
                d.px(x, h, 9 - 6 * (x & 1))  # two players: their discs by turns
    d.show()
