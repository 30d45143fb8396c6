"""The page's ``microbit`` module (connectm web): what the firmware's drv_microbit uses, on
the page's LEDs, buttons and touch logo. The worker (worker.js) feeds the buttons, the logo
and the serial line through webhw.apply() between steps of the game loop; the LEDs and the
scrolled text go to the page as they change (webjs, the worker's functions)."""

import time

import webjs


def running_time():
    return time.ticks_ms()


def sleep(ms):
    time.sleep_ms(ms)


def reset():
    raise SystemExit('reset')  # the worker boots the board again, its files kept


class _Display:
    def __init__(self):
        self._px = bytearray(25)

    def set_pixel(self, x, y, value):
        if not 0 <= value <= 9:
            raise ValueError('brightness out of bounds')
        if not (0 <= x < 5 and 0 <= y < 5):
            raise ValueError('index out of bounds')
        if self._px[5 * y + x] != value:
            self._px[5 * y + x] = value
            webjs.px(x, y, value)

    def get_pixel(self, x, y):
        return self._px[5 * y + x]

    def clear(self):
        for i in range(25):
            if self._px[i]:
                self._px[i] = 0
                webjs.px(i % 5, i // 5, 0)

    def show(self, image, delay=400, wait=True, loop=False, clear=False):
        # the firmware shows ' ' alone: a blank character, which stops a scroll
        self.clear()
        webjs.text('' if image == ' ' else str(image))

    def scroll(self, text, delay=150, wait=True, loop=False, monospace=False):
        # shown beside the LEDs, not on them: the board stays readable
        webjs.text(str(text))

    def is_on(self):
        return True


class _Button:
    def __init__(self):
        self._down = False
        self._presses = 0

    def _set(self, down):
        if down and not self._down:
            self._presses += 1  # the micro:bit counts a press when it goes down
        self._down = down

    def is_pressed(self):
        return self._down

    def was_pressed(self):
        p = self._presses > 0
        self._presses = 0
        return p

    def get_presses(self):
        n = self._presses
        self._presses = 0
        return n


class _TouchPin:
    def __init__(self):
        self._touched = False

    def is_touched(self):
        return self._touched


class _Uart:
    """The REPL UART: the bytes typed on the page."""

    def __init__(self):
        self._rx = bytearray()

    def any(self):
        return len(self._rx)

    def read(self, n=-1):
        if not self._rx:
            return None
        n = len(self._rx) if n < 0 else n
        out = bytes(self._rx[:n])
        self._rx = self._rx[n:]
        return out

    def readinto(self, buf, n=-1):
        data = self.read(len(buf) if n < 0 else n)
        if not data:
            return None
        for i in range(len(data)):
            buf[i] = data[i]
        return len(data)


def set_volume(v):
    if not 0 <= v <= 255:
        raise ValueError('volume out of range')
    webjs.volume(v)


display = _Display()
uart = _Uart()
button_a = _Button()
button_b = _Button()
pin_logo = _TouchPin()
