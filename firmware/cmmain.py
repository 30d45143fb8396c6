# cmmain: the game at boot (main.py imports it). On a micro:bit each module compiles into
# a 10 KB heap that fragments, so the one with the biggest function (cmsearch) goes first,
# then the table builder and the board, the game, the hardware; then the saved game. Then
# poll keys (buttons and serial), tick the blinking and sleep a little. The computer's
# reply runs inside cmgame.key() and ends within its level's ms budget.
import gc
import micropython
micropython.opt_level(3)  # no line numbers in the bytecode: less RAM
import cmsearch  # noqa: E402,F401
import cmlines  # noqa: E402,F401
import cmboard  # noqa: E402,F401
import cmgame  # noqa: E402
gc.collect()
import cmhw  # noqa: E402
disp, key, w, h, tt = cmhw.setup()
del cmhw  # setup is done: its code can go
gc.collect()
cmgame.init(disp, w, h, tt)
gc.collect()
import cmsave  # noqa: E402
cmgame.sv = cmsave.save  # type: ignore[assignment]
v = cmsave.load()
if v:
    cmgame.load(v)
del v
gc.collect()
from utime import ticks_ms, sleep_ms  # noqa: E402
while True:
    k = key()
    if k:
        cmgame.key(k)
    cmgame.tick(ticks_ms())
    sleep_ms(20)
