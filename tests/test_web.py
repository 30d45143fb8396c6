"""connectm web in a real browser: `connectm web` serves the page, headless Chromium (Debian's
chromium, driven by Playwright; nothing downloaded) runs it, and games played on its buttons
give the moves `connectm move` gives for the same positions (with --table the bytes the board
prints at boot), on the LEDs and in the serial panel. Every wait is on the page's state
(its serial lines, its data-* attributes), none a fixed sleep."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

import harness
from connectm import build, cli, mip_package, webpage

# Debian's chromium, or the browser CONNECTM_CHROMIUM names (a CI runner's Chrome)
CHROMIUM = os.environ.get("CONNECTM_CHROMIUM") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT_MS = 60_000  # the longest wait on the page: a boot, a reply (both well under it here)
# the human's turn (the page's state after a step, or a reply's B line), or the game's end
MY_TURN = ("() => (d => d.st == '2' || d.st == '1' && d.thinking == '0' && d.turn == d.hp)"
           "(document.body.dataset)")
B_LINE = re.compile(r"^B (\d+)x(\d+) lv=(\d+) you=(\d) moves=(\d*) turn=(\d) over=(\d)$")


def missing() -> str | None:
    """Why the browser test cannot run here, or None."""
    if not os.path.exists(CHROMIUM):
        return "no %s (apt-get install chromium)" % CHROMIUM
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    try:
        webpage.npm_dir()
    except webpage.WebError as e:
        return str(e)
    return None


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """`connectm web --port 0` running: the page's address."""
    from conftest import unavailable

    why = missing()
    if why:
        unavailable(why)
    env = dict(os.environ, CONNECTM_NPM_PREFIX=str(harness.NPM_PREFIX))
    p = subprocess.Popen([sys.executable, "-m", "connectm.cli", "web", "--port", "0"],
                         stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = p.stdout.readline() if p.stdout else ""
        m = re.search(r"serving the page at (http://127\.0\.0\.1:\d+/)", line)
        assert m, "connectm web printed %r" % line
        yield m.group(1)
    finally:
        p.terminate()
        p.wait(timeout=30)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if missing():
        pytest.skip("no browser")  # (site, asked first, has already failed or skipped)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Page:
    """The page of one board, and the moves its serial panel shows."""

    def __init__(self, browser: Any, url: str) -> None:
        self.page = browser.new_page(viewport={"width": 1000, "height": 720})
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url)
        self.wait("window.connectm && window.connectm.loadMs !== null")
        self.load_ms = self.page.evaluate("window.connectm.loadMs")

    def wait(self, js: str, arg: Any = None) -> None:
        try:
            self.page.wait_for_function(js, arg=arg, timeout=WAIT_MS)
        except Exception as e:
            if "Timeout" not in type(e).__name__:
                raise
            # what the page showed when the wait gave up (CI once waited out a cursor move)
            raise AssertionError("%d s waiting for %s (%r): the page's data %r, its errors %r,"
                                 " its last lines %r" % (WAIT_MS // 1000, js, arg, self.data(),
                                                         self.errors, self.lines()[-6:])
                                 ) from None

    def lines(self) -> list[str]:
        return self.page.evaluate("window.connectm.lines.map(l => l.text)")

    def b_lines(self) -> list[tuple[str, ...]]:
        """The fields of every B line (w, h, lv, you, moves, turn, over), in order."""
        return [m.groups() for m in map(B_LINE.match, self.lines()) if m]

    def wait_line(self, text: str, count: int = 1) -> None:
        self.wait("([t, n]) => window.connectm.lines.filter(l => l.text.startsWith(t)).length "
                  ">= n", [text, count])

    def data(self) -> dict[str, str]:
        return self.page.evaluate("({...document.body.dataset})")

    def leds(self) -> list[list[int]]:
        v = self.page.evaluate("[...document.querySelectorAll('#leds .led')]"
                               ".map(d => +d.dataset.v)")
        n = int(len(v) ** 0.5)
        return [v[y * n:(y + 1) * n] for y in range(n)]

    def click(self, control: str) -> None:
        self.page.click("#" + control)

    def table(self) -> int:
        """The bytes of the table the board's boot printed (`T <bytes>`); 0 for none."""
        t = [int(ln.split()[1]) for ln in self.lines() if ln.startswith("T ")]
        return t[0] if t else 0


def expected_leds(moves: str, w: int, h: int, hp: int) -> list[list[int]]:
    """The board's rows as cmgame draws them (y = 1..h): the human's discs 9, the other 3."""
    rows = [[0] * w for _ in range(h)]
    height = [0] * w
    for i, c in enumerate(moves):
        x = int(c) - 1
        rows[h - 1 - height[x]][x] = 9 if 1 + (i & 1) == hp else 3
        height[x] += 1
    return rows


def connectm_move(positions: list[str], table: int, size: str = "5x4") -> list[str]:
    """`connectm move`'s column at the top level for each position."""
    p = subprocess.run([sys.executable, "-m", "connectm.cli", "move", "--size", size,
                        "--table", str(table)], input="".join(q + "\n" for q in positions),
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def play_game(page: Page, drop: str, rng: random.Random, times: list[float]) -> str:
    """One game on the page's buttons from its menu or end: the human's drops on ``drop``
    (btn-ab: A+B, logo: the touch logo), each column picked at random among the open ones
    and reached with A and B. The LEDs are checked at each of the human's turns and at the
    end; the game's moves are returned."""
    n0 = len(page.b_lines())
    r0 = sum(1 for ln in page.lines() if ln.startswith("R "))
    page.click(drop)
    page.wait("() => document.body.dataset.st == '1'")
    page.wait(MY_TURN)
    while True:
        d = page.data()
        moves, hp = d["moves"], int(d["hp"])
        if d["st"] == "2":
            break
        assert page.leds()[1:] == expected_leds(moves, 5, 4, hp), moves
        assert page.page.inner_text("#status").startswith("Your turn")
        col = rng.choice([c for c in range(5) if moves.count(str(c + 1)) < 4])
        cur = int(d["cur"])
        while cur != col:
            step = "btn-b" if (col - cur) % 5 <= 2 else "btn-a"
            cur = (cur + (1 if step == "btn-b" else -1)) % 5
            page.click(step)
            page.wait("c => document.body.dataset.cur == c", str(cur))
        count = len(page.b_lines())
        page.click(drop)
        page.wait_line("B ", count + 1)
        page.wait(MY_TURN)
        lines = page.page.evaluate("window.connectm.lines.filter(l => l.text.startsWith('B '))")
        if len(lines) > count + 1:  # the reply: its time after the human's drop
            times.append(lines[count + 1]["t"] - lines[count]["t"])
    b = page.b_lines()[n0:]
    moves = b[-1][4]
    hp, over = int(b[-1][3]), int(b[-1][6])
    # a game the human starts begins with its empty board's line (the drop that started it
    # is answered), one the computer starts with the computer's move's
    assert [x[4] for x in b] == [moves[:i] for i in range(hp - 1, len(moves) + 1)]
    assert over in (1, 2, 3)
    # the winner's line blinks (0 or 9); every other LED is the board's
    want, got = expected_leds(moves, 5, 4, hp), page.leds()[1:]
    for y in range(4):
        for x in range(5):
            winner = want[y][x] and (want[y][x] == 9) == (over == hp)
            assert got[y][x] == want[y][x] or over != 3 and winner and got[y][x] in (0, 9), \
                (moves, got)
    page.wait_line("R ", r0 + 1)
    word = {3: "a draw", hp: "you won"}.get(over, "you lost")
    assert page.page.inner_text("#result").startswith(word)
    assert page.page.inner_text("#status").startswith(word.capitalize())
    return moves


def test_page_plays_the_v2s_moves_both_colours(site: str, browser: Any,
                                               record_property: Any) -> None:
    page = Page(browser, site)
    page.wait_line("T ")
    table = page.table()
    assert table == build.V2_TT
    assert page.data()["st"] == "0" and "Menu: level 1 of 5" in page.page.inner_text("#status")
    # mip's line for a Pico, with the page's own address (the packages are beside it)
    assert page.page.inner_text("#mip") == "mpremote mip install --target / %spackage.json" % site
    # the sounds, off at boot: the logo held for a second turns them on (a short 1760 Hz
    # beep) and drops nothing (the menu stays: B below moves the level)
    page.page.hover("#logo")
    page.page.mouse.down()
    page.wait("() => window.connectm.sounds.some(s => s.tone && s.tone[0] == 1760)")
    page.page.mouse.up()
    # the level: B four times, to the top
    for lv in range(2, 6):
        page.click("btn-b")
        page.wait_line("L %d" % lv)
    assert page.data()["st"] == "0"
    assert page.leds()[4] == [9] * 5  # the menu's level bar
    rng = random.Random(47)
    times: list[float] = []
    # first game: the human first, dropping with A+B; the second: the computer first (the
    # human's colour alternates), dropping with a tap on the touch logo
    games = [play_game(page, "btn-ab", rng, times), play_game(page, "logo", rng, times)]
    b = page.b_lines()
    assert [x[3] for x in b if x[4] == games[0]] == ["1"]
    assert [x[3] for x in b if x[4] == games[1]] == ["2"]
    assert all(x[2] == "5" for x in b)  # the top level throughout
    # the computer's moves, position by position, are connectm move's with the board's table
    positions, replies = [], []
    for moves, hp in zip(games, (1, 2)):
        for i in range(len(moves)):
            if 1 + (i & 1) != hp:
                positions.append(moves[:i])
                replies.append(moves[i])
    assert replies == connectm_move(positions, table)
    # every drop beeped (440 Hz), but each game's last, which played its tune: won or lost
    # (the first game's empty board's line is no drop)
    sounds = page.page.evaluate("window.connectm.sounds")
    assert [x["tone"] for x in sounds if "tone" in x] == [[1760, 40]] + [[440, 30]] * (
        len(b) - 3)
    tunes = {1: "g4:1 c5 e5 g5:2 e5:1 g5:3", 2: "g5:1 d#5 c5 g4:2 b4:1 c5:3"}  # won, lost
    assert [x["tune"] for x in sounds if "tune" in x] == [
        tunes[1 if int(x[6]) == int(x[3]) else 2] for x in b if x[6] in "12"]
    # the serial line from the keyboard: '?' answers the free heap
    page.page.keyboard.press("?")
    page.wait_line("M ")
    page.page.type("#serial-in", "?")
    page.wait_line("M ", 2)
    assert not page.errors
    record_property("web_load_ms", round(page.load_ms))
    record_property("web_reply_ms_max", round(max(times)))
    print("page loaded in %.0f ms; %d replies at the top level: mean %.0f ms, max %.0f ms; "
          "games %s" % (page.load_ms, len(times), sum(times) / len(times), max(times), games))
    page.page.close()


@pytest.mark.parametrize("board", ["microbit", "pico-max7219"])
def test_page_plays_the_other_boards(site: str, browser: Any, board: str) -> None:
    # the v1's build (no table, no T line) and the Pico's (7x6, its table, an 8x8 MAX7219):
    # the top level from the keyboard's serial keys, one drop on the buttons, the reply
    page = Page(browser, site + "?board=" + board)
    pico = board != "microbit"
    if pico:
        page.wait_line("T ")
    for lv in range(2, 6):
        page.page.keyboard.press("r")
        page.wait_line("L %d" % lv)
    page.page.keyboard.press("d")
    page.wait("() => document.body.dataset.st == '1'")
    page.click("btn-ab")  # A+B, or the Pico's drop: in the middle column
    # (the Pico's game began with its empty board's line; the v1's build has no room for it)
    page.wait_line("B ", 3 if pico else 2)
    assert [x[4] for x in page.b_lines()[:-2]] == ([""] if pico else [])
    you, reply = page.b_lines()[-2][4], page.b_lines()[-1][4]
    w, h = (7, 6) if pico else (5, 4)
    assert you == str(w // 2 + 1)
    assert reply[1:] == connectm_move([you], page.table(), "%dx%d" % (w, h))[0]
    got = page.leds()[1:h + 1]
    for y, row in enumerate(expected_leds(reply, w, h, 1)):
        for x, v in enumerate(row):
            # a MAX7219 has no dim LEDs: the computer's disc blinks (0 or 9)
            assert got[y][x] == v or pico and v == 3 and got[y][x] in (0, 9), (reply, got)
    assert ("first" in page.page.inner_text("#you")) and not page.errors
    page.page.close()


def test_web_out_writes_the_static_site(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    try:
        webpage.npm_dir()
    except webpage.WebError as e:
        from conftest import unavailable
        unavailable(str(e))
    assert cli.main(["web", "--out", str(tmp_path / "site")]) == 0
    assert capsys.readouterr().out.startswith("wrote ")
    site = tmp_path / "site"
    for f in webpage.PAGE + webpage.NPM_FILES + ("boards.json", "MICROPYTHON-LICENSE.txt"):
        assert (site / f).is_file(), f
    # mip's packages and the files they name (tests/test_mip.py installs them from here)
    for path, data in mip_package.site_files().items():
        assert (site / path).read_bytes() == data, path
    notice = (site / "MICROPYTHON-LICENSE.txt").read_text()
    assert "the npm package %s." % webpage.NPM_PKG in notice and "MIT License" in notice
    for name in webpage.BOARDS:
        files = {p.name for p in (site / "boards" / name).iterdir()}
        assert files == {i.name for i in build.plan(build.BOARDS[name]).items} | {"webmain.py"}
    # the v2's build as deploy writes it, and main.py stepped: its loop's sleep a yield
    v2 = site / "boards" / "microbit-v2"
    plan = {i.name: i.data for i in build.plan(build.BOARDS["microbit-v2"]).items}
    assert (v2 / "cmsearch.py").read_bytes() == plan["cmsearch.py"]
    step = (v2 / "webmain.py").read_text()
    assert "sleep_ms(20)" not in step and step.count("(yield)") == 2
    assert step.startswith("def run():\n\timport gc\n")


def test_stepped_main_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert webpage.stepped_main("import x\nwhile 1:\n    x.y()\n    sleep_ms(20)\n") == (
        "def run():\n    import x\n    while 1:\n        x.y()\n        (yield)\n")
    with pytest.raises(webpage.WebError, match="no sleep_ms"):
        webpage.stepped_main("while 1:\n    pass\n")
    # --port and --out together, a port out of range, an --out that is a file: one line each
    assert cli.main(["web", "--port", "1", "--out", "x"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert cli.main(["web", "--port", "70000"]) == 2
    assert capsys.readouterr().err.strip() == \
        "connectm: error: --port 70000 is not a port number (0 to 65535)"
    assert cli.main(["web", "--out", __file__]) == 2
    assert "is not a directory" in capsys.readouterr().err
