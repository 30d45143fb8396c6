"""A terminal stand-in for the device: the firmware's own game (``firmware/cmgame.py``) with a
fake LED matrix and keys for the buttons.

The display implements cmgame's driver contract (``px(x, y, v)``, ``show()``, ``text(s)``)
and keeps the frame as the LEDs would show it.  A frame is text, one character per LED,
brightness 0..9 as ``RAMP`` (``.`` off, ``o`` the computer's dim discs, ``#`` full); in a
scripted run (:func:`run_script`) an LED that blinks is ``*``.  The MAX7219 display has no
per-pixel brightness, so there every dim pixel blinks, as on the device.
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, TextIO

from connectm import fw

RAMP = ".,-o+=:x%#"  # brightness 0..9
BLINK = "*"


@dataclass(frozen=True)
class Layout:
    name: str
    title: str
    width: int  # LED matrix
    height: int
    cols: int  # game board
    rows: int
    mono: bool  # no per-pixel brightness: dim pixels blink


LAYOUTS = {
    "microbit": Layout("microbit", "micro:bit 5x5 LEDs", 5, 5, 5, 4, False),
    "max7219": Layout("max7219", "MAX7219 8x8 LEDs", 8, 8, 7, 6, True),
}


class FakeDisplay:
    """cmgame's driver contract on a pixel buffer; ``frame`` is what the LEDs show."""

    def __init__(self, width: int, height: int, mono: bool = False) -> None:
        self.width, self.height, self.mono = width, height, mono
        self.buf = [[0] * width for _ in range(height)]
        self.frame = [row[:] for row in self.buf]
        self.shows = 0
        self.texts: list[str] = []

    def px(self, x: int, y: int, v: int) -> None:
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError("pixel (%d, %d) outside the %dx%d display"
                             % (x, y, self.width, self.height))
        if not 0 <= v <= 9:
            raise ValueError("brightness %r out of 0..9" % (v,))
        self.buf[y][x] = v

    def show(self) -> None:
        self.frame = [row[:] for row in self.buf]
        self.shows += 1

    def text(self, s: str) -> None:
        self.texts.append(s)

    def led(self, v: int, phase: int) -> int:
        """What an LED set to v shows in blink phase 0/1 (mono: dim pixels blink)."""
        if self.mono and 0 < v < 9:
            return 9 if phase else 0
        return v


_ORIG: dict[str, Any] = {}


class GameView:
    """The firmware's game (cmgame's module globals, started by ``fw.boot(disp, w, h)``)
    behind one interface; attributes (b, st, cur, lv, hp, line, ...) are read from it.
    ``cpu`` (given a board, returns a column) replaces the game's own search."""

    def __init__(self, disp: FakeDisplay, w: int, h: int,
                 cpu: Callable[[Any], int] | None = None) -> None:
        import cmgame

        _ORIG.setdefault("cpu", cmgame.cpu)
        if cpu is None:
            cmgame.cpu = _ORIG["cpu"]
        else:
            def host_cpu() -> None:
                if cmgame.st == 1 and 1 + (cmgame.b.n & 1) != cmgame.hp:
                    cmgame.play(cpu(cmgame.b))

            cmgame.cpu = host_cpu
        fw.boot(disp, w, h)
        self.__dict__["g"] = cmgame

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["g"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.__dict__["g"], name, value)


def make_game(layout: Layout, level: int = 1, opponent: str = "engine") -> tuple[Any, Any]:
    """(game, display): the firmware's game on a FakeDisplay; opponent 'engine' is the
    game's own search at its level, any other connectm.players spec (random, greedy, mc:N,
    engine:D, ...) replaces it."""
    from connectm import levels

    if not 1 <= level <= levels.count():
        raise ValueError("level must be 1..%d" % levels.count())
    disp = FakeDisplay(layout.width, layout.height, layout.mono)
    cpu = None
    if opponent != "engine":
        from connectm import players

        cpu = players.make_player(opponent).choose  # ValueError on a bad spec
    game = GameView(disp, layout.cols, layout.rows, cpu)
    game.lv = level - 1
    game.draw()
    return game, disp


def status(game: Any) -> str:
    b = game.b
    if game.st == 0:
        return "menu: level %d (left/right), drop to start" % (game.lv + 1)
    if game.st == 1:
        return "play: level %d, you move %s (#), column %d" % (
            game.lv + 1, "first" if game.hp == 1 else "second", game.cur + 1)
    r = b.over()
    return "game over: %s" % ("draw" if r == 3 else "you win" if r == game.hp else "you lose")


def render(game: Any, disp: FakeDisplay) -> list[str]:
    """The frame as text, both blink phases merged: a blinking LED is BLINK."""
    phases = []
    for now in (0, 256):
        game.tick(now)
        phases.append([[disp.led(v, now >> 8) for v in row] for row in disp.frame])
    out = []
    for ra, rb in zip(*phases):
        out.append("".join(RAMP[a] if a == b else BLINK for a, b in zip(ra, rb)))
    return out


KEYMAP = {"a": "l", "l": "l", "d": "d", "r": "r", " ": "d", "\n": "d", "\r": "d"}


def run_script(keys: str, layout: Layout, level: int = 1, opponent: str = "engine",
               out: TextIO | None = None) -> Any:
    """Feed the game's key letters (l, r, d = drop, 1-9 = drop there; q quits; whitespace
    is ignored) and print the frame after each key.  Returns the game."""
    out = out or sys.stdout
    game, disp = make_game(layout, level, opponent)

    def frame(title: str) -> None:
        out.write("\n".join(render(game, disp)) + "\n")
        out.write("[%s] %s\n" % (title, status(game)))
        for t in disp.texts:
            out.write("text: %s\n" % t)
        disp.texts.clear()
        out.write("\n")

    frame("start")
    for k in keys:
        if k in " \t\r\n":
            continue
        if k == "q":
            out.write("quit\n")
            break
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):  # the game's serial lines ('B ...', 'E ...')
            game.key(k)
        out.write(buf.getvalue())
        frame("key %s" % k)
    return game


# -- interactive (curses) ------------------------------------------------------------------
HELP = "left/right or a/d: move   space/enter/down: drop   1-9: column   q: quit"


def run_curses(layout: Layout, level: int = 1, opponent: str = "engine") -> int:
    import curses

    game, disp = make_game(layout, level, opponent)
    serial: list[str] = []

    def key(k: str) -> None:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            game.key(k)
        serial.extend(line for line in buf.getvalue().splitlines() if line)

    def main(scr: Any) -> int:
        curses.curs_set(0)
        scr.nodelay(True)
        scr.keypad(True)
        pairs: list[int] = []
        if curses.has_colors():
            curses.start_color()
            with contextlib.suppress(curses.error):
                curses.use_default_colors()
            reds = [240, 52, 52, 88, 88, 124, 124, 160, 196, 196]
            if curses.COLORS < 256:
                reds = [curses.COLOR_WHITE] + [curses.COLOR_RED] * 9
            for v, c in enumerate(reds):
                curses.init_pair(v + 1, c, -1)
                pairs.append(curses.color_pair(v + 1) | (curses.A_BOLD if v >= 7 else 0))
        keys: dict[int, str] = {curses.KEY_LEFT: "l", curses.KEY_RIGHT: "r",
                                curses.KEY_DOWN: "d", curses.KEY_ENTER: "d"}
        t0 = time.monotonic()
        while True:
            now = int((time.monotonic() - t0) * 1000)
            game.tick(now)
            phase = (now >> 8) & 1
            scr.erase()
            scr.addstr(0, 0, "connectm play - %s (%dx%d board)" % (
                layout.title, layout.cols, layout.rows))
            for y, row in enumerate(disp.frame):
                for x, v in enumerate(row):
                    lv = disp.led(v, phase)
                    ch = RAMP[lv] if lv else "."
                    attr = pairs[lv] if pairs else 0
                    scr.addstr(2 + y, 2 + 2 * x, ch, attr)
            y = 3 + layout.height
            scr.addstr(y, 0, status(game)[: curses.COLS - 1])
            if disp.texts:
                scr.addstr(y + 1, 0, ("device shows: " + disp.texts[-1])[: curses.COLS - 1])
            if serial:
                scr.addstr(y + 2, 0, ("serial: " + serial[-1])[: curses.COLS - 1])
            scr.addstr(y + 4, 0, HELP[: curses.COLS - 1])
            scr.refresh()
            c = scr.getch()
            if c == -1:
                time.sleep(0.03)
                continue
            if c in keys:
                k = keys[c]
            elif 0 <= c < 256:
                ch = chr(c).lower()
                if ch == "q":
                    return 0
                k = KEYMAP.get(ch, ch if ch in "123456789" else "")
            else:
                k = ""
            if k:
                if k in "ld" or k == "r":
                    disp.texts.clear()
                key(k)

    result: int = curses.wrapper(main)
    return result


def play(layout_name: str = "max7219", level: int = 1, opponent: str = "engine",
         keys: str | None = None, tty: bool | None = None,
         out: TextIO | None = None) -> int:
    layout = LAYOUTS[layout_name]
    if tty is None:
        tty = sys.stdin.isatty() and sys.stdout.isatty()
    if keys is not None or not tty:
        run_script(keys or "", layout, level, opponent, out)
        return 0
    return run_curses(layout, level, opponent)


Runner = Callable[..., int]
