"""What only a micro:bit v2 (or a board with a table) runs, run on the emulated micro:bit v1.

Both micro:bit firmwares are built at MicroPython's core feature level: they lack features
that CPython, MicroPython-WebAssembly and the unix port have (docs/firmware-features.md).
The emulated v1 is the one real firmware in CI with that feature set, so the v2's code
runs here too, scaled to the v1's heap: a small table, the v2's search renamed as the v1's
build is (build.plan(..., scaled=...)). The v2's whole game does not fit a v1's heap
(its boot stops with a MemoryError): its parts run one by one.
"""

from __future__ import annotations

from typing import Any

import pytest

import harness
from connectm import build
from connectm.minify import rename, strip_source

V2 = build.BOARDS["microbit-v2"]
FIRMWARES = ["microbit-v1", "microbit-v1.1.1"]


def v1(request: pytest.FixtureRequest, name: str) -> harness.MicrobitV1:
    return request.getfixturevalue(name.replace("-", "_").replace(".", "_"))


# --- the table: store, probe, cut and clear, against a model of its slots ------------------

KEYS = [(k * 7919, k * 104729 & 0xFFFFFF, k % 9, 1 + k % 3, k % 5, k * 1000 - 20000)
        for k in range(1, 40)]  # (h1, h2, depth, bound, column, score)
TABLE_CODE = """import cmtt
K = %r
for n in (0, 8, 64, 200):
    t = cmtt.TT(n)
    for k in K:
        t.store(*k)
    print('T', n, len(t.t))
    for k in K:
        i = t.find(k[0], k[1])
        c = t.cut(k[0], k[1], 4, -3000, 3000)
        print(-1 if i < 0 else t.score(i), c, t.col)
    t.clear()
    left = 0
    for k in K:
        left += t.find(k[0], k[1]) >= 0
    t.store(*K[0])
    print('C', left, t.find(K[0][0], K[0][1]) >= 0)
"""


def table_model(nbytes: int) -> list[str]:
    """What TABLE_CODE prints for a table of nbytes, from the slots' rules (docs in cmtt):
    slot h1 % slots, the last store wins, a probe matches the low 24 bits of h2."""
    slots = nbytes // 8
    last = {}
    for k in KEYS:
        if slots:
            last[k[0] % slots] = k
    out = ["T %d %d" % (nbytes, slots * 8)]
    for h1, h2, depth, bound, col, score in KEYS:
        hit = slots and last.get(h1 % slots, (None,))[:2] == (h1, h2)
        cut = 1 << 29  # cmtt.NO_SCORE
        if hit and depth >= 4 and (bound == 1 or bound == 2 and score >= 3000
                                   or bound == 3 and score <= -3000):
            cut = score
        out.append("%d %d %d" % (score if hit else -1, cut, col if hit else 255))
    return out + ["C 0 %s" % bool(slots)]


def test_table_on_every_interpreter(mpy: Any) -> None:
    # cmtt on all five interpreters: a cleared table finds nothing, and stores again (the
    # v1 has no memoryview and neither micro:bit firmware assigns slices: the clear() by
    # doubling slice copies failed on both, and on the v2 every computer move failed)
    out = mpy.run(TABLE_CODE % (KEYS,), files=["cmtt"])
    assert out.split() == " ".join(" ".join(table_model(n)) for n in (0, 8, 64, 200)).split()


# --- the v2's search with its table and hash keys -----------------------------------------

SCALED = build.V1_SCALED
LINE = [2, 2, 1, 3, 0]  # the positions searched: the empty board, then these moves (0-based)
# The board, the search with its table, then each position's search from an empty table
# (cmgame.FRESH) under heap_lock: one function, compiled while the heap is large, and
# called by one short step. With the board, search and table made, too little is left in
# one block for the parser of even a short step (MemoryError: parser could not allocate).
SEARCHES = """import gc
import micropython
def S():
    brd = cmboard.Board(5, 4, 4, %d)
    srch = cmsearch.Search(brd, %d, 8)
    print(len(srch.tt.t))
    for c in %r:
        if c >= 0:
            brd.play(c)
        gc.collect()
        srch.tt.clear()
        micropython.heap_lock()
        mv = srch.go(8, 1024)
        micropython.heap_unlock()
        print(mv, srch.score, srch.depth, srch.nodes)
""" % (SCALED, SCALED, [-1] + LINE)


def host_search() -> list[str]:
    """The same searches on CPython from firmware/ as written (not the build): the v2's
    switches, but no frontier scoring (cmsearch.LEAVES), as the scaled build."""
    out = harness.CPython().run(
        "import cmboard, cmsearch\ncmsearch.LEAVES = 0\n" + SEARCHES + "S()\n")
    return out.split("\n")[:2 + len(LINE)]


@pytest.mark.parametrize("firmware", FIRMWARES)
def test_v2_search_with_its_table(firmware: str, request: pytest.FixtureRequest) -> None:
    # The v2 build's search (table, hash keys: its store and cut) on the v1, under
    # heap_lock: the table's size, and the moves, scores, depths and node counts of the
    # host's, and no allocation per node. Step by step: each compiles into what the last
    # left free.
    plan = build.plan(V2, scaled=SCALED)
    used = {"cmboard", "cmlines", "cmsearch", "cmtt"}
    files = {i.name: i.data for i in plan.items if i.source.stem in used}
    assert len(files) == len(used)
    steps = ["import gc\nimport cmsearch\ngc.collect()",  # the largest first
             "import cmlines\nimport cmboard\nimport cmtt\ngc.collect()", SEARCHES, "S()"]
    mb = v1(request, firmware)
    out = mb.run_steps([rename(s, plan.names) for s in steps], files, timeout=240)
    host = host_search()
    assert host[0] == str(SCALED)
    assert [x.strip() for x in out[-1].strip().split("\n")] == host


# --- the v2's touch logo and speaker (drv_microbit) ---------------------------------------

LOGO = """import drv_microbit as d
T = [0]
class Logo:
    on = 0
    def is_touched(self):
        return self.on
d.pin_logo = Logo()
d.running_time = lambda: T[0]
def at(t, touched):
    T[0] = t
    d.pin_logo.on = touched
    return d.key() or '-'
print(''.join([at(0, 1), at(50, 1), at(60, 0), at(100, 1), at(900, 1), at(1100, 1),
               at(1300, 1), at(1400, 0), at(1500, 0)]), d.on, _v2.volume)
d.beep('d')
d.beep('W')
d.beep('L')
d.sound(0)
print(d.on)
"""


@pytest.mark.parametrize("firmware", FIRMWARES)
def test_v2_logo_and_sounds(firmware: str, request: pytest.FixtureRequest) -> None:
    # The v2 build's driver on the v1's real display, buttons, serial and music: a tap on
    # the logo is a drop ('d'), a touch held a second turns the sound on (a blip, the
    # volume set) and gives no key; its beeps and tunes play. The v1 has no logo and no
    # set_volume: the logo is an object with is_touched(), set_volume a function of a
    # module of the test's (the one line of the driver changed for the v1, below).
    drv = next(i for i in build.plan(V2).items if i.source.stem == "drv_microbit")
    src = drv.data.decode()
    v1_src = src.replace("from microbit import set_volume", "from _v2 import set_volume")
    assert v1_src.count("from _v2 import") == 1
    shim = b"volume = -1\ndef set_volume(v):\n    global volume\n    volume = v\n"
    mb = v1(request, firmware)
    out = mb.run_steps(["import _v2\nimport gc\ngc.collect()", strip_source(LOGO)],
                       {"drv_microbit.py": v1_src.encode(), "_v2.py": shim}, timeout=60)
    # the tap gives 'd' on its release; the hold from 100 toggles the sounds at 1300, not at
    # 1100 (999 ms: lo is the touch's time | 1)
    assert out[-1].split() == ["--d------", "1", "40", "0"]
