"""The Pico's 7x6 opening book: a perfect move for every position the device meets before
ply P from the empty board, first or second, against every human line (firmware/7x6c4.bin,
read on the board by cmbook's binary search; `connectm book --size 7x6`).

Built with exact scores from bitbully (connectm.exact7x6): the device's column keeps the
position's exact score and, among those, is the best-scoring (the fastest win, the slowest
loss), the first in centre-out order. A position and its mirror image share one record,
the column chosen in the orientation of the smaller key, which is the one cmbook looks up.
Only the building needs bitbully; the file is data, committed, and every board reads it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from connectm import book, exact7x6, fw
from connectm.book import BookError

fw.load()
import cmboard  # noqa: E402
import cmbook  # noqa: E402

SIZE = exact7x6.SIZE
PLIES = 14  # before ply 14: 55,477 positions, 443,816 bytes of a Pico's 1,408 KiB filesystem


def path() -> Path:
    """The project's book (firmware/7x6c4.bin; deploy copies it to a Pico as book.bin)."""
    return book.seek_path(*SIZE)


def key(b: Any) -> tuple[bytes, bool]:
    """(the book key of the position on board b, whether it is the mirror image's), as
    cmbook.find looks it up (cmbook.key)."""
    k, flip = cmbook.key(b)
    return bytes(k), bool(flip)


def best(b: Any, flip: bool) -> int:
    """The book's column for the position on board b, in the key's orientation (flip: the
    mirror image's): a best-scoring column, the first centre-out."""
    scores = exact7x6.scores(b)
    if flip:
        scores = {b.w - 1 - c: v for c, v in scores.items()}
    return book.first_best(b.order, scores)


def build(plies: int = PLIES, progress: Callable[[str], None] | None = None) -> dict[bytes, int]:
    """key -> column of every position the device meets before ``plies``, both colours."""
    b = cmboard.Board(*SIZE)
    entries: dict[bytes, int] = {}

    def choose() -> int:
        k, flip = key(b)
        if k not in entries:  # (its mirror image's column, mirrored)
            entries[k] = best(b, flip)
        return b.w - 1 - entries[k] if flip else entries[k]

    for device in (1, 2):
        book.walk(b, device, choose, until=plies)
        if progress:
            progress("device %s: %d positions" % (("first", "second")[device - 1], len(entries)))
    return entries


def encode(entries: dict[bytes, int]) -> bytes:
    """The book file: a record a position, its key then its column, sorted by key."""
    return b"".join(k + bytes([c]) for k, c in sorted(entries.items()))


def decode(data: bytes, w: int = SIZE[0], h: int = SIZE[1]) -> dict[bytes, int]:
    """key -> column of a book file; BookError if it is not one (a half-written file, keys
    out of order, a key no position has, a column off the board)."""
    rec = w + 1
    if len(data) % rec:
        raise BookError("book: %d bytes is not a whole number of %d-byte records"
                        % (len(data), rec))
    out: dict[bytes, int] = {}
    last = b""
    for i in range(0, len(data), rec):
        k, c = data[i:i + w], data[i + w]
        if k <= last or c >= w or not all(1 <= x < 2 << h for x in k):
            raise BookError("book record %d: %s is not a key above the last with a column"
                            % (i // rec + 1, data[i:i + rec].hex()))
        out[k] = c
        last = k
    return out
