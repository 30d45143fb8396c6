"""The package files for mip: ``mpremote mip install --target / github:OWNER/connectm`` gives
a Raspberry Pi Pico the game, as ``connectm deploy`` would, without connectm on the host.

mip copies each ``urls`` entry ``[DEST, URL]`` of a package file to TARGET/DEST, the URL
relative to the package file (mpremote's mip and MicroPython's own alike). With ``--target
/`` the files land where the game runs: main.py at the root, which the board runs at boot
and which reads cmmain.py from the current folder (the root), the modules beside it (''
comes first on sys.path) and the 7x6 opening book as book.bin (cmbook.NAME, opened from the
root). mip's default target, /lib, would give the board modules but no game at boot.

A package holds exactly ``connectm deploy``'s files for its board, as source
(``deploy.plan`` without a board: deploy compiles them to .mpy for the board's MicroPython,
which leaves more of the heap to the table): package.json for a MAX7219 matrix (cmhw's
default display, deploy's default), package-neopixel.json for a NeoPixel one. A file that
deploy changes for a board (cmhw.py's DISPLAY) is written for it under mip/BOARD/.
Written by ``python -m connectm.deploy --packaging``; tests/test_mip.py checks they are in
step with the firmware.
"""

from __future__ import annotations

import json

from connectm import deploy

PACKAGES = {"package.json": "pico-max7219", "package-neopixel.json": "pico-neopixel"}
BOARD_FILES = "mip"  # mip/BOARD/NAME: a file deploy changes for that board


def entries(board: str) -> list[tuple[str, str, bytes]]:
    """(name on the board, path in the repository, content) of each of the board's files,
    main.py last (deploy.plan's order: it starts the game, so it goes once the rest is in)."""
    out = []
    for item in deploy.plan(deploy.BOARDS[board]).items:
        path = "firmware/" + item.source.name
        if item.data != item.source.read_bytes():
            path = "%s/%s/%s" % (BOARD_FILES, board, item.name)
        out.append((item.name, path, item.data))
    return out


def package_json(board: str) -> str:
    from connectm import __version__

    urls = ",\n".join("    " + json.dumps([name, path]) for name, path, _ in entries(board))
    return '{\n  "urls": [\n%s\n  ],\n  "version": %s\n}\n' % (urls, json.dumps(__version__))


def files() -> dict[str, bytes]:
    """Every file the packages need in the repository, by path: the package files and the
    files deploy changes for a board."""
    out: dict[str, bytes] = {}
    for name, board in PACKAGES.items():
        out[name] = package_json(board).encode()
        out.update((path, data) for _, path, data in entries(board)
                   if not path.startswith("firmware/"))
    return out
