"""docs/first-hour.md runs verbatim in a fresh clone (no ../shared beside it): each `$` line
but the clone itself, in order, with the output the page shows."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from conftest import unavailable
from docblocks import fenced, matches, session
from harness import REPO

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
