# drv_buttons: GPIO buttons (pull-up, pressed = 0) for boards without the micro:bit's.
# Buttons(pins, keys='lrd').key(now_ms=None) returns the key of a button that went down and
# stayed down DEBOUNCE ms, once per press (a held button is one press), else None.
from utime import ticks_ms, ticks_diff


class Buttons:
    DEBOUNCE = 50

    def __init__(self, pins, keys='lrd'):
        self.pins = pins
        self.keys = keys
        self.raw = bytearray(len(pins))  # the last reading
        self.down = bytearray(len(pins))  # the debounced state
        self.t = [0] * len(pins)  # when the reading last changed

    def key(self, now=None):
        if now is None:
            now = ticks_ms()
        for i in range(len(self.pins)):
            v = 0 if self.pins[i].value() else 1
            if v != self.raw[i]:
                self.raw[i] = v
                self.t[i] = now
            elif v != self.down[i] and ticks_diff(now, self.t[i]) >= self.DEBOUNCE:
                self.down[i] = v
                if v:
                    return self.keys[i]
        return None
