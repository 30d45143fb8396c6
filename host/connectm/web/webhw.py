"""The page's glue (connectm web): the inputs the worker gathered between two steps of the
game loop (apply), and the game's state after a step (report), as JSON for the page."""

import json
import sys

display = 'microbit'  # or 'max7219' (a Pico)
pins = {}  # type: dict  # a Pico's buttons: name ('left', 'right', 'drop') -> pin id


def setup(spec):
    # spec: the board's entry of boards.json, as JSON text
    global display, pins
    spec = json.loads(spec)
    display = spec['display']
    pins = spec.get('pins') or {}
    if spec.get('heap'):
        model_heap(spec['heap'])


def model_heap(size):
    # This port's heap grows as it is used, and gc.mem_free() says ~128 MB: a Pico's boot
    # would give its transposition table all of it (cmpico.table). The firmware's `gc` here
    # has a heap of `size` bytes, of which what the page's MicroPython allocated since is used.
    import gc
    base = gc.mem_alloc()

    class Heap:
        pass

    m = Heap()
    m.collect = gc.collect
    m.enable = gc.enable
    m.disable = gc.disable
    m.mem_alloc = lambda: gc.mem_alloc() - base
    m.mem_free = lambda: max(0, size - (gc.mem_alloc() - base))
    sys.modules['gc'] = m


def apply(events):
    # events: 'name=value' words: a=1 (button A down), b=0, logo=1, u=100 (a serial byte),
    # and a Pico's left, right, drop
    if not events:
        return
    for word in events.split():
        name, v = word.split('=')
        v = int(v)
        if display == 'microbit':
            import microbit
            if name == 'a':
                microbit.button_a._set(v)
            elif name == 'b':
                microbit.button_b._set(v)
            elif name == 'logo':
                microbit.pin_logo._touched = bool(v)
            elif name == 'u':
                microbit.uart._rx.append(v)
        elif name in pins:
            import machine
            machine._levels[pins[name]] = 0 if v else 1  # pull-up: 0 while pressed


def report(game):
    # game(): webmain's (st, lv, hp, cur, n, over, hist) of cmgame, after a step
    st, lv, hp, cur, n, over, hist = game()
    moves = ''
    for i in range(n):
        moves += chr(49 + hist[i])
    return json.dumps({'st': st, 'lv': lv + 1, 'hp': hp, 'cur': cur, 'turn': 1 + (n & 1),
                       'over': over, 'moves': moves})
