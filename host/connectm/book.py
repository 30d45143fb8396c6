"""The opening book of a level, and the proof that the level keeps every exact value.

The device plays ``cmgame.cpu()``: the book's column where the book has the position,
else its search's. The book is built by walking every line a human can play against that
very function: where the search's column would drop the position's exact score (cmsolve,
the test sets' convention), the book gets a column that keeps it (centre-out, the first).
The walk repeats until it adds nothing (a check that the book settled); the
device reads the file line by line from flash (see cmsave.book).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from connectm import fw, levels
from connectm.fw import book_path, seek_path

fw.load()
import cmboard  # noqa: E402
import cmbook  # noqa: E402
import cmgame  # noqa: E402
import cmsave  # noqa: E402
import cmsearch  # noqa: E402
import cmsearch7  # noqa: E402
import cmsolve  # noqa: E402

KEY_MOD = 134217689  # the largest prime below 2**27: KEY << 3 | COLUMN is a small int
SOLVER_TT = 1 << 22


class BookError(ValueError):
    """A book file that is not one, or two positions with one key."""


# a binary book no board has: a Player that reads it plays its search's moves (and its
# line book's, where the board size has one)
NO_BOOK = Path("/nonexistent/connectm/no-book.bin")


def best_columns(order: Any, scores: dict[int, int]) -> list[int]:
    """The best-scoring columns (a perfect player's choices) in ``order`` (a board's
    centre-out order); ``scores``: column -> exact score, for the legal columns."""
    top = max(scores.values())
    return [c for c in order if scores.get(c) == top]


def first_best(order: Any, scores: dict[int, int]) -> int:
    """The books' choice of column: a best-scoring one, the first in ``order``."""
    return best_columns(order, scores)[0]


def key(b: Any) -> int:
    """The position's book key, as cmsave.book computes it."""
    return int.from_bytes(bytes(b.cells), "little") % KEY_MOD


def encode(entries: dict[int, int]) -> bytes:
    """The book file: a line a position, KEY << 3 | COLUMN in base 36, sorted."""
    return "".join(base36(k << 3 | c) + "\n" for k, c in sorted(entries.items())).encode()


def base36(n: int) -> str:
    """n in base 36 (digits 0-9a-z), as int(text, 36) reads it on every MicroPython."""
    out = ""
    while True:
        n, d = divmod(n, 36)
        out = "0123456789abcdefghijklmnopqrstuvwxyz"[d] + out
        if not n:
            return out


def decode(data: bytes) -> dict[int, int]:
    """key -> column of a book file; BookError if it is not a sorted book."""
    out: dict[int, int] = {}
    last = -1
    for i, line in enumerate(data.decode("ascii", "replace").splitlines(), 1):
        v = int(line, 36) if re.fullmatch("[0-9a-z]{1,6}", line) else -1
        if v >> 3 <= last:
            raise BookError("book line %d: %r is not a key above the last" % (i, line))
        last = v >> 3
        out[last] = v & 7
    return out


class Quiet:
    """A display that shows nothing (cmgame's driver contract)."""

    def px(self, x: int, y: int, v: int) -> None:
        pass

    def show(self) -> None:
        pass


@dataclass
class Player:
    """cmgame as the device runs it, on one board: its level, board and search."""

    w: int
    h: int
    m: int
    level: int  # 0-based (connectm.levels)
    book_file: Path | None = None  # the level's book (None: the project's, book_path's)
    seek_file: Path | None = None  # the binary book read first (None: seek_path's)
    table: int = 0  # the search's table in bytes: 0 on a micro:bit v1, a v2's 32 KB, a Pico's

    def __post_init__(self) -> None:
        if not 0 <= self.level < levels.count():
            raise ValueError("level must be 1..%d" % levels.count())
        if self.table < 0 or self.table % 8:
            raise ValueError("the table's bytes must be a multiple of 8 (0: none), not %d"
                             % self.table)
        self.board = cmboard.Board(self.w, self.h, self.m)  # keys: the solver's table
        if self.table:
            fw.load()  # the firmware first on sys.path: cmsearch imports cmtt for a table
        self.levels = levels.on_board(self.table, self.w, self.h)
        # The device's search, the per-ply arrays of cmmain; with a table, cmgame.cpu()
        # clears it before each reply, as on the board.
        # A board larger than 5x4 with a table (a Pico's 7x6) searches with cmsearch7, as
        # cmpico sets it up on the board.
        kind = cmsearch7.Search if self.table and self.w * self.h > 20 else cmsearch.Search
        self.search = kind(self.board, self.table, self.levels[-3])
        self.book = self.book_file or book_path(self.w, self.h, self.m, self.table)
        self.seek = self.seek_file or seek_path(self.w, self.h, self.m)

    def move(self) -> int:
        """The column cmgame.cpu() plays on this board (the computer to move)."""
        played: list[int] = []
        # cpu() as the device runs it, the computer to move, its play() recorded
        patch = [(cmgame, "b", self.board), (cmgame, "s", self.search), (cmgame, "lv", self.level),
                 (cmgame, "d", Quiet()), (cmgame, "st", 1), (cmgame, "hp", 2 - (self.board.n & 1)),
                 (cmgame, "play", played.append), (cmsave, "BOOK", str(self.book)),
                 (cmbook, "NAME", str(self.seek)),
                 (cmgame, "LEVELS", self.levels)]
        saved = [(m, x, getattr(m, x)) for m, x, _ in patch]
        for m, x, v in patch:
            setattr(m, x, v)
        try:
            cmgame.cpu()
        finally:
            for m, x, v in saved:
                setattr(m, x, v)
        return played[0]


@dataclass
class Exact:
    """Exact scores (cmsolve) of the moves of positions on one board, memoised."""

    board: Any
    solver: Any = None
    memo: dict[bytes, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        fw.load()  # the firmware first on sys.path: cmsolve imports cmtt when it is asked
        self.solver = cmsolve.Solver(self.board, SOLVER_TT)

    def scores(self) -> dict[int, int]:
        """Column -> the mover's exact score after playing it."""
        b = self.board
        out = {}
        n = b.n
        for c in range(b.w):
            if b.can_play(c):
                b.play(c)
                if b.won:
                    v = (b.size + 1 - n) // 2
                elif b.n == b.size:
                    v = 0
                else:
                    p = bytes(b.cells)
                    if p not in self.memo:
                        self.memo[p] = self.solver.solve()
                    v = -self.memo[p]
                b.undo()
                out[c] = v
        return out


def legal(b: Any) -> list[int]:
    """The columns a disc can go into on board b, left to right."""
    return [c for c in range(b.w) if b.can_play(c)]


def walk(b: Any, device: int, choose: Callable[[], int],
         end: Callable[[int], None] | None = None, until: int = 0,
         replies: Callable[[], list[int]] | None = None) -> None:
    """Play out every game the device plays as ``device`` (1: first) against every human
    line, on board ``b``: ``choose()`` gives the device's column where it is to move, and
    ``end(result)`` hears each final position (cmboard's over(): 1, 2 or 3 for a draw).
    A position reached twice is played out once. ``until``: stop at that ply (0: never).
    ``replies()``: the human's columns to follow (default: every legal one)."""
    seen: set[bytes] = set()

    def visit() -> None:
        pos = bytes(b.cells)
        if pos in seen or b.n == until > 0:
            return
        seen.add(pos)
        r = b.over()
        if r:
            if end:
                end(r)
            return
        if 1 + (b.n & 1) == device:
            cols = [choose()]
        else:
            cols = replies() if replies else legal(b)
        for c in cols:
            b.play(c)
            visit()
            b.undo()

    visit()


def build(w: int, h: int, m: int, level: int, out: Path,
          progress: Callable[[str], None] | None = None, table: int = 0,
          base: dict[int, int] | None = None) -> dict[int, int]:
    """Write to ``out`` the book that makes ``level`` keep every exact score on this board,
    both colours, its search with a table of ``table`` bytes (0: none); returns its
    entries. The level reads ``out`` while it grows. ``base``: entries the book starts
    from and keeps (another book's, each a value-keeping column of its position)."""
    p = Player(w, h, m, level, out, table=table)
    exact = Exact(p.board)
    entries: dict[int, int] = dict(base or {})
    met: dict[int, set[bytes]] = {}  # the positions met under each key

    def choose() -> int:
        k = key(p.board)
        met.setdefault(k, set()).add(bytes(p.board.cells))
        c = p.move()
        best = best_columns(p.board.order, exact.scores())
        if c not in best:
            if base and k in base:  # kept, so the level would drop the value here
                raise BookError("the base book's column for key %d drops the exact value "
                                "after %s" % (k, moves_text(p.board) or "no move"))
            c = entries[k] = best[0]
            out.write_bytes(encode(entries))
        return c

    def walk_round() -> int:
        before = len(entries)
        met.clear()
        for device in (1, 2):
            walk(p.board, device, choose)
        for k in entries:  # (an entry no walk meets any more shares with nothing)
            if len(met.get(k, ())) > 1:  # the other position would play the book's column
                raise BookError("positions %s share the book key %d"
                                % (" and ".join(sorted(x.hex() for x in met[k])), k))
        return len(entries) - before

    out.write_bytes(encode(entries))
    settle(walk_round, progress, "book")
    return entries


def settle(walk_round: Callable[[], int], progress: Callable[[str], None] | None,
           what: str) -> int:
    """Walk again until a round adds no record (``walk_round()``: one walk of the lines,
    how many records it added): a record changes the games after it, and may serve more
    than the position that asked for it. Returns how many records were added in all."""
    total = 0
    for rnd in range(1, 100):
        added = walk_round()
        total += added
        if progress:
            progress("%s, round %d: %d records added" % (what, rnd, added))
        if not added:
            return total
    raise BookError("%s: the book did not settle" % what)  # pragma: no cover (rounds add)


@dataclass
class Proof:
    positions: int = 0  # device moves checked
    drops: list[str] = field(default_factory=list)  # positions (digits) the device dropped
    games: int = 0  # distinct final positions
    losses: int = 0  # of them, the human's wins
    max_nodes: int = 0  # the largest search of a device move
    max_nodes_at: str = ""
    book_entries: int = 0
    book_bytes: int = 0
    book_met: int = 0  # of the entries, those a device move met (a key no line meets: waste)
    unmet: list[int] = field(default_factory=list)  # the keys of the others
    seconds: float = 0.0


def prove(w: int, h: int, m: int, level: int, book_file: Path | None = None,
          table: int = 0) -> Proof:
    """Walk every human line against the level (cmgame.move, book file and all), both
    colours, its search with a table of ``table`` bytes; check each device move keeps the
    exact score."""
    p = Player(w, h, m, level, book_file, table=table)
    b = p.board
    exact = Exact(b)
    out = Proof()
    data = p.book.read_bytes() if p.book.is_file() else b""
    entries = decode(data)
    out.book_entries, out.book_bytes = len(entries), len(data)
    met: set[int] = set()
    t0 = time.perf_counter()

    def choose() -> int:
        k = key(b)
        if k in entries:
            met.add(k)
        p.search.nodes = 0
        c = p.move()
        if p.search.nodes > out.max_nodes:
            out.max_nodes, out.max_nodes_at = p.search.nodes, moves_text(b)
        out.positions += 1
        if c not in best_columns(b.order, exact.scores()):
            out.drops.append(moves_text(b))
        return c

    for device in (1, 2):
        def end(r: int, device: int = device) -> None:
            out.games += 1
            out.losses += r == 3 - device

        walk(b, device, choose, end)
    out.book_met = len(met)
    out.unmet = sorted(set(entries) - met)
    out.seconds = time.perf_counter() - t0
    return out


def moves_text(b: Any) -> str:
    return "".join(chr(49 + b.hist[i]) for i in range(b.n))
