"""cmlines for one board size, written out as data (connectm deploy, for the micro:bit).

A micro:bit v1 compiles every module on the device, and compiling the table builder
(cmlines) needs more contiguous RAM than its fragmented 10 KB heap has left once the search
is in. The deploy runs the same builder here and writes what it made as a small module with
the same interface, ``build(b, w, h, m, keys)``, that refuses any other size.
"""

from __future__ import annotations

import array
import functools
from typing import Any

from connectm import fw

# made fresh for every board: what play/undo change
STATE = ("cells", "heights", "hist", "past", "st")
# numbers in the micro:bit build's code (minify.specialize), so the board keeps none
DIMS = ("w", "h", "m", "size", "u")
# read only by modules a micro:bit never loads (cmsolve, cmthreats) and by the hash-key code
# the build drops
UNUSED = ("order", "h1", "h2", "z1", "z2")
# with hash keys (the micro:bit v2's build, which has the table)
UNUSED_KEYED = ("order",)


@functools.lru_cache(maxsize=None)
def _board(w: int, h: int, m: int, keys: bool = False) -> Any:
    """The firmware's own board of that size, with or without hash keys (made once: a
    plan asks for its numbers and for its tables)."""
    fw.load()
    import cmboard

    return cmboard.Board(w, h, m, int(keys))


def dims(w: int, h: int, m: int) -> dict[str, int]:
    """The board attributes the micro:bit build writes into the code as numbers."""
    board = _board(w, h, m)
    return {name: getattr(board, name) for name in DIMS}


# A byte table is written shifted by OFFSET (mod 256) into printable characters when it can
# be: the device then parses 1 character per value instead of 4 ('\\x00').
OFFSET = 35


def _literal(value: object) -> str:
    values = list(value) if isinstance(value, (bytes, bytearray, array.array)) else None
    if values is not None and all(0 <= v < 256 and 32 <= (v + OFFSET) % 256 < 127
                                  for v in values):
        return "bytearray(%r)" % bytes((v + OFFSET) % 256 for v in values)
    if isinstance(value, array.array):
        return "array(%r, %r)" % (value.typecode, tuple(value))
    if values is not None:
        return "bytes(%r)" % (tuple(values),)
    return repr(value)


def fixed_lines(w: int, h: int, m: int, keys: bool = False) -> str:
    """Source of a cmlines for a W x H connect-M board without hash keys (or with them:
    keys), for code whose board dimensions are numbers (DIMS)."""
    board = _board(w, h, m, keys)
    unused = UNUSED_KEYED if keys else UNUSED
    with_keys = "with keys" if keys else "without keys"
    lines = [
        "# cmlines for %dx%d connect %d only, written by connectm deploy (connectm.tables)"
        % (w, h, m),
        "from array import array",
        "",
        "",
        "def build(b, w, h, m, keys):",
        "    if w != %d or h != %d or m != %d or %skeys:" % (w, h, m, "not " if keys else ""),
        "        raise ValueError('this build plays %dx%d connect %d only, %s')"
        % (w, h, m, with_keys),
    ]
    shifted = []
    for name, value in sorted(vars(board).items()):
        if name in DIMS or name in unused:
            continue
        if name in STATE:
            if isinstance(value, array.array):
                text = "array(%r, bytes(%d))" % (value.typecode, len(value.tobytes()))
            else:
                text = "bytearray(%d)" % len(value)
        else:
            text = _literal(value)
            if text.startswith("bytearray(b"):
                shifted.append("b." + name)
        lines.append("    b.%s = %s" % (name, text))
    if shifted:
        # the printable bytes back to the tables, in place: no helper function or list
        # comprehension, which would each be one more call deep (a micro:bit's C stack)
        lines += ["    for s in (%s):" % ", ".join(shifted) + ("," if len(shifted) == 1 else ""),
                  "        for i in range(len(s)):",
                  "            s[i] = (s[i] - %d) %% 256" % OFFSET]
    return "\n".join(lines) + "\n"
