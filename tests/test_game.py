"""cmgame on CPython with a fake display: menu -> a full game -> end -> next game, scores,
what the display shows, restore, bad input, and random key presses."""

from __future__ import annotations

import random
from typing import Any, Iterator

import pytest

import harness

from connectm import fw


class Disp:
    """A fake display: a grid of brightness values, the shown frames' count, the texts."""

    def __init__(self, w: int = 5, h: int = 5) -> None:
        self.g = [[0] * w for _ in range(h)]
        self.shows = 0
        self.texts: list[str] = []

    def px(self, x: int, y: int, v: int) -> None:
        assert 0 <= v <= 9
        self.g[y][x] = v

    def show(self) -> None:
        self.shows += 1

    def text(self, s: str) -> None:
        self.texts.append(s)


@pytest.fixture
def game() -> Iterator[Any]:
    fw.load()
    import importlib

    import cmgame

    importlib.reload(cmgame)
    yield cmgame


def start(g: Any, w: int = 5, h: int = 4) -> Disp:
    d = Disp(w, h + 1)
    fw.boot(d, w, h)
    return d


def keys(g: Any, seq: str) -> None:
    for k in seq:
        g.key(k)


def test_menu_level_and_start(game: Any, capsys: pytest.CaptureFixture[str]) -> None:
    d = start(game)
    assert game.st == 0 and game.lv == 0
    assert d.g[4] == [9, 0, 0, 0, 0]  # the level bar
    keys(game, "rrrrrrl")  # clamps at the last level, then one back
    assert game.lv == 3
    assert d.g[4] == [9, 9, 9, 9, 0]
    keys(game, "lll")
    game.key("d")  # the human starts the first game
    assert game.st == 1 and game.hp == 1 and game.b.n == 0
    assert game.cur == 2


def test_full_game_end_and_next(game: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import cmmoves

    d = start(game)
    saves: list[str] = []
    game.sv = saves.append
    game.key("d")  # level 1 (depth 1): the human plays
    while game.st == 1:
        n = game.b.n
        # drop in the leftmost playable column, moving the cursor there with 'l'/'r'
        col = next(c for c in range(5) if game.b.can_play(c))
        while game.cur != col:
            game.key("l" if game.cur > col else "r")
        game.key("d")
        assert game.b.n in (n + 1, n + 2)  # the human's move and at most one reply
    r = game.b.over()
    assert r in (1, 2, 3)
    out = capsys.readouterr().out.splitlines()
    blines = [ln for ln in out if ln.startswith("B ")]
    assert len(blines) == game.b.n  # one line per move
    assert blines[-1] == "B 5x4 lv=1 you=1 moves=%s turn=%d over=%d" % (
        cmmoves.moves(game.b), 1 + (game.b.n & 1), r)
    i = 0 if r == 3 else 1 if r == 1 else 2
    assert d.texts == ["DWL"[i] + " %d-%d-%d" % tuple(game.sc[0:3])]
    assert sum(game.sc) == 1 and game.sc[2 if r == 3 else 0 if r == 1 else 1] == 1
    assert len(saves) == game.b.n and saves[-1].split()[2] == cmmoves.moves(game.b)
    if r != 3:
        assert len(game.line) >= 4
        cells = game.b.cells
        assert len({cells[c] for c in game.line}) == 1
        # the line blinks: off in the blink-on phase, lit in the other
        game.tick(256)
        x, row = divmod(game.line[0], 4)
        assert d.g[4 - row][x] == 0
        game.tick(512)
        assert d.g[4 - row][x] in (3, 9)
    # l/r do nothing at the end; a drop starts the next game, the computer starts it
    keys(game, "lr")
    assert game.st == 2
    game.key("d")
    assert game.st == 1 and game.hp == 2 and game.b.n == 1
    col = game.b.hist[0]
    assert d.g[4][col] == 3  # the computer's disc is dim
    assert game.b.over() == 0


def test_display_pixels(game: Any) -> None:
    d = start(game)
    game.key("d")
    game.key("1")  # the human drops in column 1, the computer replies
    assert game.b.cells[0] == 1
    assert d.g[4][0] == 9
    reply = game.b.hist[1]
    assert d.g[4 - (reply == 0)][reply] == 3
    # the cursor blinks on row 0
    game.tick(256)
    assert d.g[0][game.cur] == 9
    game.tick(512)
    assert d.g[0] == [0] * 5


def test_bad_input(game: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # One 'E bad key' line in each 1024 ms of tick()'s clock: the rest are dropped.
    start(game)
    keys(game, "x7?")
    assert capsys.readouterr().out == "E bad key x\n"
    game.tick(1023)
    keys(game, "y")
    assert capsys.readouterr().out == ""
    game.tick(1024)
    keys(game, "7y")
    assert capsys.readouterr().out == "E bad key 7\n"
    assert game.st == 0 and game.lv == 0
    game.tick(2304)  # (tick() takes the time when the blink phase, bit 8, changes)
    game.key("d")
    game.key("9")  # no column 9 on 5x4
    game.key(" ")
    assert game.b.n == 0
    assert capsys.readouterr().out.splitlines()[-1] == "E bad key 9"


def test_full_column(game: Any, capsys: pytest.CaptureFixture[str]) -> None:
    start(game)
    game.key("d")
    harness.restore("0 1 1111 " + "00" * 15)
    assert game.st == 1 and game.b.heights[0] == 4
    n = game.b.n
    capsys.readouterr()
    game.key("1")
    assert game.b.n == n
    assert capsys.readouterr().out.startswith("E full")


def test_restore(game: Any, capsys: pytest.CaptureFixture[str]) -> None:
    start(game)
    sc = [1, 2, 3] + [0] * 12
    harness.restore("2 2 334 " + "".join("%02x" % x for x in sc))
    assert (game.lv, game.hp, list(game.sc)) == (2, 2, sc)
    assert game.st == 1 and game.b.n == 3  # the human (2nd player) to move
    harness.restore("0 1 1212121 " + "00" * 15)
    assert game.st == 2 and game.b.over() == 1 and len(game.line) == 4
    for bad in ["", "junk", "9 1 - " + "00" * 15, "0 1 66 " + "00" * 15, "0 1 - 0102",
                "0 1 - " + "0 " * 15, "0 3 - " + "00" * 15, "0 1 - " + "0x" * 15]:
        harness.restore(bad)
        assert game.st == 0 and game.b.n == 0
        assert capsys.readouterr().out.startswith("E bad save")


def test_restore_computer_to_move(game: Any) -> None:
    start(game)
    harness.restore("0 1 3 " + "00" * 15)  # a reset during the computer's search
    assert game.b.n == 2 and game.st == 1


@pytest.mark.parametrize("seed", range(12))
def test_random_keys(game: Any, seed: int, capsys: pytest.CaptureFixture[str]) -> None:
    rnd = random.Random(seed)
    d = start(game)
    alphabet = "lrdd123456x "
    for _ in range(400):
        st, n, hp = game.st, game.b.n, game.hp
        k = rnd.choice(alphabet)
        game.key(k)
        game.tick(rnd.randrange(10000))
        if st == 1:
            # never a double move: at most the human's disc and one reply
            assert game.b.n - n in (0, 1, 2)
            if game.b.n > n and game.b.over() == 0:
                assert 1 + (game.b.n & 1) == hp  # the human to move again
        for row in d.g:
            assert all(0 <= v <= 9 for v in row)
    assert sum(game.sc) >= 1


@pytest.mark.parametrize("w,h,tt", [(5, 4, 0), (5, 4, 32768), (7, 6, 32768)])
def test_a_board_boots_its_levels(game: Any, w: int, h: int, tt: int) -> None:
    # The levels a board plays (cmmain: cmhw.tabled) are the host's (levels.on_board, for
    # `connectm move --table`): a micro:bit v1, no table, cmlevels'; a v2's 5x4 its top level
    # to cmhw.TOP; a Pico's 7x6 levels 3 and 4 to cmhw.WIDE as well. Each level searches
    # as deep or deeper, with more nodes, than the one below (0 nodes: no limit, levels 1, 2).
    import cmhw
    import cmlevels

    from connectm import levels

    fw.boot(Disp(w, h + 1), w, h, tt)
    L, want = game.LEVELS, list(cmlevels.LEVELS)
    if tt:
        want[-3:-1] = cmhw.TOP
    if w * h > 20:
        want[6:8], want[9:11] = cmhw.WIDE[:2], cmhw.WIDE[2:]
    assert L == levels.on_board(tt, w, h) == tuple(want)
    assert game.s.tt is None if not tt else game.s.tt.n * 8 == tt
    assert [L[i + 2] for i in range(0, len(L), 3)] == [0, 8, 8, 12, 99]  # book plies kept
    for i in range(3, len(L), 3):
        assert L[i] >= L[i - 3] and (L[i - 2] == 0 or L[i + 1] > L[i - 2])


def test_table_too_big_for_the_heap(game: Any, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    # A board asking for a 1 MB transposition table with 100 KB free: the game takes the
    # largest table that fits in steps of 1/8 (in whole KB), says so in one line, and plays.
    import cmtt

    class SmallRam(cmtt.TT):
        def __init__(self, nbytes: int = 0) -> None:
            if nbytes > 100_000:
                raise MemoryError("memory allocation failed, allocating %d bytes" % nbytes)
            super().__init__(nbytes)

    monkeypatch.setattr(cmtt, "TT", SmallRam)
    fw.boot(Disp(7, 7), 7, 6, 1 << 20)
    assert game.s.tt.n * 8 == 91136  # 1 MB * (7/8)^8, rounded down to KB at each step
    # (then the boot's line of the table's bytes, for `connectm move --table`)
    assert capsys.readouterr().out.splitlines()[-2:] == ["E low memory, table 91136", "T 91136"]
    game.key("d")
    game.key("4")
    assert game.b.n == 2
    assert "E " not in capsys.readouterr().out


def test_thinking_shows_a_dim_cursor(game: Any) -> None:
    # While the computer searches, the display shows its cursor dim (3), not a frozen frame.
    d = start(game)
    seen: list[list[int]] = []
    real_go = game.s.go

    def go(*args: Any) -> int:
        seen.append(list(d.g[0]))
        return real_go(*args)

    game.s.go = go
    keys(game, "d")
    shows = d.shows
    keys(game, "l")  # cursor on column 2 (0-based 1)
    game.t = 256  # the blink phase that lights the cursor
    keys(game, "d")
    assert seen == [[0, 3, 0, 0, 0]] and d.shows > shows
    assert game.b.n == 2
