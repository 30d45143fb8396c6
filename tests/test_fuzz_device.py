"""The deployed game on the emulated micro:bit v1 (tools/emulator.py) under a seeded stream of
random serial bytes (Ctrl-A..Ctrl-E left out: the REPL's own): 3,000 bytes, 4,000 with
--extended (CI runs --extended within its 20 minutes; ~1 minute of wall time per 1,000
bytes). The emulated UART drops bytes when flooded, so the bytes go in chunks, each
followed by ``?``, and the next chunk waits for the device's ``M`` answers: paced by the
device, not by wall time (the waits have generous outer caps only).

After the fuzz the game answers ``?``, plays a legal move, every ``B`` line is a legal
continuation of the one before, and the free heap (``?``) stays above 2 KB and flat. The
seed and the byte count are in the test id and the output (``-s``).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from connectm import cli
from test_deploy import Serial, emu, pts, wait_boot  # noqa: F401  (fixtures)
from test_fuzz_game import B_LINE, REPL_KEYS, check_b_lines

CHUNK = 16  # random bytes between two `?`: well inside the UART's receive buffer
CAP = 600  # s: the outer cap of one wait for the device (a search takes seconds at most)


def fuzz(io: Serial, rng: random.Random, n_bytes: int) -> list[int]:
    """Send n_bytes random bytes; returns the free heap of every `M` answer."""
    alphabet = [b for b in range(256) if b not in REPL_KEYS]
    asked = 0
    sent = 0
    while sent < n_bytes:
        chunk = bytes(rng.choice(alphabet) for _ in range(min(CHUNK, n_bytes - sent)))
        sent += len(chunk)
        asked += chunk.count(b"?") + 1
        io.s.write(chunk + b"?")
        while sum(ln.startswith("M ") for ln in io.lines) < asked:
            io.send("", r"M \d+$", timeout=CAP)
    return [int(ln.split()[1]) for ln in io.lines if re.match(r"M \d+$", ln)]


@pytest.mark.parametrize("seed", [2026])
def test_fuzz_serial_bytes_microbit_v1(emu: Any, pts: str, seed: int, extended: bool,  # noqa: F811
                                       record_property: Any) -> None:
    n_bytes = 4_000 if extended else 3_000
    assert cli.main(["deploy", "--port", pts]) == 0
    io = Serial(pts)
    try:
        free = [wait_boot(io)]
        free += fuzz(io, random.Random(seed), n_bytes)
        after = len(io.lines)
        # a legal move: the human's turn (the last B line says so): a column with room;
        # else 'd' starts the next game (it is over, or not started)
        for _ in range(6):
            last = [m for m in map(B_LINE.match, io.lines) if m]
            m = last[-1] if last else None
            if m and m.group(7) == "0" and m.group(6) == m.group(4):
                moves = m.group(5)
                io.s.write(str(next(c for c in "12345" if moves.count(c) < 4)).encode())
            else:
                io.s.write(b"d")
            free.append(io.free())
            if any(B_LINE.match(ln) for ln in io.lines[after:]):
                break
        # a key ends a result text still scrolling in the background (it holds its objects
        # until then), so the last reading compares like with like
        io.s.write(b"l")
        free.append(io.free())
    finally:
        io.close()
    lines = io.lines
    n_b = check_b_lines(lines)
    bad = sum(ln.startswith("E bad key") for ln in lines)
    print("fuzz micro:bit v1 seed %d: %d bytes, %d lines, %d B lines, %d 'E bad key' lines"
          % (seed, n_bytes, len(lines), n_b, bad))
    print("free heap: first %d, min %d, last %d" % (free[0], min(free), free[-1]))
    record_property("fuzz seed %d" % seed, "%d bytes" % n_bytes)
    # (L: a level chosen, R: a game's result; docs/serial.md)
    assert not [ln for ln in lines if ln and not re.match(
        r"(B |E bad key |E full |M \d+$|L \d$|R [WLD] \d+-\d+-\d+$)", ln)], \
        [ln for ln in lines if "Trace" in ln][:3]
    assert any(B_LINE.match(ln) for ln in lines[after:]), lines[after:]
    assert min(free) >= 2048, free
    if abs(free[-1] - free[0]) > 64:  # flat: no leak
        # Known open defect (issue 20): with the opening book, the L/R lines and the result
        # text in the background merged, the heap after this fuzz ends 272 B below the
        # boot's (2,256 of 2,528 B, still above 2 KB); not yet known whether that is a
        # one-time allocation or a leak. Reported as XFAIL, not passed.
        pytest.xfail("free heap not flat after the fuzz: %r" % free)
