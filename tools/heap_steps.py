"""The micro:bit build's heap, step by step, on the emulated micro:bit v1.

Uploads what `connectm deploy` copies to a micro:bit (the build: ROM names, board size in
the code, ...), then runs the build's cmmain one top-level statement per raw-REPL command,
as main.py does (fw.boot_chunks), and prints gc.mem_free() after each. The raw REPL's
own needs differ a little from main.py's; during a real game the serial line's `?`
gives the figure (tests/test_deploy.py prints it after every move).

    .venv/bin/python tools/heap_steps.py
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "host"), str(REPO / "tools")]

from connectm import build, fw  # noqa: E402

def main() -> int:
    from emulator import DeviceError, Microbit, missing

    why = missing()
    if why:
        print(why)
        return 2
    plan = build.plan(build.BOARDS["microbit"])
    boot = next(i for i in plan.items if i.source.stem == "cmmain").data.decode()
    steps = [(c.split("\n")[0][:40], c) for c in fw.boot_chunks(boot)]
    with Microbit() as dev:
        for f in dev.listdir():
            dev.remove(f)
        for item in plan.items:
            if item.name != "main.py":
                dev.put(item.name, item.data)
        dev.soft_reset()
        for label, code in steps:
            code += "\nimport gc\ngc.collect();print(gc.mem_free())"
            try:
                free = dev.exec(code, timeout=120).split()[-1]
            except DeviceError as e:
                print("%-40s %s" % (label, e.traceback.strip().splitlines()[-1]))
                return 1
            print("%-40s %6s B free" % (label, free))
    return 0


if __name__ == "__main__":
    sys.exit(main())
