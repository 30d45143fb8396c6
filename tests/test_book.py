"""The top level's opening book (connectm book), `connectm move` and `connectm prove`:
the device's move as the host computes it, and the proof that the top level keeps every
exact value on the micro:bit's 5x4 board: the v1's search, and the v2's with its table
(each with the book of its own search's corrections)."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import check_record, record
from connectm import book, build, cli, fw, levels

fw.load()
import cmboard  # noqa: E402
import cmbook  # noqa: E402
import cmmoves  # noqa: E402
import cmsave  # noqa: E402
import cmsearch  # noqa: E402
import cmsearch7  # noqa: E402
import cmsolve  # noqa: E402

TOP = levels.count() - 1


@pytest.fixture(scope="module", params=[0, build.V2_TT], ids=["v1", "v2-table"])
def table(request: pytest.FixtureRequest) -> int:
    return int(request.param)  # the search's table: none (a v1), a micro:bit v2's


# The proof (`connectm prove`: every human line against the top level, a walk of minutes)
# is recorded in tests/data/proofs.json with the book it was made with; the extended tier
# walks it again and compares (test_the_proof_is_the_recorded_one), the plain tier reads it.
PROOFS = "proofs.json"


def proof_key(table: int) -> str:
    return "5x4 top table=%d" % table


def proved(table: int) -> dict[str, Any]:
    """What the proof's record holds: the book's digest and the walk's figures."""
    data = book.book_path(5, 4, 4, table).read_bytes()
    p = book.prove(5, 4, 4, TOP, table=table)
    figures = dataclasses.asdict(p)
    del figures["seconds"]
    return {"book_sha256": hashlib.sha256(data).hexdigest(), "proof": figures}


@pytest.fixture(scope="module")
def proof(table: int) -> book.Proof:
    """The recorded proof, of the book the project has for this search."""
    rec = record(PROOFS)[proof_key(table)]
    data = book.book_path(5, 4, 4, table).read_bytes()
    assert rec["book_sha256"] == hashlib.sha256(data).hexdigest(), \
        "the book changed since its proof was recorded: pytest --extended (CONNECTM_RECORD=1)"
    return book.Proof(**rec["proof"])


@pytest.mark.extended
def test_the_proof_is_the_recorded_one(table: int) -> None:
    check_record(PROOFS, proof_key(table), proved(table))


def test_top_level_keeps_every_exact_value_on_5x4(proof: book.Proof, table: int) -> None:
    # every human line, the device first and second: no move drops the exact score (so no
    # game is lost), and the book is the project's file for this search
    assert proof.drops == [] and proof.losses == 0
    assert proof.positions > 20000 and proof.games > 10000
    data = book.book_path(5, 4, 4, table).read_bytes()
    assert proof.book_entries == len(book.decode(data)) == data.count(b"\n") > 0
    # the node budget holds: the search checks it every 256 nodes (the v2's top level
    # searches to cmhw.TOP's nodes)
    assert proof.max_nodes <= levels.on_board(table, 5, 4)[-2] + 256 + 5


def test_a_book_corrects_its_own_search() -> None:
    # A book holds the corrections of one search: with a table the top level searches to
    # cmhw.TOP and errs elsewhere. The v1's book has no line for the empty board (its
    # search opens well), where the v2's search opens in column 1, which loses: the v2's
    # own book answers there.
    v1_book = book.book_path(5, 4, 4)
    v2_search = book.Player(5, 4, 4, TOP, v1_book, table=build.V2_TT)
    scores = book.Exact(v2_search.board).scores()
    assert scores[v2_search.move()] < 0 == max(scores.values())
    assert scores[book.Player(5, 4, 4, TOP, table=build.V2_TT).move()] == 0
    assert scores[book.Player(5, 4, 4, TOP).move()] == 0


def test_a_base_entry_that_drops_a_value_stops_the_build(tmp_path: Path) -> None:
    # A book built from another's lines (a v2's from the v1's) keeps them: one that drops
    # the exact value where the level meets it (here column 1 on the empty board, which
    # loses; or another position's line under the same key) stops the build, named.
    b = cmboard.Board(5, 4, 4)
    with pytest.raises(book.BookError, match="column for key %d drops the exact value after "
                       "no move" % book.key(b)):
        book.build(5, 4, 4, TOP, tmp_path / "b.bk", base={book.key(b): 0})


@pytest.mark.extended
def test_without_the_book_the_top_level_drops_values(tmp_path: Path) -> None:
    # the book is what makes the level perfect: its search alone drops exact values (the
    # positions recorded: test_without_its_book_the_top_level_drops_a_value plays them)
    p = book.prove(5, 4, 4, TOP, tmp_path / "none.bk")
    assert p.book_entries == 0 and len(p.drops) > 0
    check_record(PROOFS, "5x4 top table=0 no book", {"drops": p.drops})


def test_without_its_book_the_top_level_drops_a_value(tmp_path: Path) -> None:
    # The first positions where the v1's top level, its book away, drops the exact value
    # (the walk is recorded: test_without_the_book_the_top_level_drops_values): its search
    # alone plays a column that scores less than the best. The first, 21, is on the book's
    # lines (the later ones follow its drop): the book has a best column there.
    drops = record(PROOFS)["5x4 top table=0 no book"]["drops"]
    entries = book.decode(book.book_path(5, 4, 4).read_bytes())
    assert len(drops) > 3 and drops[0] == "21"
    for moves in drops[:3]:
        p = book.Player(5, 4, 4, TOP, tmp_path / "none.bk")
        cmmoves.play_moves(p.board, moves)
        best = book.best_columns(p.board.order, book.Exact(p.board).scores())
        assert p.move() not in best, moves
        if moves == "21":
            assert entries.get(book.key(p.board)) in best


def test_every_book_entry_is_met(proof: book.Proof, table: int) -> None:
    # every book line is a position the level meets (its key is found in the walk), so each
    # line's column is a device move the proof checked: it keeps the exact score (0 drops).
    # A v2's book starts from the v1's lines (for its levels below the top): those its top
    # level does not meet are the v1's, proved by the v1's walk.
    assert proof.drops == []
    assert proof.book_met + len(proof.unmet) == proof.book_entries > 0
    v1 = book.decode(book.book_path(5, 4, 4).read_bytes())
    if table:
        own = book.decode(book.book_path(5, 4, 4, table).read_bytes())
        assert all(k in v1 and v1[k] == own[k] for k in proof.unmet)
        assert v1.items() <= own.items() and proof.unmet
    else:
        assert proof.unmet == []


def test_key_is_the_firmwares() -> None:
    # cmsave.book reads the key the host writes: a one-line book of the position answers
    b = cmboard.Board(5, 4, 4)
    cmmoves.play_moves(b, "3342")
    k = book.key(b)
    assert k == int.from_bytes(bytes(b.cells), "little") % book.KEY_MOD < 2 ** 27
    path = Path(fw.firmware_dir().parent / "build-test.bk")
    saved = cmsave.BOOK
    try:
        path.write_bytes(book.encode({k: 4, k + 1: 1}))
        cmsave.BOOK = str(path)
        assert cmsave.book(b) == 4
        b.undo()
        assert cmsave.book(b) == 255  # another position
    finally:
        cmsave.BOOK = saved
        path.unlink()


def test_decode_rejects_what_is_not_a_book() -> None:
    assert book.decode(b"o\n16\n") == {3: 0, 5: 2}  # 24 = 3 << 3, 42 = 5 << 3 | 2
    assert book.base36(42) == "16" and book.base36(0) == "0"
    for bad in (b"16\no\n", b"o\no\n", b"X1\n", b"-8\n", b"1234567\n"):
        with pytest.raises(book.BookError, match="book line"):
            book.decode(bad)


def run_cli(argv: list[str], stdin: str, capsys: pytest.CaptureFixture[str],
            monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = cli.main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_move_prints_the_devices_columns(capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # Lines of games against the top level on 5x4, the device first and second (its own
    # moves in them): each column `connectm move` prints keeps the exact value (the
    # solver's verdict: the level is perfect there), and they are the columns recorded
    # when the test was written (the emulated device plays them: test_deploy's
    # test_level_plays_the_hosts_moves)
    lines = ["", "24", "244145", "3", "331", "3314225"]
    rc, out, err = run_cli(["move", "--size", "5x4", "--level", "top"], "\n".join(lines) + "\n",
                           capsys, monkeypatch)
    assert rc == 0 and err == ""
    assert out.split("\n") == ["2", "4", "3", "3", "4", "4", ""]
    for moves, column in zip(lines, out.split()):
        b = cmboard.Board(5, 4, 4)
        cmmoves.play_moves(b, moves)
        scores = book.Exact(b).scores()
        assert scores[int(column) - 1] == max(scores.values()), (moves, column, scores)


def test_move_below_the_book_is_the_levels_search(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # Level 3 reads 7x6's book (connectm.book7x6) while fewer than 8 discs are down; here
    # it answers from its search (cmsearch at the level's depth and node budget) both off
    # the book (4453: the device, first, did not play the book's 4 at ply 2) and on it past
    # its plies (44444451: ply 8, where the book's column, 3, is not the search's, 6)
    depth, nodes, plies = levels.levels()[2]
    assert not book.book_path(7, 6, 4).exists() and plies == 8
    rc, out, _ = run_cli(["move", "--size", "7x6", "--level", "3"], "4453\n44444451\n",
                         capsys, monkeypatch)
    assert rc == 0
    monkeypatch.setattr(cmbook, "NAME", str(book.seek_path(7, 6, 4)))
    want = []
    for moves, in_book in (("4453", 255), ("44444451", 2)):
        b = cmboard.Board(7, 6, 4)
        cmmoves.play_moves(b, moves)
        assert (cmbook.find(b), b.n < plies) == (in_book, in_book == 255)
        want.append(str(cmsearch.Search(b, 0, depth).go(depth, nodes) + 1))
    assert want == ["3", "6"] and out.split() == want


@pytest.mark.parametrize("level", ["3", "top"])
def test_move_with_a_table_is_a_search_from_an_empty_one(level: str,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # --table BYTES: a v2's or a Pico's reply, its table cleared before each (cmgame.FRESH):
    # the same column whatever came before, as a fresh search with that table gives; the
    # levels search to cmhw.tabled's depths and nodes on such a board, 7x6: level 3 to
    # cmhw.WIDE's, the top level to cmhw.TOP's (positions off the 7x6 book: the device,
    # first, played no book move)
    import cmhw

    depth, nodes = cmhw.WIDE[:2] if level == "3" else cmhw.TOP
    positions = ["4453", "445566", "4453", "1122", "4453"]
    rc, out, _ = run_cli(["move", "--size", "7x6", "--level", level, "--table", "32768"],
                         "\n".join(positions) + "\n", capsys, monkeypatch)
    assert rc == 0
    want = []
    for moves in positions:
        b = cmboard.Board(7, 6, 4)
        cmmoves.play_moves(b, moves)
        monkeypatch.setattr(cmbook, "NAME", str(book.seek_path(7, 6, 4)))
        assert cmbook.find(b) == 255
        # (a 7x6 board with a table searches as a Pico: cmsearch7)
        want.append(str(cmsearch7.Search(b, 32768, depth).go(depth, nodes) + 1))
    assert out.split() == want
    rc, out, err = run_cli(["move", "--size", "7x6", "--table", "100"], "44\n", capsys,
                           monkeypatch)
    assert rc == 2 and out == "" and err.count("\n") == 1 and "multiple of 8" in err


@pytest.mark.parametrize("stdin,where", [("3\n39\n1\n", "line 2"), ("3\n1111111\n", "line 2"),
                                         ("1212121\n", "line 1")])
def test_move_bad_line(stdin: str, where: str, capsys: pytest.CaptureFixture[str],
                       monkeypatch: pytest.MonkeyPatch) -> None:
    # one line naming the line, exit 2, nothing for the lines after it
    rc, out, err = run_cli(["move", "--size", "5x4"], stdin, capsys, monkeypatch)
    assert rc == 2 and err.count("\n") == 1 and where in err
    assert len(out.split()) == int(where.split()[1]) - 1


def test_prove_output(proof: book.Proof, table: int, capsys: pytest.CaptureFixture[str],
                      monkeypatch: pytest.MonkeyPatch) -> None:
    # The command prints the walk's figures and its exit status says whether the level held.
    # The walk is the recorded one (the fixture's), not a new one (a minute or two each):
    # the command must ask for that very walk, the top level with this table.
    import json

    asked = []
    walks = [proof]  # what the walk returns

    def walked(w: int, h: int, m: int, level: int, book_file: Path | None = None,
               table: int = 0) -> book.Proof:
        asked.append((w, h, m, level, book_file, table))
        return walks[-1]

    monkeypatch.setattr(book, "prove", walked)
    argv = ["prove", "--size", "5x4", "--level", "top", "--table", str(table)]
    assert cli.main(argv + ["--json"]) == 0
    assert asked == [(5, 4, 4, TOP, None, table)]
    out = json.loads(capsys.readouterr().out)
    assert out["value_drops"] == 0 and out["losses"] == 0
    assert out["positions"] == proof.positions and out["max_nodes"] == proof.max_nodes
    assert out["book_entries"] == proof.book_entries > 0
    assert out["book_met"] == proof.book_met and out["book_bytes"] == proof.book_bytes
    # a level that drops a value: exit 1, the drops named
    walks.append(book.Proof(positions=9, drops=["1", "12"], games=3, losses=1, book_entries=4,
                            book_bytes=20, book_met=3))
    assert cli.main(argv) == 1
    text = capsys.readouterr().out
    assert "9 device moves answered, 2 drop the exact value" in text
    assert "3 final positions, 1 lost" in text
    assert "book: 4 entries, 20 bytes, 3 met\n" in text
    assert "drop after 1\ndrop after 12\n" in text


def test_prove_refuses_big_boards(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["prove", "--size", "7x6"]) == 2
    assert "up to 20 cells" in capsys.readouterr().err


def test_exact_scores_are_the_solvers() -> None:
    # Exact.scores: a win now scores (size + 1 - n) // 2, else minus the child's score
    b = cmboard.Board(5, 4, 4)
    cmmoves.play_moves(b, "112233")
    scores = book.Exact(b).scores()
    assert scores[3] == (20 + 1 - 6) // 2  # 4th in the bottom row wins now
    b.play(0)
    s = cmsolve.Solver(b, 1 << 16)
    assert scores[0] == -s.solve()


@pytest.mark.extended
@pytest.mark.parametrize("table", [0, build.V2_TT])
def test_book_build_is_reproducible(table: int, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / fw.book_name(5, 4, 4, table)
    assert cli.main(["book", "--size", "5x4", "--table", str(table), "--out", str(out)]) == 0
    assert out.read_bytes() == book.book_path(5, 4, 4, table).read_bytes()
    assert "entries" in capsys.readouterr().out
