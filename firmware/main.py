# main: runs cmmain.py one top-level statement at a time (why: see cmmain), then the game:
# poll the keys (buttons and serial), blink, sleep a little. The computer's reply runs
# inside cmgame.key() and ends within its level's ms budget. The loop is here, not in a
# function: a micro:bit's C stack holds only a few nested calls (key > cpu > search).
import gc
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
# the computer moves if it is its turn (a reset came during its search); not in cmmain's
# statements: this deep in exec() a search's save would overflow the C stack
g.cpu()  # type: ignore[name-defined]  # noqa: F821  (cmmain's cmgame)
while True:
    x = key()  # type: ignore[name-defined]  # noqa: F821  (cmmain's hardware key)
    if x == '?':  # the serial line's memory check (docs/serial.md)
        gc.collect()
        print('M', gc.mem_free())
    elif x:
        g.key(x)  # type: ignore[name-defined]  # noqa: F821  (cmmain's cmgame)
    g.tick(ticks_ms())  # type: ignore[name-defined]  # noqa: F821
    sleep_ms(20)
