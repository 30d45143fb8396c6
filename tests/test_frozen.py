"""The micro:bit v1 with the game frozen into its firmware (`make firmware-v1`,
connectm.firmware_v1): `connectm hex` writes it into the universal hex's v1 part where
it is built, today's stock hex where it is not (and says so); QEMU boots that v1 part from
the hex and plays over the serial line with 6,000 B free or more, resumes a game after a
reset, and its step guard keeps the game going when a step raises.

The tests that boot it need the built firmware: skipped without it, failed with
CONNECTM_REQUIRE_EMULATORS=1 (CI builds it)."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from connectm import build, cli, firmware_v1, hexfile
from connectm.minify import rename
from test_deploy import B_LINE, Serial, assert_hosts_moves, drop, start_game
from test_hex import boot_output

FREE = 6000  # B: the free heap a game on the frozen v1 must keep


def test_the_frozen_build_is_the_v1_build_with_its_step_guard() -> None:
    # Frozen: every module of the v1's build but main.py, whose loop calls the guarded
    # step of the frozen cmstep; the same code as the stock v1 build's, names aside (so
    # the same moves: connectm prove's), and main.py's guarded step and cmgame's FAMILY
    # blocks, which the stock build has no room for.
    stock = build.plan(build.BOARDS["microbit"])
    frozen = firmware_v1.frozen_plan()
    assert [i.name for i in frozen.items] == ["data", "main.py"]
    inv_f = {v: k for k, v in frozen.names.items()}
    inv_s = {v: k for k, v in stock.names.items()}
    modules = {inv_f[n[:-3]]: rename(d.decode(), inv_f) for n, d in frozen.frozen.items()}
    stock_modules = {inv_s.get(i.name[:-3], i.name[:-3]): rename(i.data.decode(), inv_s)
                     for i in stock.items if i.name.endswith(".py")}
    assert sorted(modules) == sorted(set(stock_modules) - {"main"} | {build.STEP})
    for name in set(modules) - {build.STEP, "cmmain", "cmgame", "cmsave"}:
        assert modules[name] == stock_modules[name], name
    # cmgame and cmsave with FAMILY (another level after a game, two players), which the
    # stock build has no room for: the same modules but those blocks
    assert "'2P'" in modules["cmgame"] and "'2P'" not in stock_modules["cmgame"]
    for name in ("cmgame", "cmsave"):
        assert len(modules[name]) > len(stock_modules[name]), name
    main = rename(frozen.items[1].data.decode(), inv_f)
    assert main == "import cmmain\nfrom cmstep import step\nwhile True:step()\n", main
    step = modules[build.STEP]
    assert "except Exception as" in step and "machine" in step and "MemoryError" in step
    assert "try:" not in stock_modules["main"]


def test_hex_without_the_firmware_is_todays_and_says_so(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    # No firmware built (an empty folder), or one built for other modules: the stock v1
    # hex, byte for byte --v1-firmware stock's, and one line saying why
    monkeypatch.setenv("CONNECTM_FIRMWARE_V1", str(tmp_path / "fw"))
    stock = tmp_path / "stock.hex"
    assert cli.main(["hex", "--board", "microbit-v1", "--v1-firmware", "stock", "-o",
                     str(stock)]) == 0
    assert "stock firmware" not in capsys.readouterr().out
    auto = tmp_path / "auto.hex"
    assert cli.main(["hex", "--board", "microbit-v1", "-o", str(auto)]) == 0
    out = capsys.readouterr().out
    assert auto.read_bytes() == stock.read_bytes()
    notes = [ln for ln in out.splitlines() if "stock firmware" in ln]
    assert notes == ["  microbit-v1: the stock firmware: no frozen firmware built "
                     "(make firmware-v1)"], out
    (tmp_path / "fw").mkdir()
    (tmp_path / "fw" / firmware_v1.HEX_NAME).write_text(stock.read_text())
    (tmp_path / "fw" / firmware_v1.MANIFEST).write_text(json.dumps({"digest": "0" * 64}))
    assert cli.main(["hex", "--board", "microbit-v1", "-o", str(auto)]) == 0
    assert "holds another version of the game (make firmware-v1)" in capsys.readouterr().out
    assert auto.read_bytes() == stock.read_bytes()
    # --v1-firmware frozen: an error in one line, no file
    gone = tmp_path / "none.hex"
    assert cli.main(["hex", "--v1-firmware", "frozen", "-o", str(gone)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "another version of the game" in err and not gone.exists()


def built() -> None:
    from conftest import unavailable
    from emulator import QEMU

    if shutil.which(QEMU) is None:
        unavailable("%s not found on PATH (apt-get install qemu-system-arm)" % QEMU)
    text, why = firmware_v1.found()
    if text is None:
        unavailable("the frozen v1 firmware: " + why)


@pytest.fixture(scope="module")
def v1_part(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The universal hex's v1 part (the frozen firmware and main.py, the book), made by
    the command line."""
    built()
    folder = tmp_path_factory.mktemp("frozen")
    uhex = folder / "connectm.hex"
    assert cli.main(["hex", "-o", str(uhex)]) == 0
    parts = hexfile.split(uhex.read_text())
    files = hexfile.read_files(parts["microbit-v1"])
    assert sorted(files) == ["data", "main.py"], sorted(files)
    path = folder / "v1.hex"
    path.write_text(parts["microbit-v1"])
    return path


@pytest.fixture
def board(v1_part: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Any, Serial]]:
    """A fresh emulated v1 booted from the hex, its serial line open before it runs."""
    from emulator import Microbit

    mb = Microbit(icount=request.config.getoption("icount"), image=str(v1_part))
    mb.start()
    io = None
    try:
        io = Serial(str(mb.pts))
        mb.resume()
        yield mb, io
    finally:
        if io is not None:
            io.close()
        mb.close()


def test_the_frozen_hex_plays_with_6000_bytes_free(board: tuple[Any, Serial],
                                                  record_property: Any) -> None:
    # A whole game at level 1: the boot prints nothing; every move of the board is the
    # host's for its position; `?` answers 6,000 B free or more after the boot and after
    # every move pair.
    _, io = board
    printed, free0 = boot_output(io)
    assert printed == [], printed
    record_property("frozen_v1_boot_free", free0)
    free = [free0]
    host = __import__("connectm.book", fromlist=["Player"]).Player(5, 4, 4, 0)
    moves = start_game(io, 1)
    while True:
        m = drop(io, moves)
        assert re.fullmatch(B_LINE, m[0]) and m.group(1) == "1", m[0]
        assert_hosts_moves(host, m.group(3), range(len(moves) + 1, len(m.group(3))))
        moves = m.group(3)
        if m.group(5) != "0":
            break
        free.append(io.free())
    print("frozen v1: game", moves, "free", free)
    record_property("frozen_v1_min_free", min(free))
    assert len(moves) >= 7 and min(free) >= FREE, (moves, free)
    assert not [ln for ln in io.lines if ln.startswith(("E ", "Traceback"))], io.lines


def test_a_reset_mid_game_resumes_it(board: tuple[Any, Serial]) -> None:
    # The QEMU monitor's system_reset (the reset button) after two move pairs: the boot
    # prints nothing, and the game goes on from the saved position.
    mb, io = board
    boot_output(io)
    m = drop(io, start_game(io, 1))
    m = drop(io, m.group(3))
    saved = m.group(3)
    io.free()  # the loop is back: the computer's move is saved
    mb.monitor_command("system_reset")
    time.sleep(0.5)
    io.s.reset_input_buffer()
    io.lines.clear()
    printed, free = boot_output(io)
    assert printed == [] and free >= FREE, (printed, free)
    m = drop(io, saved)
    assert m.group(3).startswith(saved) and len(m.group(3)) > len(saved), (saved, m[0])


# Run at the REPL of the stopped game (its modules still imported): faults put into its
# frozen step's calls, then that step's loop again, as main.py runs it. The 1st key() call
# raises MemoryError (nothing changed: the step again, no line), the 3rd ValueError (one
# line, no reset); then the game's save raises OSError(28), as a full flash's would, after
# the human's move (the moves changed: one line, and a reset, whose boot restores the last
# save). (A fault must not make the save's calls deeper: the C stack has no room for it.)
INJECT = """import %(step)s as S
import %(game)s as G
k = S.%(key)s
n = [0]
def bad():
    n[0] += 1
    if n[0] == 1:
        raise MemoryError
    if n[0] == 3:
        raise ValueError('injected')
    return k()
S.%(key)s = bad
def no_room(*a):
    raise OSError(28)
G.%(save)s = no_room
"""


def test_a_step_that_raises_goes_on(board: tuple[Any, Serial]) -> None:
    # The step guard (docs/serial.md "A step that fails"), which only the frozen v1 has
    # room for, run by its frozen step with faults put into the game's calls (INJECT).
    from connectm import device

    mb, io = board
    boot_output(io)
    m = drop(io, start_game(io, 1))
    moves = m.group(3)  # the human to move
    io.free()
    io.close()
    names = firmware_v1.frozen_plan().names
    t = device.open_port(str(mb.pts))
    try:
        device.enter_raw_repl(t, str(mb.pts), reset=False)  # Ctrl-C: the game stops
        out, err = t.exec_raw(INJECT % {
            "step": names[build.STEP], "game": names["cmgame"], "key": names.get("key", "key"),
            "save": names.get("sv", "sv")})
        assert not err, err
        t.exec_raw_no_follow("while True:\n S.step()\n")
    finally:
        t.close()
    io = Serial(str(mb.pts))
    try:
        io.free()
        col = next(c for c in range(5) if moves.count(str(c + 1)) < 4) + 1
        io.s.write(b"%d" % col)
        m = io.send("", r"E OSError\(28,?\)$", timeout=120)
        at = len(io.lines)
        printed, free = boot_output(io)  # the reset's boot: main.py, no faults
        assert printed[at:] == [] and free >= FREE, (printed, free)
        # the boot restored the last save, before the human's move: the game goes on there
        m = drop(io, moves)
        assert m.group(3)[:len(moves) + 1] == moves + str(col), (moves, m[0])
        errors = [ln for ln in io.lines if ln.startswith(("E ", "Traceback"))]
        assert errors in (["E ValueError('injected',)", "E OSError(28,)"],
                          ["E ValueError('injected')", "E OSError(28)"]), io.lines
    finally:
        io.close()


@pytest.mark.extended  # ~1 minute of wall time per 1,000 bytes
def test_the_frozen_hex_survives_the_serial_fuzz(board: tuple[Any, Serial],
                                                 record_property: Any) -> None:
    # tests/test_fuzz_device.py's fuzz on the frozen board: 3,000 seeded random bytes (no
    # REPL keys); after them the game plays a legal move, every B line follows the one
    # before, no line but the game's, and the heap stays flat and above 6,000 B.
    from test_fuzz_device import fuzz, settle
    from test_fuzz_game import check_b_lines

    _, io = board
    rng = __import__("random").Random(2026)
    free = [boot_output(io)[1]]
    free += fuzz(io, rng, 1_000)
    settled = [settle(io)]
    free += fuzz(io, rng, 2_000)
    after = len(io.lines)
    settled.append(settle(io))
    lines = io.lines
    check_b_lines(lines)
    print("frozen v1 fuzz: %d lines, free min %d, settled %s" % (len(lines), min(free),
                                                                  settled))
    record_property("frozen_v1_fuzz_min_free", min(free))
    assert not [ln for ln in lines if ln and not re.match(
        r"(B |E bad key |E full |M \d+$|L \d$|R [WLD] \d+-\d+-\d+$)", ln)], lines[-12:]
    assert any(re.match(B_LINE, ln) for ln in lines[after:]), lines[after - 12:]
    assert min(free) >= FREE and abs(settled[1] - settled[0]) <= 64, (settled, free)
