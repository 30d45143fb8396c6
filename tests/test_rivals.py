"""connectm.rivals: other projects' AIs behind the players' interface. The wasp-os file is
not shipped: its adapter is checked with a stand-in file that records what the watch's
search is given; easyAI (a test extra) runs as installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from connectm import fw, levels, players, rivals

fw.load()
import cmboard  # noqa: E402
import cmmoves  # noqa: E402

STAND_IN = """
import wasp
from micropython import const
_NROW = const(6)
calls = []
def _swapmin(bitNext, bitLast, low, depth, lob, upb):
    calls.append((bitNext, bitLast, bytes(low), depth, lob, upb))
    return 0, 5
"""


def board(moves: str) -> cmboard.Board:
    b = cmboard.Board(7, 6, 4)
    cmmoves.play_moves(b, moves)
    return b


def test_wasp_needs_its_checkout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CONNECTM_WASP_OS", raising=False)
    with pytest.raises(ValueError, match="set CONNECTM_WASP_OS to a wasp-os checkout"):
        players.make_player("wasp")
    monkeypatch.setenv("CONNECTM_WASP_OS", str(tmp_path))  # no apps/four_in_a_row.py there
    with pytest.raises(ValueError, match="not '%s'" % tmp_path):
        players.make_player("wasp:3")
    with pytest.raises(ValueError, match="1..7"):
        players.make_player("wasp:8")


def test_wasp_gets_the_watchs_bitmaps(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "four_in_a_row.py").write_text(STAND_IN)
    monkeypatch.setenv("CONNECTM_WASP_OS", str(tmp_path))
    p = players.make_player("wasp:2", seed=1)
    assert p.name == "wasp:2"
    calls = p.mod.calls  # type: ignore[attr-defined]
    # first two discs: the watch's random column (seeded here), no search
    first = p.choose(board(""))
    assert 0 <= first < 7 and first == players.make_player("wasp:2", seed=1).choose(board(""))
    assert calls == []
    # 4 4 5: player 2 (to move) has (3,1), player 1 (3,0) and (4,0); bit y * 8 + x; the
    # mover's bitmap first
    assert p.choose(board("445")) == 5
    assert calls[-1] == (1 << 11, 1 << 3 | 1 << 4, bytes([0, 0, 0, 2, 1, 0, 0]), 3, -42, 42)
    # depth 2 is searched as 3 before 8 discs (the watch's rule), as 2 from 8 on
    p.choose(board("12345671"))
    assert calls[-1][:4] == (1 << 0 | 1 << 2 | 1 << 4 | 1 << 6, 1 << 1 | 1 << 3 | 1 << 5 | 1 << 8,
                             bytes([2, 1, 1, 1, 1, 1, 1]), 2)
    with pytest.raises(ValueError, match="7x6 connect 4 only"):
        p.choose(cmboard.Board(5, 4, 4))


@pytest.mark.parametrize("moves,win", [("445566", 2), ("1213747", 4)])
def test_easyai_takes_a_win(moves: str, win: int) -> None:
    # its Negamax on its own ConnectFour, given our position: the side to move (1 after
    # 445566, 2 after 1213747) completes its four
    p = players.make_player("easyai:2")
    assert p.name == "easyai:2"
    assert p.choose(board(moves)) == win


def test_pico_is_the_top_level_with_a_table() -> None:
    # the top level on a board with a table: cmhw.TOP's depth and nodes, from an empty
    # table; on 7x6 with no book, the search's move
    import cmhw
    import cmsearch

    p = players.make_player("pico")
    assert p.name == "pico"
    b = board("4453")
    s = cmsearch.Search(b, levels.PICO_TABLE, cmhw.TOP[0])
    assert p.choose(b) == s.go(*cmhw.TOP)
    assert rivals.WASP_FILE == "apps/four_in_a_row.py"


def test_pico_levels_are_the_levels_with_its_table() -> None:
    # pico:L: level L as a Pico plays it (--levels --pico): on its 7x6 level 3 to cmhw.WIDE's
    # depth and nodes (not cmlevels'), from an empty table of PICO_TABLE bytes
    import cmhw
    import cmsearch7  # a Pico's 7x6 search

    depth, nodes = cmhw.WIDE[:2]
    p = players.make_player("pico:3")
    assert p.name == "pico:3"
    b = board("4453")
    assert p.choose(b) == cmsearch7.Search(b, levels.PICO_TABLE, cmhw.TOP[0]).go(depth, nodes)
    assert players.make_player("pico:%d" % levels.count()).choose(b) == \
        players.make_player("pico").choose(b)
    with pytest.raises(ValueError, match="levels are 1..%d" % levels.count()):
        players.make_player("pico:%d" % (levels.count() + 1))
    with pytest.raises(ValueError, match="takes 0 to 1"):
        players.make_player("pico:3:64")
