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
    assert game.N == len(game.LEVELS) // 3  # the menu's entry after the last level
    keys(game, "rrrr")
    assert game.lv == 4 and d.g[4] == [9] * 5  # level 5
    keys(game, "rr")  # clamps at the entry after level 5: two players
    assert game.lv == 5 and d.g[4] == [9, 3, 9, 3, 9]  # the two sides' discs by turns
    keys(game, "lll")
    assert game.lv == 2
    assert d.g[4] == [9, 9, 9, 0, 0]
    keys(game, "ll")
    assert capsys.readouterr().out.split("\n") == [
        "L 2", "L 3", "L 4", "L 5", "L 2P", "L 2P", "L 5", "L 4", "L 3", "L 2", "L 1", ""]
    game.key("d")  # the human starts the first game: its empty board's line says so
    assert game.st == 1 and game.hp == 1 and game.b.n == 0
    assert game.cur == 2
    assert capsys.readouterr().out == "B 5x4 lv=1 you=1 moves= turn=1 over=0\n"


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
    assert len(blines) == game.b.n + 1  # one line per move, and the empty board's at the start
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
    # a drop starts the next game at the same level, the computer starts it
    game.key("d")
    assert game.st == 1 and game.hp == 2 and game.b.n == 1 and game.lv == 0
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
    sc = [1, 2, 3] + [0] * 12 + [4, 5, 6]
    harness.restore("2 2 334 " + "".join("%02x" % x for x in sc))
    assert (game.lv, game.hp, list(game.sc)) == (2, 2, sc)
    assert game.st == 1 and game.b.n == 3  # the human (2nd player) to move
    harness.restore("0 1 1212121 " + "00" * 15)
    assert game.st == 2 and game.b.over() == 1 and len(game.line) == 4
    for bad in ["", "junk", "9 1 - " + "00" * 15, "6 1 - " + "00" * 18,
                "0 1 - " + "00" * 17, "0 1 66 " + "00" * 15, "0 1 - 0102",
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
            assert game.b.n - n in ((0, 1) if game.lv == game.N else (0, 1, 2))
            if game.b.n > n and game.b.over() == 0 and game.lv < game.N:
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


def finish(g: Any) -> int:
    """Play the game on to its end, the human (or both players) dropping in the leftmost
    column with room; returns b.over()."""
    while g.st == 1:
        g.key(str(next(c for c in range(g.b.w) if g.b.can_play(c)) + 1))
    return g.b.over()


def test_another_level_after_a_game(game: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # In END, A or B (l/r) goes back to the menu at the level just played (`L 1`) on an
    # empty board; the menu then moves as at boot, and A+B starts a game at the level
    # chosen, whoever moved second now moving first. Every level's tally is kept.
    d = start(game)
    game.key("d")
    r = finish(game)
    tally = list(game.sc)
    assert sum(tally[0:3]) == 1
    capsys.readouterr()
    game.key("r")
    assert (game.st, game.lv, game.b.n) == (0, 0, 0)
    assert capsys.readouterr().out == "L 1\n"
    assert d.g[4] == [9, 0, 0, 0, 0] and all(v == 0 for row in d.g[:4] for v in row)
    keys(game, "rr")
    assert capsys.readouterr().out == "L 2\nL 3\n"
    game.key("d")
    assert game.st == 1 and game.lv == 2 and game.hp == 2 and game.b.n == 1
    out = capsys.readouterr().out.splitlines()
    assert out == ["B 5x4 lv=3 you=2 moves=%d turn=2 over=0" % (game.b.hist[0] + 1)]
    finish(game)
    assert list(game.sc[0:3]) == tally[0:3] and sum(game.sc[6:9]) == 1
    # A (l) from the end works as B; back at level 1, its tally counts on
    game.key("l")
    assert (game.st, game.lv) == (0, 2)
    keys(game, "ll")
    game.key("d")
    assert game.lv == 0 and game.hp == 1
    r = finish(game)
    won = game.sc[0:3]
    assert sum(won) == 2 and won[2 if r == 3 else r != 1] == tally[2 if r == 3 else r != 1] + 1
    assert capsys.readouterr().out.splitlines()[-1] == "R %s %d-%d-%d" % (
        ("D" if r == 3 else "W" if r == 1 else "L",) + tuple(won))


def test_two_players(game: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # The menu's entry after level 5: two people share the board. No computer move, the
    # drops alternate sides (player 1 bright as the human's discs, player 2 dim), the cursor
    # at the brightness of the side to move, `you=0`, a result text naming the winner,
    # its own tally, and each move saved and restored as any game's.
    import cmmoves

    d = start(game)
    saves: list[str] = []
    game.sv = saves.append
    keys(game, "rrrrr")
    assert capsys.readouterr().out.splitlines()[-1] == "L 2P"
    game.key("d")
    assert capsys.readouterr().out == "B 5x4 lv=6 you=0 moves= turn=1 over=0\n"
    game.t = 256  # the blink's on phase
    game.key("2")
    assert game.b.n == 1 and d.g[4][1] == 9  # player 1's disc, no reply
    assert d.g[0][game.cur] == 3  # player 2 to move: a dim cursor
    game.key("2")
    assert game.b.n == 2 and d.g[3][1] == 3 and d.g[0][game.cur] == 9
    keys(game, "1213")  # player 1: 2, 1, 1; player 2: 2, 2, 3
    assert game.b.n == 6 and game.st == 1
    assert saves[-1] == "5 1 221213 " + "00" * 18
    # a reset mid-game: the save resumes it, still two players, and the computer plays nothing
    harness.restore(saves[-1])
    assert (game.st, game.lv, game.b.n, cmmoves.moves(game.b)) == (1, 5, 6, "221213")
    capsys.readouterr()
    keys(game, "14")  # player 1 in column 1, player 2 in column 4
    out = capsys.readouterr().out.splitlines()
    assert out == ["B 5x4 lv=6 you=0 moves=2212131 turn=2 over=0",
                   "B 5x4 lv=6 you=0 moves=22121314 turn=1 over=0"]
    keys(game, "5354")  # player 1: 5, 5; player 2: 3, 4
    assert game.b.n == 12
    r = finish(game)
    assert game.st == 2 and r in (1, 2, 3)
    i = 2 if r == 3 else r - 1
    assert list(game.sc[15:18]) == [int(j == i) for j in range(3)]
    assert sum(game.sc[:15]) == 0  # no level's tally moved
    text = ("D" if r == 3 else "P%d" % r) + " " + "-".join(str(v) for v in game.sc[15:18])
    assert d.texts == [text]
    assert capsys.readouterr().out.splitlines()[-1] == "R " + text
    # the next two-player game: player 1 starts again, at the menu's entry kept
    game.key("d")
    assert (game.st, game.lv, game.hp, game.b.n) == (1, 5, 1, 0)


def test_a_save_from_before_two_players_restores(game: Any) -> None:
    # A save with the five levels' scores only (15): its tallies, the two players' at 0.
    start(game)
    sc = list(range(1, 16))
    harness.restore("1 1 - " + "".join("%02x" % x for x in sc))
    assert list(game.sc) == sc + [0, 0, 0] and game.lv == 1 and game.st == 0


def test_a_drop_that_starts_a_game_says_so(game: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # Every key is answered: the start of a game the human moves first in prints its empty
    # board's B line; one the computer starts, the computer's move's line.
    start(game)
    game.key("d")
    assert capsys.readouterr().out == "B 5x4 lv=1 you=1 moves= turn=1 over=0\n"
    finish(game)
    capsys.readouterr()
    game.key("d")
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("B 5x4 lv=1 you=2 moves=") and game.b.n == 1
