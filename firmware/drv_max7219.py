# drv_max7219: the cmgame display contract on an 8x8 LED matrix driven by a MAX7219 over SPI.
# init(spi, cs) sets the registers (datasheet: decode mode 0, scan limit 7, intensity,
# shutdown off = normal operation, display test off). Row y is digit register y+1, pixel x
# is bit 7-x. No per-pixel brightness: dim pixels (v 1..4) blink, on while ticks_ms() has
# bit 9 set: half the rate of cmgame's blink (bit 8: the cursor, a winning line), so that a
# dim cursor (the other side's turn) is told from a bright one. fb holds the lit pixels,
# dim the dim ones: one byte per row; w the frame sent; all allocated once, so that show()
# allocates nothing (it runs in the search's poll).
from utime import ticks_ms

fb = bytearray(8)
dim = bytearray(8)
w = bytearray(2)
spi = cs = None


def reg(r, v):
    w[0] = r
    w[1] = v
    cs(0)
    spi.write(w)
    cs(1)


def init(s, c, bright=4):
    global spi, cs
    spi, cs = s, c
    for r, v in ((15, 0), (9, 0), (11, 7), (10, bright), (12, 1)):
        reg(r, v)


def px(x, y, v):
    m = 128 >> x
    fb[y] = fb[y] | m if v else fb[y] & ~m
    dim[y] = dim[y] | m if 0 < v < 5 else dim[y] & ~m


def show():
    on = ticks_ms() & 512
    for y in range(8):
        reg(y + 1, fb[y] if on else fb[y] & ~dim[y])


def text(s):
    pass
