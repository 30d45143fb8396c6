# cmpico: cmhw's setup for boards other than the micro:bit (e.g. a Raspberry Pi Pico): the
# display named by cmhw.DISPLAY on cmhw's pins, three GPIO buttons, and sys.stdin polled
# with select for the serial control line.
import sys
import select
from machine import Pin, SPI
import cmhw as c


def setup():
    import drv_buttons
    bt = drv_buttons.Buttons([Pin(n, Pin.IN, Pin.PULL_UP) for n in c.BUTTONS])
    if c.DISPLAY == 'max7219':
        import drv_max7219 as d
        d.init(SPI(c.SPI_ID, baudrate=1000000, sck=Pin(c.SCK), mosi=Pin(c.MOSI)),
               Pin(c.CS, Pin.OUT, value=1))
    else:
        import drv_neopixel as d
        d.init(Pin(c.NEO, Pin.OUT))
    p = select.poll()
    p.register(sys.stdin, select.POLLIN)

    def key():
        return bt.key() or (sys.stdin.read(1) if p.poll(0) else None)
    return d, key, 7, 6, c.TT_BYTES
