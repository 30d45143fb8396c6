"""The Pico's 7x6 opening book: a perfect move for every position the device meets before
ply P from the empty board, first or second, against every human line, and after it where
its search would drop the value on the perfect lines (perfect_lines) (firmware/7x6c4.bin,
read on the board by cmbook's binary search; `connectm book --size 7x6`).

Built with exact scores from bitbully (connectm.exact7x6): the device's column keeps the
position's exact score and, among those, is the best-scoring (the fastest win, the slowest
loss), the first in centre-out order. A position and its mirror image share one record,
the column chosen in the orientation of the smaller key, which is the one cmbook looks up.
Only the building needs bitbully; the file is data, committed, and every board reads it.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path
from typing import Any, Callable

from connectm import book, exact7x6, fw, levels
from connectm.book import BookError

fw.load()
import cmboard  # noqa: E402
import cmbook  # noqa: E402

SIZE = exact7x6.SIZE
PLIES = 14  # before ply 14: 55,477 positions; with the perfect lines' 3,066, 468,344 bytes
#             of a Pico's 1,408 KiB filesystem
# the perfect lines follow every opponent move before this ply, the device first and
# second: as first player the opponent's first two moves (plies 1 and 3), as second its
# first move (its first two, plies 0 and 2, would be 7 times that walk: not built)
FREE = (4, 2)


def path() -> Path:
    """The project's book (firmware/7x6c4.bin; deploy copies it to a Pico as book.bin)."""
    return book.seek_path(*SIZE)


def key(b: Any) -> tuple[bytes, bool]:
    """(the book key of the position on board b, whether it is the mirror image's), as
    cmbook.find looks it up (cmbook.key)."""
    k, flip = cmbook.key(b)
    return bytes(k), bool(flip)


def column(entries: dict[bytes, int], b: Any, met: set[bytes] | None = None) -> int | None:
    """The book's column for the position on board b, in the board's orientation; None: no
    record. ``met``: a set the record's key is added to when one is found."""
    k, flip = key(b)
    if k not in entries:
        return None
    if met is not None:
        met.add(k)
    return mirrored(entries[k], flip, b.w)


def mirrored(c: int, flip: bool, w: int) -> int:
    """Column c in the other orientation if ``flip`` (a record keyed by the mirror image
    holds the mirrored column)."""
    return w - 1 - c if flip else c


def record(entries: dict[bytes, int], b: Any, scores: dict[int, int]) -> int:
    """Record the book's column for the position on board b (``scores``: column -> exact
    score there): a best-scoring column, the first centre-out in the key's orientation.
    Returns it in the board's."""
    k, flip = key(b)
    entries[k] = book.first_best(b.order, {mirrored(c, flip, b.w): v
                                           for c, v in scores.items()})
    return mirrored(entries[k], flip, b.w)


def build(plies: int = PLIES, progress: Callable[[str], None] | None = None,
          lines: bool = True, free: tuple[int, int] = FREE, jobs: int = 1) -> dict[bytes, int]:
    """key -> column of every position the device meets before ``plies``, both colours,
    and (lines) the top level's corrections on the perfect lines (perfect_lines, the
    opponent's moves before ``free``, first and second, any column), its search with a
    Pico's table; ``jobs`` > 1: their searches first in that many processes (warm)."""
    b = cmboard.Board(*SIZE)
    entries: dict[bytes, int] = {}

    def choose() -> int:
        c = column(entries, b)  # (its mirror image's column, mirrored)
        return record(entries, b, exact7x6.scores(b)) if c is None else c

    for device in (1, 2):
        book.walk(b, device, choose, until=plies)
        if progress:
            progress("device %s: %d positions" % (("first", "second")[device - 1], len(entries)))
    if lines:
        searched: dict[bytes, int] = {}
        exact = None
        if jobs > 1:
            searched, exact = warm(entries, levels.PICO_TABLE, free=free, jobs=jobs,
                                   keep=fw.firmware_dir().parent / ".cache" / "book7x6",
                                   progress=progress)
            if progress:
                progress("perfect lines warmed in %d processes: %d positions searched"
                         % (jobs, len(searched)))
        perfect_lines(entries, progress, levels.PICO_TABLE, free=free, exact=exact,
                      searched=searched)
    return entries


def perfect_lines(entries: dict[bytes, int], progress: Callable[[str], None] | None = None,
                  table: int = 0, until: int = 0, free: tuple[int, int] = FREE,
                  devices: tuple[int, ...] = (1, 2),
                  exact: exact7x6.Memo | None = None,
                  searched: dict[bytes, int] | None = None,
                  opening: tuple[int, ...] = ()) -> int:
    """Add to ``entries`` what the top level needs to keep the exact score in every game it
    plays from the empty board, first and second (``devices``), on the perfect lines
    (walk_lines): where its own move (the book's column, else its search's, with a table of
    ``table`` bytes: a Pico's) would drop the score, a best-scoring column. Walked again
    until nothing is added (a record serves a position and its mirror image, whose searches
    may differ), then the records no line meets any more are dropped. Returns how many
    records were added. ``until``: stop at that ply (0: the game's end). ``exact``: the
    exact scores, shared with another walk (default: a new Memo); ``searched``: position
    (its cells) -> the search's column, likewise (a search starts from an empty table, so
    its column is the position's alone). ``opening``: only the lines whose opponent opens
    with these columns (warm's pieces of work). (The two colours' records
    are apart: the first player's positions have an even number of discs.)
    """
    # the book's records are looked up here, as cmgame.cpu() reads them first; the Player
    # reads none, so its move is the search's
    p = book.Player(*SIZE, levels.count() - 1, seek_file=book.NO_BOOK, table=table)
    b = p.board
    exact = exact or exact7x6.Memo()
    if searched is None:
        searched = {}  # a position's search column, met again next round
    met: set[bytes] = set()  # the records a round's walk read

    def choose() -> int:
        c = column(entries, b, met)
        if c is not None:
            return c
        pos = bytes(b.cells)
        if pos not in searched:
            searched[pos] = p.move()
        scores = exact.scores(b)
        if searched[pos] in book.best_columns(b.order, scores):
            return searched[pos]
        return record(entries, b, scores)

    def walk_round() -> int:
        before = len(entries)
        met.clear()
        for device in devices:
            walk_lines(b, device, choose, exact, until, free, opening)
        return len(entries) - before

    old = set(entries)
    book.settle(walk_round, progress, "perfect lines")
    # a record that a later record cut off from every line (the device now leaves the line
    # before it): the last round, which added none, did not read it, and no game will
    cut_off = set(entries) - old - met
    for k in cut_off:
        del entries[k]
    if progress:
        progress("perfect lines: %d positions searched, %d records cut off dropped"
                 % (len(searched), len(cut_off)))
    return len(entries) - len(old)


def walk_lines(b: Any, device: int, choose: Callable[[], int], exact: exact7x6.Memo,
               until: int = 0, free: tuple[int, int] = FREE,
               opening: tuple[int, ...] = ()) -> None:
    """Walk the perfect lines of one colour (``device``: 1 first, 2 second) on board b, as
    book.walk: ``choose()`` gives the device's column; the opponent plays each legal column
    before ply ``free[device - 1]`` (a human's opening), then each best-scoring one
    (``exact``'s scores: the ``perfect`` player's choices); ``opening``: perfect_lines'."""

    def replies() -> list[int]:
        if b.n < free[device - 1]:
            k = b.n // 2  # the opponent's k-th move (0: its first)
            return [opening[k]] if k < len(opening) else book.legal(b)
        return book.best_columns(b.order, exact.scores(b))

    book.walk(b, device, choose, until=until, replies=replies)


def warm(entries: dict[bytes, int], table: int, until: int = 0, free: tuple[int, int] = FREE,
         jobs: int = 2, keep: Path | None = None,
         progress: Callable[[str], None] | None = None
         ) -> tuple[dict[bytes, int], exact7x6.Memo]:
    """The searches and exact scores of the perfect lines, in ``jobs`` processes: a piece of
    work is one colour's lines after one of the opponent's free openings (first: its first
    two moves, 49; second: its first, 7), walked by perfect_lines on its own copy of
    ``entries``. Returns (searched, exact) for perfect_lines, whose one walk then searches
    only what they did not meet (a record one piece added may lead another's line
    elsewhere): the book is the one-process build's. ``keep``: a folder where each piece
    done is saved, under a name made from everything its walk reads (the firmware, this
    module, the records, the arguments), and read back instead of walked: a build
    stopped half-way goes on from there."""
    import itertools
    import multiprocessing

    work = [(device, opening) for device in (1, 2)
            for opening in itertools.product(range(SIZE[0]),
                                              repeat=(free[device - 1] + device - 1) // 2)]
    if keep is not None:
        h = hashlib.sha1(encode(entries) + repr((table, until, free)).encode())
        for f in sorted(fw.firmware_dir().glob("*.py")) + [Path(__file__), Path(book.__file__)]:
            h.update(f.read_bytes())
        keep = keep / h.hexdigest()[:16]
        keep.mkdir(parents=True, exist_ok=True)
    searched: dict[bytes, int] = {}
    exact = exact7x6.Memo()
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for i, (s, known) in enumerate(pool.imap_unordered(
                _warm_piece, [(entries, table, until, free, w, keep) for w in work])):
            searched.update(s)
            exact.known.update(known)
            if progress:
                progress("perfect lines warmed: %d of %d pieces" % (i + 1, len(work)))
    return searched, exact


def _warm_piece(args: tuple[dict[bytes, int], int, int, tuple[int, int],
                            tuple[int, tuple[int, ...]], Path | None]
                ) -> tuple[dict[bytes, int], dict[bytes, dict[int, int]]]:
    """One of warm's pieces: (searched, exact scores) of its lines, walked or read back."""
    entries, table, until, free, (device, opening), keep = args
    saved = keep / ("%d-%s.pickle" % (device, "".join(map(str, opening)))) if keep else None
    if saved and saved.is_file():
        return pickle.loads(saved.read_bytes())
    searched: dict[bytes, int] = {}
    exact = exact7x6.Memo()
    perfect_lines(dict(entries), None, table, until, free, devices=(device,), exact=exact,
                  searched=searched, opening=opening)
    if saved:
        tmp = saved.with_suffix(".part")  # whole or absent: renamed once written
        tmp.write_bytes(pickle.dumps((searched, exact.known)))
        tmp.replace(saved)
    return searched, exact.known


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
