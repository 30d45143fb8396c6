"""The examples of README.md and docs/*.md: their fenced blocks, the `$` lines of a session
with the output shown under each, and how a run's output is compared with what a page
shows (tests/test_readme.py, tests/test_first_hour.py)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The pages whose examples are tested: the README and every page under docs/.
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def fenced(text: str, lang: str) -> list[str]:
    """The bodies of the text's ```lang blocks, in order."""
    parts = text.split("```" + lang + "\n")[1:]
    return [p.split("```", 1)[0] for p in parts]


def session(block: str) -> list[tuple[str, list[str]]]:
    """(command, the output lines shown under it) of each `$` line of a session block."""
    out: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        else:
            out[-1][1].append(line)
    return out


def matches(expected: list[str], actual: list[str]) -> str | None:
    """None if the actual lines hold the expected ones in order, adjacent but where a '...'
    line stands for any lines; a line that ends in '...' after text not ending in a dot
    (`found ... on /dev/pts/...`) matches on that text. Else what failed. (A row of LEDs,
    '.....' or '=....', is compared whole.)"""
    i = 0
    gap = False
    for exp in expected:
        if exp == "...":
            gap = True
            continue
        before = exp[:-3] if exp.endswith("...") else ""
        head = before if before and not before.endswith(".") else None

        def ok(line: str, exp: str = exp, head: str | None = head) -> bool:
            return line.startswith(head) if head is not None else line.rstrip() == exp

        while i < len(actual) and not ok(actual[i]):
            if not gap:
                return "expected %r, got %r" % (exp, actual[i])
            i += 1
        if i == len(actual):
            return "expected %r, not found" % exp
        i += 1
        gap = False
    return None
