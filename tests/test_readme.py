"""The command examples of README.md and of docs/*.md run as written and print what the
page shows: every ```console block (a `...` line stands for lines left out; a time in ms is
not compared), and the engine's Python example (docs/engine.md)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from docblocks import PAGES, REPO, fenced, matches, session

MS = re.compile(r'\d+(\.\d+)?( ms|\))|"ms": [\d.]+')


def examples() -> list:
    out = []
    for page in PAGES:
        for block in fenced(page.read_text(), "console"):
            for command, lines in session(block):
                name = "%s: %s" % (page.relative_to(REPO), command[:40])
                out.append(pytest.param(command, lines, id=name))
    return out


def test_the_pages_have_examples() -> None:
    # the README's and the engine page's at least: a fence renamed would drop them silently
    where = {p.values[0] for p in examples()}
    assert any("--keys d22345" in c for c in where)  # the README's picture
    assert any(c.startswith("connectm perft") for c in where)  # docs/engine.md
    assert len(where) >= 6


PROGRESS = re.compile(r"(?m)^solve: \d+ nodes, score in -?\d+\.\.-?\d+, [\d.]+ s\n")


@pytest.mark.parametrize("command,lines", examples())
def test_example(command: str, lines: list[str]) -> None:
    argv = shlex.split(command)
    assert argv[0] == "connectm"
    p = subprocess.run([sys.executable, "-m", "connectm.cli", *argv[1:]],
                       capture_output=True, text=True, timeout=120)
    # (a long solve's progress lines on stderr come after a second of the machine's time:
    # a busy machine prints one where a quiet one does not)
    got = MS.sub("T", p.stdout + PROGRESS.sub("", p.stderr))
    shown = MS.sub("T", "".join(line + "\n" for line in lines))
    if "..." in lines:
        why = matches(shown.splitlines(), got.splitlines())
        assert why is None, (why, got[-3000:])
    else:
        assert got == shown
    assert p.returncode == (2 if "error:" in shown else 0)


def test_python_example() -> None:
    (code,) = [b for b in fenced((REPO / "docs" / "engine.md").read_text(), "python")
               if b.startswith("from connectm import fw")]
    p = subprocess.run([sys.executable, "-c", code + "\nprint(s.depth, b.n, s.move)\n"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    depth, n, move = map(int, p.stdout.split())
    assert 1 <= depth <= 8 and n == 4 and 0 <= move < 7
