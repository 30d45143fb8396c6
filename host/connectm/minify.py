"""Shrink firmware sources for a board that compiles them itself (the micro:bit v1 has an
11 KB file system and a 9 KB heap).

python-minifier drops comments and docstrings and gives local variables short names.
Module-level names and attributes keep theirs: the flat modules import each other's names,
and MicroPython's ``const()`` must stay a module-level ``NAME = const(...)``.
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import re
import tokenize
from collections.abc import Collection
from pathlib import Path

import python_minifier


def strip_source(text: str) -> str:
    """``text`` minified; the same program, MicroPython 1.9 syntax kept."""
    return python_minifier.minify(
        text,
        remove_annotations=False,  # firmware has none; keep the input as written
        remove_pass=True,
        remove_literal_statements=True,  # docstrings
        combine_imports=False,
        hoist_literals=False,  # hoisting would add module globals: RAM on the device
        rename_locals=True,
        rename_globals=False,
        remove_object_base=False,
        convert_posargs_to_args=False,
        preserve_shebang=False,
        remove_asserts=False,
        remove_debug=False,
        remove_explicit_return_none=True,
        remove_builtin_exception_brackets=False,
        constant_folding=False,
    ) + "\n"


# -- constants for the micro:bit -----------------------------------------------------------
# The micro:bit v1's compiler ignores const(): each NAME = const(v) stays a global that every
# use looks up at run time, and `if NAME:` code stays even when NAME is 0. fold_consts()
# writes the values in, which the compiler does fold: a literal `if 0:` block compiles to
# nothing.

def _const_defs(tree: ast.Module) -> dict[str, tuple[ast.Assign, ast.expr]]:
    """NAME -> (the statement NAME = const(expr), expr), at module level."""
    defs = {}
    for n in tree.body:
        if (isinstance(n, ast.Assign) and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Call)
                and isinstance(n.value.func, ast.Name) and n.value.func.id == "const"):
            defs[n.targets[0].id] = (n, n.value.args[0])
    return defs


def _imported(tree: ast.AST, mod: str) -> set[str]:
    """The names of module ``mod`` that this code uses: from mod import X, or mod.X."""
    alias = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
             for a in n.names if a.name == mod}
    used: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module == mod:
            used.update(a.name for a in n.names)
        elif (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
              and n.value.id in alias):
            used.add(n.attr)
    return used


def drop_dead(text: str) -> str:
    """The source without its `if 0:` blocks (that have no else). The device's compiler
    drops their code too, but its parser still interns every name in them, for good."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if not isinstance(body, list):
                continue
            dead = [n for n in body if isinstance(n, ast.If) and not n.orelse
                    and isinstance(n.test, ast.Constant) and not n.test.value]
            for n in dead:
                for i in range(n.lineno - 1, n.end_lineno or n.lineno):
                    lines[i] = ""
            if dead and len(dead) == len(body):  # the block needs a statement
                first = dead[0]
                lines[first.lineno - 1] = " " * first.col_offset + "pass\n"
    return "".join(lines)


def unswitched(text: str, name: str, on: bool = False) -> str:
    """The source without its `if NAME:` and `if NAME and ...:` blocks (NAME, or an
    attribute of that name: cmmain's `g.PONDER`), for a switch at 0 in this build: each
    gives way to its else block, if it has one, dedented into its place. Done before the
    minifier names the locals and the build is measured, so that code a micro:bit never
    runs costs it nothing (its mentions would change the names). on: the switch is 1, and
    the rest of the test too (cmsearch's `THREATS and th` on a Pico, whose every search is
    the threat search): each block's body takes its place, its else block dropped."""
    lines = text.splitlines(keepends=True)
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            test = test.values[0]
        if not (isinstance(test, ast.Name) and test.id == name or
                isinstance(test, ast.Attribute) and test.attr == name):
            continue
        first = node.lineno - 1  # the `if` line (a switch's test is one line)
        if not lines[first]:
            continue  # inside a block dropped already
        end = node.end_lineno or node.lineno
        body_end = node.body[-1].end_lineno or end
        if node.orelse:
            at = body_end  # the `else:` line, after the body and any comments below it
            while not lines[at].lstrip().startswith(("else", "elif")):
                at += 1
            if not lines[at].lstrip().startswith("else:"):
                raise ValueError("line %d: a switch's block has an elif" % (at + 1))
            kept = range(first + 1, body_end) if on else range(at + 1, end)
            step = node.body[0].col_offset - node.col_offset if on else \
                node.orelse[0].col_offset - node.col_offset
        else:
            kept = range(first + 1, body_end) if on else range(0)
            step = node.body[0].col_offset - node.col_offset
        for i in range(first, end):
            if i in kept:
                if lines[i].startswith(" " * step):
                    lines[i] = lines[i][step:]
            else:
                lines[i] = ""
    return "".join(lines)


def literal_module(text: str) -> dict[str, ast.expr]:
    """A module's assignments, name -> value, when it holds nothing but assignments of
    literals (e.g. cmlevels); else {}."""
    values = {}
    for n in ast.parse(text).body:
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name) and _is_literal(n.value)):
            return {}
        values[n.targets[0].id] = n.value
    return values


def inline_constants(sources: dict[str, str]) -> dict[str, str]:
    """Modules (name -> source) with ``from M import A`` replaced by ``A = <literal>`` where
    M holds only literal assignments (e.g. cmlevels), and M left out once nothing imports
    it: a module costs a micro:bit its own RAM (module, globals, file name)."""
    consts = {name: values for name, text in sources.items()
              if (values := literal_module(text))}
    out = dict(sources)
    for name, text in sources.items():
        lines = text.splitlines(keepends=True)
        for n in ast.parse(text).body:
            if (isinstance(n, ast.ImportFrom) and n.module in consts and n.level == 0
                    and n.lineno == n.end_lineno):
                values = consts[n.module]
                lines[n.lineno - 1] = " " * n.col_offset + "".join(
                    "%s = %s\n" % (a.asname or a.name, ast.unparse(values[a.name]))
                    for a in n.names)
        out[name] = "".join(lines)
    for m in consts:
        if not any(m in imports_of(t) for k, t in out.items() if k != m):
            del out[m]
    return out


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


def imports_of(source: str) -> set[str]:
    """Top-level module names imported anywhere in the source (also inside functions)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def fold_consts(sources: dict[str, str]) -> dict[str, str]:
    """Modules (name -> source) with each module's own const() names replaced by their
    values, a definition dropped when no other module uses the name and it has its line
    to itself, and `if 0 and x:` made `if 0:`. Values must be non-negative integers."""
    out = {}
    trees = {mod: ast.parse(text) for mod, text in sources.items()}
    for mod, text in sources.items():
        tree = trees[mod]
        defs = _const_defs(tree)
        values: dict[str, int] = {}
        for name, (_, expr) in defs.items():
            v = eval(compile(ast.Expression(expr), mod, "eval"), {"__builtins__": {}}, values)
            if not isinstance(v, int) or v < 0:
                raise ValueError("fold_consts: %s.%s is not a non-negative int" % (mod, name))
            values[name] = v
        others = set().union(*(_imported(t, mod) for m, t in trees.items() if m != mod))
        lines = text.splitlines(keepends=True)
        drop = {node.lineno for name, (node, _) in defs.items() if name not in others
                and lines[node.lineno - 1].strip() == ast.get_source_segment(text, node)}
        targets = {(node.lineno, node.col_offset) for node, _ in defs.values()}
        toks, reads = _name_reads(text, values)
        text = _edited(text, [(toks[i].start, toks[i].end, str(values[toks[i].string]))
                              for i in reads if toks[i].start not in targets])
        kept = [ln for i, ln in enumerate(text.splitlines(keepends=True), 1) if i not in drop]
        text = drop_dead(re.sub(r"\bif 0 and [^:\n]+:", "if 0:", "".join(kept)))
        if not re.search(r"\bconst\(", text):
            text = re.sub(r"(?m)^from micropython import const\n", "", text)
        out[mod] = text
    return out


# -- one board size for the micro:bit -------------------------------------------------------
# A micro:bit plays one board size: its dimensions can be numbers in the code instead of
# attributes the board keeps and every use looks up (less bytecode, a smaller board, faster).

def specialize(text: str, values: dict[str, int]) -> str:
    """The source with every read of ``x.attr`` (x a name or a dotted name, attr in
    ``values``) replaced by the value; an assignment to such an attribute is refused."""
    tree = ast.parse(text)
    spans = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and n.attr in values:
            if not isinstance(n.ctx, ast.Load):
                raise ValueError("specialize: line %d assigns .%s" % (n.lineno, n.attr))
            base = n.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name):
                spans.append((n.lineno, n.col_offset, n.end_col_offset, n.end_lineno, n.attr))
    lines = [ln.encode() for ln in text.splitlines(keepends=True)]
    for row, start, end, end_row, attr in sorted(spans, reverse=True):
        # a dotted name never spans lines; offsets are in UTF-8 bytes
        assert row == end_row
        ln = lines[row - 1]
        lines[row - 1] = ln[:start] + str(values[attr]).encode() + ln[end:]
    return b"".join(lines).decode()


def inline_names(text: str, values: dict[str, int]) -> str:
    """The source with every read of a plain name in ``values`` replaced by its value, and
    the name dropped from chained assignments (``a = w = None`` -> ``a = None``): names that
    hold a number the build knows (the micro:bit v1's board size in cmmain). Any other
    assignment of such a name is refused, as is a result that does not parse."""
    toks, reads = _name_reads(text, values)
    edits = []
    for i in reads:
        t = toks[i]
        if toks[i + 1].string == "=":
            if not i or toks[i - 1].string != "=":
                raise ValueError("inline_names: line %d assigns %s" % (t.start[0], t.string))
            edits.append((t.start, toks[i + 2].start, ""))  # "w = " up to the next token
        else:
            edits.append((t.start, t.end, str(values[t.string])))
    out = _edited(text, edits)
    try:
        ast.parse(out)
    except SyntaxError as e:  # e.g. the name in a tuple of targets
        raise ValueError("inline_names: line %s: %s" % (e.lineno, e.msg)) from None
    return out


def _name_reads(text: str, names: Collection[str]) -> tuple[list[tokenize.TokenInfo], list[int]]:
    """The source's tokens (without comments and blank lines) and the indexes of those that
    are a plain name in ``names``: not an attribute (after a dot)."""
    toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.NL, tokenize.COMMENT)]
    return toks, [i for i, t in enumerate(toks) if t.type == tokenize.NAME
                  and t.string in names and not (i and toks[i - 1].string == ".")]


def _edited(text: str, edits: list[tuple[tuple[int, int], tuple[int, int], str]]) -> str:
    """The source with each (start, end, new text) made, positions as tokenize gives them
    ((row, col), within one line)."""
    lines = text.splitlines(keepends=True)
    for (row, col), (end_row, end_col), new in sorted(edits, reverse=True):
        assert row == end_row
        ln = lines[row - 1]
        lines[row - 1] = ln[:col] + new + ln[end_col:]
    return "".join(lines)


def drop_unread(sources: dict[str, str]) -> dict[str, str]:
    """Modules (name -> source) without their module-level assignments of names that no
    module of the set reads (e.g. the Pico's pins in cmhw, in a micro:bit's bundle), nor
    their classes that no module names (cmboard's SizeError, once cmlines is written out),
    nor the methods of a class that no module names (Board.undo, which only the host's
    modules call): each would stay in RAM. Only statements that have their lines to
    themselves."""
    counts: dict[str, int] = {}
    for text in sources.values():
        for name in _tokens(text):
            counts[name] = counts.get(name, 0) + 1
    out = {}
    for mod, text in sources.items():
        lines = text.splitlines(keepends=True)
        for node in ast.parse(text).body:
            if isinstance(node, ast.ClassDef) and counts[node.name] == 1:
                for i in range(node.lineno - 1, node.end_lineno or node.lineno):
                    lines[i] = ""
                continue
            if isinstance(node, ast.ClassDef):
                for f in node.body:
                    if (isinstance(f, ast.FunctionDef) and counts[f.name] == 1
                            and not f.name.startswith("__")):
                        for i in range(f.lineno - 1, f.end_lineno or f.lineno):
                            lines[i] = ""
            if not isinstance(node, ast.Assign):
                continue
            names = [t.id for t in ast.walk(node) if isinstance(t, ast.Name)]
            targets = [t.id for tg in node.targets for t in ast.walk(tg)
                       if isinstance(t, ast.Name)]
            own = "".join(lines[node.lineno - 1:node.end_lineno]).strip()
            if (names == targets and all(counts[n] == names.count(n) for n in names)
                    and own == ast.get_source_segment(text, node)):
                for i in range(node.lineno - 1, node.end_lineno or node.lineno):
                    lines[i] = ""
        out[mod] = "".join(lines)
    return out


def _tokens(text: str) -> list[str]:
    return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.NAME]


# -- renaming for the micro:bit ------------------------------------------------------------
# The micro:bit compiles source on the device, and every identifier it meets that is not
# already in its flash (a ROM qstr) is interned into the 10 KB heap for good: the game's
# names cost about 1.5 KB there. rename() gives the firmware's own names (module globals,
# functions, classes, arguments, locals, attributes) names the firmware already has.

def rom_names() -> list[str]:
    """The micro:bit v1 firmware's ROM qstrs that are identifiers (tools/rom_qstrs.py)."""
    text = (Path(__file__).parent / "microbit_qstrs.txt").read_text()
    return text.split()


def _definitions(tree: ast.AST, modules: set[str]) -> tuple[set[str], set[str]]:
    """(names the code defines, names it must keep: imported from outside the firmware,
    keyword-argument names, which may belong to a callee outside the firmware)."""
    own: set[str] = set()
    keep: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            own.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            own.add(n.name)
        elif isinstance(n, ast.arg):
            own.add(n.arg)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)):
            own.add(n.attr)
        elif isinstance(n, ast.Global):
            own.update(n.names)
        elif isinstance(n, ast.keyword) and n.arg:
            keep.add(n.arg)
        elif isinstance(n, ast.ImportFrom) and n.module not in modules:
            # the imported name stays; an alias (`as B`) is the code's own
            keep.update(a.name for a in n.names)
            own.update(a.asname for a in n.names if a.asname)
        elif isinstance(n, ast.Import):
            keep.update(a.name for a in n.names if a.name not in modules)
            own.update(a.asname for a in n.names if a.asname)
    return own, keep


def _names(text: str) -> set[str]:
    return set(_tokens(text))


def rename_map(sources: dict[str, str], modules_too: bool = False) -> dict[str, str]:
    """One map for a set of modules (name -> source) that import each other: each name the
    modules define, unless the firmware has it already or it must stay (see _definitions),
    to a distinct ROM name that none of them uses. Deterministic: sorted names, fixed pool.
    modules_too: the modules' own names too (but main), whose files are then renamed: a
    module's name and its file's name are interned when it is imported."""
    modules = set(sources)
    own: set[str] = modules - {"main"} if modules_too else set()
    keep: set[str] = set() if modules_too else set(modules)
    used: set[str] = set()
    for text in sources.values():
        o, k = _definitions(ast.parse(text), modules)
        own |= o
        keep |= k
        used |= _names(text)
    rom = rom_names()
    romset = set(rom)
    todo = sorted(n for n in own - keep - romset if not n.startswith("__"))
    pool = [r for r in sorted(rom, key=lambda r: (len(r), r)) if r not in used
            and not r.startswith("_") and not keyword.iskeyword(r) and r not in _BUILTINS]
    if len(pool) < len(todo):
        raise ValueError("rename: %d names but only %d free ROM names" % (len(todo), len(pool)))
    return dict(zip(todo, pool))


def rename(text: str, names: dict[str, str]) -> str:
    """The source with every NAME token in ``names`` replaced, and each string that is a
    renamed module's file name ('cmmain.py': main.py opens it); other strings and comments
    are kept."""
    out = []
    for t in tokenize.generate_tokens(io.StringIO(text).readline):
        if t.type == tokenize.NAME and t.string in names:
            t = t._replace(string=names[t.string])
        elif t.type == tokenize.STRING and t.string[1:-4] in names and t.string[-4:-1] == ".py":
            t = t._replace(string=repr(names[t.string[1:-4]] + ".py"))
        out.append(t)
    return tokenize.untokenize(out)


# MicroPython's builtins and modules on the micro:bit too, never used as a new name
_BUILTINS = set(dir(builtins)) | {
    "const", "micropython", "microbit", "gc", "os", "sys", "utime", "array", "music",
    "radio", "speech", "neopixel", "random", "machine", "ustruct", "struct", "math",
    "love", "this", "antigravity", "audio", "builtins", "collections", "ucollections", "time",
}  # the modules: help('modules') on the v1
