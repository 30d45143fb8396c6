"""A micro:bit .hex with the game in it: MicroPython's firmware and, in its file system,
the files ``connectm deploy`` copies to that board (``build.plan``). Drag it onto the
MICROBIT drive and the board boots into the game: no Python, no serial tools.

The hex and file-system code is the micro:bit ecosystem's own: Python ports of the
micro:bit Foundation's libraries that python.microbit.org saves hexes with.
``micropython-microbit-fs`` adds the files to the MicroPython hex it ships (v1.1.1 for a v1,
v2.1.2 for a v2), ``universal-hex`` joins the two boards' hexes into one universal hex, of
which each board's USB interface (DAPLink) flashes its own part. Both are pinned and the
firmware versions named here, so a commit always gives the same bytes.

The v1's part has the game frozen into its firmware where `make firmware-v1` has built
that firmware for this version of the game (connectm.firmware_v1: the modules run from
flash, the file system holds main.py and the book); else the stock firmware with the
game's source in its file system, as before, and the command says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from connectm import build, device, firmware_v1

# --board NAME: the deploy board, the micro:bit's version, the MicroPython firmware's
# version in micropython-microbit-fs (named: a newer release of the library that ships a
# newer firmware does not change the hex unnoticed)
BOARDS = {"microbit-v1": ("microbit", 1, "1.1.1"), "microbit-v2": ("microbit-v2", 2, "2.1.2")}
UNIVERSAL = "microbit"  # --board microbit: one hex for both, each its own build
CHOICES = [UNIVERSAL] + list(BOARDS)
# The game writes cm0.sav and cm1.sav (cmsave) after every move: a chunk each (128 B; a save
# is < 90 B) that the file system must still have once the game's files are in.
SAVES = 2 * 128
# --v1-firmware: frozen (the built firmware, or an error), stock, auto (frozen where built)
V1_CHOICES = ["auto", "frozen", "stock"]
FROZEN_TITLE = "%s with the game frozen in (make firmware-v1)" % firmware_v1.VERSION


class HexError(device.DeployError):
    """A hex that cannot be made, with a one-line message."""


@dataclass
class BoardHex:
    board: str  # microbit-v1 | microbit-v2
    firmware: str  # MicroPython for the micro:bit's version
    hex: str  # Intel hex text, firmware and files
    files: dict[str, bytes]  # what its file system holds
    used: int  # bytes of the file system the files take (whole 128 B chunks)
    room: int  # bytes the file system has
    why: str = ""  # a v1 part with the stock firmware: why not the frozen one


def game_files(board: str) -> dict[str, bytes]:
    """The files ``connectm deploy`` copies to this board, by device name, in its order."""
    plan = build.plan(build.BOARDS[BOARDS[board][0]])
    return {i.name: i.data for i in plan.items}


def board_hex(board: str, v1: str = "auto") -> BoardHex:
    """The single-board hex of ``board`` (microbit-v1 or microbit-v2; v1: which firmware
    for a v1, V1_CHOICES); HexError when the game does not fit its file system."""
    import micropython_microbit_fs as mfs
    from micropython_microbit_fs.filesystem import get_free_chunks
    from micropython_microbit_fs.hex_utils import load_hex

    if board not in BOARDS:
        raise HexError("no hex for board %r: one of %s" % (board, ", ".join(CHOICES)))
    if v1 not in V1_CHOICES:
        raise HexError("no v1 firmware %r: one of %s" % (v1, ", ".join(V1_CHOICES)))
    _, version, firmware = BOARDS[board]
    frozen, why = None, ""
    if board == "microbit-v1" and v1 != "stock":
        plan = firmware_v1.frozen_plan()
        frozen, why = firmware_v1.found(plan)
        if frozen is None and v1 == "frozen":
            raise HexError("microbit-v1: %s" % why)
    if frozen is not None:
        base, firmware = frozen, FROZEN_TITLE
        files = {i.name: i.data for i in plan.items}
    else:
        base = mfs.get_bundled_hex(version, firmware).content
        files = game_files(board)
    fs = [mfs.File(name, data) for name, data in files.items()]
    used = sum(f.size_fs for f in fs)
    room = 128 * len(get_free_chunks(load_hex(base), mfs.get_device_info(base)))
    if used + SAVES > room:
        raise HexError(
            "the %s build does not fit its file system: %d files take %s and the game's "
            "saves %s, the MicroPython %s hex has room for %s" % (
                board, len(fs), build.human(used), build.human(SAVES), firmware,
                build.human(room)))
    try:
        text = mfs.add_files(base, fs)
    except mfs.FilesystemError as e:  # (the check above should have caught it)
        raise HexError("%s: %s" % (board, e)) from None
    return BoardHex(board, firmware, text, files, used, room, why)


def universal_hex(v1: str = "auto") -> tuple[str, list[BoardHex]]:
    """One hex for a v1 and a v2 (the v1's part first, as python.microbit.org saves them),
    and the two boards' hexes it joins."""
    import universal_hex as uh

    parts = [board_hex(b, v1) for b in BOARDS]
    ids = {"microbit-v1": uh.BoardId.V1, "microbit-v2": uh.BoardId.V2}
    return uh.create_uhex([uh.IndividualHex(p.hex, ids[p.board]) for p in parts]), parts


def split(text: str) -> dict[str, str]:
    """A universal hex's parts by board (microbit-v1, microbit-v2)."""
    import universal_hex as uh

    names = {uh.BoardId.V1: "microbit-v1", uh.BoardId.V2: "microbit-v2"}
    return {names[uh.BoardId(p.board_id)]: p.hex for p in uh.separate_uhex(text)}


def read_files(text: str) -> dict[str, bytes]:
    """The files in a single-board MicroPython hex's file system."""
    import micropython_microbit_fs as mfs

    return {f.name: f.content for f in mfs.get_files(text)}


def write(path: Path, board: str = UNIVERSAL, v1: str = "auto"
          ) -> tuple[int, list[BoardHex]]:
    """Write the hex for ``board`` (microbit: universal) to ``path``; returns its size and
    the boards' parts. Nothing is written when a part does not fit."""
    if board == UNIVERSAL:
        text, parts = universal_hex(v1)
    else:
        part = board_hex(board, v1)
        text, parts = part.hex, [part]
    data = text.encode("ascii")  # bytes: the same line ends on every system
    try:
        path.write_bytes(data)
    except OSError as e:
        raise HexError("cannot write %s: %s" % (path, e.strerror or e)) from None
    return len(data), parts
