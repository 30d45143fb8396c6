"""The whole game on the emulated micro:bit v1: the real firmware (stripped, compiled on the
device), the real display driver, keys fed in code. gc.mem_free() after the imports, after
every move and after each of two games must stay >= 2048; display.get_pixel shows a known
position."""

from __future__ import annotations

import re

import pytest

import harness

MIN_FREE = 2048

GAME = """
import gc
gc.collect()
import cmgame
import cmstart
gc.collect()
import drv_microbit
gc.collect()
print('M import', gc.mem_free())
cmstart.init(drv_microbit, 5, 4)
drv_microbit.text = lambda s: print('T', s)
gc.collect()
print('M init', gc.mem_free())
b = cmgame.b
for game in range(2):
    cmgame.key('d')
    while cmgame.st == 1:
        c = 0
        while not b.can_play(c):
            c += 1
        cmgame.key(chr(49 + c))
        gc.collect()
        print('M move', gc.mem_free())
    gc.collect()
    print('M game', gc.mem_free())
print('S', ' '.join([str(v) for v in cmgame.sc[:3]]))
cmgame.key('d')
cmstart.load('0 1 12 ' + '0 ' * 15)
from microbit import display
print('P', ''.join([str(display.get_pixel(x, y)) for y in range(5) for x in range(5)]))
"""


@pytest.mark.xfail(strict=True, reason="issue 4: the game does not fit the micro:bit v1 "
                   "heap yet (MemoryError importing the engine next to cmgame)")
def test_two_games_heap(microbit_v1: harness.MicrobitV1,
                        record_property: pytest.RecordProperty) -> None:
    try:
        out = microbit_v1.run(GAME, timeout=120)
    except harness.RunError as e:
        if "MemoryError" in e.traceback and not re.search(r"^M ", e.output, re.M):
            pytest.fail("the firmware does not even import on the micro:bit:\n" + e.traceback)
        raise
    print(out)
    frees = [(m.group(1), int(m.group(2))) for m in re.finditer(r"^M (\w+) (\d+)", out, re.M)]
    assert len([f for f in frees if f[0] == "game"]) == 2
    for what, free in frees:
        record_property("mem_free_" + what, free)
    low = min(f for _, f in frees)
    assert low >= MIN_FREE, frees
    # two games: one result each, and T lines for the texts
    scores = list(map(int, re.search(r"^S (.*)$", out, re.M).group(1).split()))  # type: ignore
    assert sum(scores) == 2
    assert len(re.findall(r"^T [WLD] ", out, re.M)) == 2
    # moves 1, 2: the human (bright 9) in column 1, the computer (3) on top of it; then the
    # computer's reply somewhere on the bottom row or above; the cursor blinks (phase 0: off)
    pix = re.search(r"^P (\d{25})$", out, re.M).group(1)  # type: ignore[union-attr]
    grid = [[int(pix[5 * y + x]) for x in range(5)] for y in range(5)]
    assert grid[4][0] == 9 and grid[3][0] == 3
    assert sum(v == 9 for row in grid[1:] for v in row) == 2
    assert grid[0] == [0] * 5
