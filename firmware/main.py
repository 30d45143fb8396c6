# main: the game at boot. The biggest module (cmgame, which imports the engine) first with
# the most free heap, the hardware next, then the saved game; then poll keys (buttons and
# serial), tick the blinking and sleep a little. The computer's reply runs inside
# cmgame.key() and ends within its level's ms budget.
import gc
import cmgame  # noqa: E402
gc.collect()
import cmhw  # noqa: E402
disp, key, w, h = cmhw.setup()
del cmhw  # setup is done: its code can go
gc.collect()
cmgame.init(disp, w, h)
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
