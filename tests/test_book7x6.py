"""The Pico's 7x6 opening book (connectm.book7x6, firmware/7x6c4.bin) and its reader
(cmbook): the file is the builder's, every device move it gives keeps the exact score, and
cmbook finds the same columns on every interpreter a Pico's MicroPython stands for. The walks
of the top level's lines (minutes each) are in the extended tier (pytest --extended): the
book's plies here, the perfect lines after them in test_book7x6_lines.py."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from connectm import book, book7x6, build, cli, exact7x6, fw, levels

fw.load()
import cmboard  # noqa: E402
import cmmoves  # noqa: E402

TOP = levels.count() - 1
SCORED = 12  # plies in bitbully's own opening book: a score before them costs no search


@pytest.fixture
def bitbully() -> None:
    """Skips (fails under CONNECTM_REQUIRE_EMULATORS=1) when bitbully is missing."""
    from conftest import unavailable

    if not exact7x6.available():
        unavailable("bitbully (the test extra) is not installed")


needs_bitbully = pytest.mark.usefixtures("bitbully")


def key_of(moves: str) -> bytes:
    b = cmboard.Board(7, 6, 4)
    cmmoves.play_moves(b, moves)
    return book7x6.key(b)[0]


def committed() -> dict[bytes, int]:
    return book7x6.decode(book7x6.path().read_bytes())


def column_of(entries: dict[bytes, int], moves: str) -> int:
    """The book's column after ``moves``, in the board's orientation; 255: none."""
    b = cmboard.Board(7, 6, 4)
    cmmoves.play_moves(b, moves)
    c = book7x6.column(entries, b)
    return 255 if c is None else c


def discs(key: bytes) -> int:
    return sum(x.bit_length() - 1 for x in key)


def before(entries: dict[bytes, int], plies: int) -> dict[bytes, int]:
    """The records of the positions before ``plies`` (before the book's plies: the book,
    the rest: the perfect lines)."""
    return {k: c for k, c in entries.items() if discs(k) < plies}


def test_the_file_is_a_sorted_book_of_the_first_plies() -> None:
    entries = committed()
    assert book7x6.path().stat().st_size == 8 * len(entries)
    # most records before the book's plies, a few after them (the perfect lines); each
    # key no smaller than its mirror's
    assert len(before(entries, book7x6.PLIES)) > 50000
    assert 0 < len(entries) - len(before(entries, book7x6.PLIES)) < 10000
    for k in entries:
        assert k <= k[::-1]


@needs_bitbully
def test_the_builder_makes_the_committed_file(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # The builder's records before ply 12 are the file's, byte for byte. (The whole file, to
    # ply 14, is `connectm book --size 7x6`: ~21 minutes, beyond bitbully's own 12-ply book,
    # then the perfect lines: test_perfect_lines_are_the_builders.)
    out = tmp_path / "7x6c4.bin"
    assert cli.main(["book", "--size", "7x6", "--plies", str(SCORED), "--no-lines",
                     "--out", str(out)]) == 0
    early = before(committed(), SCORED)
    assert out.read_bytes() == book7x6.encode(early)
    assert "book 7x6c4.bin: %d entries, %d bytes" % (len(early), out.stat().st_size) \
        in capsys.readouterr().out


@pytest.mark.extended
@needs_bitbully
def test_top_level_keeps_every_exact_score_in_the_book() -> None:
    # every human line against the top level as the device plays it (cmgame.cpu, its book
    # read by cmbook), first and second, until the book's last ply: every record of the file
    # is met, and each device move is a best-scoring column: all of them before ply 12, a
    # seeded one in 50 after (there a score costs bitbully a search: all would take ~20 min)
    p = book.Player(7, 6, 4, TOP)
    entries = committed()
    met: set[bytes] = set()
    dice = random.Random(14)
    scored = [0, 0]

    def choose() -> int:
        c = p.move()
        if p.board.n < SCORED or dice.random() < 0.02:
            scores = exact7x6.scores(p.board)
            assert scores[c] == max(scores.values()), cmmoves.moves(p.board)
            scored[p.board.n >= SCORED] += 1
        met.add(book7x6.key(p.board)[0])
        return c

    for device in (1, 2):
        book.walk(p.board, device, choose, until=book7x6.PLIES)
    assert met == set(before(entries, book7x6.PLIES))
    assert scored[0] > 15000 and scored[1] > 500


def test_decode_rejects_what_is_not_a_book() -> None:
    data = book7x6.path().read_bytes()[:24]
    assert len(book7x6.decode(data)) == 3
    bad = {"a half-written file": data[:-1], "keys out of order": data[8:16] + data[:8],
           "a column off the board": data[:7] + b"\x07", "a key no board has": bytes(8)}
    for why, x in bad.items():
        with pytest.raises(book.BookError, match="book"):
            book7x6.decode(x)
            pytest.fail(why)


# The reader on each interpreter: a small book of real records, written by the code itself
# into the interpreter's working directory (a Pico's flash), then the positions looked up.
FIND = """
import cmboard, cmbook, cmmoves
f = open('book.bin', 'wb')
f.write(%r)
f.close()
for m in %r:
    b = cmboard.Board(7, 6, 4)
    cmmoves.play_moves(b, m)
    print(m, cmbook.find(b))
f = open('book.bin', 'wb')
f.write(%r)
f.close()
b = cmboard.Board(7, 6, 4)
print('half', cmbook.find(b))
cmbook.NAME = 'none.bin'
print('none', cmbook.find(b))
"""


@pytest.mark.parametrize("mpy", ["cpython", "mpy-wasm", "mpy-unix"], indirect=True)
def test_find_on_every_interpreter(mpy: object, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    entries = committed()
    moves = ["", "4", "44", "2", "6", "443", "445", "4453", "1111"]
    want = {m: column_of(entries, m) for m in moves}
    # 2 and 6 are mirror images: one record, the column mirrored; 4453 is off the book
    assert want["2"] == 6 - want["6"] < 7 and want["4453"] == 255 and want[""] == 3
    small = {key_of(m): entries[key_of(m)] for m in moves if want[m] < 7}
    # a record whose column is full is no move: 1111's column 1 holds 4 discs, not 6
    full = cmboard.Board(7, 6, 4)
    cmmoves.play_moves(full, "111111")
    k, flip = book7x6.key(full)
    small[k] = 6 if flip else 0
    moves.append("111111")
    want["111111"] = 255
    data = book7x6.encode(small)
    monkeypatch.chdir(tmp_path)  # CPython's working directory: the code writes book.bin
    out = mpy.run(FIND % (data, moves, data[:-3]),  # type: ignore[attr-defined]
                  files=["cmboard", "cmlines", "cmbook", "cmmoves"])
    assert out.split("\n") == ["%s %d" % (m, want[m]) for m in moves] + [
        "E bad book", "half 255", "none 255", ""]


def test_only_a_pico_gets_the_book() -> None:
    for name, spec in build.BOARDS.items():
        names = {i.name for i in build.plan(spec).items}
        assert ("book.bin" in names) == (not spec.fixed), name
        assert ("cmbook.py" in names) == (not spec.fixed), name
    pico = build.plan(build.BOARDS["pico-max7219"])
    data = next(i.data for i in pico.items if i.name == "book.bin")
    # the name cmbook reads on a board: its default in the firmware's file (a game on the
    # host, fw.boot, points this process's cmbook at the host's book file)
    import importlib.util

    spec = importlib.util.spec_from_file_location("cmbook_fresh",
                                                  fw.firmware_dir() / "cmbook.py")
    assert spec is not None and spec.loader is not None
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    assert data == book7x6.path().read_bytes() and fresh.NAME == "book.bin"


def test_move_reads_the_book(capsys: pytest.CaptureFixture[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    # connectm move's 7x6 column in the book's plies is the book's, after them the search's
    import sys
    lines = ["", "4", "2"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    assert cli.main(["move", "--size", "7x6", "--level", "top", "--table", "8192"]) == 0
    entries = committed()
    want = ["%d" % (1 + column_of(entries, m)) for m in lines]
    assert "256" not in want  # all three are book positions
    assert capsys.readouterr().out.split() == want


def test_book_options_for_7x6_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the 7x6 book's options on another size: a one-line error, no file written
    out = tmp_path / "5x4c4.bk"
    for extra, what in ((["--no-lines"], "--no-lines"), (["--plies", "8"], "--plies")):
        assert cli.main(["book", "--size", "5x4", *extra, "--out", str(out)]) == 2
        assert capsys.readouterr().err == "connectm: error: %s is for 7x6 connect 4 only%s\n" % (
            what, ", 1..42" if what == "--plies" else "")
    for size, extra in (("5x4", ["--jobs", "2"]), ("7x6", ["--jobs", "0"]),
                        ("7x6", ["--jobs", "2", "--no-lines"])):
        assert cli.main(["book", "--size", size, *extra, "--out", str(out)]) == 2
        assert capsys.readouterr().err == ("connectm: error: --jobs is for the 7x6 book's "
                                           "perfect lines, 1 or more\n")
    assert not out.exists() and not (tmp_path / "build").exists()
