"""Fake ``microbit`` module for CPython/WASM tests (MicroPython 1.9 syntax): the v1's
members, and the v2's that the firmware uses (pin_logo, speaker, set_volume; the sounds are
in the fake ``music``). Every public name here is a name of the v2 firmware
(tests/test_microbit_v2.py checks them against host/connectm/microbit_v2_qstrs.txt), but
the test helpers (press, hold, feed, touch) and the recorded state (underscored)."""

_t0 = [0]


def running_time():
    return _t0[0]


def sleep(ms):
    _t0[0] += ms


class Image:
    def __init__(self, *args):
        self.args = args


class _Display:
    def __init__(self):
        self.pixels = [[0] * 5 for _ in range(5)]
        self.shown = []  # everything passed to show()/scroll(), in order
        self.on = True

    def get_pixel(self, x, y):
        return self.pixels[y][x]

    def set_pixel(self, x, y, value):
        if not 0 <= value <= 9:
            raise ValueError("brightness out of bounds")
        self.pixels[y][x] = value

    def clear(self):
        self.pixels = [[0] * 5 for _ in range(5)]

    def show(self, image, delay=400, wait=True, loop=False, clear=False):
        self.shown.append(image)
        if image == ' ':  # the one character whose picture the fake knows: all off
            self.clear()

    def scroll(self, text, delay=150, wait=True, loop=False, monospace=False):
        self.shown.append(text)

    def is_on(self):
        return self.on


class _Button:
    def __init__(self):
        self._pressed = False
        self._presses = 0

    # test helpers
    def press(self):
        self._presses += 1

    def hold(self, down=True):
        self._pressed = down

    # micro:bit API
    def is_pressed(self):
        return self._pressed

    def was_pressed(self):
        p = self._presses > 0
        self._presses = 0
        return p

    def get_presses(self):
        n = self._presses
        self._presses = 0
        return n


class _Pin:
    def __init__(self, n):
        self.n = n
        self.value = 0

    def write_digital(self, v):
        self.value = v

    def read_digital(self):
        return self.value


class _TouchPin(_Pin):
    """The v2's touch logo: touch(on) holds a finger on it (test helper)."""

    def __init__(self):
        _Pin.__init__(self, 'logo')
        self._touched = False

    def touch(self, on=True):
        self._touched = on

    def is_touched(self):
        return self._touched


class _Speaker:
    """The v2's built-in speaker (on at power-up)."""

    def __init__(self):
        self._on = True

    def on(self):
        self._on = True

    def off(self):
        self._on = False

    def is_on(self):
        return self._on


_volume = []  # every set_volume() value, in order


def set_volume(v):
    if not 0 <= v <= 255:
        raise ValueError("volume out of range")
    _volume.append(v)


class _Uart:
    """The REPL UART: feed(text) queues input for any()/read()."""

    def __init__(self):
        self.rx = b""

    def feed(self, data):
        self.rx += data.encode() if isinstance(data, str) else bytes(data)

    def any(self):
        return len(self.rx)

    def read(self, n=-1):
        if not self.rx:
            return None
        if n < 0:
            n = len(self.rx)
        out, self.rx = self.rx[:n], self.rx[n:]
        return out

    def readinto(self, buf, n=-1):
        data = self.read(len(buf) if n < 0 else n)
        if not data:
            return None
        buf[:len(data)] = data
        return len(data)


display = _Display()
uart = _Uart()
button_a = _Button()
button_b = _Button()
pin0, pin1, pin2 = _Pin(0), _Pin(1), _Pin(2)
pin_logo = _TouchPin()
speaker = _Speaker()
