#!/usr/bin/env python3
"""Type-check firmware/ against the MicroPython stubs instead of CPython's stdlib.

micropython-stdlib-stubs ships a reduced typeshed ``stdlib/`` (plus ``_mpy_shed``) and
micropython-rp2-rpi_pico-stubs adds the port modules (micropython, utime, gc, machine, ...)
as top-level .pyi files.  mypy only lets a *custom typeshed* replace the stdlib, so this
script assembles one in .cache/mypy-typeshed/stdlib (stdlib + _mpy_shed + port stubs, with
VERSIONS entries for the added modules) and runs

    mypy --config-file tools/mypy-firmware.ini --custom-typeshed-dir .cache/mypy-typeshed \
        firmware host/connectm/web

(host/connectm/web: the MicroPython modules of `connectm web`'s page.)
Extra arguments are passed to mypy.  Exit status is mypy's.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / ".cache" / "mypy-typeshed"
STDLIB_DIST = "micropython-stdlib-stubs"
PORT_DIST = "micropython-rp2-rpi_pico-stubs"


def _dist_files(name: str) -> tuple[Path, list[str]]:
    dist = metadata.distribution(name)
    root = Path(str(dist.locate_file("")))
    files = [str(f) for f in (dist.files or []) if str(f).endswith(".pyi")]
    return root, files


def build() -> Path:
    sroot, sfiles = _dist_files(STDLIB_DIST)
    proot, pfiles = _dist_files(PORT_DIST)
    key = hashlib.sha1(
        repr((str(sroot), sorted(sfiles), str(proot), sorted(pfiles))).encode()
    ).hexdigest()
    stamp = OUT / "stamp"
    if stamp.is_file() and stamp.read_text() == key:
        return OUT
    shutil.rmtree(OUT, ignore_errors=True)
    std = OUT / "stdlib"
    std.mkdir(parents=True)
    versions = (sroot / "stdlib" / "VERSIONS").read_text()
    known = {ln.split(":")[0].strip() for ln in versions.splitlines() if ":" in ln}
    added = set()
    for f in sfiles:  # stdlib/... and _mpy_shed/...
        rel = f[len("stdlib/"):] if f.startswith("stdlib/") else f
        dst = std / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sroot / f, dst)
        added.add(rel.split("/")[0].removesuffix(".pyi"))
    for f in pfiles:  # port modules override the reduced stdlib
        dst = std / f
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(proot / f, dst)
        added.add(f.split("/")[0].removesuffix(".pyi"))
    # mypy itself needs mypy_extensions from its typeshed's stubs/
    import mypy

    mx = Path(mypy.__file__).parent / "typeshed" / "stubs" / "mypy-extensions"
    shutil.copytree(mx, OUT / "stubs" / "mypy-extensions")
    extra = sorted(m for m in added - known if m.isidentifier())
    (std / "VERSIONS").write_text(versions + "".join("%s: 3.0-\n" % m for m in extra))
    stamp.write_text(key)
    return OUT


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    typeshed = build()
    cmd = [
        sys.executable, "-m", "mypy",
        "--config-file", str(REPO / "tools" / "mypy-firmware.ini"),
        "--custom-typeshed-dir", str(typeshed),
    ] + (args or [str(REPO / "firmware"), str(REPO / "host" / "connectm" / "web")])
    return subprocess.call(cmd, cwd=REPO)


if __name__ == "__main__":
    sys.exit(main())
