"""Fake ``music`` module (the micro:bit's; MicroPython 1.9 syntax): what the firmware calls,
recorded in ``_calls`` as (function, arguments..., wait) in order, at the fake microbit's
running_time(). Its public names are the v2 firmware's (tests/test_microbit_v2.py)."""

import microbit

POWER_UP = ('g5:1', 'c6:1', 'e6:1', 'g6:1', 'c7:2')  # the firmware's tunes are longer
POWER_DOWN = ('g5:1', 'd#5:1', 'c5:1', 'g4:1', 'b4:2')
_calls = []


def pitch(frequency, duration=-1, pin=None, wait=True):
    _calls.append(('pitch', frequency, duration, wait, microbit.running_time()))


def play(music, pin=None, wait=True, loop=False):
    _calls.append(('play', music, wait, microbit.running_time()))


def stop(pin=None):
    _calls.append(('stop', microbit.running_time()))
