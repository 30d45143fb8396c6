# cmhw: the board choice, and every pin, in one place. setup() returns (disp, key, w, h, tt):
# the display driver (cmgame's contract), key() -> a key character or None (buttons, then
# the serial console), the game board's size and the transposition table's bytes (1: a
# table that takes the heap left once the rest of the game is made, cmpico.fit).
# micro:bit: its 5x5 LEDs, a 5x4 board under a cursor row, no table. Else (e.g. a Raspberry
# Pi Pico): an 8x8 MAX7219 or NeoPixel matrix, a 7x6 board, three GPIO buttons and a table
# (cmpico; a micro:bit never compiles it).
# An import circle with cmpico, kept: setup() imports cmpico on a board that is no
# micro:bit, and cmpico reads the pins here: every pin stays in this one file.
from micropython import const
DISPLAY = 'max7219'  # or 'neopixel'
SPI_ID, SCK, MOSI, CS = 0, 18, 19, 17  # MAX7219
NEO = 22  # NeoPixel data pin
BUTTONS = (14, 15, 16)  # left, right, drop (to GND, internal pull-ups)
# The table is made last at boot (cmpico.fit) and takes the heap then free but RESERVE
# bytes, in whole KB: what the game allocates after it (the compiling of cmmain's last
# statements, the save text and the serial lines' strings, a book look-up's buffers, the
# serial `?` check), and heap fragments (1/8 less at a time while no block holds it).
RESERVE = 16384
# A board with a table (a Pico, a micro:bit v2) plays its top level to this depth and node
# budget, not cmlevels': 10,240 nodes are ~13 s at an emulated Pico's ~800 nodes/s with its
# table and cmsearch7 (docs/pico-7x6.md, "Cost"). (On 5x4 the top level plays from the
# book: no search.)
TOP = (20, 10240)
# and, on a board larger than 5x4 (a Pico's 7x6), levels 3 and 4 to these: cmlevels' budgets,
# set for a micro:bit's 5x4, stop a 7x6 search at depth 3 or 4, where level 3 scored below
# level 2 (docs/levels.md). A v2's 5x4 keeps them: there level 4 at depth 12 would solve
# the game from its 8th disc on and play as the top level does.
WIDE = (6, 1024, 12, 4096)
# The micro:bit's table: none on the v1 (no room); connectm deploy's v2 build sets the
# bytes (build.V2_TT) for its 64 KB heap.
MB_TT = const(0)


def tabled(L, w, h):
    # cmlevels.LEVELS (depth, nodes, book plies of each level) on a w x h board with a table
    if w * h > 20:
        L = L[:6] + WIDE[:2] + L[8:9] + WIDE[2:] + L[11:]
    return L[:-3] + TOP + L[-1:]


def setup():
    try:
        import drv_microbit
    except ImportError:
        import cmpico
        return cmpico.setup()
    return drv_microbit, drv_microbit.key, 5, 4, MB_TT
