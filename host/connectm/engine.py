"""The firmware engine seen from the host: positions from command-line text, and one-line
errors for everything a user can type wrong."""

from __future__ import annotations

import argparse
import re
from typing import Any

from connectm import fw

fw.load()
import cmboard  # noqa: E402  (firmware modules import once fw.load() has set the path)
import cmmoves  # noqa: E402

SizeError = cmboard.SizeError
MoveError = cmmoves.MoveError

TT_BYTES = 1 << 22  # the host's default transposition table: 4 MiB, 512 Ki slots
TT_MAX = 1 << 30  # slot indexes stay small ints on every port


def tt_bytes(text: str) -> int:
    """A --tt value: bytes of transposition table, 0..TT_MAX."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of bytes" % text) from None
    if not 0 <= n <= TT_MAX:
        raise argparse.ArgumentTypeError("%d is out of range 0..%d" % (n, TT_MAX))
    return n


def parse_size(text: str) -> tuple[int, int]:
    """``"7x6"`` -> (7, 6); anything else raises SizeError."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m:
        raise SizeError("size %r is not WxH, e.g. 7x6" % text)
    return int(m.group(1)), int(m.group(2))


def position(size: str = "7x6", connect: int = 4, moves: str = "", keys: int = 1) -> Any:
    """A cmboard.Board of that size with the moves (1-based column digits) played."""
    w, h = parse_size(size)
    board = cmboard.Board(w, h, connect, keys)
    cmmoves.play_moves(board, moves.strip())
    return board
