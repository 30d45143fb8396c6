# drv_microbit: the cmgame display contract on the micro:bit's 5x5 LEDs (brightness 0-9),
# and key(): A = 'l', B = 'r', A+B or a tap on the v2's touch logo = 'd', else a byte from
# the serial console (the REPL UART, read without blocking) as its character if it is one
# of the protocol's keys (docs/serial.md), else None: any other byte is dropped. A button
# acts when released, so that A+B is one drop and not a left first. A byte is read into one
# buffer and chr() is given only the protocol's bytes: nothing is allocated per byte (chr()
# of a byte it has not seen would keep a new string in RAM for good: 1 KB for the 128 bytes
# above 127 on a v1). The v2 (speaker): beep(k) for cmgame, off at boot (a classroom of 30
# boards): holding the logo for a second turns the sounds on (a short beep says so) or off.
from micropython import const
from microbit import display, button_a, button_b, uart

# The v2's touch logo, and its speaker; 0 in a v1 build (connectm deploy): no code for them.
LOGO = const(1)
SOUND = const(1)
HOLD = const(1000)  # ms on the logo that toggle the sounds
VOLUME = const(40)  # of 255: quiet
pin_logo = None
if LOGO:
    try:
        from microbit import pin_logo
    except ImportError:
        pass
if SOUND:
    from microbit import running_time
    on = 0  # the sounds: off at boot

px = display.set_pixel
ab = lo = 0  # A+B seen during this press; when the logo was touched (ms; 0 none, -1 held)
u = bytearray(1)  # the byte read
# Nothing to push: set_pixel lights at once. A builtin that takes no argument, not a def
# of ours: a function would cost a micro:bit RAM.
show = int


def text(s):
    # 60 ms per column, in the background: the game reads keys meanwhile (a key stops it:
    # cmgame calls text('')). The board's redraws in between last until the next column.
    # A blank character stops the scroll (and frees its objects) at once; clear() would
    # too, but on the v1's firmware 1.0.1 it waits for the display's next tick, which came
    # 16 s of the board's clock late (measured in QEMU), the game deaf meanwhile.
    if s:
        display.scroll(s, 60, wait=False)
    else:
        display.show(' ')


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
        # a tap drops when released; a hold toggles the sounds (and drops nothing)
        if pin_logo.is_touched():
            if not lo:
                lo = running_time() | 1 if SOUND else 1
            elif SOUND and lo > 0 and running_time() - lo >= HOLD:
                lo = -1
                sound(1 - on)
            return None
        e = lo > 0
        lo = 0
    if ab or a and b or e:
        ab = 0
        return 'd'
    if a or b:
        return 'l' if a else 'r'
    if uart.any():
        uart.readinto(u)
        if u[0] in b'lrd123456789?':
            return chr(u[0])
    return None


if SOUND:
    def sound(x):
        # sounds on (1) or off (0); on says so with a short high beep
        global on
        import music
        from microbit import set_volume
        on = x
        set_volume(VOLUME)
        if x:
            music.pitch(1760, 40, wait=False)
        else:
            music.stop()

    def beep(k):
        # cmgame's sounds: 'd' a disc dropped, 'W' the human won, 'L' lost, 'D' a draw.
        # Short, and never waited for: the game goes on while they play.
        if on:
            import music
            if k == 'd':
                music.pitch(440, 30, wait=False)
            elif k == 'W':
                music.play(music.POWER_UP, wait=False)
            elif k == 'L':
                music.play(music.POWER_DOWN, wait=False)
