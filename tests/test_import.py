"""Every firmware module imports on every interpreter (one module per run)."""

from __future__ import annotations

import pytest

import harness

# main.py and cmmain start the game when imported.
SKIP = {"main", "cmmain"}
# Drivers (and cmpico, the Pico's setup) need the fakes off-device; on the micro:bit only
# drv_microbit has its hardware.
DEVICE_DRIVERS = {"drv_microbit"}
HARDWARE = ("drv_", "cmpico")
# On the micro:bit a module is compiled on import and the heap fragments: a small module
# imported after a big one may find no block left, so dependencies go first.
DEVICE_FIRST = {"cmsolve": ["cmthreats"], "cmsave": ["cmgame"]}
# Modules too big to compile whole next to what they import on the micro:bit v1 (its
# boot runs cmmain statement by statement: test_deploy.py::test_two_games_over_serial).
TOO_BIG: set[str] = set()
# Too big for the v1 with the code its build drops (cmsearch's transposition table; cmsave
# after cmgame with their two players, FAMILY, which the v1's frozen build runs from flash:
# test_frozen.py): there they import as connectm deploy builds them.
AS_BUILT = {"cmsearch", "cmsave"}
# Never in a micro:bit build (connectm deploy): pondering, which imports cmsearch whole,
# and the Pico's 7x6 search (cmsearch7, its weights cmfit7), a second search loop beside
# cmsearch's.
NOT_ON_MICROBIT = {"cmponder", "cmsearch7", "cmfit7"}


def modules_for(interp: str) -> list[str]:
    mods = [m for m in harness.firmware_modules() if m not in SKIP]
    if harness.is_microbit(interp):
        mods = [m for m in mods if (not m.startswith(HARDWARE) or m in DEVICE_DRIVERS)
                and m not in TOO_BIG and m not in NOT_ON_MICROBIT]
    return mods


def test_import(mpy, record_property: pytest.RecordProperty) -> None:
    mods = modules_for(mpy.name)
    assert mods, "no firmware modules found"
    failures = []
    for mod in mods:
        first = DEVICE_FIRST.get(mod, []) if harness.is_microbit(mpy.name) else []
        code = "import gc\ngc.collect()\n" + "".join("import %s\n" % m for m in first + [mod])
        if mpy.name != "cpython":
            code += "gc.collect()\nprint('mem_free', gc.mem_free())\n"
        try:
            if harness.is_microbit(mpy.name) and mod in AS_BUILT:
                out = mpy.run(code, build=True)
            else:
                out = mpy.run(code, fakes=mod.startswith(HARDWARE))
        except harness.RunError as e:
            failures.append("import %s failed:\n%s" % (mod, e.traceback.strip()))
            continue
        if harness.is_microbit(mpy.name):
            free = int(out.split("mem_free")[-1].split()[0])
            print("%s: import %s -> gc.mem_free() = %d" % (mpy.name, mod, free))
            record_property("mem_free_after_" + mod, free)
    assert not failures, "\n\n".join(failures)
