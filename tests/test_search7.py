"""The Pico's 7x6 search (firmware/cmsearch7.py): its threat bookkeeping, made
incrementally inside the search loop, against a recount from scratch; its scores against a
plain negamax over the same evaluation and the same immediate-threat rules; recorded moves,
scores and node counts, the same on CPython and the MicroPython unix port (its viper build,
and no allocation per node there: tests/test_compiled.py); and that only a Pico's build has
it."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

import harness
from connectm import book, build, fw, levels, minify
from connectm.players import wins_now
from test_book7x6 import bitbully, needs_bitbully  # noqa: F401 (a fixture)

fw.load()
import cmboard  # noqa: E402
import cmmoves  # noqa: E402
import cmsearch  # noqa: E402
import cmsearch7  # noqa: E402

WIN = 65536
DATA = Path(__file__).resolve().parent / "data"


def random_position(rng: random.Random, most: int) -> object:
    """A 7x6 board after up to ``most`` random moves, not over."""
    b = cmboard.Board(7, 6, 4)
    for _ in range(rng.randrange(0, most)):
        b.play(rng.choice([c for c in range(7) if b.can_play(c)]))
        if b.over():
            b.undo()
            break
    return b


def counts(s: object) -> tuple[bytes, bytes, list[int]]:
    return bytes(s.t1), bytes(s.t2), list(s.cv)  # type: ignore[attr-defined]


def test_incremental_threats_equal_a_recount() -> None:
    # The search calls poll() every SLICE nodes, in the middle of its make/unmake
    # sequences: there (and after the search) the incremental counts and column values
    # must be what threats() recounts from the window states.
    rng = random.Random(48)
    polls = 0
    for _ in range(60):
        b = random_position(rng, 34)
        s = cmsearch7.Search(b, 1 << 16)
        seen = []

        def poll(nodes: int) -> bool:
            before = counts(s)
            s.threats()
            seen.append(before == counts(s))
            return False

        s.poll = poll
        s.go(14, 2000)
        polls += len(seen)
        assert all(seen), cmmoves.moves(b)
        before = counts(s)
        s.threats()
        assert before == counts(s)
    assert polls > 300


def evaluate(b: object, s: object) -> int:
    """The leaf score from scratch, for the side that just moved."""
    v = s.windows() + s.threats()  # type: ignore[attr-defined]
    return v if b.n & 1 else -v  # type: ignore[attr-defined]


def negamax(b: object, s: object, depth: int, root: bool = True) -> int:
    """cmsearch7's score by brute force: the same leaves, and below the root the same
    immediate-threat rules (a playable win; two threats to block lose; one must be
    blocked; no disc under the other side's threat)."""
    n = b.n  # type: ignore[attr-defined]
    me = 1 + (n & 1)
    cols = [c for c in range(7) if b.can_play(c)]  # type: ignore[attr-defined]
    skip: set[int] = set()
    if not root:
        if any(wins_now(b, c, me) for c in cols):
            return WIN * ((42 + 1 - n) // 2)
        block = [c for c in cols if wins_now(b, c, 3 - me)]
        if len(block) > 1:
            return -WIN * ((42 - n) // 2)
        for c in cols:
            b.play(c)  # type: ignore[attr-defined]
            if not b.won and b.can_play(c) and wins_now(b, c, 3 - me):  # type: ignore
                skip.add(c)
            b.undo()  # type: ignore[attr-defined]
        if block:
            skip |= set(cols) - set(block)
        if skip >= set(cols):
            return -WIN * ((42 - n) // 2)
    best = -(1 << 40)
    for c in cols:
        if c in skip:
            continue
        b.play(c)  # type: ignore[attr-defined]
        if b.won:  # type: ignore[attr-defined]
            v = WIN * ((42 + 2 - b.n) // 2)  # type: ignore[attr-defined]
        elif b.n == 42:  # type: ignore[attr-defined]
            v = 0
        elif depth == 1:
            v = evaluate(b, s)
        else:
            v = -negamax(b, s, depth - 1, False)
        b.undo()  # type: ignore[attr-defined]
        best = max(best, v)
    return best


def test_scores_are_the_brute_force_ones() -> None:
    # Depth 1: leaves scored by the incremental path; 2 and 3: frontier nodes scoring
    # their leaves without playing them, and the threat rules at the children.
    rng = random.Random(7)
    n = 0
    for _ in range(60):
        b = random_position(rng, 36)
        s = cmsearch7.Search(b, 0)
        for depth in (1, 2, 3):
            s.go(depth)
            if s.depth == depth:
                assert s.score == negamax(b, s, depth), (cmmoves.moves(b), depth)
                n += 1
    assert n > 100


# The Pico's top level: its table (levels.PICO_TABLE) and budget (cmhw.TOP), as `connectm
# move --table 199680` plays it past the book. Recorded from this search: move, score,
# depth, nodes (the last, at ply 16, with the hand-set weights: as before the fit).
CASES = ["", "4453", "3641443556", "44444326", "2435476443424233"]
RECORDED = ["3 360 7 10341", "3 -8 8 10471", "4 133 9 10315", "2 139 7 10286",
            "2 472 9 10299"]
CODE = """import cmboard
import cmsearch7
for mv in %r:
    b = cmboard.Board(7, 6, 4)
    for c in mv:
        b.play(int(c) - 1)
    s = cmsearch7.Search(b, %d)
    s.go(20, 10240)
    print(s.move, s.score, s.depth, s.nodes)
"""


@pytest.mark.parametrize("interp", ["cpython", "mpy-unix"])
def test_recorded_top_level_searches(interp: str, request: pytest.FixtureRequest) -> None:
    runner = request.getfixturevalue(interp.replace("-", "_"))
    out = runner.run(CODE % (CASES, levels.PICO_TABLE), timeout=300)
    assert [x.strip() for x in out.splitlines() if x.strip()] == RECORDED


def test_only_a_pico_builds_it() -> None:
    for name in ("microbit", "microbit-v2"):
        assert "cmsearch7" not in {i.source.stem for i in build.plan(build.BOARDS[name]).items}
    for name in ("pico-max7219", "pico-neopixel"):
        assert "cmsearch7" in {i.source.stem for i in build.plan(build.BOARDS[name]).items}


def test_one_search_loop_for_every_board() -> None:
    # cmsearch7 gives cmsearch's loop its per-move work (Search.work) and has no loop of
    # its own. The micro:bit builds' cmsearch is the window search alone, byte for byte as
    # the source without its THREATS blocks (build.unswitched keeps their else blocks); a
    # Pico's is the threat search alone: its every search is cmsearch7's.
    assert "go" not in vars(cmsearch7.Search) and cmsearch7.Search.work[0] is cmsearch7.make
    src = (fw.firmware_dir() / "cmsearch.py").read_text()
    windows = build.unswitched(src, "THREATS")
    threats = build.unswitched(src, "THREATS", on=True)
    for text in (windows, threats):
        compile(text, "cmsearch.py", "exec")
        assert not re.search(r"(?m)^ *if THREATS", text) and "else:\n" in text
    def names(text: str) -> set[str]:
        return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(ast.parse(text))
                if isinstance(n, (ast.Name, ast.Attribute))}

    assert {"cut", "store"} <= names(windows) and not {"th", "make", "work"} & names(windows)
    assert {"th", "make", "unmake", "leaves"} <= names(threats)
    assert not {"cut", "store"} & names(threats)
    pico = next(i for i in build.plan(build.BOARDS["pico-max7219"]).items
                if i.name == "cmsearch.py")
    assert pico.data.decode() == build.pico_source(src)
    # (nor the seeded ties and the time budget: a Pico's game never asks for them)
    assert {"seed", "max_ms", "ticks_ms"} <= names(threats)
    assert not {"seed", "max_ms", "ticks_ms"} & names(build.pico_source(src))


def test_unswitched_keeps_a_blocks_else_or_its_body() -> None:
    text = ("def f(x):\n    if S and x:\n        # on\n        a = 1\n        if x:\n"
            "            b = 2\n    else:\n        # off\n        a = 3\n    if S:\n"
            "        c = 4\n    return a\n")
    assert build.unswitched(text, "S") == ("def f(x):\n    # off\n    a = 3\n"
                                           "    return a\n")
    assert build.unswitched(text, "S", on=True) == (
        "def f(x):\n    # on\n    a = 1\n    if x:\n        b = 2\n    c = 4\n"
        "    return a\n")
    with pytest.raises(ValueError, match="elif"):
        build.unswitched("if S:\n    a = 1\nelif b:\n    a = 2\n", "S")


def test_a_threat_searchs_gain_stays_below_hit() -> None:
    # The loop reads a disc's gain d of HIT or more as a win (the window search's gains say
    # so); the threat search sets d = HIT for a disc on its own side's threat, so no other
    # gain may reach it: a disc's windows' largest gains, and every column's threat value
    # moving from its least to its most, with each weight set (fitted, and from ply HAND).
    hit = 32768
    for mv in ("", "4453444326517", "2435476443424233"):
        b = cmboard.Board(7, 6, 4)
        cmmoves.play_moves(b, mv)
        s = cmsearch7.Search(b, 0)
        uu = b.u * b.u  # type: ignore[attr-defined]
        gain = [max(abs(g[j * uu + t] - cmsearch7.BIAS) for g in (s.g1, s.g2)  # type: ignore
                    for t in range(uu)) for j in range(len(b.st))]  # type: ignore
        windows = max(sum(gain[b.wins[k]] for k in range(b.wstart[e], b.wstart[e + 1]))
                      for e in range(b.size))  # type: ignore[attr-defined]
        wt = [v - cmsearch7.BIAS for v in s.wt]  # type: ignore[attr-defined]
        columns = 7 * 5 * (abs(wt[0]) + abs(wt[1])) + sum(
            max(abs(wt[2 + 4 * e]), abs(wt[3 + 4 * e])) + max(abs(wt[4 + 4 * e]),
                                                             abs(wt[5 + 4 * e]))
            for e in range(42))
        assert s.t[1] == (len(mv) < cmsearch7.HAND)  # type: ignore[attr-defined]
        assert windows + columns < hit, (mv, windows, columns)


def test_a_picos_source_has_the_viper_functions() -> None:
    # A Pico given source (mip, or a board without .mpy) compiles the work per move as viper
    # code (build.VIPER: its firmware has the emitter), which go() passes the arrays'
    # addresses (VIPER on: uctypes.addressof); the page's MicroPython (no emitter) and the
    # host run them as written, given the arrays
    source = (fw.firmware_dir() / "cmsearch7.py").read_text()
    for emitter in (True, False):
        for name in ("pico-max7219", "pico-neopixel"):
            item = next(i for i in build.plan(build.BOARDS[name], emitter=emitter).items
                        if i.source.stem == "cmsearch7")
            text = item.data.decode()
            assert text.count("@micropython.viper\n") == (
                len(build.VIPER["cmsearch7"]) if emitter else 0)
            assert text.replace("@micropython.viper\n", "") == (
                minify.unswitched(source, "VIPER", on=True) if emitter else source)
            assert ("\nfrom uctypes import addressof\n" in text) == emitter
            assert ("\n    addressof = ptr8" in text) == (not emitter)


def test_the_host_plays_as_the_pico() -> None:
    # A table on a board larger than 5x4: cmsearch7, as cmpico sets it up; the micro:bit
    # v2's 5x4 (a table) and a micro:bit v1 (none) keep cmsearch.
    assert type(book.Player(7, 6, 4, 4, table=levels.PICO_TABLE).search) is cmsearch7.Search
    assert type(book.Player(5, 4, 4, 4, table=32768).search) is cmsearch.Search
    assert type(book.Player(7, 6, 4, 4).search) is cmsearch.Search


# ---------------------------------------------------------------- the fitted weights (cmfit7)

def test_the_fits_terms_are_the_searchs_evaluation() -> None:
    # The weights are fitted to the terms tools/fit7x6.py reads off a position: with
    # cmfit7's weights on them (no bias, no side to move) they sum to the score cmsearch7
    # starts from, its windows' worth and its threats (before ply cmsearch7.HAND).
    import cmfit7

    tool = harness.load_tool("fit7x6")
    terms = tool.Terms()  # type: ignore[attr-defined]
    w = list(cmfit7.WINDOWS) + list(cmfit7.THREATS) + list(cmfit7.STACKS) + [0, 0]
    rng = random.Random(11)
    for _ in range(80):
        b = random_position(rng, cmsearch7.HAND)
        mv = cmmoves.moves(b)
        s = cmsearch7.Search(b, 0)
        want = s.windows() + s.threats()  # type: ignore[attr-defined]
        for mirror in (False, True):
            got = sum(w[j] for j in terms.of(mv, mirror))  # type: ignore[attr-defined]
            if mirror:
                m = cmboard.Board(7, 6, 4)
                cmmoves.play_moves(m, "".join(str(8 - int(c)) for c in mv))
                s2 = cmsearch7.Search(m, 0)
                assert got == s2.windows() + s2.threats(), mv  # type: ignore[attr-defined]
            else:
                assert got == want, mv


def test_the_weights_follow_the_ply() -> None:
    # One search object plays a whole game (book.Player, cmgame): its weights change at
    # ply HAND, both ways (a new game), and its searches are a new object's.
    b = cmboard.Board(7, 6, 4)
    s = cmsearch7.Search(b, 1 << 16)
    for mv in ("44", "4453444326517", "2435476443424233", "243547644342423377", "3"):
        b.reset()
        cmmoves.play_moves(b, mv)
        s.tt.clear()  # type: ignore[attr-defined]  (as the game does before each reply)
        s.go(8, 3000)
        fresh = cmsearch7.Search(b, 1 << 16)
        fresh.go(8, 3000)
        assert (s.move, s.score, s.nodes) == (fresh.move, fresh.score, fresh.nodes), mv
        assert s.t[1] == (len(mv) < cmsearch7.HAND), mv  # type: ignore[attr-defined]


def test_no_evaluation_reaches_a_win() -> None:
    # A score of WIN or more is a win: every window's and threat's largest weight summed
    # (more than any position can hold) stays below it. (It is above the board's 16-bit
    # undo history: cmsearch7 keeps its own, of 32 bits.)
    import cmfit7

    most = sum(max(abs(v) for v in cmfit7.WINDOWS[6 * j:6 * j + 6]) for j in range(69))
    most += sum(abs(v) for v in cmfit7.THREATS) + 42 * max(abs(v) for v in cmfit7.STACKS)
    assert most < WIN
    assert cmsearch7.Search(cmboard.Board(7, 6, 4), 0).past.typecode == "i"  # type: ignore


@pytest.mark.extended
def test_fitting_the_checked_in_positions_writes_cmfit7(tmp_path: Path) -> None:
    tool = harness.load_tool("fit7x6")
    out = tmp_path / "cmfit7.py"
    assert tool.main(["fit", str(DATA / "fit7x6.txt.gz"), "--out", str(out)]) == 0  # type: ignore
    assert out.read_text() == (fw.firmware_dir() / "cmfit7.py").read_text()


@needs_bitbully
def test_leaves_are_random_descendants_labelled_exactly(tmp_path: Path) -> None:
    # fit7x6 leaves: from the roots (plies 4-13) of a positions file, 4 to 10 random plies
    # (fewer where a side can complete a line), each position once, not over, with its
    # exact score as collect gives it; the same file on every run, a longer run's first lines.
    from connectm import exact7x6

    tool = harness.load_tool("fit7x6")
    base = tmp_path / "base.txt"
    base.write_text("44 0\n4453 1\n3641443556 2\n")
    runs = []
    for count in (6, 6, 9):
        out = tmp_path / ("leaves%d.txt" % len(runs))
        assert tool.main(["leaves", str(base), str(count), str(out), "--seed", "3"]) == 0
        runs.append(out.read_text().splitlines())
    assert runs[0] == runs[1] == runs[2][:6] and len(runs[2]) == 9
    assert all(mv.startswith(("4453", "3641443556")) for mv in runs[2])  # (44: ply 2)
    for line in runs[2]:
        mv, score = line.split()
        root = 4 if mv.startswith("4453") else 10
        assert len(mv) <= root + 10, mv
        b = cmboard.Board(7, 6, 4)
        cmmoves.play_moves(b, mv)
        assert not b.over() and int(score) == max(exact7x6.scores(b).values()), mv
    base.write_text("44 0\n")
    for count in ("0", "6"):
        with pytest.raises(SystemExit):
            tool.main(["leaves", str(base), count, str(tmp_path / "none.txt")])  # type: ignore
    assert not (tmp_path / "none.txt").exists()


def test_a_tanh_fit_reads_the_outcome_through_tanh() -> None:
    # fit --tanh STEPS (a study's fit, docs/pico-7x6.md): from the linear fit, fixed steps of
    # Adam on the least squares of tanh(x w) - y; on targets that tanh of a linear sum makes,
    # it lowers the loss the linear fit leaves, the same on every run
    import numpy as np

    tool = harness.load_tool("fit7x6")
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2, (400, 6)).astype(float)
    y = np.tanh(x @ np.array([2.0, -1.5, 1.0, 0.5, -2.0, 0.0]))
    w0 = np.linalg.solve(x.T @ x + np.eye(6), x.T @ y)
    w = tool.fit_tanh(x, y, w0, 1.0, 300)  # type: ignore[attr-defined]

    def loss(v: object) -> float:
        return float(((np.tanh(x @ v) - y) ** 2).sum())

    assert loss(w) < loss(w0) / 4
    assert (tool.fit_tanh(x, y, w0, 1.0, 300) == w).all()  # type: ignore[attr-defined]


# ---------------------------------------------------------------- tools/pico_replies.py

class BootingBoard:
    """A fake board for stopped_game: its game's names made or not, a soft reset's lines."""

    def __init__(self, booted: bool, lines: list[bytes]) -> None:
        self.booted = booted
        self.lines = lines
        self.timeout = None
        self.sent: list[bytes] = []
        self.serial = self

    def __call__(self, port: str, baud: int) -> "BootingBoard":
        return self

    def enter_raw_repl(self, soft_reset: bool) -> None:
        self.sent.append(b"raw")

    def exit_raw_repl(self) -> None:
        self.sent.append(b"friendly")

    def exec_raw(self, code: str, timeout: int) -> tuple[bytes, bytes]:
        return (b"True\r\n" if self.booted else b"False\r\n"), b""

    def write(self, data: bytes) -> None:
        self.sent.append(data)
        self.booted = b"B 7x6\r\n" in self.lines

    def readline(self) -> bytes:
        return self.lines.pop(0) if self.lines else b""


def test_pico_replies_boots_a_board_stopped_while_it_booted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Ctrl-C right after a deploy can stop the boot before it made the game's search: the
    # tool then soft-resets and waits for the game (its B line); a board that never plays
    # ends the tool with one line, within its wait
    tool = harness.load_tool("pico_replies")
    up = BootingBoard(True, [])
    monkeypatch.setattr(tool, "SerialTransport", up)
    assert tool.stopped_game("tty") is up and up.sent == [b"raw"]
    down = BootingBoard(False, [b"MPY: soft reboot\r\n", b"T 147456\r\n", b"B 7x6\r\n"])
    monkeypatch.setattr(tool, "SerialTransport", down)
    assert tool.stopped_game("tty") is down
    assert down.sent == [b"raw", b"friendly", b"\x04", b"raw"] and down.timeout is None
    silent = BootingBoard(False, [])
    monkeypatch.setattr(tool, "SerialTransport", silent)
    with pytest.raises(SystemExit, match="no game within 0 s"):
        tool.stopped_game("tty", wait=0.01)


# ---------------------------------------------------------------- tools/pico_keeps.py

@needs_bitbully
def test_pico_keeps_counts_the_moves_that_keep_the_outcome(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # collect: the top level's positions before ply 16 where the outcomes differ, each with
    # its columns' exact outcomes; count: how many of its moves there keep the best one.
    from connectm import exact7x6, players

    tool = harness.load_tool("pico_keeps")
    out = tmp_path / "keeps.txt"
    assert tool.main(["collect", "greedy", "1", str(out), "--games", "1"]) == 0  # type: ignore
    lines = [line.split() for line in out.read_text().splitlines()]
    assert lines
    p = players.make_player("pico-search")
    kept = 0
    for mv, o in lines:
        b = cmboard.Board(7, 6, 4)
        cmmoves.play_moves(b, mv)
        sc = exact7x6.scores(b)
        assert 4 <= len(mv) < 16 and len(o) == 7 and len(set(o) - {"x"}) > 1, mv
        assert o == "".join("x" if c not in sc else "-0+"[(sc[c] > 0) - (sc[c] < 0) + 1]
                            for c in range(7)), mv
        kept += o[p.choose(b)] == max(o.replace("x", ""), key="-0+".index)
    capsys.readouterr()
    assert tool.main(["count", str(out)]) == 0  # type: ignore
    assert capsys.readouterr().out.strip().endswith("all: %d of %d" % (kept, len(lines)))
    text = out.read_text()
    (tmp_path / "bad.txt").write_text("4453 0+0++00\n4453 0+0++0\n")
    for bad, why in ((["collect", "greedy", "x", str(out)], "invalid literal"),
                     (["collect", "greedy", "1", str(out), "--games", "0"], "--games must be"),
                     (["collect", "bogus", "1", str(out)], "bad player 'bogus'"),
                     (["count", str(out), "--nodes", "0"], "--nodes must be at least 1"),
                     (["count", str(tmp_path / "bad.txt")], "bad.txt line 2: not MOVES")):
        with pytest.raises(SystemExit):
            tool.main(bad)  # type: ignore
        assert why in capsys.readouterr().err.splitlines()[-1]
    assert out.read_text() == text


# ---------------------------------------------------------------- tools/pico_cells.py

def test_pico_cells_plays_the_top_level_at_a_budget(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # --nodes: the top level's budget for a study (cmhw.TOP for the tool's run); the Pico's
    # own by default. --player: another player on the same openings. Both colours from the
    # tournament's first fair opening: greedy loses.
    import cmhw

    monkeypatch.setattr(cmhw, "TOP", cmhw.TOP)  # (the tool sets it: put back after)
    tool = harness.load_tool("pico_cells")
    tool.main(["greedy", "1", "--nodes", "256"])  # type: ignore
    out = capsys.readouterr().out.split("\n")
    assert out[0].startswith("pico-search (256 nodes) vs greedy, 2 games, seed 1: W/D/L 2/0/0;")
    # a search stops at the first check past its budget (every 256 nodes): at most 512 and
    # a frontier node's leaves, where the Pico's budget searched up to 10,495
    assert int(out[1].split(" max ")[1]) < 512 + 8
    tool.main(["greedy", "1", "--player", "perfect"])  # type: ignore
    assert capsys.readouterr().out.startswith("perfect vs greedy, 2 games, seed 1: W/D/L 2/0/0;")
    for bad, why in ((["--nodes", "0"], "--nodes must be at least 1"),
                     (["--early", "-1"], "--early must not be negative"),
                     (["--player", "bogus"], "bad player 'bogus'")):
        with pytest.raises(SystemExit):
            tool.main(["greedy", "1"] + bad)  # type: ignore
        assert why in capsys.readouterr().err.splitlines()[-1]


@pytest.mark.parametrize("plies", [14, 8])
def test_pico_cells_early_budget_holds_before_its_ply_only(
        plies: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # --early: another budget for the top level's searches before ply 14, or --early-plies
    # (a study's: the book's records there are the exact solver's, not the search's); from
    # that ply on, --nodes.
    import cmhw
    import cmsearch7

    monkeypatch.setattr(cmhw, "TOP", cmhw.TOP)
    monkeypatch.setattr(cmsearch7.Search, "go", cmsearch7.Search.go)  # (the tool wraps it)
    tool = harness.load_tool("pico_cells")
    seen: list[tuple[int, int]] = []
    go = cmsearch7.Search.go

    def spy(self, depth, max_nodes=0, max_ms=0, seed=0):  # type: ignore[no-untyped-def]
        c = go(self, depth, max_nodes, max_ms, seed)
        if max_nodes == cmhw.TOP[1] or max_nodes == 1024:
            seen.append((self.b.n, self.nodes))
        return c

    monkeypatch.setattr(cmsearch7.Search, "go", spy)
    bound = [] if plies == 14 else ["--early-plies", str(plies)]
    tool.main(["greedy", "1", "--nodes", "256", "--early", "1024"] + bound)  # type: ignore
    out = capsys.readouterr().out.split("\n")
    assert out[0].startswith("pico-search (256 nodes, 1024 before ply %d) vs greedy, 2 games"
                             % plies)
    early = [k for n, k in seen if n < plies]
    late = [k for n, k in seen if n >= plies]
    assert early and late
    assert max(early) > 512 + 8 and max(early) < 1024 + 256 + 8
    assert max(late) < 512 + 8
    with pytest.raises(SystemExit):
        tool.main(["greedy", "1", "--early-plies", "15"])  # type: ignore
    assert "--early-plies must be 1 to 14" in capsys.readouterr().err.splitlines()[-1]
