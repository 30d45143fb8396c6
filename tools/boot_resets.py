#!/usr/bin/env python3
"""Boots of a micro:bit v1 hex reset from a running game, counted: QEMU loads the hex
(`connectm hex`'s v1 part), the game is started, and then, N times, the QEMU monitor's
system_reset (the reset button) in the middle of the game, the boot awaited (main.py's
answer to `?`), and the human's next drop (a game that ends starts the next one).
A boot fails when it prints a Traceback or an error instead of the `M` answer.

    .venv/bin/python tools/boot_resets.py --resets 300 [--hex FILE] [--v1-firmware stock]

Prints one line per 50 boots and a summary: boots, failures (with their lines), the free
heap after the boots (`?`), the seconds per boot. Exit status 1 when a boot failed.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "host"), str(ROOT / "tools")]

from connectm import hexfile  # noqa: E402
from emulator import Microbit  # noqa: E402

B_LINE = re.compile(r"B 5x4 lv=\d you=(\d) moves=(\d*) turn=(\d) over=(\d)")
FAILED = re.compile(r"Traceback|Error")
WAIT = 120.0  # s: an outer cap for one boot's answer on a loaded machine
EVERY = 50  # boots between two progress lines


class Line:
    """The board's serial line: bytes in, lines out."""

    def __init__(self, port: str) -> None:
        import serial

        self.s = serial.Serial(port, 115200, timeout=0.2)
        self.buf = b""

    def lines_until(self, pattern: re.Pattern[str], cap: float, ask: str = "") -> list[str]:
        """Lines read until one matches pattern or FAILED (the last), sending ``ask`` every
        5 s without one (a byte sent while the board boots is lost)."""
        end, nudge, got = time.monotonic() + cap, 0.0, []
        while time.monotonic() < end:
            if ask and time.monotonic() > nudge:
                self.s.write(ask.encode())
                nudge = time.monotonic() + 5
            self.buf += self.s.read(self.s.in_waiting or 1)
            while b"\n" in self.buf:
                raw, self.buf = self.buf.split(b"\n", 1)
                text = raw.decode(errors="replace").strip().lstrip("\x00")
                got.append(text)
                if pattern.match(text) or FAILED.search(text):
                    return got
        raise TimeoutError("no %r in %.0f s: %r" % (pattern.pattern, cap, got[-6:]))


def part(path: str | None, v1: str) -> str:
    """The v1 hex to boot: the file's v1 part, or `connectm hex`'s of this checkout."""
    if path:
        text = Path(path).read_text()
        parts = hexfile.split(text) if ":0400000A" in text else {"microbit-v1": text}
        text = parts["microbit-v1"]
    else:
        text = hexfile.board_hex("microbit-v1", v1).hex
    out = Path(tempfile.mkdtemp(prefix="connectm-boots-")) / "v1.hex"
    out.write_text(text)
    return str(out)


def run(image: str, resets: int) -> dict[str, object]:
    mb = Microbit(image=image)
    mb.start()
    line = Line(str(mb.pts))
    mb.resume()
    failures: list[list[str]] = []
    free: list[int] = []
    t0 = time.monotonic()
    moves = ""
    try:
        line.lines_until(re.compile(r"M \d+$"), WAIT, ask="?")
        line.s.write(b"d")  # from the menu: a game, the human first
        for i in range(resets + 1):
            if i:
                mb.monitor_command("system_reset")
                time.sleep(0.5)
                line.s.reset_input_buffer()  # (an answer of the game before the reset)
                got = line.lines_until(re.compile(r"M (\d+)$"), WAIT, ask="?")
                if FAILED.search(got[-1]):
                    failures.append(got[-6:])
                    continue  # (the next reset boots it again)
                free.append(int(got[-1].split()[1]))
            # the human's drop, in the leftmost column with room, then `?`: its answer
            # comes after the drop's B line (keys are taken in order), or the drop was lost
            col = next((c for c in "12345" if moves.count(c) < 4), "1")
            for tries in range(4):
                # (no B line: the drop was lost, or the board shows a result, or the
                # menu: `d` stops the text and starts the next game)
                line.s.write(b"d" * (tries > 0) + col.encode() + b"?")
                got = line.lines_until(re.compile(r"M \d+$"), 60)
                found = [m for m in map(B_LINE.match, got) if m]
                if found:
                    break
            else:
                raise TimeoutError("no B line after 4 drops: %r" % got[-6:])
            m = found[-1]
            moves = m.group(2)
            if m.group(4) != "0":
                line.s.write(b"dd")  # stop the result text, the next game
                moves = ""
            if i and i % EVERY == 0:
                print("  %d boots, %d failed, free %d-%d B" % (
                    i, len(failures), min(free), max(free)), flush=True)
    finally:
        line.s.close()
        mb.close()
    return {"boots": resets, "failures": failures, "free": (min(free), max(free)),
            "seconds": (time.monotonic() - t0) / max(resets, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--resets", type=int, default=300)
    p.add_argument("--hex", help="a hex file (universal or v1); default: connectm hex's")
    p.add_argument("--v1-firmware", choices=hexfile.V1_CHOICES, default="frozen")
    a = p.parse_args(argv)
    r = run(part(a.hex, a.v1_firmware), a.resets)
    fails = r["failures"]
    assert isinstance(fails, list)
    print("%d boots from a running game: %d failed; free after the boot %d-%d B; %.1f s "
          "a boot" % (r["boots"], len(fails), *r["free"], r["seconds"]))  # type: ignore
    for f in fails:
        print("  failed:", " | ".join(f))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
