# drv_microbit: the cmgame display contract on the micro:bit's 5x5 LEDs (brightness 0-9),
# and key(): A = 'l', B = 'r', A+B or the v2 touch logo = 'd', else a character from the
# serial console (the REPL UART, read without blocking), else None. A button acts when
# released, so that A+B is one drop and not a left first.
from micropython import const
from microbit import display, button_a, button_b, uart

# The v2's touch logo drops too; 0 in a v1 build (connectm deploy): no code for it.
LOGO = const(1)
pin_logo = None
if LOGO:
    try:
        from microbit import pin_logo
    except ImportError:
        pass

px = display.set_pixel
ab = lo = 0  # A+B seen during this press; the logo touched at the last poll
# Nothing to push: set_pixel lights at once. A builtin that takes no argument, not a def
# of ours: a function would cost a micro:bit RAM.
show = int


def text(s):
    # 60 ms per column, in the background: the game reads keys meanwhile (a key stops it:
    # cmgame calls text('')). The board's redraws in between last until the next column.
    # clear() frees the scroll's objects too.
    if s:
        display.scroll(s, 60, wait=False)
    else:
        display.clear()


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
    e = 0
    if LOGO and pin_logo:
        t = pin_logo.is_touched()
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
