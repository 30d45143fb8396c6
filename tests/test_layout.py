"""The house: no import circle among host/'s modules, nor among firmware/'s but the ones
whose module comment says why it stays."""

from __future__ import annotations

import ast
from pathlib import Path

from harness import REPO


def imports(path: Path, package: str | None) -> set[str]:
    """The modules of the same folder that this file imports, at any depth (a function's
    import is an edge too: it runs whenever the function does)."""
    here = {p.stem for p in path.parent.glob("*.py")}
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + ["%s.%s" % (node.module, a.name) for a in node.names]
        else:
            continue
        for name in names:
            if package:
                if not name.startswith(package + "."):
                    continue
                name = name[len(package) + 1:]
            found |= {name.split(".")[0]} & here
    return found - {path.stem}


def circles(folder: Path, package: str | None) -> list[list[str]]:
    graph = {p.stem: imports(p, package) for p in folder.glob("*.py")}
    found = []

    def walk(node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt == path[0]:
                found.append(path + [nxt])
            elif nxt not in path and nxt > path[0]:  # each circle once, from its least name
                walk(nxt, path + [nxt])

    for start in sorted(graph):
        walk(start, [start])
    return found


def test_no_import_circle_in_host() -> None:
    assert circles(REPO / "host" / "connectm", "connectm") == []


def test_circles_in_firmware_say_why() -> None:
    # a firmware circle costs nothing at run time (MicroPython imports each module once),
    # but a reader must know why it is there: each module of a circle says so
    for circle in circles(REPO / "firmware", None):
        for name in circle[:-1]:
            text = (REPO / "firmware" / (name + ".py")).read_text()
            assert "circle" in text.split("\n\n")[0], (circle, name)


def test_no_host_module_over_600_lines() -> None:
    # one job a module: a module this long does several (deploy.py was 990 lines: the
    # build, the serial transport and the deploy's steps, now build, device and deploy)
    long = {p.name: n for p in (REPO / "host" / "connectm").glob("*.py")
            if (n := len(p.read_text().splitlines())) > 600}
    assert long == {}
