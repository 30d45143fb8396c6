"""The page's ``machine`` module (connectm web): a Pico's pins and SPI bus, with a MAX7219
8x8 matrix on the bus, and reset(). A button's pin (pull-up) reads 0 while the page holds it
down (webhw.apply); each 2-byte SPI write is a MAX7219 register write, and digits 1 to 8 are
the matrix's rows, sent to the page as they change."""

import webjs

_levels = {}  # type: dict  # pin id -> the level the page drives (a button: 0 down, 1 up)


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self._v = 1 if pull == Pin.PULL_UP else 0
        if value is not None:
            self._v = 1 if value else 0

    def init(self, mode=-1, pull=-1, value=None):
        if value is not None:
            self._v = 1 if value else 0

    def value(self, v=None):
        if v is None:
            return _levels.get(self.id, self._v)
        self._v = 1 if v else 0

    def on(self):
        self._v = 1

    def off(self):
        self._v = 0

    def __call__(self, v=None):
        return self.value(v)


class SPI:
    def __init__(self, id=0, baudrate=1000000, **kw):
        self.rows = bytearray(8)
        self.on = False  # shutdown register (12): 1 = normal operation

    def init(self, baudrate=1000000, **kw):
        pass

    def write(self, buf):
        if len(buf) != 2:
            return
        r, v = buf[0], buf[1]
        if r == 12:
            self.on = bool(v)
            for y in range(8):
                webjs.row(y, self.rows[y] if self.on else 0)
        elif 1 <= r <= 8 and self.rows[r - 1] != v:
            self.rows[r - 1] = v
            if self.on:
                webjs.row(r - 1, v)

    def deinit(self):
        pass


def reset():
    raise SystemExit('reset')  # the worker boots the board again, its files kept


def unique_id():
    return b'webpage1'


def freq():
    return 125000000
