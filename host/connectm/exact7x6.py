"""Exact move scores on the 7x6 connect-4 board from BitBully (PyPI ``bitbully``, a C++
solver with its 12-ply opening book; AGPL-3.0, an optional host library that no board
gets), for players that need perfect play where cmsolve, in Python, takes minutes to
hours: from the first plies on.

Its scores are the test sets' (and cmsolve's): a side that wins with its disc placed when
n are down scores (W*H + 1 - n) // 2. tests/test_exact7x6.py checks them against
book.Exact (cmsolve) and the test sets.
"""

from __future__ import annotations

from typing import Any

SIZE = (7, 6, 4)
_agent: Any = None


def available() -> bool:
    """Is bitbully installed?"""
    try:
        import bitbully  # noqa: F401
    except ImportError:
        return False
    return True


def scores(board: Any) -> dict[int, int]:
    """Column -> the mover's exact score after playing it, for a cmboard.Board of 7x6
    connect 4 whose game is not over (as book.Exact.scores)."""
    global _agent
    import bitbully

    if (board.w, board.h, board.m) != SIZE:
        raise ValueError("exact7x6: the board is %dx%d connect %d, not 7x6 connect 4"
                         % (board.w, board.h, board.m))
    if _agent is None:
        _agent = bitbully.BitBully()
    # bitbully's columns are cmboard's (0 the leftmost), its rows too (from the bottom)
    b = bitbully.Board.from_moves([board.hist[i] for i in range(board.n)])
    return dict(_agent.score_all_moves(b))


class Memo:
    """Exact scores remembered by position, for walks that meet a position again (a
    transposition, a later round, another walk given the same Memo): bitbully is asked once
    a position."""

    def __init__(self) -> None:
        self.known: dict[bytes, dict[int, int]] = {}

    def scores(self, board: Any) -> dict[int, int]:
        """scores(board), remembered."""
        pos = bytes(board.cells)  # the discs: the position, and so whose move it is
        if pos not in self.known:
            self.known[pos] = scores(board)
        return dict(self.known[pos])
