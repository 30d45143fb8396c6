"""The micro:bit build's heap, step by step, on the emulated micro:bit v1.

Uploads what `connectm deploy` copies to a micro:bit (the build: ROM names, board size in
the code, ...), then runs the game's set-up one step per raw-REPL command (each step's own
code is freed before the next) and prints gc.mem_free() after each; then plays a short
game through cmgame.key. The steps are written in the firmware's own names (renamed to
the build's here). This is the best case of a boot: main.py's real boot also keeps its
boot code (cmmain) in RAM while it compiles the rest.

    .venv/bin/python tools/heap_steps.py
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "host"), str(REPO / "tools")]

from connectm import deploy  # noqa: E402
from connectm.minify import rename  # noqa: E402

# each step: a label and the code; the biggest modules compile first, into the empty heap
STEPS = [
    # no line numbers in the commands' bytecode either (cmsearch sets it for the modules)
    ("start", "import gc, micropython\nmicropython.opt_level(3)"),
    ("cmsearch", "import cmsearch"),
    ("cmgame", "import cmgame"),
    ("cmboard", "import cmboard"),
    ("driver", "import drv_microbit"),
    ("cmsave", "import cmsave\ndel cmsave.load\ncmgame.sv = cmsave.save"),
    ("cmlevels", "import cmlevels\ncmgame.LEVELS = cmlevels.LEVELS"),
    ("board", "import cmlines\ncmgame.b = cmboard.Board(5, 4, 4, 0)\ndel cmlines.build"),
    ("search", "g = cmgame\ng.s = cmsearch.Search(g.b, 0, 8)"),
    ("set up", "g.d = drv_microbit\ng.sc = bytearray(15)\ng.hp = 1\ng.new()\ng.draw()"),
    ("a game", "for k in 'd1d2d3d4d':\n    g.key(k)"),
]


def main() -> int:
    from emulator import DeviceError, Microbit, missing

    why = missing()
    if why:
        print(why)
        return 2
    plan = deploy.plan(deploy.BOARDS["microbit"])
    with Microbit() as dev:
        for f in dev.listdir():
            dev.remove(f)
        for item in plan.items:
            if item.name != "main.py":
                dev.put(item.name, item.data)
        dev.soft_reset()
        for label, code in STEPS:
            code = rename(code, plan.names) + "\ngc.collect();print(gc.mem_free())"
            try:
                free = dev.exec(code, timeout=120).split()[-1]
            except DeviceError as e:
                print("%-10s %s" % (label, e.traceback.strip().splitlines()[-1]))
                return 1
            print("%-10s %6s B free" % (label, free))
    return 0


if __name__ == "__main__":
    sys.exit(main())
