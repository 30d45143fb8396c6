"""Locate the firmware (flat MicroPython modules) and make it importable on CPython."""

from __future__ import annotations

import importlib.util
import sys
import time
import types
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
_TICKS_PERIOD = 1 << 30  # MicroPython small-int ticks period
_TICKS_MASK = _TICKS_PERIOD - 1


def firmware_dir() -> Path:
    """The directory holding the firmware modules (cm*.py, drv_*.py, main.py).

    Installed (wheel): package data ``connectm/firmware``.  Checkout or editable
    install: ``<repo>/firmware``.
    """
    for cand in (_HERE / "firmware", _HERE.parent.parent / "firmware"):
        if cand.is_dir() and any(cand.glob("*.py")):
            return cand
    raise FileNotFoundError("connectm firmware directory not found (looked near %s)" % _HERE)


def book_name(w: int, h: int, m: int, table: int = 0, ext: str = "bk") -> str:
    """The file name of the opening book for a board size whose search has a table of
    ``table`` bytes (0: none): WxHcM.bk, or WxHcMtBYTES.bk (a micro:bit v2's). A book holds
    the corrections of one search (connectm.book), and a table changes the search's moves.
    ext "bin": the binary book (cmbook, a Pico's 7x6: exact moves, for any search)."""
    return "%dx%dc%d%s.%s" % (w, h, m, "t%d" % table if table else "", ext)


def book_path(w: int, h: int, m: int, table: int = 0) -> Path:
    """The project's book for that board and its search's table (book_name), deployed
    with the game."""
    return firmware_dir() / book_name(w, h, m, table)


def seek_path(w: int, h: int, m: int) -> Path:
    """The project's binary book for that board (firmware/WxHcM.bin, a Pico's 7x6: cmbook,
    connectm.book7x6), if it has one."""
    return firmware_dir() / book_name(w, h, m, ext="bin")


def firmware_files() -> list[Path]:
    """All firmware source files, sorted by name."""
    return sorted(p for p in firmware_dir().glob("*.py") if p.name != "__init__.py")


def _noop(*_args: object, **_kwargs: object) -> None:
    return None


def _identity(x: object) -> object:
    return x


def micropython_shim() -> types.ModuleType:
    """A CPython stand-in for MicroPython's ``micropython`` module."""
    mod = types.ModuleType("micropython")
    mod.__doc__ = "connectm CPython shim for the MicroPython 'micropython' module"
    mod.const = _identity  # type: ignore[attr-defined]
    mod.heap_lock = _noop  # type: ignore[attr-defined]
    mod.heap_unlock = _noop  # type: ignore[attr-defined]
    mod.mem_info = _noop  # type: ignore[attr-defined]
    mod.qstr_info = _noop  # type: ignore[attr-defined]
    mod.opt_level = _noop  # type: ignore[attr-defined]
    mod.native = _identity  # type: ignore[attr-defined]
    mod.viper = _identity  # type: ignore[attr-defined]
    mod.__connectm_shim__ = True  # type: ignore[attr-defined]
    return mod


def _ticks_ms() -> int:
    return int(time.monotonic() * 1000) & _TICKS_MASK


def _ticks_us() -> int:
    return int(time.monotonic() * 1000000) & _TICKS_MASK


def _ticks_add(ticks: int, delta: int) -> int:
    return (ticks + delta) & _TICKS_MASK


def _ticks_diff(end: int, start: int) -> int:
    d = (end - start) & _TICKS_MASK
    return d - _TICKS_PERIOD if d >= _TICKS_PERIOD // 2 else d


def utime_shim() -> types.ModuleType:
    """A CPython stand-in for MicroPython's ``utime`` (ticks wrap like on the device)."""
    mod = types.ModuleType("utime")
    mod.__doc__ = "connectm CPython shim for the MicroPython 'utime' module"
    mod.ticks_ms = _ticks_ms  # type: ignore[attr-defined]
    mod.ticks_us = _ticks_us  # type: ignore[attr-defined]
    mod.ticks_add = _ticks_add  # type: ignore[attr-defined]
    mod.ticks_diff = _ticks_diff  # type: ignore[attr-defined]
    mod.sleep = time.sleep  # type: ignore[attr-defined]
    mod.sleep_ms = lambda ms: time.sleep(ms / 1000.0)  # type: ignore[attr-defined]
    mod.sleep_us = lambda us: time.sleep(us / 1000000.0)  # type: ignore[attr-defined]
    mod.time = time.time  # type: ignore[attr-defined]
    mod.__connectm_shim__ = True  # type: ignore[attr-defined]
    return mod


SHIMS = {"micropython": micropython_shim, "utime": utime_shim}


def install_shim() -> None:
    """Install the ``micropython`` and ``utime`` shims where no real module is importable."""
    for name, make in SHIMS.items():
        if name in sys.modules or importlib.util.find_spec(name) is not None:
            continue
        sys.modules[name] = make()


def load() -> Path:
    """Put the firmware directory at the front of sys.path, install the shims, return the dir."""
    d = firmware_dir()
    s = str(d)
    if s in sys.path:
        sys.path.remove(s)
    sys.path.insert(0, s)
    install_shim()
    return d


def boot_chunks(text: str) -> list[str]:
    """cmmain's source cut as firmware/main.py cuts it: a new top-level statement starts at
    each line that is not indented, blank or a comment (main.py compiles them one by one)."""
    chunks: list[str] = []
    for line in text.splitlines(keepends=True):
        if chunks and line[:1] not in (" ", "\t", "#", "\r", "\n"):
            chunks.append("")
        if not chunks:
            chunks.append("")
        chunks[-1] += line
    return chunks


def boot(disp: Any, w: int, h: int, tt: int = 0, key: Any = None,
         text: str | None = None, books: bool = False) -> Any:
    """Start the firmware's game on CPython as a board's main.py does: cmmain run one
    statement at a time, then cmgame.cpu(); with ``disp``, ``key`` and a W x H board in
    place of cmhw's hardware and ``text`` as the save file's (None: a new game); ``books``:
    the device's opening books (connectm play), else none (the search's moves). No save
    file is written (cmgame.sv is None after). The module functions and class
    constructors cmmain frees are put back. Returns cmgame."""
    load()
    import cmboard
    import cmgame
    import cmhw
    import cmlines
    import cmsave
    import cmsearch
    import cmsearch7

    kept = {m: dict(vars(m)) for m in (cmhw, cmsave, cmlines, cmsearch)}
    inits = [(c, c.__init__) for c in (cmboard.Board, cmsearch.Search, cmsearch7.Search)]
    # A board boots with the game's module state new (its first game, level and scores; the
    # module's own LEVELS, which a board with a table changes): so does each boot here, not
    # the state an earlier boot in this process left behind.
    importlib.reload(cmgame)
    cmhw.setup = lambda: (disp, key, w, h, tt)
    if tt and w * h > 20:
        cmsearch.Search = cmsearch7.Search  # a Pico's 7x6 search, as cmpico.setup() sets it
    cmsave.load = lambda: text
    try:
        env: dict[str, Any] = {"__name__": "__main__"}
        for chunk in boot_chunks((firmware_dir() / "cmmain.py").read_text()):
            exec(chunk, env)
    finally:
        for m, saved in kept.items():
            vars(m).update(saved)
        for c, init in inits:
            c.__init__ = init
    cmgame.sv = None
    # books: the board's opening books, as deploy copies them to it (a micro:bit's 5x4
    # lines, a Pico's 7x6 records), from the project's files; else the board's own names,
    # which no host directory holds (the game's search alone)
    import cmbook

    cmsave.BOOK = str(book_path(w, h, 4, tt)) if books else "book.txt"
    cmbook.NAME = str(seek_path(w, h, 4)) if books else "book.bin"
    cmgame.cpu()  # as main.py does next: the computer moves if it is its turn
    return cmgame
