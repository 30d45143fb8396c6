# drv_neopixel: the cmgame display contract on an 8x8 WS2812 (NeoPixel) matrix, row-major
# from the top left. Brightness 9 (the human, the cursor, the level bar) is red, 3 (the
# computer) yellow, others a grey of that level. init(pin) allocates the strip once.
import neopixel

COL = {9: (40, 0, 0), 3: (24, 16, 0), 0: (0, 0, 0)}  # made once: px() allocates nothing for them
np = None


def init(pin, n=64):
    global np
    np = neopixel.NeoPixel(pin, n)


def px(x, y, v):
    np[8 * y + x] = COL.get(v, (v, v, v))


def show():
    np.write()


def text(s):
    pass
