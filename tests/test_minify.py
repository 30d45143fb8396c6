"""connectm.minify.strip_source keeps the code's meaning."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import harness
from connectm.minify import strip_source

SOURCES = sorted(harness.firmware_dir().glob("*.py")) + sorted(
    (harness.REPO / "host" / "connectm").glob("*.py")
)


def normalized(tree: ast.AST) -> str:
    """AST dump without docstrings / bare string statements and without `pass`."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            node.body = [  # type: ignore[attr-defined]
                s
                for s in body
                if not isinstance(s, ast.Pass)
                and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                         and isinstance(s.value.value, str))
            ]
    return ast.dump(tree)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_same_ast(path: Path) -> None:
    src = path.read_text()
    out = strip_source(src)
    assert normalized(ast.parse(out)) == normalized(ast.parse(src))
    assert "#" not in "".join(ln for ln in out.splitlines() if ln.lstrip().startswith("#"))
    assert all(ln.strip() for ln in out.splitlines())


def test_example() -> None:
    src = (
        '"""doc"""\nfrom micropython import const\nX = const(1)  # c\n\n\n'
        'def f():\n    """only a docstring"""\n\n'
        'class A:\n    """doc"""\n    s = """a\n\n  b  """  # keep\n'
    )
    assert strip_source(src) == (
        'from micropython import const\nX = const(1)\ndef f():\n    pass\n'
        'class A:\n    s = """a\n\n  b  """\n'
    )
