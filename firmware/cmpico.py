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

SLACK = 8192  # bytes: the boards and the search's arrays, made before the table


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
    gc.collect()
    return d, key, 7, 6, table(gc.mem_free())


def table(free):
    # The transposition table's bytes from the free heap at boot: all but cmhw.RESERVE, in
    # whole KB (cmtt takes any multiple of 8), and no more than the largest free block holds
    # with SLACK beside it (the table is one block, made after the boards): sized from the
    # free heap alone, MicroPython 1.28's table did not fit and shrank with an 'E low memory'
    # line at every boot. A binary search of allocations, at boot only.
    lo = 0
    hi = max(0, free - c.RESERVE) // 1024
    while lo < hi:
        n = (lo + hi + 1) // 2
        try:
            bytearray(n * 1024 + SLACK)
            lo = n
        except MemoryError:
            hi = n - 1
    return lo * 1024
