"""connectm hex: a micro:bit .hex with the game in its file system. The emulated v1 boots the
v1 hex itself (QEMU loads it; no mpremote, no copy over the serial line) and plays; the
universal hex's v1 part is the same data, and its v2 part's files are the v2 build's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from io import StringIO
from pathlib import Path
from typing import Any

import pytest

from harness import REPO
from connectm import book, build, cli, device, hexfile

# the game's serial line (docs/serial.md), as the deploy tests drive it
from test_deploy import B_LINE, Serial, assert_hosts_moves, human_turn, start_game


@pytest.fixture(scope="module")
def hexes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The v1's single-board hex and the universal hex, made by the command line, the v1's
    with the stock firmware (where the frozen one is built, too: tests/test_frozen.py)."""
    folder = tmp_path_factory.mktemp("hex")
    out = {"microbit-v1": folder / "connectm-v1.hex", "microbit": folder / "connectm.hex"}
    for board, path in out.items():
        t0 = time.perf_counter()
        assert cli.main(["hex", "--board", board, "--v1-firmware", "stock", "-o",
                         str(path)]) == 0
        print("%s: %d B in %.1f s" % (path.name, path.stat().st_size,
                                      time.perf_counter() - t0))
    return out


def data(text: str) -> dict[int, int]:
    """A hex's bytes by address (not its start address)."""
    from intelhex import IntelHex

    ih = IntelHex()
    ih.loadhex(StringIO(text))
    return {a: b for a, b in ih.todict().items() if isinstance(a, int)}


def firmware_only(text: str, board: str) -> dict[int, int]:
    """The hex's bytes outside its file system."""
    import micropython_microbit_fs as mfs

    info = mfs.get_device_info(text)
    return {a: b for a, b in data(text).items()
            if not info.fs_start_address <= a < info.fs_end_address}


def test_universal_hex_holds_each_boards_build(hexes: dict[str, Path]) -> None:
    # The universal hex splits into a v1 and a v2 hex; each holds its MicroPython firmware
    # unchanged and, in its file system, exactly the files `connectm deploy` copies to that
    # board (the v1's renamed build and its book 'data', the v2's build with its table).
    import micropython_microbit_fs as mfs

    parts = hexfile.split(hexes["microbit"].read_text())
    assert sorted(parts) == ["microbit-v1", "microbit-v2"]
    for board, text in parts.items():
        name, version, firmware = hexfile.BOARDS[board]
        want = {i.name: i.data for i in build.plan(build.BOARDS[name]).items}
        assert hexfile.read_files(text) == want, board
        bundled = mfs.get_bundled_hex(version, firmware).content
        assert firmware_only(text, board) == firmware_only(bundled, board), board
    v1 = hexfile.read_files(parts["microbit-v1"])
    assert "main.py" in v1 and v1["data"] == (REPO / "firmware" / "5x4c4.bk").read_bytes()
    assert "cmsearch.py" not in v1  # (renamed to the firmware's own names)
    v2 = hexfile.read_files(parts["microbit-v2"])
    assert v2["data"] == (REPO / "firmware" / "5x4c4t32768.bk").read_bytes()
    assert "cmtt.py" in v2 and b"32768" in v2["cmhw.py"]  # the table, and its bytes
    # The v1 part is the single-board v1 hex that test_v1_hex_boots_and_plays boots: the
    # same data records, byte for byte. The split leaves out one record only, the start
    # address (type 05), which a Cortex-M does not read: it starts from its vector table.
    single = hexes["microbit-v1"].read_text()
    assert data(parts["microbit-v1"]) == data(single)
    extra = set(single.splitlines()) - set(parts["microbit-v1"].splitlines())
    assert [line[7:9] for line in extra] == ["05"], extra


def test_the_same_commit_gives_the_same_bytes(hexes: dict[str, Path], tmp_path: Path) -> None:
    # Made again in another process, with another string hash seed (the order of sets and
    # dicts of names could change the build's renaming): the same bytes.
    again = tmp_path / "again.hex"
    env = dict(os.environ, PYTHONHASHSEED="12345")
    subprocess.run([sys.executable, "-m", "connectm.cli", "hex", "--v1-firmware", "stock", "-o",
                    str(again)], env=env, check=True, capture_output=True, timeout=300)
    assert again.read_bytes() == hexes["microbit"].read_bytes()


@pytest.mark.parametrize("board", ["microbit-v2", "microbit"])
def test_a_build_that_does_not_fit_is_one_line(board: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # The v2's 20 KB file system with 4 KB more of the game: one line naming the size and
    # the room, and no file (the universal hex neither, though its v1 part fits).
    real = hexfile.game_files

    def grown(b: str) -> dict[str, bytes]:
        files = real(b)
        if b == "microbit-v2":
            files["pad"] = b"#" * 4000
        return files

    monkeypatch.setattr(hexfile, "game_files", grown)
    out = tmp_path / "x.hex"
    assert cli.main(["hex", "--board", board, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and not out.exists(), err
    import micropython_microbit_fs as mfs

    used = sum(mfs.File(n, d).size_fs for n, d in grown("microbit-v2").items())
    assert err == ("connectm: error: the microbit-v2 build does not fit its file system: "
                   "12 files take %s and the game's saves 256 B, the MicroPython 2.1.2 hex has "
                   "room for 20.0 KB\n" % build.human(used)), err


def test_bad_board_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.hex"
    assert cli.main(["hex", "--board", "pico-max7219", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'pico-max7219'" in err and \
        not out.exists(), err
    with pytest.raises(device.DeployError, match="no hex for board 'pico-max7219'"):
        hexfile.board_hex("pico-max7219")


def boot_output(io: Serial) -> tuple[list[str], int]:
    """What the board printed before main.py's loop answered its first `?` (the boot is
    then done), and that answer: the free heap. A `?` sent during the boot waits in the
    UART's buffer; another goes out after each quiet minute (the emulated UART can lose a
    byte)."""
    end = time.monotonic() + 600  # an outer cap only, for a machine that never answers
    while True:
        try:
            m = io.send("?", r"M (\d+)$|.*Error", timeout=60)
        except AssertionError:
            if time.monotonic() > end:
                raise
            continue
        assert m is not None and m[0].startswith("M "), io.lines
        io.asked = 0
        return io.lines[:-1], int(m.group(1))


def test_v1_hex_boots_and_plays(hexes: dict[str, Path], request: pytest.FixtureRequest,
                                record_property: Any) -> None:
    # QEMU loads the v1 hex (firmware 1.1.1 and the game's files) as a micro:bit's flash:
    # the board boots into the game, and a whole game at level 1 is played over the serial
    # line. The boot prints nothing but the answer to `?` (no error, no traceback); every
    # move of the board is the host's for that position, and 2 KB of the heap or more stay
    # free after the boot and after every move pair.
    from conftest import unavailable
    from emulator import QEMU, Microbit

    if shutil.which(QEMU) is None:
        unavailable("%s not found on PATH (apt-get install qemu-system-arm)" % QEMU)
    mb = Microbit(icount=request.config.getoption("icount"), image=str(hexes["microbit-v1"]))
    mb.start()
    io = None
    try:
        io = Serial(str(mb.pts))
        t0 = time.monotonic()
        mb.resume()
        printed, free0 = boot_output(io)
        booted = time.monotonic() - t0
        print("boot output:", printed, "free:", free0, "boot: %.1f s" % booted)
        record_property("hex_v1_boot_free", free0)
        assert printed == [], printed
        free = [free0]
        host = book.Player(5, 4, 4, 0)  # level 1
        moves = start_game(io, 1)  # from the menu, at level 1: the human first
        while True:
            col = next(c for c in range(5) if moves.count(str(c + 1)) < 4)
            io.s.write(str(col + 1).encode())
            m = human_turn(io, moves + str(col + 1), 1)
            assert re.fullmatch(B_LINE, m[0]) and m.group(1) == "1" and m.group(2) == "1"
            played = m.group(3)
            assert_hosts_moves(host, played, range(len(moves) + 1, len(played)))  # its reply
            moves = played
            if m.group(5) != "0":
                break
            free.append(io.free())
        print("game:", moves, "over:", m.group(5), "free:", free,
              "lines lost:", io.lost, "in %.1f s" % (time.monotonic() - t0))
        record_property("hex_v1_min_free", min(free))
        assert len(moves) >= 7 and min(free) >= 2048, (moves, free)
        assert not [ln for ln in io.lines if ln.startswith(("E ", "Traceback"))], io.lines
    finally:
        if io is not None:
            io.close()
        mb.close()
