"""connectm play: the firmware's game (cmgame) on the simulator's fake LED matrix."""

from __future__ import annotations

import io

import pytest

from connectm import cli, simulator


def frames(text: str) -> list[list[str]]:
    """The LED frames printed by a scripted run (rows of . , - o + = : x % # *)."""
    out: list[list[str]] = []
    cur: list[str] = []
    for line in text.splitlines():
        if line and set(line) <= set(simulator.RAMP + simulator.BLINK):
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
    assert f[0] == [".....", ".....", ".....", ".....", "#...."]  # menu: level 1 bar
    assert f[1] == ["..*..", ".....", ".....", ".....", "....."]  # play: cursor blinks
    # the human's disc (9: '#') in column 3, greedy blocks... on top (3: 'o', dim)
    assert f[2] == ["..*..", ".....", ".....", "..o..", "..#.."]
    assert "B 5x4 lv=1 you=1 moves=33 turn=1 over=0" in buf.getvalue()
    assert game.b.n == 2


def test_max7219_dim_pixels_blink() -> None:
    buf = io.StringIO()
    simulator.run_script("d4", simulator.LAYOUTS["max7219"], opponent="greedy", out=buf)
    last = frames(buf.getvalue())[-1]
    assert len(last) == 8 and all(len(r) == 8 for r in last)
    assert last[6][3] == "#" and last[5][3] == "*"  # no per-pixel brightness: dim blinks


def test_win_shows_text_and_blinking_line(capsys: pytest.CaptureFixture[str]) -> None:
    # against random play, dropping in column 1 every move wins or the game goes on;
    # play until the game ends and check the end screen
    assert cli.main(["play", "--board", "microbit", "--opponent", "random",
                     "--keys", "d" + "1111122222333334444455555"]) == 0
    out = capsys.readouterr().out
    assert "game over" in out and "text: " in out


def test_bad_opponent_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["play", "--opponent", "nobody", "--keys", "q"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
