"""Levels from data: value-keeping moves (connectm.keeping), the levels' exact chances
against the perfect player, and `connectm tournament --levels --share`."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path
from typing import Any

import pytest

from conftest import check_record, record
from connectm import book, build, cli, levels
from connectm import keeping as K


def test_sample_is_fixed_and_exact() -> None:
    # Positions the top level meets against seeded random moves, its turn; exact scores.
    ps = K.sample(5, 4, 4, 3, 1)
    assert ps == [K.Position("33423", {0: 0, 1: 1, 2: 0, 3: 1, 4: 0}),
                  K.Position("244342", {0: 0, 1: 1, 2: 0, 3: 0, 4: 1}),
                  K.Position("42244", {0: -1, 1: 0, 2: -1, 3: -1, 4: -1})]
    rows = K.shares(5, 4, 4, ps)
    assert [(r["level"], r["kept"], r["share"]) for r in rows] == [
        (1, 1, "0.3333"), (2, 2, "0.6667"), (3, 2, "0.6667"), (4, 2, "0.6667"),
        (5, 3, "1.0000"), ("random", "1.0", "0.3333")]
    assert [r["name"] for r in rows[:-1]] == list(levels.NAMES)


def test_sample_late_7x6_within_nodes() -> None:
    ps = K.sample(7, 6, 4, 3, 1, from_ply=16, max_nodes=200000)
    assert [p.moves for p in ps] == ["4442655753345534", "454334513315455114",
                                     "24554456465412552"]
    assert ps[2].scores == {0: -8, 1: 2, 2: -9, 3: -9, 5: -9, 6: -8}
    assert [r["kept"] for r in K.shares(7, 6, 4, ps)][:5] == [1, 2, 3, 3, 3]


def test_no_sample_within_nodes() -> None:
    with pytest.raises(ValueError, match="no 1 positions from ply 16 within 1 nodes"):
        K.sample(7, 6, 4, 1, 1, from_ply=16, max_nodes=1)


# The levels' exact chances against the perfect player (a walk of the game tree: ~30 s a
# board) are recorded in tests/data/levels.json with the levels and the book they were
# computed for; the extended tier computes them again and compares.
RECORD = "levels.json"


def against_perfect(table: int) -> dict[str, Any]:
    """The record: the levels (depth, nodes, book plies), the book's digest, and each
    level's (win, draw, loss) chances moving first and second."""
    return {"levels": list(levels.on_board(table, 5, 4)),
            "book_sha256": hashlib.sha256(book.book_path(5, 4, 4, table).read_bytes())
            .hexdigest(),
            "chances": [[list(K.against_perfect(5, 4, 4, lv, device, table))
                         for device in (1, 2)] for lv in range(levels.count())]}


@pytest.mark.extended
@pytest.mark.parametrize("table", [0, build.V2_TT], ids=["v1", "v2-table"])
def test_the_chances_are_the_recorded_ones(table: int) -> None:
    check_record(RECORD, "5x4 table=%d" % table, against_perfect(table))


@pytest.mark.parametrize("table", [0, build.V2_TT], ids=["v1", "v2-table"])
def test_5x4_levels_rise_strictly_against_perfect(table: int) -> None:
    # Exact chances (no sampling): each level draws more often with the perfect player, as
    # first and second player together, than the level below; the top level always draws.
    # On a micro:bit v1 and on a v2 (its table, its book: docs/books-and-proof.md).
    # The chances are the record's, made with these levels and this book.
    rec = record(RECORD)["5x4 table=%d" % table]
    assert rec["levels"] == list(levels.on_board(table, 5, 4))
    assert rec["book_sha256"] == hashlib.sha256(
        book.book_path(5, 4, 4, table).read_bytes()).hexdigest()
    points = []
    for first, second in rec["chances"]:
        assert first[0] == second[0] == 0.0  # 5x4 is a draw: nobody beats perfect play
        points.append((first[1] + second[1]) / 2)
    assert points[-1] == 1.0
    assert all(a < b for a, b in zip(points, points[1:])), points
    assert points[0] == pytest.approx(0.3264, abs=1e-4)  # beginner: a draw a third of the time


def test_tournament_share(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lv.csv"
    assert cli.main(["tournament", "--levels", "--sizes", "5x4:4", "--baselines", "random",
                     "--games", "1", "--jobs", "1", "--quiet", "--share", "3",
                     "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "5x4:4   2      casual               3        2   66.7%" in text
    with open(tmp_path / "lv_share.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["level"], r["kept"], r["from_ply"], r["max_nodes"]) for r in rows] == [
        ("1", "1", "0", "0"), ("2", "2", "0", "0"), ("3", "2", "0", "0"), ("4", "2", "0", "0"),
        ("5", "3", "0", "0"), ("random", "1.0", "0", "0")]
    assert (tmp_path / "lv_levels.png").stat().st_size > 10000


@pytest.mark.parametrize("flags", [["--share", "3"], ["--pico"]])
def test_share_and_pico_need_levels(flags: list[str], capsys: pytest.CaptureFixture[str],
                                    tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    assert cli.main(["tournament", *flags, "--games", "1", "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip().endswith("%s needs --levels" % flags[0])
    assert not out.exists()


@pytest.mark.parametrize("seed,safe", [(1, "2251571346554736"), (2, "2153164457271522"),
                                       (3, "6273454672776344")])
def test_safe_opening_hands_no_win(seed: int, safe: str) -> None:
    # --safe-opening: after each of its moves the opponent cannot win at once; the same
    # seed's plain random opening lets it (seed 1: after 16 plies, in column 5 or 6).
    from connectm import players as P
    from connectm import tournament as T

    def hands_wins(moves: str) -> int:
        b = P.cmboard.Board(7, 6, 4, keys=0)
        count = 0
        for ch in moves:
            b.play(int(ch) - 1)
            me = 1 + (b.n & 1)
            count += any(P.wins_now(b, c, me) for c in P.legal(b))
        return count

    assert T.random_opening(7, 6, 4, 16, seed, safe=True) == safe
    assert hands_wins(safe) == 0
    assert hands_wins(T.random_opening(7, 6, 4, 16, seed)) > 0


def wins_within(g, moves: str, k: int) -> bool:
    # Brute force, no code shared with the firmware (tests/refsolve's Grid): can the side to
    # move force a win with one of its discs among the next k plies?
    cols = [c for c in "1234567" if moves.count(c) < 6]
    if any(g.after(moves + c)[1] for c in cols):
        return True
    return k >= 3 and any(all(not g.after(moves + c + d)[1] and wins_within(g, moves + c + d,
                                                                            k - 2)
                              for d in "1234567" if (moves + c).count(d) < 6) for c in cols)


def decided_within(g, moves: str, k: int) -> bool:
    # ... or must the side to move let the other side force one?
    cols = [c for c in "1234567" if moves.count(c) < 6]
    return wins_within(g, moves, k) or all(wins_within(g, moves + c, k - 1) for c in cols)


@pytest.mark.parametrize("seed,safe,fair", [(21, "4734", "4735"), (58, "4437", "4432")])
def test_fair_openings_leave_no_quick_forced_win(seed: int, safe: str, fair: str) -> None:
    # --fair-opening 5: a 4-ply opening where a side forces a win within 5 plies (two discs
    # side by side on an open bottom row) is drawn again at its last move
    import refsolve

    from connectm import tournament as T

    g = refsolve.Grid(7, 6, 4)
    assert T.random_opening(7, 6, 4, 4, seed, safe=True) == safe
    assert decided_within(g, safe, 5)
    assert T.random_opening(7, 6, 4, 4, seed, safe=True, fair=5) == fair
    assert not decided_within(g, fair, 5)


def test_levels_share_seeds() -> None:
    # --levels: game g of every level against one opponent and colour has one seed.
    from connectm import tournament as T

    pairs = [("level:1", "random"), ("level:2", "random"), ("random", "level:1")]
    jobs = T.make_jobs([(5, 4, 4)], pairs, 2, 1, 0, paired=True)
    seeds = {(j.side1, j.side2, j.game): j.seed for j in jobs}
    assert seeds[("level:1", "random", 0)] == seeds[("level:2", "random", 0)]
    assert seeds[("level:1", "random", 1)] == seeds[("level:2", "random", 1)]
    assert len({seeds[("level:1", "random", 0)], seeds[("level:1", "random", 1)],
                seeds[("random", "level:1", 0)]}) == 3
    unpaired = T.make_jobs([(5, 4, 4)], pairs, 1, 1, 0)
    assert unpaired[0].seed != unpaired[1].seed
    # --levels --pico: a Pico's levels meet the very games the levels without a table meet
    pico = T.make_jobs([(5, 4, 4)], T.level_pairs(["random"], "pico"), 2, 1, 0, paired=True)
    assert {(j.side1.replace("pico", "level"), j.side2.replace("pico", "level"), j.game):
            j.seed for j in pico} == {(j.side1, j.side2, j.game): j.seed for j in
                                      T.make_jobs([(5, 4, 4)], T.level_pairs(["random"]), 2, 1,
                                                  0, paired=True)}


@pytest.mark.parametrize("flag", ["--share", "--share-from", "--share-nodes"])
def test_share_flags_not_negative(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tournament", "--levels", flag, "-1", "--games", "1"]) == 2
    assert "must be >= 0" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--opening", "--fair-opening"])
def test_opening_flags_not_negative(flag: str, capsys: pytest.CaptureFixture[str],
                                    tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    assert cli.main(["tournament", flag, "-1", "--games", "1", "--out", str(out)]) == 2
    assert "--opening and --fair-opening must be >= 0" in capsys.readouterr().err
    assert not out.exists()
