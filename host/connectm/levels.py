"""The game's difficulty levels (firmware/cmlevels.py) as the host shows them."""

from __future__ import annotations

from connectm import fw

fw.load()
import cmlevels  # noqa: E402

# A name a player understands, easiest first; docs/levels.md has what each one is.
NAMES = ("beginner", "casual", "club", "expert", "perfect")

# The table a Pico's search gets from its free heap (docs/boards-and-memory.md, "Raspberry
# Pi Pico"), in bytes: the host's players, books and benchmarks that play as a Pico use this
# one figure.
PICO_TABLE = 195 * 1024


def levels() -> list[tuple[int, int, int]]:
    """(depth, nodes, book plies) of each level, easiest first."""
    L = cmlevels.LEVELS
    return [(L[i], L[i + 1], L[i + 2]) for i in range(0, len(L), 3)]


def on_board(table: int, w: int, h: int) -> tuple[int, ...]:
    """cmlevels.LEVELS (flat: depth, nodes, book plies of each) as cmmain gives them to a
    W x H board: one with a table (bytes > 0) plays its top level to cmhw.TOP's depth and
    nodes, and on a board larger than 5x4 its levels 3 and 4 to cmhw.WIDE's
    (cmhw.tabled)."""
    L = tuple(cmlevels.LEVELS)
    if not table:
        return L
    import cmhw

    return tuple(cmhw.tabled(L, w, h))


def count() -> int:
    return len(cmlevels.LEVELS) // 3


def index(text: str) -> int:
    """A --level value (1-based, a name, or ``top``) as a 0-based level."""
    t = text.strip().lower()
    if t == "top":
        return count() - 1
    if t in NAMES[:count()]:
        return NAMES.index(t)
    try:
        i = int(t)
    except ValueError:
        i = 0
    if not 1 <= i <= count():
        raise ValueError("--level must be 1..%d, a level's name or top, not %r" % (count(), text))
    return i - 1
