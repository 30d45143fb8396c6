"""Pondering (firmware/cmponder.py) in the game, on CPython with a fake display: a key
during pondering is handled within a slice (counted in nodes, not time), a pondered reply is
played with no node searched after the drop and is the move a game without pondering
plays, any other drop is searched as without pondering, and the micro:bit builds have none
of it."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

import harness

from connectm import book7x6, build, fw

TT = 32768
RATE = 3400  # the emulated Pico with the table (an earlier build), nodes per (virtual) second


class Disp:
    def px(self, x: int, y: int, v: int) -> None:
        pass

    def show(self) -> None:
        pass

    def text(self, s: str) -> None:
        pass


@pytest.fixture
def game() -> Iterator[Any]:
    fw.load()
    import importlib

    import cmgame

    importlib.reload(cmgame)
    yield cmgame


def start(g: Any, moves: str, tt: int = TT) -> list[int]:
    """A 7x6 game at the top level, the human first, ``moves`` played (the device's replies
    included, as they come); returns the node counts of the game search's runs from here."""
    fw.boot(Disp(), 7, 6, tt)
    g.lv = len(g.LEVELS) // 3 - 1
    g.key("d")  # MENU -> PLAY, the human (1) first
    for c in moves:
        g.b.play(int(c) - 1)
    runs: list[int] = []
    go = g.s.go

    def counted(*a: Any) -> int:
        move = go(*a)
        runs.append(g.s.nodes)
        return move

    g.s.go = counted
    return runs


@pytest.mark.parametrize("tt", [0, TT])
def test_pondered_reply_is_reused_and_the_same_move(game: Any, tt: int) -> None:
    # The reply's search (move, score, depth reached) pondered before the drop is the one the
    # game runs after it without pondering; with pondering no node is searched after the
    # drop. (The node counts differ in the last iteration, the one the budget drops: the
    # polls check the budget at other counts.)
    g = game
    played = []
    results = []
    for ponder in (True, False):
        runs = start(g, "4453", tt)
        g.cur = 2
        if ponder:
            assert g.pd.run(g, lambda: None) is None  # no key came: pondered to its end
            s = g.pd.s
            assert s.nodes > 1024
            assert g.pd.run(g, lambda: None) is None and g.pd.s is s  # done: not again
        else:
            g.pd = None
            s = g.s
        g.key("d")  # the human drops in column 3: the device replies at once
        assert g.b.n == 6
        played.append(g.b.hist[5])
        results.append((s.move, s.score, s.depth))
        assert len(runs) == (0 if ponder else 1)  # no search after the drop when pondered
    assert played[0] == played[1] == results[0][0]
    assert results[0] == results[1] and results[0][2] >= 4


def test_another_drop_is_searched_as_without_pondering(game: Any) -> None:
    g = game
    played = []
    for ponder in (True, False):
        start(g, "4453")
        g.cur = 2
        if ponder:
            g.pd.run(g, lambda: None)
        else:
            g.pd = None
        g.key("6")  # not the pondered column
        played.append(bytes(g.b.hist[:g.b.n]))
    assert played[0] == played[1] and len(played[0]) == 6


@pytest.mark.parametrize("at", [1, 100, 300, 700])
def test_a_key_during_pondering_is_handled_within_a_slice(game: Any, at: int) -> None:
    # A key pressed when the pondering search has counted `at` nodes is seen by the next
    # poll, at most SLICE + 7 nodes later (one frontier node's leaves): ~40 ms at a Pico's
    # 3,400 nodes/s, under the 50 ms asked; the search stops at that poll.
    import cmsearch

    g = game
    start(g, "4453")
    g.cur = 2
    seen: list[int] = []
    poll = g.pd.poll

    def recorded(nodes: int) -> bool:
        seen.append(nodes)
        return poll(nodes)

    g.pd.poll = recorded
    key = g.pd.run(g, lambda: "r" if seen[-1] >= at else None)
    assert key == "r"
    assert seen[-1] - at <= cmsearch.SLICE + 7
    assert all(b - a <= cmsearch.SLICE + 7 for a, b in zip([0] + seen, seen))
    assert (cmsearch.SLICE + 7) * 1000 / RATE < 50
    assert g.pd.s.nodes == seen[-1]  # stopped at that poll
    assert g.pd.pos == b""  # not pondered to its end: nothing to reuse
    g.key(key)
    assert g.cur == 3 and g.b.n == 4  # the key handled: the cursor moved, nothing played


def test_a_book_reply_is_not_searched(game: Any) -> None:
    # On a Pico's 7x6 the top level answers from its book before ply 14 (cmgame.cpu asks it
    # first): pondering looks that reply up and searches nothing, once; after the book's
    # plies it searches as before.
    import cmbook

    g = game
    fw.boot(Disp(), 7, 6, TT, books=True)
    g.lv = len(g.LEVELS) // 3 - 1
    g.key("d")  # MENU -> PLAY, the human (1) first
    g.key("4")  # the device's reply from the book
    assert g.b.n == 2
    searched: list[int] = []
    reads: list[int] = []
    go = g.pd.s.go
    find = cmbook.find

    def counted_go(*a: Any) -> int:
        searched.append(1)
        return go(*a)

    def counted_find(b: Any) -> int:
        reads.append(1)
        return find(b)

    g.pd.s.go = counted_go
    cmbook.find = counted_find
    g.cur = 2
    try:
        assert g.pd.run(g, lambda: None) is None
        assert g.pd.run(g, lambda: None) is None  # kept: neither searched nor read again
    finally:
        cmbook.find = find
    assert searched == [] and len(reads) == 1
    g.b.play(2)
    book_move = cmbook.find(g.b)
    g.b.undo()
    assert 0 <= book_move < 7
    g.key("d")  # the human drops in column 3: the device plays the book's column
    assert g.b.n == 4 and g.b.hist[3] == book_move
    for c in "771177122":  # to the book's last ply: past it, pondering searches again
        g.b.play(int(c) - 1)
    g.b.play(0)
    assert g.b.n == book7x6.PLIES and not g.b.over()
    g.cur = 0
    assert g.pd.run(g, lambda: None) is None
    assert searched == [1] and g.pd.s.nodes > 1024


def test_a_poll_that_never_stops_changes_no_search(game: Any) -> None:
    fw.load()
    import cmboard
    import cmmoves
    import cmsearch

    # Same move, score and depth reached; the same node count without a budget (with one,
    # the dropped last iteration stops at another count).
    for moves in ("", "4453", "444433"):
        for depth, budget in ((8, 1024), (8, 640), (4, 256), (5, 0)):
            out = []
            for poll in (None, lambda nodes: False):
                b = cmboard.Board(7, 6, 4, 1)
                cmmoves.play_moves(b, moves)
                s = cmsearch.Search(b, TT, 8)
                s.poll = poll
                out.append((s.go(depth, budget), s.score, s.depth, budget or s.nodes))
            assert out[0] == out[1]


def test_microbit_builds_have_no_pondering() -> None:
    for name in ("microbit", "microbit-v2"):
        p = build.plan(build.BOARDS[name])
        assert "cmponder.py" not in [it.name for it in p.items]
        text = b"".join(it.data for it in p.items)
        assert b"ponder" not in text.lower() and b".poll" not in text
    p = build.plan(build.BOARDS["pico-max7219"])
    assert "cmponder.py" in [it.name for it in p.items]


@pytest.mark.parametrize("seed", range(1, 21))
def test_a_game_with_pondering_plays_the_moves_of_one_without(game: Any, seed: int) -> None:
    # The same human moves (seeded), the cursor on the column the human then drops in about
    # 70% of the time, some ponderings cut by a key: the device plays the same moves as
    # without pondering, each the move a search with a fresh table gives for its position
    # (a function of the position), and some replies search no node after the drop.
    import random

    import cmboard
    import cmsearch7  # the Pico's 7x6 search (cmpico sets it up; fw.boot as well)

    g = game
    games = []
    for ponder in (True, False):
        rnd = random.Random(seed)
        runs = start(g, "", TT)
        seen = [0]
        if ponder:
            poll = g.pd.poll
            g.pd.poll = lambda nodes: seen.append(nodes) or poll(nodes)
        else:
            g.pd = None
        reused = 0
        while g.st == 1:
            legal = [c for c in range(7) if g.b.can_play(c)]
            c = rnd.choice(legal)
            g.cur = c if rnd.random() < 0.7 else rnd.choice(legal)
            cut = rnd.choice([0, 0, 0, 1, 200, 600])  # a key at this node count, 0: none
            if ponder:
                seen[-1] = 0
                k = g.pd.run(g, lambda: "?" if cut and seen[-1] >= cut else None)
                assert k in (None, "?")
            n = g.b.n
            before = len(runs)
            g.key(str(c + 1))
            reused += g.b.n == n + 2 and len(runs) == before  # replied without a search
        games.append((bytes(g.b.hist[:g.b.n]), reused))
    assert games[0][0] == games[1][0]
    assert games[0][1] > 0 and games[1][1] == 0
    hist = games[0][0]
    L = g.LEVELS[-3:]
    for n in range(1, len(hist), 2):
        b = cmboard.Board(7, 6, 4, 1)
        for c in hist[:n]:
            b.play(c)
        assert cmsearch7.Search(b, TT, L[0]).go(L[0], L[1]) == hist[n]


def test_main_loop_ponders_and_plays_the_pondered_reply(
        game: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # main.py itself on CPython (its boot, then the guarded loop), keys from a script: the
    # top level, the human first; with no key the loop ponders the drop under the cursor
    # (column 4) to its end, then the drop there is answered with the pondered move, the one
    # a fresh search gives, and the game's search does not run. Ctrl-C (KeyboardInterrupt)
    # ends the loop, as on a board.
    import shutil

    import cmboard
    import cmhw
    import cmsearch
    import utime

    g = game
    shutil.copy(fw.firmware_dir() / "cmmain.py", tmp_path / "cmmain.py")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(utime, "sleep_ms", lambda ms: None)
    script = list("rrrrd") + [None] * 3 + ["d"]
    log: list[Any] = []  # ('key', k, pondered position) and ('go', pondering?)

    def key() -> Any:
        if g.pd and g.pd.key:
            return None  # a poll during pondering: the script's keys come between steps
        if not script:
            raise KeyboardInterrupt
        k = script.pop(0)
        log.append(("key", k, g.pd.pos if g.pd else None))
        return k

    go = cmsearch.Search.go

    def counted(self: Any, *a: Any) -> int:
        log.append(("go", self is g.pd.s))
        return go(self, *a)

    monkeypatch.setattr(cmsearch.Search, "go", counted)
    import cmbook
    import cmlines
    import cmsave

    # the board's own book names, none in tmp_path: the search plays (as fw.boot's default)
    monkeypatch.setattr(cmsave, "BOOK", "book.txt")
    monkeypatch.setattr(cmbook, "NAME", "book.bin")

    # what cmmain frees, put back after (as fw.boot does)
    kept = {m: dict(vars(m)) for m in (cmhw, cmsave, cmlines)}
    inits = [(c, c.__init__) for c in (cmboard.Board, cmsearch.Search)]
    monkeypatch.setattr(cmhw, "setup", lambda: (Disp(), key, 7, 6, TT))
    try:
        with pytest.raises(KeyboardInterrupt):
            exec((fw.firmware_dir() / "main.py").read_text(), {"__name__": "__main__"})
    finally:
        for m, saved in kept.items():
            vars(m).update(saved)
        for c, init in inits:
            c.__init__ = init
    assert g.lv == len(g.LEVELS) // 3 - 1 and g.b.n == 2 and g.b.hist[0] == 3
    drop = log.index(("key", "d", b"\x03h"))  # the drop, with column 4 pondered to its end
    assert ("go", True) in log[:drop]  # pondered by the loop, with no key
    assert ("go", False) not in log  # the game's own search never ran: the reply was pondered
    b = cmboard.Board(7, 6, 4, 1)
    b.play(3)
    L = g.LEVELS[-3:]
    assert cmsearch.Search(b, TT, L[0]).go(L[0], L[1]) == g.b.hist[1]
    assert "B 7x6 lv=5 you=1 moves=4" in capsys.readouterr().out


def test_ponder_bench_counts_each_reply_once() -> None:
    # tools/ponder_bench.py: the same replies with and without pondering (it changes no
    # move); a human resting 4 s on the column (more than the top level's ~3.1 s) waits for
    # no node, one dropping at once waits as without pondering unless the cursor stayed
    # where it was pondered
    bench = harness.load_tool("ponder_bench")
    plain = bench.play(3, 4.0, False)
    assert len(plain) > 3 and all(plain)
    assert bench.play(3, 4.0, True) == [0] * len(plain)
    quick = bench.play(3, 0.0, True)
    assert len(quick) == len(plain) and all(q in (0, p) for q, p in zip(quick, plain))


def test_the_cursor_blinks_while_pondering(game: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The pondering search's poll gives cmgame.tick() the time as the game's does (cmponder):
    # the human's cursor, the only LED that blinks on the human's turn, goes on blinking
    # while the board ponders, over a fake clock of 40 ms a reading (a poll every SLICE nodes).
    import cmponder

    clock = [0]

    def ticks() -> int:
        clock[0] += 40
        return clock[0]

    monkeypatch.setattr(cmponder, "ticks_ms", ticks)
    cursor: list[tuple[int, int]] = []

    class Cursor(Disp):
        def px(self, x: int, y: int, v: int) -> None:
            if y == 0 and x == game.cur:
                cursor.append((clock[0], v))

    fw.boot(Cursor(), 7, 6, TT)
    game.lv = len(game.LEVELS) // 3 - 1
    game.key("d")
    for c in "4453":  # off the book: the reply under the cursor is searched
        game.b.play(int(c) - 1)
    cursor.clear()
    assert game.pd.run(game, lambda: None) is None  # pondered to its end, no key
    assert game.pd.s.nodes > 2000 and clock[0] > 1024
    on = [t for t, v in cursor if v == 9]
    off = [t for t, v in cursor if v == 0]
    assert on and off and max(b - a for a, b in zip(on, on[1:])) <= 512 + 40
