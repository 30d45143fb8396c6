"""Other projects' Connect-4 AIs behind the players' interface (``choose(board)``), to
measure the game against: 7x6 connect 4 only, as they are written.

    wasp[:D]     the wasp-os watch's Four in a Row (apps/four_in_a_row.py, LGPL-3.0; not
                 shipped: read from a wasp-os checkout named by $CONNECTM_WASP_OS), its
                 alpha-beta to D plies, 1..7; 7 (default) is its hardest level
    easyai[:D]   easyAI's Negamax to depth D (default 6) on easyAI's own ConnectFour game
                 (PyPI easyAI, MIT; its scoring: a loss is -100, all else 0)

Their code runs as written; only the position is translated, and the watch's clock-seeded
random opening (a random column while fewer than 3 discs are down) draws from a seeded RNG.
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys
import types
from pathlib import Path
from typing import Any

WASP_FILE = "apps/four_in_a_row.py"


def _seven_by_six(board: Any, who: str) -> None:
    if (board.w, board.h, board.m) != (7, 6, 4):
        raise ValueError("%s plays 7x6 connect 4 only, not %dx%d connect %d"
                         % (who, board.w, board.h, board.m))


def wasp_module() -> Any:
    """apps/four_in_a_row.py of the wasp-os checkout at $CONNECTM_WASP_OS (or that file),
    loaded with an empty ``wasp`` module: its AI needs none of the watch."""
    where = os.environ.get("CONNECTM_WASP_OS", "")
    path = Path(where)
    if where and path.is_dir():
        path = path / WASP_FILE
    if not where or not path.is_file():
        raise ValueError("wasp: set CONNECTM_WASP_OS to a wasp-os checkout (github.com/wasp-os/"
                         "wasp-os; its %s)%s" % (WASP_FILE, ", not %r" % where if where else ""))
    from connectm import fw

    fw.install_shim()  # micropython.const
    sys.modules.setdefault("wasp", types.ModuleType("wasp"))
    spec = importlib.util.spec_from_file_location("wasp_four_in_a_row", path)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


class Wasp:
    """The watch's move: FourInARowApp.swipe()'s choice for the computer, on our board."""

    def __init__(self, depth: int = 7, seed: int = 0) -> None:
        if not 1 <= depth <= 7:
            raise ValueError("wasp depth must be 1..7 (its levels 0..6), not %d" % depth)
        self.depth, self.seed = depth, seed
        self.name = "wasp:%d" % depth
        self.mod = wasp_module()

    def choose(self, board: Any) -> int:
        _seven_by_six(board, "wasp")
        low = bytearray(7)
        bits = [0, 0]
        for i in range(board.n):  # its bitmaps: bit y * 8 + x, y = 0 the bottom row
            c = board.hist[i]
            bits[i & 1] |= 1 << (low[c] * 8 + c)
            low[c] += 1
        if board.n < 3:  # the watch: rndColumn() (its clock) while fewer than 3 discs
            return random.Random("wasp:%d:%d" % (self.seed, board.n)).randrange(7)
        depth = self.depth
        if depth == 2 and board.n < 8:
            depth += 1
        me = board.n & 1
        _, x = self.mod._swapmin(bits[me], bits[1 - me], low, depth, -42, 42)
        return int(x)


class EasyAI:
    """easyAI's Negamax(depth) choosing for the side to move in its ConnectFour game."""

    def __init__(self, depth: int = 6, seed: int = 0) -> None:
        if depth < 1:
            raise ValueError("easyai depth must be >= 1, not %d" % depth)
        try:
            from easyAI import Negamax
            from easyAI.games.ConnectFour import ConnectFour
        except ImportError as e:
            raise ValueError("easyai: pip install easyAI numpy (%s)" % e) from None
        self.depth, self.seed = depth, seed
        self.name = "easyai:%d" % depth
        self.ai, self.game = Negamax(depth), ConnectFour

    def choose(self, board: Any) -> int:
        import numpy as np

        _seven_by_six(board, "easyai")
        grid = np.zeros((6, 7), dtype=int)  # grid[row, column], row 0 the bottom
        low = [0] * 7
        for i in range(board.n):
            c = board.hist[i]
            grid[low[c], c] = 1 + (i & 1)
            low[c] += 1
        game = self.game([None, None], board=grid)
        game.current_player = 1 + (board.n & 1)
        return int(self.ai(game))
