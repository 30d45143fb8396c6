# cmmain: the game's boot sequence; main.py imports it and calls loop(). On a micro:bit
# each module compiles into a 10 KB heap that fragments, and a compile needs contiguous
# blocks that grow with the module's source: so main.py compiles the two biggest modules,
# cmsearch and cmgame, into the empty heap, before this one; it compiles the others. Code
# that runs once (the table builder, the hardware setup, cmstart, loading the save) is
# deleted after use: a module's functions stay in RAM while the module has them, and this
# module's own top-level code is freed once the import returns.
import gc
import micropython
micropython.opt_level(3)  # no line numbers in the bytecode: less RAM
import cmsearch  # noqa: E402,F401  (main.py has compiled these two already)
import cmgame  # noqa: E402
gc.collect()  # after every compile: the next one needs the biggest free blocks
import cmboard  # noqa: E402,F401
gc.collect()
import cmlines  # noqa: E402
gc.collect()
import cmstart  # noqa: E402
gc.collect()
import cmhw  # noqa: E402
disp, key, w, h, tt = cmhw.setup()
del cmhw.setup
gc.collect()
cmstart.init(disp, w, h, tt)
del cmlines.build  # the tables stay with the board
gc.collect()
import cmsave  # noqa: E402
cmgame.sv = cmsave.save  # type: ignore[assignment]
v = cmsave.load()
if v:
    cmstart.load(v)
del v, cmsave.load, cmstart.init, cmstart.load, disp, w, h, tt
gc.collect()


def loop():
    # Poll the keys (buttons and serial), blink, sleep a little. The computer's reply runs
    # inside cmgame.key() and ends within its level's ms budget.
    from utime import ticks_ms, sleep_ms
    while True:
        k = key()
        if k:
            cmgame.key(k)
        cmgame.tick(ticks_ms())
        sleep_ms(20)
