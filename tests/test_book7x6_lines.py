"""The Pico's 7x6 book on the perfect lines, after the book's plies (test_book7x6.py has the
rest): the builder's records there are the file's, the top level as the device plays it keeps
every exact score on them, and the builder warmed in two processes adds what it adds in one.
The walks share their exact scores and searches (one module: one worker). Extended tier
only: a worker starts this file first (RUN_FIRST, conftest), as its walks are the longest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from connectm import book, book7x6, exact7x6, levels
from test_book7x6 import TOP, before, bitbully, cmmoves, committed  # noqa: F401 (a fixture)

RUN_FIRST = True
pytestmark = [pytest.mark.extended, pytest.mark.usefixtures("bitbully")]

# the perfect lines the tests walk: before this ply (the whole, to the games' end, is the
# builder's: `connectm book --size 7x6`, and `connectm tournament --players pico,perfect@4`;
# both colours to ply 20 took 714 s and 600 s in the first two tests here, one after the
# other, the second reading the first's exact scores (lines_exact); the first player's lines,
# its opponent's first two moves free, are most of it: 951 of the 1,057 records there)
LINES_TO = 20


@pytest.fixture(scope="module")
def lines_exact() -> exact7x6.Memo:
    """The exact scores of the module's walks of the perfect lines: they score many of the
    same positions (to ply 16, 3,891 of the second's 5,446 scores were the first's; without
    them bitbully took 178 s of its 290 s)."""
    return exact7x6.Memo()


@pytest.fixture(scope="module")
def lines_searched() -> dict[bytes, int]:
    """The builder's searches (position -> column: a search starts from an empty table), for
    the one-process walk the warmed one is compared with."""
    return {}


def test_perfect_lines_are_the_builders(lines_exact: exact7x6.Memo,
                                        lines_searched: dict[bytes, int]) -> None:
    # the builder's corrections on the perfect lines before LINES_TO (first and second:
    # every move of the opponent before book7x6.FREE, best-scoring ones after), added to the
    # file's records before the book's plies, are the file's records there
    file = committed()
    entries = before(file, book7x6.PLIES)
    added = book7x6.perfect_lines(entries, table=levels.PICO_TABLE, until=LINES_TO,
                                  exact=lines_exact, searched=lines_searched)
    assert added > 10
    assert entries == before(file, LINES_TO)


def test_warmed_perfect_lines_are_the_one_process_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines_exact: exact7x6.Memo,
        lines_searched: dict[bytes, int]) -> None:
    # `connectm book --size 7x6 --jobs 2`: the lines' searches and scores in two processes
    # (warm), then the one walk, which adds the same records as without them and searches
    # nothing they did not (to ply 16: 2 x 2 minutes); the pieces kept are read back, not
    # walked again. (The walk without them reads the module's scores and searches, which
    # the builder's test made to ply 20: the same walk, its values remembered.)
    plain = before(committed(), book7x6.PLIES)
    warmed = dict(plain)
    added = book7x6.perfect_lines(plain, table=levels.PICO_TABLE, until=16, exact=lines_exact,
                                  searched=lines_searched)
    searched, exact = book7x6.warm(warmed, levels.PICO_TABLE, until=16, jobs=2, keep=tmp_path)
    known = len(searched)
    assert len(list(tmp_path.glob("*/*.pickle"))) == 56
    monkeypatch.setattr(book7x6, "perfect_lines", None)  # (read back: no walk)
    again, again_exact = book7x6.warm(warmed, levels.PICO_TABLE, until=16, jobs=2,
                                      keep=tmp_path)
    assert (again, again_exact.known) == (searched, exact.known)
    monkeypatch.undo()
    assert book7x6.perfect_lines(warmed, table=levels.PICO_TABLE, until=16, exact=exact,
                                 searched=searched) == added > 10
    assert warmed == plain and len(searched) == known


class Remembered:
    """A search whose columns are looked up by position first (``known``: the builder's
    searches, lines_searched), else searched and kept: the builder's walk ran this very
    search (cmgame.cpu, a Pico's table cleared before each reply) on the same positions, and
    its column is the position's alone, so the top level's walk below need not run it again
    (972 s of CI's time on one worker, had it searched)."""

    def __init__(self, search: Any, board: Any, known: dict[bytes, int]) -> None:
        self.search, self.board, self.known = search, board, known
        self.tt = search.tt  # (cmgame.cpu clears it before a search)

    def go(self, *limits: int) -> int:
        pos = bytes(self.board.cells)
        if pos not in self.known:
            self.known[pos] = self.search.go(*limits)
        return self.known[pos]


def test_top_level_keeps_every_exact_score_on_the_perfect_lines(
        lines_exact: exact7x6.Memo, lines_searched: dict[bytes, int]) -> None:
    # the Pico's top level as the device plays it (cmgame.cpu: the file through cmbook, then
    # its search with a Pico's table, its columns the builder's where it searched the same
    # position: Remembered), first and second, against every opponent move before
    # book7x6.FREE and every best-scoring one after: each of its moves before LINES_TO keeps
    # the exact score, and it meets every record there
    p = book.Player(7, 6, 4, TOP, table=levels.PICO_TABLE)
    b = p.board
    p.search = Remembered(p.search, b, lines_searched)
    met: set[bytes] = set()

    def choose() -> int:
        c = p.move()
        assert c in book.best_columns(b.order, lines_exact.scores(b)), cmmoves.moves(b)
        met.add(book7x6.key(b)[0])
        return c

    for device in (1, 2):
        book7x6.walk_lines(b, device, choose, lines_exact, until=LINES_TO)
    file = committed()
    lines = set(before(file, LINES_TO)) - set(before(file, book7x6.PLIES))
    assert len(lines) > 10 and lines <= met


