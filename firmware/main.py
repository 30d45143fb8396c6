# main: runs cmmain.py one top-level statement at a time (why: see cmmain), then the game:
# poll the keys (buttons and serial), blink, sleep a little. The computer's reply runs
# inside cmgame.key() and ends within its level's ms budget. The loop is here, not in a
# function: a micro:bit's C stack holds only a few nested calls (key > cpu > search).
import gc
from micropython import const
f = open('cmmain.py')
s = ''
while True:
    x = f.readline()
    if s and (not x or x[0] not in ' \t#\r\n'):
        exec(s)
        gc.collect()
        s = ''
    if not x:
        break
    s += x
f.close()
from utime import ticks_ms, sleep_ms  # noqa: E402
# ruff: noqa: F821  (g and key are cmmain's: cmgame and the hardware's key function)
# The game loop; a step: the computer's move if it is its turn (at the first step: a reset
# came during its search; not in cmmain's statements: this deep in exec() a search's save
# would overflow the C stack), a key, the blink. A step that raises (docs/serial.md): after
# a MemoryError that changed nothing (moves, state, level, cursor), a collection and the
# step once more; else one 'E' line, and if the step had changed the moves or the state
# (menu, play, end), a reset, whose boot restores the last save. Ctrl-C (KeyboardInterrupt)
# is no Exception: it stops the game. GUARD is 0 in the micro:bit v1's build (connectm
# deploy): its boot has no room for the guard's code; it runs the plain loop below.
GUARD = const(1)
PONDER = const(1)  # 0 in both micro:bit builds (cmponder)
if GUARD:
    f = 0  # 1: this step is the retry of one that ran out of memory (f: the file freed)
    while True:
        try:
            if not f:
                n = g.b.n  # type: ignore[name-defined]
                s = g.st  # type: ignore[name-defined]
                v = g.lv  # type: ignore[name-defined]
                c = g.cur  # type: ignore[name-defined]
                x = None
                x = key()  # type: ignore[name-defined]
                if PONDER and not x and g.pd:  # type: ignore[name-defined]
                    # the human's turn: ponder the reply until a key comes (cmponder)
                    x = g.pd.run(g, key)  # type: ignore[name-defined]
            g.cpu()  # type: ignore[name-defined]
            if x == '?':  # the serial line's memory check (docs/serial.md)
                gc.collect()
                print('M', gc.mem_free())
            elif x:
                g.key(x)  # type: ignore[name-defined]
            g.tick(ticks_ms())  # type: ignore[name-defined]
            f = 0
            sleep_ms(20)
        except Exception as e:
            gc.collect()
            r = g.b.n != n or g.st != s  # type: ignore[name-defined]
            f = not (f or r or g.lv != v or g.cur != c) and isinstance(e, MemoryError)  # type: ignore[name-defined]
            if not f:
                print('E', repr(e))
                if r:
                    import machine
                    machine.reset()
g.cpu()  # type: ignore[name-defined]
while True:
    x = key()  # type: ignore[name-defined]
    if x == '?':
        gc.collect()
        print('M', gc.mem_free())
    elif x:
        g.key(x)  # type: ignore[name-defined]
    g.tick(ticks_ms())  # type: ignore[name-defined]
    sleep_ms(20)
