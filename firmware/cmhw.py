# cmhw: the board choice, and every pin, in one place. setup() returns (disp, key, w, h, tt):
# the display driver (cmgame's contract), key() -> a key character or None (buttons, then
# the serial console), the game board's size and the transposition table's bytes.
# micro:bit: its 5x5 LEDs, a 5x4 board under a cursor row, no table. Else (e.g. a Raspberry
# Pi Pico): an 8x8 MAX7219 or NeoPixel matrix, a 7x6 board, three GPIO buttons and a table
# (cmpico; a micro:bit never compiles it).
from micropython import const
DISPLAY = 'max7219'  # or 'neopixel'
SPI_ID, SCK, MOSI, CS = 0, 18, 19, 17  # MAX7219
NEO = 22  # NeoPixel data pin
BUTTONS = (14, 15, 16)  # left, right, drop (to GND, internal pull-ups)
TT_BYTES = 32768  # cmgame takes less if the RAM does not hold it
# The micro:bit's table: none on the v1 (no room); connectm deploy's v2 build sets the
# bytes (deploy.V2_TT) for its 64 KB heap.
MB_TT = const(0)


def setup():
    try:
        import drv_microbit
    except ImportError:
        import cmpico
        return cmpico.setup()
    return drv_microbit, drv_microbit.key, 5, 4, MB_TT
