"""Fake ``machine`` module: Pin and SPI record what is written (MicroPython 1.9 syntax)."""


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = mode
        self._value = 0 if value is None else value
        self.history = []

    def init(self, mode=-1, pull=-1, value=None):
        self.mode = mode
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            return self._value
        self._value = 1 if v else 0
        self.history.append(self._value)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def __call__(self, v=None):
        return self.value(v)


class SPI:
    def __init__(self, id=0, baudrate=1000000, **kw):
        self.id = id
        self.baudrate = baudrate
        self.config = kw
        self.writes = []  # bytes of every write(), in order

    def init(self, baudrate=1000000, **kw):
        self.baudrate = baudrate
        self.config.update(kw)

    def write(self, buf):
        self.writes.append(bytes(buf))

    def read(self, n, write=0):
        return bytes([write] * n)

    def write_readinto(self, out, into):
        self.writes.append(bytes(out))
        for i in range(len(into)):
            into[i] = 0

    def deinit(self):
        pass


def freq():
    return 16000000


def reset():
    raise SystemExit("machine.reset()")
