"""Analysis tools on CPython: players, tournament CSV/resume/plots, the search study."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectm import cli, study
from connectm import players as P
from connectm import tournament as T

import cmboard  # noqa: E402  (on sys.path once connectm.players has run fw.load())
import cmmoves  # noqa: E402

# ---- tournament ------------------------------------------------------------------------

TINY = ["tournament", "--sizes", "3x3:3,4x4:3", "--depths", "1-2", "--games", "2",
        "--jobs", "1", "--quiet"]


def tournament(tmp_path: Path, *extra: str) -> int:
    return cli.main(TINY + ["--out", str(tmp_path / "t.csv"), *extra])


def rows_of(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_tournament_counts_add_up(tmp_path: Path) -> None:
    assert tournament(tmp_path) == 0
    rows = rows_of(tmp_path / "t.csv")
    assert len(rows) == 2 * 4 * 2  # sizes x ordered pairs x games
    assert len({T.row_key(r) for r in rows}) == len(rows)
    tab = T.tally(rows)
    assert len(tab) == 2 * 4
    for t in tab.values():
        assert t.win + t.loss + t.draw == 2
    for r in rows:
        b = cmboard.Board(int(r["w"]), int(r["h"]), int(r["m"]))
        cmmoves.play_moves(b, r["moves"])
        assert b.over() == int(r["result"])
        assert int(r["plies"]) == len(r["moves"]) == int(r["moves1"]) + int(r["moves2"])


def test_heatmap_png(tmp_path: Path) -> None:
    import matplotlib.image

    assert tournament(tmp_path) == 0
    png = tmp_path / "t_4x4c3.png"
    assert png.is_file() and png.stat().st_size > 10000
    img = matplotlib.image.imread(png)
    assert img.shape[0] > 300 and img.shape[1] > 300
    assert img[..., :3].std() > 0.05  # not blank
    assert (tmp_path / "t_draws.png").is_file()


def test_levels_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import matplotlib.image

    out = tmp_path / "lv.csv"
    assert cli.main(["tournament", "--levels", "--sizes", "4x4:3", "--baselines", "random",
                     "--games", "1", "--jobs", "1", "--quiet", "--out", str(out)]) == 0
    png = tmp_path / "lv_levels.png"
    assert "wrote %s" % png in capsys.readouterr().out
    img = matplotlib.image.imread(png)
    assert img.shape[0] > 300 and img[..., :3].std() > 0.05  # not blank
    assert cli.main(["tournament", "--levels", "--sizes", "4x4:3", "--baselines", "random",
                     "--games", "1", "--jobs", "1", "--quiet", "--out", str(out),
                     "--no-plots"]) == 0
    assert "no plots (--no-plots)" in capsys.readouterr().out


def test_resume_interrupted_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tournament(tmp_path) == 0
    out = tmp_path / "t.csv"
    full = out.read_bytes()
    lines = full.splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:-3]) + lines[-3][:10])  # killed while writing a row
    capsys.readouterr()
    assert tournament(tmp_path) == 0
    cap = capsys.readouterr()
    assert "half-written" in cap.err and "resuming" in cap.out

    def games(data: bytes) -> list[tuple[str, ...]]:
        return sorted(tuple(r[:13]) for r in csv.reader(data.decode().splitlines()))

    assert games(out.read_bytes()) == games(full)  # the same games, replayed exactly


def test_bad_input_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,c\n1,2,3\n")
    assert cli.main(TINY + ["--out", str(bad)]) == 2
    assert cli.main(["tournament", "--sizes", "7x6", "--out", str(tmp_path / "x.csv")]) == 2
    assert cli.main(["tournament", "--sizes", "2x6:4", "--out", str(tmp_path / "x.csv")]) == 2
    assert cli.main(["tournament", "--players", "engine:x", "--out", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and all(e.startswith("connectm: error: ") for e in err)


def test_a_second_run_on_one_csv_stops(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    # While a run holds the CSV (its lock, as play_all takes it), another run on the same
    # --out stops with one line and leaves the file as it was; once free, it resumes.
    import fcntl

    assert tournament(tmp_path) == 0
    out = tmp_path / "t.csv"
    cut = b"".join(out.read_bytes().splitlines(keepends=True)[:-2]) + b"2x"  # mid-write
    out.write_bytes(cut)
    capsys.readouterr()
    with open(out, "a") as live:
        fcntl.flock(live, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert tournament(tmp_path) == 2
        assert capsys.readouterr().err == (
            "connectm: error: %s is being written by another connectm tournament; let it "
            "finish or use another --out\n" % out)
        assert out.read_bytes() == cut  # its half-written line is not cut
    assert tournament(tmp_path) == 0
    assert "resuming" in capsys.readouterr().out and len(rows_of(out)) == 16


def test_an_unwritable_csv_is_one_line(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t.csv").mkdir()
    assert tournament(tmp_path) == 2
    assert capsys.readouterr().err == "connectm: error: cannot write %s: Is a directory\n" \
        % (tmp_path / "t.csv")
    assert not any((tmp_path / "t.csv").iterdir())


# ---- the engine searching to the end ---------------------------------------------------

def worst_result(b: Any, engine: P.Engine, engine_side: int) -> int:
    """The engine's worst outcome over every reply of the opponent: 1 win, 0 draw, -1 loss."""
    r = b.over()
    if r:
        return 0 if r == 3 else 1 if r == engine_side else -1
    if 1 + (b.n & 1) == engine_side:
        b.play(engine.choose(b))
        out = worst_result(b, engine, engine_side)
        b.undo()
        return out
    worst = 1
    for c in P.legal(b):
        b.play(c)
        worst = min(worst, worst_result(b, engine, engine_side))
        b.undo()
    return worst


@pytest.mark.parametrize("side", [1, 2])
def test_engine_never_loses_3x3c3(side: int) -> None:
    b = cmboard.Board(3, 3, 3)
    assert worst_result(b, P.Engine(9), side) == 0  # a draw with perfect play
    result, _, _ = P.play_game(3, 3, 3, P.Engine(9), P.Engine(9))
    assert result == 3


def test_engine_wins_4x4c3_first() -> None:
    b = cmboard.Board(4, 4, 3)
    assert worst_result(b, P.Engine(16), 1) == 1


# ---- greedy against brute force ---------------------------------------------------------

def completes(b: Any, col: int, p: int) -> bool:
    """Brute force: with p's disc on top of col, is any length-m window all p's?"""
    w, h, m = b.w, b.h, b.m
    grid = {(c, r): b.cells[c * h + r] for c in range(w) for r in range(h)}
    grid[(col, b.heights[col])] = p
    for c0 in range(w):
        for r0 in range(h):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                if all(grid.get((c0 + k * dc, r0 + k * dr)) == p for k in range(m)):
                    return True
    return False


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([(3, 3, 3), (4, 4, 3), (5, 4, 4), (7, 6, 4), (6, 5, 4)]),
       st.lists(st.integers(0, 8), max_size=30))
def test_greedy_wins_and_blocks(size: tuple[int, int, int], picks: list[int]) -> None:
    b = cmboard.Board(*size)
    for k in picks:
        cols = P.legal(b)
        if not cols or b.over():
            break
        c = cols[k % len(cols)]
        me = 1 + (b.n & 1)
        if completes(b, c, me):
            break  # keep the game going: positions, not finished games
        b.play(c)
    if b.over():
        return
    me = 1 + (b.n & 1)
    cols = P.legal(b)
    wins = [c for c in cols if completes(b, c, me)]
    blocks = [c for c in cols if completes(b, c, 3 - me)]
    choice = P.Greedy().choose(b)
    assert choice in cols
    if wins:
        assert choice in wins
    elif blocks:
        assert choice in blocks
    else:
        assert choice == next(c for c in b.order if c in cols)


# ---- Monte-Carlo, specs -----------------------------------------------------------------

def test_montecarlo_reproducible() -> None:
    b = cmboard.Board(7, 6, 4)
    cmmoves.play_moves(b, "4453")
    picks = {P.MonteCarlo(30, seed=7).choose(b) for _ in range(3)}
    assert len(picks) == 1
    g1 = P.play_game(5, 4, 4, P.MonteCarlo(20, 3), P.MonteCarlo(20, 4))
    g2 = P.play_game(5, 4, 4, P.MonteCarlo(20, 3), P.MonteCarlo(20, 4))
    assert g1[:2] == g2[:2]
    assert cmmoves.moves(b) == "4453"  # playouts leave the board as it was


def test_player_specs() -> None:
    assert P.make_player("Engine:3").name == "engine:3"
    assert P.make_player("mc:50").name == "mc:50"
    assert isinstance(P.make_player("level:1"), P.Level)
    for bad in ("engine", "engine:0", "mc:0", "level:99", "bogus", "random:3", "greedy@0",
                "greedy@x", "bogus@2"):
        with pytest.raises(ValueError):
            P.parse_spec(bad)


def test_random_start_varies_the_opening_of_one_player() -> None:
    # greedy@3: its moves before ply 3 seeded random, then greedy's own; the other side
    # (greedy, deterministic) plays its own moves from the first ply
    assert P.canonical("Greedy@3") == "greedy@3"
    games = {P.play_game(7, 6, 4, P.make_player("greedy@3", s), P.Greedy())[1]
             for s in range(8)}
    assert len(games) > 4
    again = P.play_game(7, 6, 4, P.make_player("greedy@3", 5), P.Greedy())[1]
    assert again == P.play_game(7, 6, 4, P.make_player("greedy@3", 5), P.Greedy())[1]
    for g in games:
        b = cmboard.Board(7, 6, 4)
        for i, ch in enumerate(g):
            if i >= 3 or i == 1:  # greedy's moves: from ply 3 on, and the other side's
                assert int(ch) - 1 == P.Greedy().choose(b), (g, i)
            b.play(int(ch) - 1)


# ---- the study --------------------------------------------------------------------------

def test_study_alphabeta_vs_minimax() -> None:
    pos = study.positions(study.default_testset())
    assert len(pos) >= 2
    for p in pos:
        b = p.board()
        for d in range(1, 5 if p.w * p.h > 20 else 6):
            mm_nodes, mm_score = study.search_variant(b, "minimax", d)
            for v in ("ab-left", "ab-centre"):
                nodes, score = study.search_variant(b, v, d)
                assert score == mm_score, (p.name, v, d)
                assert nodes <= mm_nodes, (p.name, v, d)
            s = P.cmsearch.Search(b)  # the engine without TT finds the same value
            s.go(d)
            if abs(mm_score) < cmboard.WIN:
                assert s.score == mm_score and s.depth == d, (p.name, d)
        assert cmmoves.moves(b) == p.moves


def test_study_fit() -> None:
    rs = [study.Result("x", "v", d, 3 * 5 ** d, 0, 0.0) for d in range(1, 6)]
    f = study.fit(rs)
    assert f.b == pytest.approx(5.0) and f.a == pytest.approx(3.0)


def test_study_reports_speeds_it_explains(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "study.png"
    assert cli.main(["bench", "--study", "--study-depth", "3", "--study-limit", "0.2",
                     "--study-png", str(png)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    # One rate per variant and position, and what sets the rates apart, said in words
    # (the old "play/undo share" was 0% once the engine inlined make/unmake).
    assert "nodes per second" in out and "engine / minimax" in out
    assert "share" not in out
    assert "calls Board.play and Board.undo for every move" in out
    rates = re.findall(r"│ 5x4 empty\s+│\s+(\d+)\s+│\s+(\d+)\s+│\s+(\d+)\s+│\s+(\d+)\s+│", out)
    assert rates and all(int(x) > 0 for x in rates[-1])
    assert png.is_file()
