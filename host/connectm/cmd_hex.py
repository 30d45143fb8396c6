"""``connectm hex``: a micro:bit .hex with the game in it (see connectm.hexfile)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from connectm import hexfile
from connectm.deploy import human


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "hex",
        help="write a micro:bit .hex with the game in it (drag it onto MICROBIT)",
        description="Write a MicroPython .hex for the BBC micro:bit with the game in its file "
        "system: the files `connectm deploy` copies, no serial tools needed. Copy it onto "
        "the MICROBIT drive and the board starts the game.",
    )
    p.add_argument("-o", "--output", type=Path, default=Path("connectm.hex"),
                   help="the file to write (default %(default)s)")
    p.add_argument("--board", choices=hexfile.CHOICES, default=hexfile.UNIVERSAL,
                   help="microbit (default): one universal hex for a v1 and a v2, each "
                   "its own build; microbit-v1 or microbit-v2: that board only")
    p.add_argument("--v1-firmware", choices=hexfile.V1_CHOICES, default="auto",
                   help="the v1's firmware: frozen, the game frozen into it (built by "
                   "`make firmware-v1`); stock, MicroPython %s with the game's source in its "
                   "file system; auto (default): frozen where built, else stock"
                   % hexfile.BOARDS["microbit-v1"][2])
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    size, parts = hexfile.write(args.output, args.board, args.v1_firmware)
    print("wrote %s: %s, %s hex in %.1f s" % (
        args.output, human(size), "universal" if len(parts) > 1 else parts[0].board,
        time.perf_counter() - t0))
    for p in parts:
        print("  %s: MicroPython %s, %d files, %s of the file system's %s" % (
            p.board, p.firmware, len(p.files), human(p.used), human(p.room)))
        if p.why:
            print("  %s: the stock firmware: %s" % (p.board, p.why))
    return 0
