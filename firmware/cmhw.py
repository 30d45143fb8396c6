# cmhw: the board choice, and every pin, in one place. setup() returns (disp, key, w, h):
# the display driver (cmgame's contract), key() -> a key character or None (buttons, then
# the serial console), and the game board's size. micro:bit: its 5x5 LEDs, a 5x4 board
# under a cursor row. Else (e.g. a Raspberry Pi Pico): an 8x8 MAX7219 or NeoPixel matrix,
# a 7x6 board, three GPIO buttons, and sys.stdin polled with select.
DISPLAY = 'max7219'  # or 'neopixel'
SPI_ID, SCK, MOSI, CS = 0, 18, 19, 17  # MAX7219
NEO = 22  # NeoPixel data pin
BUTTONS = (14, 15, 16)  # left, right, drop (to GND, internal pull-ups)


def setup():
    try:
        import microbit  # noqa: F401
    except ImportError:
        return pico()
    import drv_microbit
    return drv_microbit, drv_microbit.key, 5, 4


def pico():
    import sys
    import select
    from machine import Pin, SPI
    import drv_buttons
    bt = drv_buttons.Buttons([Pin(n, Pin.IN, Pin.PULL_UP) for n in BUTTONS])
    if DISPLAY == 'max7219':
        import drv_max7219 as d
        d.init(SPI(SPI_ID, baudrate=1000000, sck=Pin(SCK), mosi=Pin(MOSI)),
               Pin(CS, Pin.OUT, value=1))
    else:
        import drv_neopixel as d
        d.init(Pin(NEO, Pin.OUT))
    p = select.poll()
    p.register(sys.stdin, select.POLLIN)

    def key():
        return bt.key() or (sys.stdin.read(1) if p.poll(0) else None)
    return d, key, 7, 6
