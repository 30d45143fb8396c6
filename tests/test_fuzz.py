"""Hypothesis fuzzing of every text input, in-process on CPython.

Each test fuzzes one input and prints ``fuzz <input>: N cases`` (shown with ``-s`` or
``-rA``; also a ``record_property``).  ``--extended`` runs 10,000 cases per input, the default
run 200.

Contracts checked:

* ``connectm search|solve|perft`` with fuzzed ``--moves``/``--size``/``--connect``: exit 0,
  or exit 2 with exactly one stderr line starting ``connectm: error:``.
* ``cmmoves.play_moves``: succeeds (and plays exactly the text), or raises MoveError and
  leaves the board unchanged.  ``cmboard.Board(w, h, m)``: works or raises SizeError
  naming the limits.
* Test-set lines (``cmd_solve.parse_line``) and ``solve --file`` with garbage.
* The tournament CSV that a rerun resumes (``tournament.read_csv`` via ``play_all``).
* The game's serial control line (``cmgame.key``) and save text (``cmgame.load``).
"""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path
from typing import Any, Callable

import pytest

import harness
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from connectm import cli, engine, fw
from connectm import cmd_solve
from connectm import tournament as T

fw.load()
import cmboard  # noqa: E402
import cmlevels  # noqa: E402
import cmmoves  # noqa: E402

DIGITS = "0123456789"


def n_cases(extended: bool, most: int = 10_000) -> int:
    return most if extended else 200


def fuzz(name: str, extended: bool, record_property: Callable[[str, Any], None],
         strategy: st.SearchStrategy[Any], check: Callable[[Any], None],
         most: int = 10_000) -> int:
    """Run ``check`` on ``n_cases`` examples of ``strategy``; print and record the count."""
    count = 0

    def inner(x: Any) -> None:
        nonlocal count
        count += 1
        check(x)

    try:
        settings(max_examples=n_cases(extended, most), deadline=None, database=None,
                 suppress_health_check=list(HealthCheck))(given(strategy)(inner))()
    finally:
        print("fuzz %s: %d cases" % (name, count))
        record_property("fuzz " + name, count)
    return count


# ---- strategies ---------------------------------------------------------------------------

def moves_text() -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=50),  # any unicode
        st.text(alphabet="123456789", max_size=90),  # columns only: full columns, game over
        st.text(alphabet="0123456789 \t\n\rx-+", max_size=40),
        st.text(alphabet="123", max_size=12),
        st.text(alphabet=st.characters(codec="utf-8"), min_size=200, max_size=3000),  # long
        st.just(""),
    )


def size_text() -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=12),
        st.builds("%dx%d".__mod__, st.tuples(st.integers(-2, 12), st.integers(-2, 12))),
        st.from_regex(r"\s*[0-9٣]{1,4}\s*[xX×*]\s*[0-9]{1,25}\s*", fullmatch=True),
        st.sampled_from(["3x3", "4x4", "5x4", "7x6", "9x9", "3X9", " 4 x 3 "]),
    )


def connect_value() -> st.SearchStrategy[int]:
    return st.one_of(st.integers(-3, 11), st.integers())


def cli_args(cmd: str) -> st.SearchStrategy[tuple[str, int, str, list[str]]]:
    return st.tuples(size_text(), connect_value(), moves_text(),
                     st.lists(st.sampled_from(["--json"]), max_size=1))


# ---- connectm search / solve / perft ------------------------------------------------------

def check_cli(capsys: pytest.CaptureFixture[str], argv: list[str],
              allowed: tuple[int, ...] = (0,)) -> int:
    capsys.readouterr()
    status = cli.main(argv)  # any exception fails the test with its traceback
    out, err = capsys.readouterr()
    # a solve longer than a second reports its progress on stderr (not an error)
    err = "".join(ln for ln in err.splitlines(True) if not ln.startswith("solve: "))
    if status == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("connectm: error:"), (argv, err)
        assert err.endswith("\n")
    else:
        assert status in allowed, (argv, status, err)
        assert err == "", (argv, err)
        assert out, argv
    return status


def quick_to_solve(size: str, connect: int, moves: str) -> bool:
    """False for a valid position the solver would take long on (the test must stay fast):
    solve only positions with at most 14 empty cells or connect 3."""
    try:
        b = engine.position(size, connect, moves)
    except ValueError:
        return True  # an error, found before any search
    return b.size - b.n <= 14 or b.m == 3


@pytest.mark.parametrize("cmd", ["search", "perft", "solve"])
def test_fuzz_cli(cmd: str, extended: bool, capsys: pytest.CaptureFixture[str],
                  record_property: Callable[[str, Any], None]) -> None:
    skipped = 0

    def check(a: tuple[str, int, str, list[str]]) -> None:
        nonlocal skipped
        size, connect, moves, extra = a
        argv = [cmd, "--size=" + size, "--connect=%d" % connect, "--moves=" + moves]
        if cmd == "search":
            argv += ["--depth=1", "--tt=4096"] + extra
        elif cmd == "perft":
            argv += ["--depth=1"]
        else:
            if not quick_to_solve(size, connect, moves):
                skipped += 1
                return
            argv += ["--tt=65536"] + extra
        check_cli(capsys, argv)

    fuzz("cli " + cmd, extended, record_property, cli_args(cmd), check)
    if cmd == "solve":
        print("fuzz cli solve: %d slow positions not solved" % skipped)


def test_fuzz_cli_option_text(extended: bool, capsys: pytest.CaptureFixture[str],
                              record_property: Callable[[str, Any], None]) -> None:
    """--connect / --depth as any text: argparse's own errors (usage + error line).

    docs/engine.md: "Bad input exits with status 2 and one line."  argparse prints a usage block
    and ``connectm search: error: ...`` instead (see the report); this checks the status
    and that no exception escapes, and that the last line names the error."""

    def check(a: tuple[str, str, str]) -> None:
        cmd, opt, value = a
        argv = [cmd, "--size=3x3", "--connect=3", opt + "=" + value]
        if opt == "--depth":
            argv[2:2] = ["--tt=0"] if cmd != "perft" else []
        capsys.readouterr()
        status = cli.main(argv)
        out, err = capsys.readouterr()
        assert status in (0, 2), (argv, status)
        if status == 2:
            assert err.splitlines()[-1].startswith("connectm"), err
            assert "error:" in err.splitlines()[-1], err
        else:
            assert value.strip().lstrip("+-").isdigit() or value.strip().isdigit(), value

    strategy = st.tuples(st.sampled_from(["search", "perft"]),
                         st.sampled_from(["--connect", "--depth"]),
                         st.one_of(st.text(max_size=10),
                                   st.text(alphabet="0123", min_size=1, max_size=1)))
    fuzz("cli option text", extended, record_property, strategy, check)


def test_cli_usage_error_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["search", "--connect", "x"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("connectm: error:"), err


@pytest.mark.parametrize("cmd", ["search", "solve", "perft"])
def test_double_dash_as_a_value(cmd: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Found by the fuzzing: argparse turned --moves=-- into [] (AttributeError in the command)
    assert cli.main([cmd, "--size=3X3", "--connect=3", "--moves=--"]) == 2
    assert capsys.readouterr().err == "connectm: error: move 1: '-' is not a column 1..3\n"


# ---- the engine: play_moves and Board -----------------------------------------------------

def snapshot(b: Any) -> tuple[Any, ...]:
    return (bytes(b.cells), bytes(b.heights), bytes(b.hist), b.n, b.won, b.score,
            b.h1, b.h2, bytes(b.st), b.over())


@st.composite
def board_and_text(draw: st.DrawFn) -> tuple[Any, str, str]:
    w = draw(st.integers(3, 9))
    h = draw(st.integers(3, 9))
    m = draw(st.integers(3, max(w, h)))
    b = cmboard.Board(w, h, m)
    # A random legal prefix, possibly to the end of the game.
    for _ in range(draw(st.integers(0, w * h))):
        cols = [c for c in range(w) if b.can_play(c)]
        if not cols:
            break
        b.play(draw(st.sampled_from(cols)))
    before = cmmoves.moves(b)
    return b, before, draw(moves_text())


def test_fuzz_play_moves(extended: bool, record_property: Callable[[str, Any], None]) -> None:
    errors = 0

    def check(a: tuple[Any, str, str]) -> None:
        nonlocal errors
        b, before, text = a
        snap = snapshot(b)
        try:
            cmmoves.play_moves(b, text)
        except cmmoves.MoveError as e:
            errors += 1
            assert snapshot(b) == snap, (before, text)
            assert str(e).startswith("move ") and "\n" not in str(e), str(e)
            return
        assert cmmoves.moves(b) == before + text
        for _ in text:
            b.undo()
        # undo() leaves hist beyond n as scratch (no store per node); the rest is exact.
        assert snapshot(b)[:2] + snapshot(b)[3:] == snap[:2] + snap[3:]
        assert bytes(b.hist[:b.n]) == snap[2][:b.n]

    fuzz("play_moves", extended, record_property, board_and_text(), check)
    print("fuzz play_moves: %d MoveError" % errors)


def test_move_error_leaves_hist_bytes() -> None:
    b = cmboard.Board(7, 6, 4)
    cmmoves.play_moves(b, "44")
    hist = bytes(b.hist)
    with pytest.raises(cmmoves.MoveError):
        cmmoves.play_moves(b, "123x")
    assert bytes(b.hist) == hist


def test_fuzz_board_size(extended: bool, record_property: Callable[[str, Any], None]) -> None:
    small = st.integers(-2, 12)

    def check(a: tuple[int, int, int]) -> None:
        w, h, m = a
        try:
            b = cmboard.Board(w, h, m, 0)
        except cmboard.SizeError as e:
            assert isinstance(e, ValueError)
            msg = str(e)
            assert "\n" not in msg
            if not (3 <= w <= 9 and 3 <= h <= 9):
                assert "3..9" in msg and "%dx%d" % (w, h) in msg, msg
            else:
                assert "3..%d" % max(w, h) in msg and "connect %d" % m in msg, msg
                assert not 3 <= m <= max(w, h)
            return
        assert 3 <= w <= 9 and 3 <= h <= 9 and 3 <= m <= max(w, h)
        assert (b.w, b.h, b.m, b.n, b.over()) == (w, h, m, 0, 0)

    strategy = st.tuples(st.one_of(small, st.integers()), st.one_of(small, st.integers()),
                         st.one_of(small, st.integers()))
    fuzz("Board(w, h, m)", extended, record_property, strategy, check)


# ---- test-set lines and solve --file ------------------------------------------------------

def test_fuzz_parse_line(extended: bool, record_property: Callable[[str, Any], None]) -> None:
    line_text = st.one_of(
        st.text(max_size=40),
        st.text(alphabet="0123456789 -\t", max_size=30),
        st.builds(lambda a, b, sep: a + sep + b, st.text(DIGITS + "٣x", max_size=12),
                  st.text(DIGITS + "-+٣", max_size=4), st.sampled_from([" ", "\t", "  ", ","])),
    )

    def check(a: tuple[str, int]) -> None:
        line, lineno = a
        try:
            moves, score = cmd_solve.parse_line(line, lineno)
        except ValueError as e:
            assert "\n" not in str(e) and str(e).startswith("line %d: " % lineno), str(e)
            return
        assert isinstance(moves, str) and isinstance(score, int)
        assert line.split() == [moves, line.split()[1]] and moves.isdigit()

    fuzz("parse_line", extended, record_property,
         st.tuples(line_text, st.integers(1, 10 ** 6)), check)


def test_fuzz_solve_file(extended: bool, capsys: pytest.CaptureFixture[str],
                         record_property: Callable[[str, Any], None]) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="cm_fuzz_"))
    path = tmp / "testset"
    good_line = st.builds(lambda mv, sc: "%s %d" % (mv, sc), st.text("123", max_size=8),
                          st.integers(-5, 5))
    content = st.one_of(
        st.binary(max_size=200),
        st.lists(st.one_of(st.text(max_size=30), good_line), max_size=8).map(
            lambda ls: "\n".join(ls).encode("utf-8")),
        st.lists(good_line, max_size=5).map(lambda ls: "\n".join(ls).encode()),
    )

    def check(data: bytes) -> None:
        path.write_bytes(data)
        # 3x3 connect 3: every parsable line solves in ms
        status = check_cli(capsys, ["solve", "--file", str(path), "--size=3x3",
                                    "--connect=3", "--tt=4096"], allowed=(0, 1))
        try:
            text = data.decode()
        except UnicodeDecodeError:
            assert status == 2
            return
        try:
            for i, line in enumerate(text.splitlines(), 1):
                if line.strip() and not line.startswith("#"):  # '#' lines: comments
                    cmd_solve.parse_line(line, i)
        except ValueError:
            assert status == 2  # a garbage line: exit 2, one line

    try:
        fuzz("solve --file", extended, record_property, content, check)
    finally:
        path.unlink(missing_ok=True)
        tmp.rmdir()


# ---- tournament CSV resume ----------------------------------------------------------------

def csv_text(rows: list[list[str]]) -> str:
    f = io.StringIO()
    csv.writer(f, lineterminator="\n").writerows(rows)
    return f.getvalue()


@st.composite
def tournament_csv(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["binary", "text", "rows", "rows-cut", "empty"]))
    if kind == "binary":
        return draw(st.binary(max_size=300))
    if kind == "empty":
        return b""
    if kind == "text":
        return draw(st.text(max_size=200)).encode("utf-8")
    header = draw(st.sampled_from([T.HEADER, T.HEADER[:-1], T.HEADER[::-1], ["x"]]))
    field = st.one_of(st.text(max_size=8), st.integers(0, 9).map(str),
                      st.sampled_from(["3x3:3", "random", "engine:1", "0", "1", "3"]))
    rows = draw(st.lists(st.lists(field, min_size=len(T.HEADER) - 1,
                                  max_size=len(T.HEADER) + 1), max_size=4))
    data = csv_text([header] + rows).encode("utf-8")
    if kind == "rows-cut" and data:
        data = data[:draw(st.integers(0, len(data)))]  # a half-written last line
    return data


def test_fuzz_tournament_csv(extended: bool, capsys: pytest.CaptureFixture[str],
                             record_property: Callable[[str, Any], None]) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="cm_fuzz_"))
    path = tmp / "t.csv"
    resumed = 0

    def check(data: bytes) -> None:
        nonlocal resumed
        path.write_bytes(data)
        # The resume step alone: no jobs to play, every row of the file read and keyed.
        try:
            rows = T.play_all([], path, 1, quiet=True)
            for r in rows:
                T.row_key(r)
            resumed += 1
        except ValueError as e:
            assert " ".join(str(e).split()), "empty message"
        capsys.readouterr()
        # The command: a 3x3 random-vs-random game is added (or already there), or exit 2.
        path.write_bytes(data)
        capsys.readouterr()
        status = cli.main(["tournament", "--out", str(path), "--sizes=3x3:3",
                           "--players=random", "--games=1", "--jobs=1", "--no-plots",
                           "--quiet"])
        out, err = capsys.readouterr()
        lines = [ln for ln in err.splitlines() if "dropping a half-written last line" not in ln]
        assert status in (0, 2), (data, status, err)
        if status == 2:
            assert len(lines) == 1 and lines[0].startswith("connectm: error:"), (data, err)
        else:
            assert lines == [], (data, err)
            assert out.splitlines()[-1].endswith("games in %s" % path)

    try:
        # 2,000 in extended mode: each case also runs `connectm tournament` (~30 ms).
        fuzz("tournament csv", extended, record_property, tournament_csv(), check)
        print("fuzz tournament csv: %d resumed cleanly" % resumed)
    finally:
        for p in tmp.iterdir():
            p.unlink()
        tmp.rmdir()


@pytest.mark.parametrize("row", ["a\rb" + ",x" * 17, '"' + "x" * 200_000],
                         ids=["cr-in-field", "field-over-csv-limit"])
def test_tournament_csv_reader_errors_are_value_errors(row: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.csv"
        path.write_text(",".join(T.HEADER) + "\n" + row + "\n", encoding="utf-8")
        with pytest.raises(ValueError):
            T.read_csv(path)


# ---- the game's serial control line and save text -----------------------------------------

class Disp:
    """A fake display (as in tests/test_game.py)."""

    def __init__(self, w: int, h: int) -> None:
        self.g = [[0] * w for _ in range(h)]
        self.texts: list[str] = []

    def px(self, x: int, y: int, v: int) -> None:
        assert 0 <= v <= 9
        self.g[y][x] = v

    def show(self) -> None:
        pass

    def text(self, s: str) -> None:
        self.texts.append(s)


@pytest.fixture
def game(monkeypatch: pytest.MonkeyPatch) -> Any:
    import importlib

    import cmgame

    importlib.reload(cmgame)
    # Shallow levels (same count): the fuzz is about input handling, not search time.
    monkeypatch.setattr(cmgame, "LEVELS", tuple(x for i in range(len(cmlevels.LEVELS) // 3)
                                                for x in (1 + (i > 2), 50, 0)))
    return cmgame


def key_chars() -> st.SearchStrategy[str]:
    # The boards' drivers give cmgame.key() only the protocol's characters (docs/serial.md,
    # test_fuzz_game.py); `connectm play` gives it any character typed (a terminal carries
    # no lone surrogates, which CPython's stdout could not encode).
    return st.one_of(st.sampled_from(list("lrd123456789 \r\n")),
                     st.integers(0, 255).map(chr), st.characters(codec="utf-8"))


def check_keys(game: Any, capsys: pytest.CaptureFixture[str], w: int, h: int,
               lines: list[str]) -> None:
    fw.boot(Disp(w, h + 1), w, h)
    capsys.readouterr()
    now = 0
    for line in lines:
        for k in line:  # the serial console delivers one character at a time
            now += 300  # the game loop's blink: 'E bad key' once in each 1024 ms of it
            game.tick(now)
            capsys.readouterr()
            st0, n0, hp0, cur0, lv0 = game.st, game.b.n, game.hp, game.cur, game.lv
            said = game.t >> 10 == game.q  # a line in this second already: none now
            full = st0 == 1 and "1" <= k <= "9" and int(k) <= w and not game.b.can_play(
                int(k) - 1)
            game.key(k)
            out = capsys.readouterr().out
            assert "Traceback" not in out
            # Lines end at "\n" only: a bad key is echoed raw, e.g. "E bad key \x85".
            for ln in out.split("\n")[:-1]:
                assert ln.startswith(("B ", "E ", "L ", "R ")), repr(ln)  # docs/serial.md
            bad = (k not in "lrd123456789 \r\n"
                   or ("1" <= k <= "9" and (st0 != 1 or int(k) > w)) or full)
            if bad:
                if said and not full:
                    assert out == "", (k, out)
                else:
                    assert out.count("\n") == 1 and out.startswith("E "), (k, out)
                assert (game.st, game.b.n, game.hp, game.cur, game.lv) == (
                    st0, n0, hp0, cur0 if not full else int(k) - 1, lv0)
            elif k in " \r\n":
                assert out == "" and (game.st, game.b.n) == (st0, n0)
            if st0 == 1:
                assert game.b.n - n0 in (0, 1, 2)


def test_fuzz_serial_keys(game: Any, extended: bool, capsys: pytest.CaptureFixture[str],
                          record_property: Callable[[str, Any], None]) -> None:
    strategy = st.tuples(st.sampled_from([(5, 4), (7, 6), (4, 3)]),
                         st.lists(st.text(key_chars(), max_size=12), max_size=6))

    def check(a: tuple[tuple[int, int], list[str]]) -> None:
        (w, h), lines = a
        check_keys(game, capsys, w, h, lines)

    fuzz("serial keys", extended, record_property, strategy, check)


def test_fuzz_save_text(game: Any, extended: bool, capsys: pytest.CaptureFixture[str],
                        record_property: Callable[[str, Any], None]) -> None:
    n_sc = len(cmlevels.LEVELS)  # 3 scores a level; the fixture's shallow levels are as many
    valid = st.builds(
        lambda lv, hp, mv, sc: "%d %d %s %s" % (lv, hp, mv or "-", "".join(sc)),
        st.integers(-1, 6), st.integers(0, 3), st.text("12345670x", max_size=25),
        st.lists(st.sampled_from(["00", "07", "ff", "1", "0x", "-1", "1g", "10 "]),
                 min_size=n_sc - 1, max_size=n_sc + 1))

    def check(text: str) -> None:
        fw.boot(Disp(5, 5), 5, 4)
        capsys.readouterr()
        harness.restore(text)
        out = capsys.readouterr().out
        for ln in out.split("\n")[:-1]:
            assert ln.startswith(("B ", "E ")), repr(ln)
        if out.startswith("E "):
            assert out == "E bad save, new game\n", out
            assert game.b.n == 0 and game.st == 0
        assert game.st in (0, 1, 2)
        for k in "dd1r":  # keys still work after any restore
            game.key(k)
        assert "Traceback" not in capsys.readouterr().out

    fuzz("save text", extended, record_property, st.one_of(st.text(max_size=60), valid), check)
