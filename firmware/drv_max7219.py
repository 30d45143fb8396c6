# drv_max7219: the cmgame display contract on an 8x8 LED matrix driven by a MAX7219 over SPI.
# init(spi, cs) sets the registers (datasheet: decode mode 0, scan limit 7, intensity,
# shutdown off = normal operation, display test off). Row y is digit register y+1, pixel x
# is bit 7-x. No per-pixel brightness: dim pixels (v 1..4) blink, on while ticks_ms() has
# bit 8 set. fb holds the lit pixels, dim the dim ones: one byte per row, allocated once.
from utime import ticks_ms

fb = bytearray(8)
dim = bytearray(8)
spi = cs = None


def reg(r, v):
    cs(0)
    spi.write(bytes((r, v)))
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
    on = ticks_ms() & 256
    for y in range(8):
        reg(y + 1, fb[y] if on else fb[y] & ~dim[y])


def text(s):
    pass
