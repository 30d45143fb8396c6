# cmpico: cmhw's setup for boards other than the micro:bit (e.g. a Raspberry Pi Pico): the
# display named by cmhw.DISPLAY on cmhw's pins, three GPIO buttons, and sys.stdin polled
# with select for the serial control line: read as bytes (sys.stdin.buffer where the port
# has it: sys.stdin.read(1) decodes UTF-8 and raises on a byte that is not), into one
# buffer, with poll's ipoll (poll() makes a list): nothing is allocated per byte. A byte
# that is one of the protocol's keys is its character, any other is dropped (docs/serial.md),
# as on the micro:bit.
# An import circle with cmhw, kept: see cmhw.
import gc
import sys
import select
from machine import Pin, SPI
import cmhw as c


def setup():
    import drv_buttons
    bt = drv_buttons.Buttons([Pin(n, Pin.IN, Pin.PULL_UP) for n in c.BUTTONS])
    if c.DISPLAY == 'max7219':
        import drv_max7219 as d
        d.init(SPI(c.SPI_ID, baudrate=1000000, sck=Pin(c.SCK), mosi=Pin(c.MOSI)),
               Pin(c.CS, Pin.OUT, value=1))
    else:
        import drv_neopixel as d
        d.init(Pin(c.NEO, Pin.OUT))
    p = select.poll()
    p.register(sys.stdin, select.POLLIN)
    s = getattr(sys.stdin, 'buffer', sys.stdin)
    u = bytearray(1)

    def key():
        k = bt.key()
        if k:
            return k
        for _ in p.ipoll(0):
            if s.readinto(u) and u[0] in b'lrd123456789?':
                return chr(u[0])
    # The 7x6 game's search: cmsearch7 (threats and their rows), made by cmmain as
    # cmsearch.Search (the game's and cmponder's), and its table's clear (viper code: a
    # reply clears ~18,000 slots); the micro:bit's builds never see them.
    # cmbook too (the first book look-up's): a board given source (mip) compiles each
    # module at its first import, so every import comes before the table takes the heap.
    import cmsearch
    import cmsearch7
    import cmtt
    import cmbook  # noqa: F401
    cmsearch.Search = cmsearch7.Search
    cmtt.TT.clear = cmsearch7.clear
    return d, key, 7, 6, 1  # 1: a table, made last (fit)


def table(free):
    # The transposition table's bytes from the free heap: all but cmhw.RESERVE, in whole KB
    # (cmtt takes any multiple of 8). 191,872 B free: 175,104 B.
    return max(0, free - c.RESERVE) // 1024 * 1024


def fit():
    # The table, made by cmmain once everything else of the game is (boards, searches and
    # their tables): the heap then free but cmhw.RESERVE, the largest in whole KB that a
    # free block holds, 1/64 less at a time (the heap's holes: a source install's has more).
    # A table sized to the heap is no fault: no line (cmmain prints its size, the T line).
    import cmtt
    gc.collect()
    n = table(gc.mem_free())
    while n > 0:
        try:
            return cmtt.TT(n)
        except MemoryError:
            n -= max(1024, n // 65536 * 1024)
    return cmtt.TT(0)
