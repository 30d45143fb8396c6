"""A terminal stand-in for the device: the firmware's own game (``firmware/cmgame.py``) with a
fake LED matrix and keys for the buttons.

The display implements cmgame's driver contract (``px(x, y, v)``, ``show()``, ``text(s)``)
and keeps the frame as the LEDs would show it.  The views print a frame as text, one glyph
per LED, read from its brightness in both blink phases (cmgame: 9 the human, 3 the computer,
a winning line blinks): ``X`` your discs, ``O`` the computer's, ``#`` the winning line at game
over, ``v`` the cursor, ``o`` the cursor while the computer thinks, ``=`` the level bar,
``.`` off (:data:`GLYPHS`; the legend says how each board shows them: brightness on the
micro:bit, blinking on the MAX7219, colours on the NeoPixel).  The curses view also colours
them.
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, TextIO

from connectm import fw

# glyph per meaning (see the module's doc); every frame line is made of these
GLYPHS = {"off": ".", "you": "X", "cpu": "O", "line": "#", "cursor": "v", "think": "o",
          "level": "="}


@dataclass(frozen=True)
class Layout:
    name: str
    title: str
    width: int  # LED matrix
    height: int
    cols: int  # game board
    rows: int
    mono: bool  # no per-pixel brightness: dim pixels blink
    you: str  # how the device shows the human's discs, and the computer's
    cpu: str


LAYOUTS = {
    "microbit": Layout("microbit", "micro:bit 5x5 LEDs", 5, 5, 5, 4, False, "bright",
                       "dim"),
    "max7219": Layout("max7219", "MAX7219 8x8 LEDs", 8, 8, 7, 6, True, "lit", "blinking"),
    "neopixel": Layout("neopixel", "NeoPixel 8x8 LEDs", 8, 8, 7, 6, False, "red", "yellow"),
}


def legend(layout: Layout) -> list[str]:
    """What the glyphs and the result text mean (printed with the frames)."""
    g = GLYPHS
    return [
        "legend: %s you (%s on the device)  %s computer (%s)  %s winning line" % (
            g["you"], layout.you, g["cpu"], layout.cpu, g["line"]),
        "        %s cursor  %s computer thinking, or player 2's turn  %s level bar (menu)" % (
            g["cursor"], g["think"], g["level"]),
        "result text 'L 0-1-0': W you won, L lost, D draw; this level's wins-losses-draws",
    ]


def explain(text: str, two: bool = False) -> str:
    """The device's result text ('W 1-0-0'; two players: 'P1 1-0-0' or 'D 1-0-1') in
    words; other texts as they are."""
    parts = text.split()
    if len(parts) == 2 and parts[0] in ("W", "L", "D", "P1", "P2") and \
            parts[1].count("-") == 2:
        w, lo, d = parts[1].split("-")
        if two:
            return "%s  (%s; two players so far: player 1 won %s, player 2 %s, %s drawn)" % (
                text, "a draw" if parts[0] == "D" else "player %s won" % parts[0][1], w, lo, d)
        return "%s  (%s; this level so far: %s won, %s lost, %s drawn)" % (
            text, {"W": "you won", "L": "you lost", "D": "a draw"}[parts[0]], w, lo, d)
    return text


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
        if s:  # text('') stops a text still showing
            self.texts.append(s)


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
        fw.boot(disp, w, h, books=True)
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
    two = game.lv == game.N  # the menu's entry after the last level: two players
    if game.st == 0:
        return "menu: %s (left/right), drop to start" % (
            "two players" if two else "level %d" % (game.lv + 1))
    if game.st == 1 and two:
        p = 1 + (b.n & 1)
        return "play: two players, player %d (%s) to move, column %d" % (
            p, GLYPHS["you" if p == 1 else "cpu"], game.cur + 1)
    if game.st == 1:
        return "play: level %d, you (%s) move %s, column %d" % (
            game.lv + 1, GLYPHS["you"], "first" if game.hp == 1 else "second", game.cur + 1)
    r = b.over()
    won = "player %d wins" % r if two else "you win" if r == game.hp else "you lose"
    return "game over: %s" % ("draw" if r == 3 else "%s (%s)" % (won, GLYPHS["line"]))


def glyph(a: int, b: int, y: int, h: int, menu: bool) -> str:
    """The glyph of an LED at row y (0: the cursor row, 1..h: the board) that shows a and b
    (brightness) in the two blink phases."""
    if not a and not b:
        return GLYPHS["off"]
    if y == 0:
        return GLYPHS["think"] if a == b == 3 else GLYPHS["cursor"]
    if y > h:
        return "?"  # cmgame never lights these
    if menu and y == h:
        return GLYPHS["level"]
    if a != b:
        return GLYPHS["line"]  # only the winning line blinks
    return GLYPHS["you"] if a == 9 else GLYPHS["cpu"]


def render(game: Any, disp: FakeDisplay) -> list[str]:
    """The frame as text (GLYPHS), read from the LEDs in both blink phases."""
    phases = []
    for now in (0, 256):
        game.tick(now)
        phases.append([row[:] for row in disp.frame])
    h = game.b.h
    return ["".join(glyph(a, b, y, h, game.st == 0) for a, b in zip(ra, rb))
            for y, (ra, rb) in enumerate(zip(*phases))]


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
            out.write("text: %s\n" % explain(t, game.lv == game.N))
        disp.texts.clear()
        out.write("\n")

    out.write("connectm play: %s, %dx%d board\n" % (layout.title, layout.cols, layout.rows))
    out.write("\n".join(legend(layout)) + "\n\n")
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
        attrs: dict[str, int] = {}
        if curses.has_colors():
            curses.start_color()
            with contextlib.suppress(curses.error):
                curses.use_default_colors()
            you, cpu = curses.COLOR_RED, curses.COLOR_YELLOW
            for i, (name, colour, extra) in enumerate((
                    ("you", you, curses.A_BOLD), ("cpu", cpu, curses.A_BOLD),
                    ("line", curses.COLOR_GREEN, curses.A_BOLD | curses.A_REVERSE),
                    ("cursor", you, curses.A_BOLD), ("think", cpu, 0),
                    ("level", curses.COLOR_CYAN, curses.A_BOLD)), 1):
                curses.init_pair(i, colour, -1)
                attrs[GLYPHS[name]] = curses.color_pair(i) | extra
        keys: dict[int, str] = {curses.KEY_LEFT: "l", curses.KEY_RIGHT: "r",
                                curses.KEY_DOWN: "d", curses.KEY_ENTER: "d"}
        while True:
            scr.erase()
            scr.addstr(0, 0, "connectm play - %s (%dx%d board)" % (
                layout.title, layout.cols, layout.rows))
            for y, row in enumerate(render(game, disp)):
                for x, ch in enumerate(row):
                    scr.addstr(2 + y, 2 + 2 * x, ch, attrs.get(ch, 0))
            y = 3 + layout.height
            scr.addstr(y, 0, status(game)[: curses.COLS - 1])
            if disp.texts:
                shown = explain(disp.texts[-1], game.lv == game.N)
                scr.addstr(y + 1, 0, ("device shows: " + shown)[: curses.COLS - 1])
            if serial:
                scr.addstr(y + 2, 0, ("serial: " + serial[-1])[: curses.COLS - 1])
            for i, line in enumerate(legend(layout) + [HELP]):
                scr.addstr(y + 4 + i, 0, line[: curses.COLS - 1])
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
