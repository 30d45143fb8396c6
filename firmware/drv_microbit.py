# drv_microbit: the cmgame display contract on the micro:bit's 5x5 LEDs (brightness 0-9),
# and key(): A = 'l', B = 'r', A+B or the v2 touch logo = 'd', else a character from the
# serial console (the REPL UART, read without blocking), else None. A button acts when
# released, so that A+B is one drop and not a left first.
from microbit import display, button_a, button_b, uart
try:
    from microbit import pin_logo
except ImportError:
    pin_logo = None

px = display.set_pixel
ab = lo = 0  # A+B seen during this press; the logo touched at the last poll


def show():
    pass


def text(s):
    display.scroll(s, 60)  # ms per column; positional: a keyword costs RAM


def key():
    global ab, lo
    a = button_a.is_pressed()
    b = button_b.is_pressed()
    if a and b:
        ab = 1
    if a or b:
        return None
    a = button_a.was_pressed()
    b = button_b.was_pressed()
    t = pin_logo.is_touched() if pin_logo else 0
    e = t and not lo
    lo = t
    if ab or a and b or e:
        ab = 0
        return 'd'
    if a or b:
        return 'l' if a else 'r'
    if uart.any():
        return chr(uart.read(1)[0])
    return None
