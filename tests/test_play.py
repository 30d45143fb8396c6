"""connectm play: the firmware's game (cmgame) on the simulator's fake LED matrix, and what
its terminal views show (glyphs per player, legend, result text, the winning line)."""

from __future__ import annotations

import io
import re

import pytest

from connectm import cli, simulator

GLYPHS = set(simulator.GLYPHS.values())


def frames(text: str) -> list[list[str]]:
    """The LED frames printed by a scripted run (rows of the view's glyphs)."""
    out: list[list[str]] = []
    cur: list[str] = []
    for line in text.splitlines():
        if line and set(line) <= GLYPHS:
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    return out


def test_scripted_game_microbit() -> None:
    buf = io.StringIO()
    game = simulator.run_script("d3", simulator.LAYOUTS["microbit"], opponent="greedy",
                                out=buf)
    f = frames(buf.getvalue())
    assert f[0] == [".....", ".....", ".....", ".....", "=...."]  # menu: level 1 bar
    assert f[1] == ["..v..", ".....", ".....", ".....", "....."]  # play: the cursor
    # the human's disc (X) in column 3, greedy's (O) on top
    assert f[2] == ["..v..", ".....", ".....", "..O..", "..X.."]
    assert "B 5x4 lv=1 you=1 moves=33 turn=1 over=0" in buf.getvalue()
    assert game.b.n == 2


@pytest.mark.parametrize("layout,keys,moves", [("microbit", "1", "12"),
                                                ("max7219", "2", "23")])
def test_the_top_level_plays_from_the_boards_book(layout: str, keys: str, moves: str) -> None:
    # the simulated device reads its board's book as the board does: after the human's 1
    # on 5x4 the search alone answers 4, the book 2 (connectm book); on a Pico's 7x6 the
    # book answers 2 with 3 (the search: 4)
    from connectm import book, levels

    game, _ = simulator.make_game(simulator.LAYOUTS[layout], levels.count())
    game.hp = 1  # the human first (a game before may have left the other side to start)
    game.key("d")  # the menu: play
    game.key(keys)
    assert "".join(str(1 + game.b.hist[i]) for i in range(game.b.n)) == moves
    size = (game.b.w, game.b.h, 4)
    p = book.Player(*size, levels.count() - 1, seek_file=book.seek_path(*size))
    b = p.board
    b.play(int(keys) - 1)
    assert p.move() == int(moves[-1]) - 1
    p.seek = p.book = book.seek_path(9, 9, 4)  # (no such books: the search's own move)
    assert p.move() != int(moves[-1]) - 1


@pytest.mark.parametrize("layout", sorted(simulator.LAYOUTS))
def test_every_view_tells_the_players_apart_and_explains(layout: str) -> None:
    buf = io.StringIO()
    lay = simulator.LAYOUTS[layout]
    simulator.run_script("d4", lay, opponent="greedy", out=buf)
    text = buf.getvalue()
    last = frames(text)[-1]
    assert len(last) == lay.height and all(len(r) == lay.width for r in last)
    # the human's disc (key 4) and the computer's reply: two different glyphs
    assert last[lay.rows][3] == "X"
    assert "".join(last).count("X") == 1 and "".join(last).count("O") == 1
    legend = text.split("\n\n", 1)[0]
    assert "X you (%s on the device)" % lay.you in legend
    assert "O computer (%s)" % lay.cpu in legend and "# winning line" in legend
    assert "'L 0-1-0': W you won, L lost, D draw; this level's wins-losses-draws" in legend


def lose(layout: str) -> tuple[str, object]:
    # Greedy wins a vertical four in column 4 against drops in columns 1 and 7 (7x6).
    buf = io.StringIO()
    game = simulator.run_script("d17171717", simulator.LAYOUTS[layout], opponent="greedy",
                                out=buf)
    return buf.getvalue(), game


@pytest.mark.parametrize("layout", ["max7219", "neopixel"])
def test_the_computers_winning_line_is_shown(layout: str) -> None:
    text, game = lose(layout)
    assert "game over: you lose (#)" in text
    last = frames(text)[-1]
    cells = [(game.b.h - i % game.b.h, i // game.b.h) for i in game.line]  # (y, x)
    assert len(cells) == 4 and all(last[y][x] == "#" for y, x in cells)
    assert sum(row.count("#") for row in last) == 4
    # on the LEDs: full brightness in one blink phase, so that a MAX7219 (no dim pixels
    # at all: they blink in its own phase) lights it too
    disp = game.d
    for now in (0, 256):
        game.tick(now)
        lit = [disp.frame[y][x] for y, x in cells]
        assert lit in ([9] * 4, [0] * 4)
        if now == 0:
            assert lit == [9] * 4
    # the serial line echoes the result (docs/serial.md); the level's tally counts every
    # game this process played
    assert re.search(r"^R L 0-\d+-0$", text, re.M)
    assert re.search(r"^text: L 0-(\d+)-0  \(you lost; this level so far: 0 won, \1 lost, "
                     r"0 drawn\)$", text, re.M)


def test_win_shows_text_and_the_line(capsys: pytest.CaptureFixture[str]) -> None:
    # Against random play (seeded by the moves: the same game every run) the human fills
    # columns 1 to 5 in turn and wins: the end screen says so, the serial line and the
    # text give the result (W, a first win), and the human's four in a row blink (#), the
    # only cells that do.
    keys = "d" + "1111122222333334444455555"
    assert cli.main(["play", "--board", "microbit", "--opponent", "random",
                     "--keys", keys]) == 0
    out = capsys.readouterr().out
    game = simulator.run_script(keys, simulator.LAYOUTS["microbit"], opponent="random",
                                out=io.StringIO())
    assert game.b.over() == game.hp == 1  # the human won
    assert "game over: you win (#)" in out and "you lose" not in out
    assert re.findall(r"^R .*$", out, re.M) == ["R W 1-0-0"]
    assert "text: W 1-0-0  (you won; this level so far: 1 won, 0 lost, 0 drawn)" in out
    last = frames(out)[-1]
    cells = [(game.b.h - i % game.b.h, i // game.b.h) for i in game.line]  # (y, x)
    assert len(cells) == 4 and all(game.b.cells[i] == 1 for i in game.line)
    assert sorted((y, x) for y, row in enumerate(last) for x, g in enumerate(row)
                  if g == "#") == sorted(cells)


def test_bad_opponent_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["play", "--opponent", "nobody", "--keys", "q"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_menu_echoes_the_level_on_the_serial_line() -> None:
    buf = io.StringIO()
    game = simulator.run_script("rrl", simulator.LAYOUTS["microbit"], out=buf)
    lines = [ln for ln in buf.getvalue().splitlines() if ln.startswith("L ")]
    assert lines == ["L 2", "L 3", "L 2"] and game.lv == 1


def test_two_players_and_another_level_in_the_terminal() -> None:
    # connectm play runs the device's game: the menu's entry after level 5 is two players
    # (its status says so), a whole game there has only the players' drops, the result
    # names the winner; at its end, right goes back to the menu at the same entry.
    buf = io.StringIO()
    game = simulator.run_script("rrrrr d 1212121 r", simulator.LAYOUTS["microbit"], out=buf)
    out = buf.getvalue()
    assert "[key r] menu: two players (left/right), drop to start" in out
    assert "[key 2] play: two players, player 1 (X) to move, column 2" in out
    assert "[key 1] game over: player 1 wins (#)" in out
    assert "text: P1 1-0-0  (player 1 won; two players so far: player 1 won 1, player 2 0, " \
        "0 drawn)" in out
    blines = [ln for ln in out.splitlines() if ln.startswith("B ")]
    assert blines[0] == "B 5x4 lv=6 you=0 moves= turn=1 over=0" and len(blines) == 8
    assert blines[-1] == "B 5x4 lv=6 you=0 moves=1212121 turn=2 over=1"
    assert (game.st, game.lv) == (0, game.N) and out.splitlines()[-2].endswith(
        "menu: two players (left/right), drop to start")


def test_interactive_view_shows_the_legend_and_quits() -> None:
    # The curses view in a pseudo-terminal: it draws the legend, and q quits (status 0).
    import os
    import pty
    import select
    import subprocess
    import sys

    main, sub = pty.openpty()
    env = dict(os.environ, TERM="xterm", COLUMNS="100", LINES="30")
    p = subprocess.Popen([sys.executable, "-m", "connectm.cli", "play", "--board", "neopixel"],
                         stdin=sub, stdout=sub, stderr=sub, env=env, close_fds=True)
    os.close(sub)
    seen = b""
    try:
        while b"winning line" not in seen:
            r, _, _ = select.select([main], [], [], 60)
            assert r, seen[-500:]
            seen += os.read(main, 65536)
        os.write(main, b"q")
        while p.poll() is None:
            r, _, _ = select.select([main], [], [], 60)
            if r:
                try:
                    os.read(main, 65536)
                except OSError:
                    break
        assert p.wait(timeout=60) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(main)
    assert b"X you (red on the device)" in seen and b"O computer (yellow)" in seen
