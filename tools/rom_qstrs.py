"""List the names the micro:bit v1 firmware keeps in flash (its ROM qstrs).

    .venv/bin/python tools/rom_qstrs.py [FIRMWARE.hex] > host/connectm/microbit_qstrs.txt

A name the device already has in flash costs no RAM when a program uses it; every other
identifier is interned into the 10 KB heap. connectm.minify renames the firmware's own
names to these (connectm deploy, for the micro:bit). The firmware stores each qstr as
hash byte, length byte, the characters and a NUL: scanned for here in the image below
1 MB (the appended-script area and UICR are left out), the hash checked. A stray match
would only cost the RAM the renaming meant to save; tests/test_minify.py checks the names
on the emulated v1.
"""

from __future__ import annotations

import re
import sys

HEX = "/usr/share/firmware-microbit-micropython/firmware.hex"


def image(path: str) -> bytes:
    mem: dict[int, int] = {}
    base = 0
    for line in open(path):
        line = line.strip()
        if not line.startswith(":"):
            continue
        rec = bytes.fromhex(line[1:])
        n, addr, kind, data = rec[0], (rec[1] << 8) | rec[2], rec[3], rec[4:4 + rec[0]]
        if kind == 4:
            base = ((data[0] << 8) | data[1]) << 16
        elif kind == 0 and base + addr < 0x100000:
            for i in range(n):
                mem[base + addr + i] = data[i]
    return bytes(mem.get(i, 0xFF) for i in range(max(mem) + 1))


def qstr_hash(name: bytes) -> int:
    # the firmware's qstr hash (djb2, one byte, never 0)
    h = 5381
    for c in name:
        h = (h * 33) ^ c
    return (h & 0xFF) or 1


def names(img: bytes) -> list[str]:
    found = set()
    for m in re.finditer(rb"(?s)([\x00-\xff])([\x01-\x40])([A-Za-z_][A-Za-z0-9_]*)\x00", img):
        name = m.group(3)
        # length and hash must both match: a stray byte pattern rarely passes both
        if m.group(2)[0] == len(name) and m.group(1)[0] == qstr_hash(name):
            found.add(name.decode())
    return sorted(found)


if __name__ == "__main__":
    print("\n".join(names(image(sys.argv[1] if len(sys.argv) > 1 else HEX))))
