"""How a build gets onto a board: find its serial port, open it (mpremote's
``SerialTransport``), enter the raw REPL, identify the board and tell which build it takes,
then write files and verify them (``Device``).

Every error a user can hit is a :class:`DeployError` (a ``ValueError``: the CLI prints it
as one line and exits with status 2).
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from connectm.build import ALIASES, BOARDS, BoardSpec, DeviceInfo, Item

# known USB vendor ids of MicroPython boards, tried first when several ports are listed
_VIDS = {0x0D28: "micro:bit (DAPLink)", 0x2E8A: "Raspberry Pi Pico", 0xF055: "MicroPython"}
MAIN_TMP = "main.tmp"  # main.py on its way (Device.write)
RESET_MICROBIT = "import microbit\nr=microbit.reset\nprint('reset')\nr()"
RESET_SEEN = b"reset"  # RESET_MICROBIT's mark: it runs, the reset comes next
MICROBIT_CHUNK = 48  # larger fs_writefile chunks lose bytes on the (emulated) micro:bit UART
CHUNK = 256


class DeployError(ValueError):
    """A deploy problem with a one-line message for the user."""


class BoardError(DeployError):
    """A command that raised on the board."""


class BadCopy(DeployError):
    """A file that does not read back as it was sent: its size or its byte sum."""


# A file's size and byte sum as the board reads it back after its copy: a byte changed on
# the way keeps the size (a chunk's \x41 that arrives as \41 is one byte too), and a
# module changed so is a SyntaxError at the boot (CI, beside a busy emulated micro:bit).
# Any one byte changed changes the sum. Any board: counted, not os.size (the micro:bit's);
# read in blocks of the size given (32 B on a micro:bit), summed by the builtin sum().
READ_BACK = ("f=open(%r,'rb')\ns=k=0\nwhile 1:\n b=f.read(%d)\n if not b:break\n k+=len(b)\n"
             " s+=sum(b)\nf.close()\nprint(k,s)")


# -- ports and connection ----------------------------------------------------------------
def list_ports() -> list[Any]:
    """Serial ports that look like USB boards (mpremote's rule: a VID and PID), known
    MicroPython vendors first."""
    import serial.tools.list_ports

    ports = [p for p in serial.tools.list_ports.comports() if p.vid is not None and p.pid]
    return sorted(ports, key=lambda p: (p.vid not in _VIDS, p.device))


def open_port(port: str) -> Any:
    """Open the port with mpremote's SerialTransport; DeployError when it cannot."""
    from mpremote.transport import TransportError
    from mpremote.transport_serial import SerialTransport

    if "://" not in port and not os.path.exists(port):
        raise DeployError("no such port: %s (connectm deploy without --port finds the board)"
                          % port)
    try:
        t = SerialTransport(port, baudrate=115200, timeout=5)
    except (TransportError, OSError) as e:
        raise DeployError(
            "cannot open %s: the port is busy or not accessible (close mpremote, screen, "
            "Thonny or any other program using it; check permissions) [%s]"
            % (port, " ".join(str(e).split()))
        ) from None
    t.use_raw_paste = False  # MicroPython 1.9 (micro:bit) has no raw-paste mode
    throttle(t)
    resend_unanswered(t)
    return t


def resend_unanswered(t: Any, tries: int = 3) -> None:
    """A command whose OK never came from the board (a byte of its end or of the OK lost:
    seen on a busy emulated micro:bit) goes again from a fresh raw REPL prompt (Ctrl-C,
    Ctrl-A), ``tries`` times in all: every command, Device.exec's and fs_writefile's
    chunks alike (a chunk written twice shows in the verify)."""
    from mpremote.transport import TransportError

    send = t.exec_raw_no_follow

    def exec_raw_no_follow(command: Any) -> None:
        for left in range(tries - 1, -1, -1):
            try:
                return send(command)
            except TransportError as e:
                if not left or not str(e).startswith("could not exec command"):
                    raise
            t.enter_raw_repl(soft_reset=False)

    t.exec_raw_no_follow = exec_raw_no_follow


def throttle(t: Any, size: int = 32, pause: float = 0.004) -> None:
    """Write to the board in small pieces: the micro:bit's UART (real or emulated) has no
    flow control and drops bytes of long writes (commands of a few hundred bytes)."""
    raw = t.serial.write

    def write(data: bytes) -> int:
        for i in range(0, len(data), size):
            raw(data[i:i + size])
            if len(data) > size:
                time.sleep(pause)
        return len(data)

    write.unthrottled = raw  # type: ignore[attr-defined]
    t.serial.write = write


def full_speed(t: Any) -> None:
    """A board that is no micro:bit: writes whole and the raw-paste mode (the board's own
    flow control), as mpremote's own copy: throttled, a Pico's 507 KB book took 6 minutes
    (an emulated RP2040: 6 min; mpremote cp, 49 s)."""
    t.serial.write = getattr(t.serial.write, "unthrottled", t.serial.write)
    t.use_raw_paste = True


def find_port() -> str:
    ports = list_ports()
    if not ports:
        raise DeployError(
            "no board found: connect a MicroPython board by USB (or pass --port PORT)"
        )
    return str(ports[0].device)


def enter_raw_repl(t: Any, port: str, reset: bool = False) -> None:
    """Into the raw REPL; with reset, by a soft reset (frees the heap of a stopped program)."""
    from mpremote.transport import TransportError

    quiet = io.StringIO()  # mpremote prints the garbage it read on failure
    # (a board still compiling its boot answers Ctrl-C late: a few tries)
    for soft_reset in (True, True, True) if reset else (False, True, True):
        try:
            with contextlib.redirect_stdout(quiet):
                t.enter_raw_repl(soft_reset=soft_reset)
            return
        except TransportError:
            continue
        except OSError as e:
            raise DeployError("board lost on %s: %s" % (port, " ".join(str(e).split())))
    raise DeployError(
        "%s does not answer as MicroPython (no raw REPL): is MicroPython flashed on the "
        "board?" % port
    )


def identity(line: str) -> DeviceInfo:
    """_IDENTIFY's printed line as a DeviceInfo (ValueError, SyntaxError: not that line)."""
    plat, ver, mpy, uname, mb, files, uid = ast.literal_eval(line)
    return DeviceInfo(str(plat), tuple(ver), mpy, tuple(uname), bool(mb), list(files), str(uid))


_IDENTIFY = """\
import sys, os
try:
    import microbit
    mb = 1
except ImportError:
    mb = 0
uid = ''
if not mb:
    try:
        import machine, ubinascii
        uid = ubinascii.hexlify(machine.unique_id()).decode()
    except Exception:
        pass
print(repr((sys.platform, tuple(sys.implementation.version),
            getattr(sys.implementation, '_mpy', None), tuple(os.uname()), mb, os.listdir(),
            uid)))
"""


def size_and_sum(out: str) -> tuple[int, int]:
    """READ_BACK's printed line (ValueError: not that line)."""
    k, total = out.split()[-2:]
    return int(k), int(total)


def garbled(err: Any) -> bool:
    """The board's error for a command that arrived with bytes missing: a SyntaxError (or
    its IndentationError) in <stdin> (deploy's commands are valid Python)."""
    text = err.decode(errors="replace") if isinstance(err, bytes) else str(err)
    return ("SyntaxError" in text or "IndentationError" in text) and '"<stdin>"' in text


class Device:
    """A board in the raw REPL; every transport failure becomes a DeployError."""

    def __init__(self, transport: Any, port: str) -> None:
        self.t = transport
        self.port = port
        self.info: DeviceInfo | None = None

    def exec(self, code: str, what: str, timeout: float = 20) -> str:
        from mpremote.transport import TransportError

        for _ in range(3):
            try:
                out, err = self.t.exec_raw(code, timeout=timeout)
            except (TransportError, OSError) as e:
                raise self.lost(what, e) from None
            if not garbled(err):
                break
            # (the command lost bytes on the way, a busy board or emulator: it did not
            # run; sent again)
        if err:
            msg = err.decode(errors="replace").strip().splitlines()
            raise BoardError("%s failed on the board: %s" % (what, msg[-1] if msg else "?"))
        return str(out.decode(errors="replace")).strip()

    def lost(self, what: str, e: BaseException) -> DeployError:
        return DeployError(
            "board lost during %s (%s): reconnect it and run connectm deploy again"
            % (what, " ".join(str(e).split()) or type(e).__name__)
        )

    def ask(self, code: str, what: str, timeout: float = 20,
            parse: Callable[[str], Any] = str) -> Any:
        """parse() of what a command that changes nothing printed, asked again when it
        arrived changed and still ran (`brak` for `break`, `os.listdir` as `oslistdir`: a
        NameError, not garbled()'s SyntaxError) or its answer did not parse (ValueError):
        three times at most."""
        for tries in (2, 1, 0):
            try:
                return parse(self.exec(code, what, timeout))
            except (BoardError, ValueError):
                if not tries:
                    raise
        raise AssertionError("not reached")

    def identify(self) -> DeviceInfo:
        out = self.ask(_IDENTIFY, "identification")
        try:
            self.info = identity(out.splitlines()[-1])
        except (ValueError, SyntaxError, IndexError):
            raise DeployError("unexpected answer from %s: %r" % (self.port, out[:80])) from None
        return self.info

    def read_back(self, name: str, size: int) -> tuple[int, int]:
        """The size and byte sum of a file on the board (READ_BACK), about ``size`` bytes
        long (a Pico's 507 KB book: a longer wait)."""
        small = self.info is None or self.info.microbit
        return self.ask(READ_BACK % (name, 32 if small else 512), "verifying " + name,
                        20 + size / 5000, size_and_sum)

    def remove(self, names: Iterable[str]) -> None:
        names = list(names)
        if names:
            self.exec("import os\ndef _rm(n):\n try:os.remove(n)\n except OSError:pass",
                      "removing old files")
            for n in names:
                self.exec("_rm(%r)" % n, "removing " + n)

    def write(self, item: Item, progress: Callable[[int, int], None] | None = None) -> None:
        """Write the file and read it back on the board (its size and byte sum); a file
        that arrived short or changed (a byte of a chunk lost or changed on the way: a busy
        emulated micro:bit's UART) is written again, twice at most, before deploy gives up."""
        for tries in (2, 1, 0):
            try:
                return self._write(item, progress)
            except BadCopy:
                if not tries:
                    raise

    def _write(self, item: Item, progress: Callable[[int, int], None] | None) -> None:
        chunk = MICROBIT_CHUNK if self.info is None or self.info.microbit else CHUNK
        what = "the copy of " + item.name
        if len(item.data) <= chunk:
            # One command: the board runs all of it, or none if the port is lost before it
            # arrives. (fs_writefile opens, writes and closes in separate commands, and a
            # file left open by a lost port reads back as garbage on a micro:bit.)
            self.exec("f=open(%r,'wb')\nf.write(%r)\nf.close()" % (item.name, item.data), what)
            if progress:
                progress(len(item.data), len(item.data))
        elif item.name == "main.py":
            # Longer than one command: written whole to a scratch file, then copied to
            # main.py by one command, so that a lost port never leaves half a main.py
            # (which would not boot). The micro:bit's os has no rename.
            self._write_chunks(Item(MAIN_TMP, item.data, item.source), chunk, what, progress)
            self.exec("f=open('main.py','wb')\ng=open(%r,'rb')\nf.write(g.read())\nf.close()\n"
                      "g.close()" % MAIN_TMP, what)
            self.remove([MAIN_TMP])
        else:
            self._write_chunks(item, chunk, what, progress)
        got = self.read_back(item.name, len(item.data))
        sent = (len(item.data), sum(item.data))
        if got != sent:
            raise BadCopy(
                "verify failed for %s: the board has %d bytes summing to %d, %d were sent "
                "summing to %d (run deploy again)" % ((item.name,) + got + sent)
            )

    def _write_chunks(self, item: Item, chunk: int, what: str,
                      progress: Callable[[int, int], None] | None) -> None:
        from mpremote.transport import TransportError

        try:
            for tries in (2, 1, 0):
                try:
                    self.t.fs_writefile(item.name, item.data, chunk_size=chunk,
                                        progress_callback=progress)
                    break
                except TransportError as e:
                    # a chunk's command lost bytes on the way (a busy board or emulator):
                    # close the file it left open and write the file again from the start
                    if not tries or not garbled(getattr(e, "error_output", b"")):
                        raise
                    self.exec("try:\n f.close()\nexcept Exception:\n pass", what)
        except (OSError, TransportError) as e:
            # ENOSPC comes as OSError 28 (converted by mpremote) or as the device's own words.
            if getattr(e, "errno", None) == 28 or \
                    "storage space" in str(getattr(e, "error_output", e)):
                self.remove([item.name])
                raise DeployError(
                    "the board's filesystem is full while writing %s (%d bytes)"
                    % (item.name, len(item.data))
                ) from None
            raise self.lost(what, e) from None

    def reset(self) -> None:
        """Reset so main.py starts (hard reset on the micro:bit, soft reset elsewhere)."""
        from mpremote.transport import TransportError

        try:
            if self.info is not None and self.info.microbit:
                self._reset_microbit()
            else:
                self.t.exit_raw_repl()
                self.t.serial.write(b"\x04")  # soft reset in the friendly REPL runs main.py
        except (OSError, TransportError) as e:
            raise self.lost("the reset", e) from None

    def _reset_microbit(self) -> None:
        # The reset is the one command whose end is not awaited (the board goes away), so it
        # prints RESET_SEEN once the reset function is found, just before calling it. A
        # command that lost bytes on the way (a busy board or emulator) fails instead and
        # leaves the board in the raw REPL, where main.py never starts: sent again.
        err = b""
        for _ in range(3):
            self.t.exec_raw_no_follow(RESET_MICROBIT)
            line = self.t.read_until(1, b"\n", timeout=20)
            if not line.startswith(b"\x04"):  # not the end of the command's output
                if line.rstrip() == RESET_SEEN:
                    return
                raise OSError("no answer to the reset command: %r" % line[-40:])
            err = line[1:]
            if b"\x04" not in err:
                err += self.t.read_until(1, b"\x04", timeout=20)
        msg = err.decode(errors="replace").replace("\x04", "").strip().splitlines()
        raise DeployError("the reset failed on the board, 3 times: %s" % (msg[-1] if msg else "?"))


def restart(t: Any, port: str) -> None:
    """Start main.py again on a board whose boot stopped at its REPL (out of memory: the
    v1 has little room): the raw REPL's soft reset frees the heap the boot left, then the
    reset deploy ends with (it waits for the board's answers, not for a time)."""
    dev = Device(t, port)
    enter_raw_repl(t, port, reset=True)
    dev.identify()
    dev.reset()


def microbit_version(info: DeviceInfo) -> int:
    """1 or 2, from os.uname() (machine 'micro:bit with nRF51822' on the v1, 'micro:bit
    with nRF52833' on the v2; the v2's version says 'micro:bit v2.1.2+... MicroPython
    v1.18'); 0 when neither says."""
    text = " ".join(info.uname)
    return 2 if "nRF52" in text else 1 if "nRF51" in text else 0


def detect_board(info: DeviceInfo, wanted: str) -> BoardSpec:
    if wanted not in ("auto", "microbit"):  # microbit: a v1 or a v2, as the board says
        spec = BOARDS[ALIASES.get(wanted, wanted)]
        if spec.fixed and not info.microbit:
            raise DeployError("--board %s, but the board is %s" % (wanted, info.describe()))
        if not spec.fixed and info.microbit:
            raise DeployError("--board %s, but the board is a micro:bit" % wanted)
        return spec  # a micro:bit's version as the user says (e.g. a firmware not known)
    if info.microbit:
        version = microbit_version(info)
        if not version:
            raise DeployError("found a micro:bit (%s) of no known version: pass --board "
                              "microbit-v1 or --board microbit-v2" % info.describe())
        return BOARDS["microbit-v2" if version == 2 else "microbit"]
    if wanted == "microbit":
        raise DeployError("--board microbit, but the board is %s" % info.describe())
    if info.platform == "rp2":
        return pico_display(info)[0]
    raise DeployError(
        "unsupported board %s: pass --board microbit-v1|microbit-v2|pico-max7219|pico-neopixel"
        % info.describe()
    )


# A Pico's display cannot be asked: a MAX7219 and a NeoPixel strip are write-only (no data
# comes back on their pins), so deploy goes by what it knows, in this order: the driver an
# earlier deploy left on the board, the last choice for this board (its machine.unique_id()),
# kept on the host in config_path(), and else the MAX7219 (cmhw's default), with a note.
def config_path() -> Path:
    """The host's file of the last Pico display per board: $CONNECTM_CONFIG, else
    connectm/boards.json in the user's config folder."""
    if os.environ.get("CONNECTM_CONFIG"):
        return Path(os.environ["CONNECTM_CONFIG"])
    base = os.environ.get("XDG_CONFIG_HOME") or os.environ.get("APPDATA") or \
        str(Path.home() / ".config")
    return Path(base) / "connectm" / "boards.json"


def remembered() -> dict[str, str]:
    """Board uid -> board name; {} for a missing or unreadable file (it is only a hint)."""
    import json

    try:
        data = json.loads(config_path().read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def remember(info: DeviceInfo, spec: BoardSpec) -> None:
    """Keep the Pico's display for its next deploy (nothing without a uid; a file that
    cannot be written is skipped: the choice can be given again)."""
    import json

    if not info.uid or spec.fixed:
        return
    known = remembered()
    known[info.uid] = spec.name
    path = config_path()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n")


def pico_display(info: DeviceInfo) -> tuple[BoardSpec, str]:
    """A Pico's build and why it was chosen (deploy prints the reason)."""
    present = {f.rsplit(".", 1)[0] for f in info.files}
    picos = [b for b in BOARDS.values() if b.name.startswith("pico")]
    found = [b for b in picos if present.intersection(b.drivers)]
    if len(found) == 1:
        return found[0], "its driver is on the board (%s)" % found[0].drivers[0]
    last = remembered().get(info.uid) if info.uid else None
    if last in BOARDS and last in {b.name for b in picos}:
        return BOARDS[last], "the last choice for this board (%s, %s)" % (info.uid,
                                                                       config_path())
    return BOARDS["pico-max7219"], ("no display driver on the board and no choice kept for "
                                    "it: the MAX7219 (for a NeoPixel matrix: --board "
                                    "pico-neopixel)")
