"""Fake ``neopixel`` module: NeoPixel keeps its buffer (MicroPython 1.9 syntax)."""


class NeoPixel:
    def __init__(self, pin, n, bpp=3):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = [(0,) * bpp for _ in range(n)]
        self.shown = []  # copy of buf at every write()/show()

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        self.buf[i] = tuple(v)

    def __getitem__(self, i):
        return self.buf[i]

    def fill(self, v):
        for i in range(self.n):
            self.buf[i] = tuple(v)

    def clear(self):
        self.fill((0,) * self.bpp)

    def write(self):
        self.shown.append(list(self.buf))

    def show(self):
        self.write()
