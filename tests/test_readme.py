"""The README's command examples run as written and print what it shows."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
MS = re.compile(r'\d+(\.\d+)?( ms|\))|"ms": [\d.]+')


def examples() -> list[tuple[str, str]]:
    block = README.read_text().split("```console\n", 1)[1].split("```", 1)[0]
    out: list[tuple[str, str]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], ""))
        else:
            out[-1] = (out[-1][0], out[-1][1] + line + "\n")
    return out


@pytest.mark.parametrize("command,expected", examples(), ids=lambda x: x[:40])
def test_readme_example(command: str, expected: str) -> None:
    argv = shlex.split(command)
    assert argv[0] == "connectm"
    p = subprocess.run([sys.executable, "-m", "connectm.cli", *argv[1:]],
                       capture_output=True, text=True, timeout=120)
    assert MS.sub("T", p.stdout + p.stderr) == MS.sub("T", expected)
    assert p.returncode == (2 if "error:" in expected else 0)


def test_readme_python_example() -> None:
    code = README.read_text().split("```python\nfrom connectm import fw", 1)[1]
    code = "from connectm import fw" + code.split("```", 1)[0]
    p = subprocess.run([sys.executable, "-c", code + "\nprint(s.depth, b.n, s.move)\n"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    depth, n, move = map(int, p.stdout.split())
    assert 1 <= depth <= 8 and n == 4 and 0 <= move < 7
