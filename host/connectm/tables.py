"""cmlines for one board size, written out as data (connectm deploy, for the micro:bit).

A micro:bit v1 compiles every module on the device, and compiling the table builder
(cmlines) needs more contiguous RAM than its fragmented 10 KB heap has left once the search
is in. The deploy runs the same builder here and writes what it made as a small module with
the same interface, ``build(b, w, h, m, keys)``, that refuses any other size.
"""

from __future__ import annotations

import array

from connectm import fw

# made fresh for every board: what play/undo change
STATE = ("cells", "heights", "hist", "past", "st")


def _literal(value: object) -> str:
    if isinstance(value, array.array):
        # MicroPython fills an array from a bytes object byte for byte (CPython does not:
        # this module is for the device only)
        return "array(%r, %r)" % (value.typecode, value.tobytes())
    if isinstance(value, (bytes, bytearray)):
        return repr(bytes(value))
    return repr(value)


def fixed_lines(w: int, h: int, m: int) -> str:
    """Source of a cmlines for a W x H connect-M board without hash keys."""
    fw.load()
    import cmboard

    board = cmboard.Board(w, h, m, 0)
    lines = [
        "# cmlines for %dx%d connect %d only, written by connectm deploy (connectm.tables)"
        % (w, h, m),
        "from array import array",
        "",
        "",
        "def build(b, w, h, m, keys):",
        "    if w != %d or h != %d or m != %d or keys:" % (w, h, m),
        "        from cmboard import SizeError  # loaded: only its Board() calls build()",
        "        raise SizeError('this build plays %dx%d connect %d only, without keys')"
        % (w, h, m),
    ]
    for name, value in sorted(vars(board).items()):
        if name in STATE:
            if isinstance(value, array.array):
                text = "array(%r, bytes(%d))" % (value.typecode, len(value.tobytes()))
            else:
                text = "bytearray(%d)" % len(value)
        else:
            text = _literal(value)
        lines.append("    b.%s = %s" % (name, text))
    return "\n".join(lines) + "\n"
