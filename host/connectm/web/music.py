"""The page's ``music`` module (connectm web): notes played by the page's Web Audio."""

import webjs

# the micro:bit's own tunes
POWER_UP = ('g4:1', 'c5', 'e5', 'g5:2', 'e5:1', 'g5:3')
POWER_DOWN = ('g5:1', 'd#5', 'c5', 'g4:2', 'b4:1', 'c5:3')


def pitch(frequency, duration=-1, pin=None, wait=True):
    webjs.tone(frequency, duration)


def play(music, pin=None, wait=True, loop=False):
    webjs.tune(music if isinstance(music, str) else ' '.join(music))


def stop(pin=None):
    webjs.stop()
