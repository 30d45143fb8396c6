"""docs/first-hour.md runs verbatim in a fresh clone (no ../shared beside it): each `$` line
but the clone itself, in order, with the output the page shows."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from conftest import unavailable
from docblocks import fenced, matches, session
from harness import REPO, load_tool

PAGE = REPO / "docs" / "first-hour.md"


def steps() -> list[tuple[str, list[str]]]:
    """(command, the output lines the page shows) of its session block."""
    (block,) = fenced(PAGE.read_text(), "shell-session")
    return session(block)


def test_matcher() -> None:
    assert matches(["a", "...", "c", "d..."], ["a", "b", "c", "dx"]) is None
    assert matches(["a", "c"], ["a", "b", "c"]) is not None  # no '...': adjacent
    assert matches(["x"], ["a"]) is not None and matches(["..."], []) is None
    # a row of LEDs is compared whole, not as a prefix
    assert matches(["....."], ["..O.."]) is not None and matches(["=...."], ["=.X.."]) is not None
    assert matches(["on /dev/pts/..."], ["on /dev/pts/3"]) is None


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh clone of this repository's HEAD, with nothing beside it."""
    root = tmp_path_factory.mktemp("first-hour")
    subprocess.run(["git", "clone", "-q", str(REPO), str(root / "connectm")], check=True)
    yield root / "connectm"


def run_steps(where: Path, todo: list[tuple[str, list[str]]]) -> None:
    for command, expected in todo:
        p = subprocess.run(["bash", "-c", command], cwd=where, capture_output=True,
                           text=True, timeout=900)
        assert p.returncode == 0, (command, p.stdout[-2000:], p.stderr[-2000:])
        why = matches(expected, (p.stdout + p.stderr).splitlines())
        assert why is None, (command, why, p.stdout[-3000:])


def split() -> tuple[list[tuple[str, list[str]]], list[tuple[str, list[str]]]]:
    all_steps = steps()
    assert all_steps[0][0].startswith("git clone ")  # the test makes its own clone
    k = next(i for i, (c, _) in enumerate(all_steps) if c == "make apt")
    return all_steps[1:k], all_steps[k:]


def test_first_hour_on_the_host(clone: Path) -> None:
    # make venv, connectm from .venv/bin, a scripted game, a test set that ships
    assert not (clone.parent / "shared").exists()
    run_steps(clone, split()[0])


def test_first_hour_on_the_emulated_microbit(clone: Path) -> None:
    import emulator

    why = emulator.missing()
    if why:
        unavailable(why)  # `make apt` would ask apt (and sudo) for them
    if not (clone / ".venv" / "bin" / "connectm").exists():
        run_steps(clone, split()[0])
    run_steps(clone, split()[1])


class StartingGame:
    """The game's serial line as tools/microbit_game.py meets it (no QEMU): the bytes sent
    while the board resets are lost (the first ``lost`` `?`), then they wait in its buffer
    while the game starts (until ``start`` `?` have been sent), then each is handled in
    order: `?` answers `M`, l/r choose the level, 3 plays the page's game, 9 is a bad key."""

    def __init__(self, lost: int, start: int, failed_boots: int = 0) -> None:
        self.lost, self.start, self.sent, self.out, self.asked = lost, start, b"", b"", 0
        self.failed_boots = failed_boots  # boots that run out of memory, until reset()

    def reset(self) -> None:
        self.failed_boots -= 1
        self.asked = 0

    def write(self, data: bytes) -> None:
        for c in data:
            self.asked += c == ord("?")
            if self.asked > self.lost:
                self.sent += bytes([c])

    @property
    def in_waiting(self) -> int:
        if self.asked >= self.start and self.failed_boots > 0:
            if not self.out:  # the boot's traceback, then the REPL (it answers nothing)
                self.out = b"Traceback (most recent call last):\r\nMemoryError: memory " \
                           b"allocation failed, allocating 136 bytes\r\n>>> "
            self.sent = b""
        elif self.asked >= self.start:
            for c in self.sent.decode():
                self.out += {"?": b"M 9000\r\n", "r": b"L 2\r\n", "l": b"L 1\r\n", "d": b"",
                             "9": b"E bad key 9\r\n",
                             "3": b"B 5x4 lv=1 you=1 moves=3 turn=2 over=0\r\n"
                                  b"B 5x4 lv=1 you=1 moves=33 turn=1 over=0\r\n"}[c]
            self.sent = b""
        return len(self.out)

    def read(self, n: int) -> bytes:
        self.in_waiting
        data, self.out = self.out[:n], self.out[n:]
        return data


def test_a_late_answer_is_not_a_later_keys() -> None:
    # CI (loaded): the game answered the `?` microbit_game sent every 2 s while it started
    # only once it ran, and those answers ended the waits for the next keys' lines, so the
    # page's game lost its B lines; counting them instead waited for the one lost in the
    # reset (make test, loaded). A boot that runs out of memory gets a reset, as CI's do.
    game = load_tool("microbit_game")
    for lost, failed in ((0, 0), (1, 0), (1, 1)):
        board = StartingGame(lost, start=4, failed_boots=failed)
        line = game.Line(board)
        game.wait_boot(line, every=0.01, reset=board.reset)
        assert board.failed_boots == 0
        assert line.send("rld3", timeout=5) == [
            "L 2", "L 1", "B 5x4 lv=1 you=1 moves=3 turn=2 over=0",
            "B 5x4 lv=1 you=1 moves=33 turn=1 over=0"]
        assert line.s.out == b"" and line.buf == b""
