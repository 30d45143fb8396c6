"""connectm.exact7x6: bitbully's 7x6 scores (a test extra) against cmsolve and the test
sets, and the players built on it (perfect on 7x6, picobook:P)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_engine import DATA, external_sets, load_testset

from connectm import book, exact7x6, fw, players

fw.load()
import cmboard  # noqa: E402
import cmmoves  # noqa: E402


def board(moves: str, w: int = 7, h: int = 6) -> cmboard.Board:
    b = cmboard.Board(w, h, 4)
    cmmoves.play_moves(b, moves)
    return b


def test_bitbully_is_installed() -> None:
    # A test extra: the tests below must run, not skip.
    assert exact7x6.available()


@pytest.mark.parametrize("moves,score", load_testset(DATA / "7x6c4_late.txt")[:25])
def test_move_scores_are_cmsolves(moves: str, score: int) -> None:
    b = board(moves)
    theirs = exact7x6.scores(b)
    assert theirs == book.Exact(b).scores()
    assert max(theirs.values()) == score
    assert b.hist[:b.n] == board(moves).hist[:b.n]  # the board is left as it was


@pytest.mark.parametrize("path", external_sets() or [pytest.param(None, marks=pytest.mark.skip(
    reason="no bigger test sets (neither $CONNECTM_TESTSETS nor ../shared/testsets); the "
    "shipped set is checked"))], ids=lambda p: p.name if p else "none")
def test_position_scores_are_the_test_sets(path: Path) -> None:
    # Pons' sets: the best move's score is the position's, for the first 200 positions.
    for moves, score in load_testset(path)[:200]:
        assert max(exact7x6.scores(board(moves)).values()) == score, moves


def test_early_scores() -> None:
    # The empty board: the first player wins only in the centre column (with its last disc,
    # the 41st: (42 + 1 - 40) // 2 = 1); column 3 or 5 draws.
    assert exact7x6.scores(board("")) == {3: 1, 2: 0, 4: 0, 1: -1, 5: -1, 0: -2, 6: -2}


def test_memo_asks_once_a_position(monkeypatch: pytest.MonkeyPatch) -> None:
    # A position met again (here "4352" and its transposition "5342") is bitbully's once; a
    # caller that changes the scores it got does not change the memo's.
    asked: list[int] = []
    search = exact7x6.scores
    monkeypatch.setattr(exact7x6, "scores", lambda b: asked.append(b.n) or search(b))
    memo = exact7x6.Memo()
    first = memo.scores(board("4352"))
    assert first == search(board("4352")) and asked == [4]
    first[0] = 99
    assert memo.scores(board("5342")) == search(board("4352")) and asked == [4]
    assert memo.scores(board("4")) == search(board("4")) and asked == [4, 1]


def test_other_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="5x4 connect 4, not 7x6"):
        exact7x6.scores(board("", 5, 4))


def test_perfect_plays_as_with_cmsolve(monkeypatch: pytest.MonkeyPatch) -> None:
    # Same scores, same seeded choice: a 7x6 game of perfect players is the one cmsolve's
    # scores give (from 30 discs down, where cmsolve is quick).
    opening = load_testset(DATA / "7x6c4_late.txt")[3][0][:30]

    def game() -> str:
        return players.play_game(7, 6, 4, players.Perfect(5), players.Perfect(6), opening)[1]

    fast = game()
    monkeypatch.setattr(exact7x6, "available", lambda: False)
    assert game() == fast


def test_picobook_plays_the_book_before_its_ply() -> None:
    # Past the Pico's own book (before ply 14), after these 14 plies of a game against
    # wasp, the top level answers 3 (0-based 2), which loses, where 6 (0-based 5) still
    # wins; a book through ply 15 holds that position, one through ply 14 does not.
    moves = "74664464446323"
    b = board(moves)
    pico = players.make_player("pico").choose(b)
    scores = exact7x6.scores(b)
    assert scores[pico] < 0 < max(scores.values())
    booked = players.make_player("picobook:15")
    assert booked.choose(b) == 5 and booked.booked == {moves}
    assert players.make_player("picobook:14").choose(b) == pico


def test_picobook_spec_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="plies must be >= 0"):
        players.parse_spec("picobook:-1")
    with pytest.raises(ValueError, match="takes 1 to 1"):
        players.parse_spec("picobook")
    monkeypatch.setattr(exact7x6, "available", lambda: False)
    with pytest.raises(ValueError, match="needs bitbully"):
        players.make_player("picobook:4")


def test_book_size_tool_counts_mirror_classes() -> None:
    # tools/book7x6_size.py: before ply 3, the empty board (device first), the human's 7
    # first moves as 4 mirror classes (device second), and the 7 replies to the device's
    # centre opening as 4 more; at ply 3 the device (second) has answered each of the 4
    # classes and the human has 7 replies to each: fewer where the two discs' mirror or
    # order meets another line's, never more than 28.
    import harness

    tool = harness.load_tool("book7x6_size")
    assert tool.count(3) == [1, 4, 4]
    at3 = tool.count(4)[3]
    assert 4 * 4 <= at3 < 28
    # --free 4: every 4-ply position is a start, each of its mirror classes counted once
    mirror = str.maketrans("1234567", "7654321")
    classes = set()
    for i in range(7 ** 4):
        moves = "".join(str(i // 7 ** k % 7 + 1) for k in range(4))
        classes.add(min(bytes(board(moves).cells), bytes(board(moves.translate(mirror)).cells)))
    assert tool.count(5, 4)[4] == len(classes)
    b = board("12")
    assert tool.key(b) == tool.key(board("76"))  # a position and its mirror: one key
    assert tool.key(b) != tool.key(board("21"))


def test_picobook_plays_picos_games() -> None:
    # The same seeds (openings, the opponent's dice) as pico's games, whatever P.
    from connectm import tournament

    def seeds(name: str) -> list[int]:
        jobs = tournament.make_jobs([(7, 6, 4)], [(name, "wasp"), ("wasp", name)], 3, 1, 4)
        return [j.seed for j in jobs]

    assert seeds("picobook:12") == seeds("picobook:20") == seeds("pico") != seeds("level:5")
