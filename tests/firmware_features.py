"""What the micro:bit firmwares lack that CPython and MicroPython-WebAssembly have
(docs/firmware-features.md): each feature once, with the snippets that probe it on an
interpreter and the finder that spots its use in firmware/'s syntax tree.

``lacks`` names the interpreters without the feature: ``v1`` (both v1 firmwares, 1.0.1 and
1.1.1: MicroPython 1.9.2, probed on the emulated v1), ``v2`` (the v2 firmware: MicroPython
1.23 at its core feature level, from its mpconfigport.h; no emulator runs it), ``mpy``
(MicroPython itself: WebAssembly and the unix port lack it too). A feature lacks nothing
when it is listed only to show that the micro:bit has it (PRESENT).

tests/test_features.py runs every probe (a snippet that raises where the feature is
missing or wrong) on CPython, WebAssembly, the unix port and the emulated v1, and fails on a
use of a lacking feature in a firmware module that a firmware lacking it runs (``scope``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

V1, V2, MPY = "v1", "v2", "mpy"
MICROBIT = frozenset({V1, V2})
EVERY_MPY = frozenset({V1, V2, MPY})

Finder = Callable[[ast.AST], bool]


@dataclass(frozen=True)
class Feature:
    name: str
    title: str
    lacks: frozenset[str]
    probes: dict[str, str]  # item -> code that raises where the item is missing or wrong
    uses: Finder | None  # does this node use it? None: not recognisable in the syntax tree
    instead: str = ""  # what firmware/ does instead
    port: bool = False  # a module or I/O of the port: a Pico-only module may use it
    unix_lacks: frozenset[str] = field(default_factory=frozenset)  # items the unix port lacks


# -- finders --------------------------------------------------------------------------------
def parent(node: ast.AST) -> ast.AST | None:
    return getattr(node, "cm_parent", None)


def calls_method(*names: str) -> Finder:
    """x.name(...) for any x."""
    def uses(n: ast.AST) -> bool:
        return (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr in names)
    return uses


def calls(name: str, nargs: int | None = None, keyword: str | None = None) -> Finder:
    """name(...) (a builtin), with nargs positional arguments or the keyword if given."""
    def uses(n: ast.AST) -> bool:
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name):
            return False
        if nargs is not None and len(n.args) != nargs:
            return False
        return keyword is None or any(k.arg == keyword for k in n.keywords)
    return uses


def names(*ids: str) -> Finder:
    """The bare name (a builtin), read anywhere."""
    def uses(n: ast.AST) -> bool:
        return isinstance(n, ast.Name) and n.id in ids
    return uses


def attributes(*attrs: str) -> Finder:
    """x.attr for any x."""
    def uses(n: ast.AST) -> bool:
        return isinstance(n, ast.Attribute) and n.attr in attrs
    return uses


def module_names(module: str, *attrs: str) -> Finder:
    """module.attr, or `from module import attr`."""
    def uses(n: ast.AST) -> bool:
        if isinstance(n, ast.Attribute):
            return (n.attr in attrs and isinstance(n.value, ast.Name)
                    and n.value.id in (module, "u" + module))
        if isinstance(n, ast.ImportFrom):
            return (n.module in (module, "u" + module)
                    and any(a.name in attrs for a in n.names))
        return False
    return uses


def imports(*modules: str) -> Finder:
    """import m / from m import ..., also under the old u-prefixed name (uio, ujson...)."""
    wanted = set(modules) | {"u" + m for m in modules}

    def uses(n: ast.AST) -> bool:
        if isinstance(n, ast.Import):
            return any(a.name.split(".")[0] in wanted for a in n.names)
        return isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] in wanted
    return uses


def methods(*dunders: str) -> Finder:
    """A class that defines one of these methods."""
    def uses(n: ast.AST) -> bool:
        return (isinstance(n, ast.FunctionDef) and n.name in dunders
                and isinstance(parent(n), ast.ClassDef))
    return uses


def nodes(*types: type) -> Finder:
    def uses(n: ast.AST) -> bool:
        return isinstance(n, types)
    return uses


def any_of(*finders: Finder) -> Finder:
    def uses(n: ast.AST) -> bool:
        return any(f(n) for f in finders)
    return uses


def slice_target(n: ast.AST) -> bool:
    # x[a:b] = y, x[a:b] += y, del x[a:b]: the type of x is unknown here; a list has slice
    # assignment on the micro:bit, a bytearray, an array and a memoryview do not
    return (isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice)
            and isinstance(n.ctx, (ast.Store, ast.Del)))


def tuple_prefix(n: ast.AST) -> bool:
    return (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in ("startswith", "endswith") and bool(n.args)
            and isinstance(n.args[0], ast.Tuple))


def file_mode(n: ast.AST) -> bool:
    # open(name, mode) with 'a' (append) or '+' (update): the micro:bit's files are read
    # whole or written new
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "open"):
        return False
    modes = n.args[1:2] + [k.value for k in n.keywords if k.arg == "mode"]
    return any(isinstance(m, ast.Constant) and isinstance(m.value, str)
               and ("a" in m.value or "+" in m.value) for m in modes)


def wide_typecode(n: ast.AST) -> bool:
    # struct.pack('<q', ...), array.array('Q', ...): a format string with a 64-bit code
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args):
        return False
    f = n.args[0]
    return (n.func.attr in ("pack", "unpack", "pack_into", "unpack_from", "calcsize", "array")
            and isinstance(f, ast.Constant) and isinstance(f.value, str)
            and ("q" in f.value or "Q" in f.value))


def starred_display(n: ast.AST) -> bool:
    # [*a, b], (*a, b), {*a}: not a, *b = ... (assignment) nor f(*a) (a call)
    return (isinstance(n, ast.Starred) and isinstance(n.ctx, ast.Load)
            and isinstance(parent(n), (ast.List, ast.Tuple, ast.Set)))


def builtin_keywords(n: ast.AST) -> bool:
    # MicroPython's builtins take these arguments by position only
    if not isinstance(n, ast.Call):
        return False
    kws = {k.arg for k in n.keywords}
    f = n.func
    if isinstance(f, ast.Name):
        return f.id == "int" and "base" in kws
    if isinstance(f, ast.Attribute):
        return ((f.attr in ("split", "rsplit") and bool(kws & {"sep", "maxsplit"}))
                or (f.attr in ("to_bytes", "from_bytes") and "signed" in kws))
    return False


def klass(body: str, use: str) -> str:
    """A probe: class C with the method body, then the use (which asserts)."""
    return "class C:\n" + "".join("    " + ln + "\n" for ln in body.splitlines()) + use


BINARY = ("mul", "matmul", "truediv", "floordiv", "mod", "divmod", "pow", "and", "or", "xor",
          "lshift", "rshift")
INPLACE = ("imul", "imatmul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior", "ixor",
           "ilshift", "irshift")
SPECIAL = tuple("__%s__" % m for m in BINARY + tuple("r" + b for b in ("add", "sub") + BINARY)
                + ("neg", "pos", "invert", "abs", "float", "complex"))

# -- the micro:bit lacks these ---------------------------------------------------------------
LACKING = [
    Feature(
        "slice-assignment", "slice assignment and deletion on bytearray, array, memoryview",
        MICROBIT,
        {"bytearray": "a = bytearray(3)\na[0:2] = b'xy'\nassert a == bytearray(b'xy\\x00')",
         "bytearray-all": "a = bytearray(2)\na[:] = b'xy'\nassert a == bytearray(b'xy')",
         "array": "import array\na = array.array('b', [0, 0])\n"
                  "a[0:1] = array.array('b', [5])\nassert list(a) == [5, 0]",
         "memoryview": "a = bytearray(4)\nm = memoryview(a)\nm[0] = 7\nm[2:4] = m[0:2]\n"
                       "assert a == bytearray(b'\\x07\\x00\\x07\\x00')"},
        slice_target,
        "a loop over the items, a[i] = b[i] (a list has slice assignment, but the syntax "
        "tree cannot tell it from a bytearray)",
    ),
    Feature(
        "bytes-hex", "bytes.hex(), bytes.fromhex()", MICROBIT,
        {"hex": "assert b'\\x01\\xff'.hex() == '01ff'",
         "fromhex": "assert bytes.fromhex('01ff') == b'\\x01\\xff'"},
        calls_method("hex", "fromhex"),
        "'%02x' % byte per byte; int(text[i:i + 2], 16)",
    ),
    Feature(
        "str-methods", "str.center(), partition(), rpartition(), splitlines()", MICROBIT,
        {"center": "assert 'a'.center(3) == ' a '",
         "partition": "assert 'a=b'.partition('=') == ('a', '=', 'b')",
         "rpartition": "assert 'a=b=c'.rpartition('=') == ('a=b', '=', 'c')",
         "splitlines": "assert 'a\\nb'.splitlines() == ['a', 'b']"},
        calls_method("center", "partition", "rpartition", "splitlines"),
        "split(sep, 1), split('\\n'), find() and slices",
    ),
    Feature(
        "prefix-tuple", "str.startswith()/endswith() with a tuple (the v1 returns False)",
        MICROBIT,
        {"startswith": "assert 'ab'.startswith(('x', 'a'))",
         "endswith": "assert 'ab'.endswith(('x', 'b'))"},
        tuple_prefix,
        "one call per prefix, joined with or",
    ),
    Feature(
        "f-string", "f-strings", MICROBIT,
        {"f-string": "assert f'{1}' == '1'"},
        nodes(ast.JoinedStr),
        "'%d' % x",
    ),
    Feature(
        "special-methods", "operator methods other than __add__, __sub__ and comparisons "
        "(__mul__, __neg__, __radd__, ...): never called", MICROBIT,
        {"__mul__": klass("def __mul__(self, o):\n    return 6", "assert C() * 2 == 6"),
         "__truediv__": klass("def __truediv__(self, o):\n    return 6",
                              "assert C() / 2 == 6"),
         "__and__": klass("def __and__(self, o):\n    return 6", "assert C() & 2 == 6"),
         "__neg__": klass("def __neg__(self):\n    return 6", "assert -C() == 6"),
         "__radd__": klass("def __radd__(self, o):\n    return 6", "assert 2 + C() == 6")},
        methods(*SPECIAL),
        "plain methods (a.times(b))",
    ),
    Feature(
        "descriptors", "__get__/__set__/__delete__ descriptors, __setattr__/__delattr__: "
        "never called", MICROBIT,
        {"__get__": "class D:\n    def __get__(self, o, t):\n        return 5\n"
                    "class C:\n    d = D()\nassert C().d == 5",
         "__setattr__": klass("def __setattr__(self, k, v):\n"
                              "    object.__setattr__(self, k, v + 1)",
                              "c = C()\nc.x = 1\nassert c.x == 2")},
        methods("__get__", "__set__", "__delete__", "__setattr__", "__delattr__"),
        "plain attributes and methods",
    ),
    Feature(
        "notimplemented", "NotImplemented", MICROBIT,
        {"NotImplemented": "assert NotImplemented is not None"},
        names("NotImplemented"),
        "raise TypeError",
    ),
    Feature(
        "name-attribute", "__name__ of a function (both) or a class (v1)", MICROBIT,
        {"function": "def f():\n    pass\nassert f.__name__ == 'f'",
         "class": "assert int.__name__ == 'int'"},
        attributes("__name__"),
        "a name written out",
    ),
    Feature(
        "file-attribute", "a module's __file__", MICROBIT,
        {"__file__": "import cmversion\nassert cmversion.__file__"},
        any_of(names("__file__"), attributes("__file__")),
        "the file's name written out (files are flat on the micro:bit)",
    ),
    Feature(
        "next-default", "next(iterator, default)", MICROBIT,
        {"next": "assert next(iter([]), 5) == 5"},
        calls("next", nargs=2),
        "try: next(it) except StopIteration",
    ),
    Feature(
        "pow3", "pow(base, exp, mod)", MICROBIT,
        {"pow": "assert pow(3, 2, 5) == 4"},
        calls("pow", nargs=3),
        "a loop of multiplications modulo mod",
    ),
    Feature(
        "round-int", "round(int, ndigits) (the v1 returns the int unchanged; the v2 raises "
        "NotImplementedError)", MICROBIT,
        {"round": "assert round(1234, -2) == 1200"},
        None,  # round(float, n) works: the tree cannot tell an int from a float
        "(x + 50) // 100 * 100",
    ),
    Feature(
        "compile", "compile()", MICROBIT,
        {"compile": "exec(compile('x = 1', 's', 'exec'))"},
        calls("compile"),
        "exec(text)",
    ),
    Feature(
        "deque", "collections.deque", MICROBIT,
        {"deque": "from collections import deque\nd = deque((), 4)\nd.append(1)\n"
                  "assert d.popleft() == 1"},
        module_names("collections", "deque"),
        "a list, or a bytearray ring with an index",
    ),
    Feature(
        "math-extras", "math.inf, nan, tau, isclose, factorial, log2, log10, the hyperbolic "
        "and special functions", MICROBIT,
        {"inf": "import math\nassert math.inf > 0", "nan": "import math\nassert math.nan",
         "isclose": "import math\nassert math.isclose(1.0, 1.0)",
         "factorial": "import math\nassert math.factorial(4) == 24",
         "log2": "import math\nassert math.log2(8) == 3",
         "log10": "import math\nassert math.log10(100) == 2",
         "erf": "import math\nassert math.erf(0) == 0",
         "sinh": "import math\nassert math.sinh(0) == 0"},
        module_names("math", "inf", "nan", "tau", "isclose", "factorial", "expm1", "log2",
                     "log10", "cosh", "sinh", "tanh", "acosh", "asinh", "atanh", "erf",
                     "erfc", "gamma", "lgamma"),
        "integers (firmware/ uses no floats)",
    ),
    Feature(
        "double-float", "double-precision floats (both have 32-bit floats)", MICROBIT,
        {"53-bit mantissa": "assert 16777217.0 != 16777216.0"},
        None,  # a float is there, only less precise
        "integers",
    ),
    Feature(
        "modules", "the modules io, json, re, heapq, binascii, hashlib, select, asyncio, "
        "cmath", MICROBIT,
        {m: "import %s" % m for m in ("io", "json", "re", "heapq", "binascii", "hashlib",
                                      "select", "asyncio", "cmath")},
        imports("io", "json", "re", "heapq", "binascii", "hashlib", "select", "asyncio",
                "cmath"),
        "the micro:bit's own modules (microbit, os, utime, struct, array)",
        port=True, unix_lacks=frozenset({"asyncio"}),
    ),
    Feature(
        "sys-stdio", "sys.stdin, sys.stdout, sys.stderr", MICROBIT,
        {"stdin": "import sys\nassert sys.stdin", "stdout": "import sys\nsys.stdout.write('')",
         "stderr": "import sys\nassert sys.stderr"},
        module_names("sys", "stdin", "stdout", "stderr"),
        "print(), input(), microbit.uart",
        port=True,
    ),
    Feature(
        "file-seek-append", "file.seek() and the modes 'a' and '+'", MICROBIT,
        {"seek": "f = open('_cmprobe', 'wb')\nf.write(b'ab')\nf.close()\n"
                 "f = open('_cmprobe', 'rb')\nf.seek(1)\nassert f.read() == b'b'\nf.close()",
         "append": "f = open('_cmprobe', 'wb')\nf.close()\nf = open('_cmprobe', 'ab')\n"
                   "f.close()"},
        any_of(calls_method("seek"), file_mode),
        "read the file whole, write it new",
        port=True,
    ),
    # -- the v1 lacks these, the v2 has them
    Feature(
        "memoryview", "memoryview", frozenset({V1}),
        {"memoryview": "m = memoryview(b'ab')\nassert m[1] == 98"},
        names("memoryview"),
        "index the bytearray itself",
    ),
    Feature(
        "property", "property", frozenset({V1}),
        {"property": klass("@property\ndef p(self):\n    return 1", "assert C().p == 1")},
        names("property"),
        "a method or a plain attribute",
    ),
    Feature(
        "encode-decode", "str.encode(), bytes.decode()", frozenset({V1}),
        {"encode": "assert 'a'.encode() == b'a'", "decode": "assert b'a'.decode() == 'a'"},
        calls_method("encode", "decode"),
        "bytes(text, 'utf8'), str(data, 'utf8')",
    ),
    Feature(
        "class-dict", "x.__class__, x.__dict__", frozenset({V1}),
        {"__class__": "assert (1).__class__ is int",
         "__dict__": "class C:\n    pass\nc = C()\nc.a = 1\nassert c.__dict__ == {'a': 1}"},
        attributes("__class__", "__dict__"),
        "type(x); explicit attributes",
    ),
    Feature(
        "delattr", "delattr()", frozenset({V1}),
        {"delattr": "class C:\n    pass\nc = C()\nc.a = 1\ndelattr(c, 'a')"},
        calls("delattr"),
        "del x.name, or set it to None",
    ),
    Feature(
        "enumerate-start", "enumerate(x, start=n) (the v1 ignores the keyword: counts from 0)",
        frozenset({V1}),
        {"start=": "assert list(enumerate('ab', start=1)) == [(1, 'a'), (2, 'b')]"},
        calls("enumerate", keyword="start"),
        "enumerate(x, n)",
    ),
    Feature(
        "complex", "complex numbers", frozenset({V1}),
        {"1j": "assert (1j * 1j).real == -1"},
        any_of(names("complex"),
               lambda n: isinstance(n, ast.Constant) and isinstance(n.value, complex)),
        "pairs of numbers",
    ),
    Feature(
        "walrus", "assignment expressions (:=)", frozenset({V1}),
        {":=": "assert (y := 2) == 2"},
        nodes(ast.NamedExpr),
        "an assignment before",
    ),
    Feature(
        "async", "async def, await, async for, async with", frozenset({V1}),
        {"async def": "async def f():\n    await g()"},
        nodes(ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith),
        "a loop that polls",
    ),
    Feature(
        "variable-annotation", "variable annotations (x: int = 1)", frozenset({V1}),
        {"x: int": "x: int = 1"},
        nodes(ast.AnnAssign),
        "none (firmware/ has no annotations)",
    ),
    Feature(
        "sys-v1", "sys.maxsize, sys.modules, sys.path, sys.argv", frozenset({V1}),
        {"maxsize": "import sys\nassert sys.maxsize > 0",
         "modules": "import sys\nassert sys.modules is not None",
         "path": "import sys\nassert isinstance(sys.path, list)",
         "argv": "import sys\nassert isinstance(sys.argv, list)"},
        module_names("sys", "maxsize", "modules", "path", "argv"),
        "constants of the code's own",
    ),
    Feature(
        "iadd-isub", "__iadd__, __isub__: never called (the v2 calls them)", frozenset({V1}),
        {"__iadd__": klass("def __iadd__(self, o):\n    return 6", "c = C()\nc += 2\n"
                                                                    "assert c == 6")},
        methods("__iadd__", "__isub__"),
        "a plain method",
    ),
    Feature(
        "wide-typecode", "struct and array codes 'q', 'Q' beyond 32 bits (the v1 gets them "
        "wrong)", frozenset({V1}),
        {"struct": "import struct\nassert struct.unpack('<q', struct.pack('<q', -1 << 40))"
                   "[0] == -1 << 40",
         "array": "import array\nassert array.array('q', [-1 << 40])[0] == -1 << 40"},
        wide_typecode,
        "two 32-bit halves",
    ),
    # -- no MicroPython has these (WebAssembly and unix neither), only CPython
    Feature(
        "str-methods-cpython", "str.ljust(), rjust(), zfill(), title(), capitalize(), "
        "isalnum()", EVERY_MPY,
        {"ljust": "assert 'a'.ljust(2) == 'a '", "rjust": "assert 'a'.rjust(2) == ' a'",
         "zfill": "assert '1'.zfill(2) == '01'", "title": "assert 'ab'.title() == 'Ab'",
         "capitalize": "assert 'ab'.capitalize() == 'Ab'",
         "isalnum": "assert 'a1'.isalnum()"},
        calls_method("ljust", "rjust", "zfill", "title", "capitalize", "isalnum"),
        "'%-3s' % x, '%3s' % x, '%02d' % n",
    ),
    Feature(
        "bit-length", "int.bit_length()", EVERY_MPY,
        {"bit_length": "assert (5).bit_length() == 3"},
        calls_method("bit_length"),
        "a shift loop",
    ),
    Feature(
        "builtin-keywords", "keyword arguments of builtins: split(maxsplit=), int(base=), "
        "from_bytes(signed=)", EVERY_MPY,
        {"split": "assert 'a b c'.split(maxsplit=1) == ['a', 'b c']",
         "int": "assert int('11', base=2) == 3",
         "from_bytes": "assert int.from_bytes(b'\\xff', 'little', signed=True) == -1"},
        builtin_keywords,
        "positional arguments",
    ),
    Feature(
        "starred-display", "[*a, b], (*a, b), {*a}", EVERY_MPY,
        {"list": "assert [*'ab', 'c'] == ['a', 'b', 'c']"},
        starred_display,
        "list(a) + [b]",
    ),
    Feature(
        "inplace-methods", "__imul__ and the other in-place methods but __iadd__, __isub__",
        EVERY_MPY,
        {"__imul__": klass("def __imul__(self, o):\n    return 6", "c = C()\nc *= 2\n"
                                                                    "assert c == 6")},
        methods(*("__%s__" % m for m in INPLACE)),
        "a plain method",
    ),
    Feature(
        "iter-sentinel", "iter(callable, sentinel)", EVERY_MPY,
        {"iter": "i = iter([1, 2, 0])\nassert list(iter(lambda: next(i), 0)) == [1, 2]"},
        calls("iter", nargs=2),
        "a while loop",
    ),
    Feature(
        "struct-class", "struct.Struct", EVERY_MPY,
        {"Struct": "import struct\nassert struct.Struct('<H').size == 2"},
        module_names("struct", "Struct"),
        "struct.pack/unpack with the format",
    ),
    Feature(
        "math-gcd", "math.gcd()", EVERY_MPY,
        {"gcd": "import math\nassert math.gcd(4, 6) == 2"},
        module_names("math", "gcd"),
        "Euclid's loop",
    ),
    Feature(
        "exception-classes", "TimeoutError, ModuleNotFoundError, FileNotFoundError",
        EVERY_MPY,
        {"TimeoutError": "assert TimeoutError",
         "ModuleNotFoundError": "assert ModuleNotFoundError",
         "FileNotFoundError": "assert FileNotFoundError"},
        names("TimeoutError", "ModuleNotFoundError", "FileNotFoundError"),
        "OSError, ImportError",
    ),
]

# -- the micro:bit has these (probed to keep the table honest; no finder) -----------------
PRESENT = [
    Feature("str-count", "str.count()", frozenset(), {"count": "assert 'abab'.count('a') == 2"},
            None),
    Feature("sets", "set, frozenset", frozenset(),
            {"set": "assert {1, 2} | {3} == {1, 2, 3} and set([1]) == {1}",
             "frozenset": "assert frozenset([1]) == {1}"}, None),
    Feature("iterators", "reversed, enumerate(x, n), filter, map, zip", frozenset(),
            {"reversed": "assert list(reversed([1, 2])) == [2, 1]",
             "enumerate": "assert list(enumerate('ab', 1)) == [(1, 'a'), (2, 'b')]",
             "filter": "assert list(filter(None, [0, 1])) == [1]",
             "map-zip": "assert list(map(abs, [-1])) == [1] and list(zip('a', 'b')) == "
                        "[('a', 'b')]"}, None),
    Feature("min-max-sorted", "min/max with key= and default=, sorted/sort with key=",
            frozenset(),
            {"key": "assert max([1, -3], key=abs) == -3 and min([1, -3], key=abs) == 1",
             "default": "assert max([], default=0) == 0",
             "sorted": "assert sorted([1, -3], key=abs, reverse=True) == [-3, 1]"}, None),
    Feature("collections", "OrderedDict, namedtuple, dict.fromkeys", frozenset(),
            {"OrderedDict": "from collections import OrderedDict\nd = OrderedDict()\n"
                            "d['b'] = 1\nd['a'] = 2\nassert list(d) == ['b', 'a']",
             "namedtuple": "from collections import namedtuple\nP = namedtuple('P', ('x', "
                           "'y'))\nassert P(1, 2).y == 2",
             "fromkeys": "assert dict.fromkeys('ab', 0) == {'a': 0, 'b': 0}"}, None),
    Feature("ints", "big ints, int.to_bytes/from_bytes", frozenset(),
            {"big": "assert 2 ** 100 // 2 ** 98 == 4",
             "bytes": "assert (258).to_bytes(2, 'little') == b'\\x02\\x01' and "
                      "int.from_bytes(b'\\x02\\x01', 'little') == 258"}, None),
    Feature("array-struct", "array 'b' 'h' 'I' 'f' 'd', struct pack/unpack(_into/_from)",
            frozenset(),
            {"array": "import array\nassert list(array.array('h', [-2])) == [-2] and "
                      "array.array('I', [1])[0] == 1 and array.array('d', [0.5])[0] == 0.5",
             "struct": "import struct\nassert struct.unpack('<hB', struct.pack('<hB', -2, 3))"
                       " == (-2, 3)",
             "into-from": "import struct\nb = bytearray(4)\nstruct.pack_into('<H', b, 1, 258)"
                          "\nassert struct.unpack_from('<H', b, 1)[0] == 258"}, None),
    Feature("formatting", "str.format, % with a dict, bytes %", frozenset(),
            {"format": "assert '{:>3}|{}'.format(1, 'a') == '  1|a'",
             "%dict": "assert '%(a)d' % {'a': 1} == '1'",
             "bytes%": "assert b'%d' % 1 == b'1'"}, None),
    Feature("syntax-1.9", "a, *b = ..., keyword-only arguments, nonlocal, raise ... from",
            frozenset(),
            {"star-assign": "a, *b = 1, 2, 3\nassert b == [2, 3]",
             "kwonly": "def f(*, a=1):\n    return a\nassert f(a=2) == 2",
             "nonlocal": "def f():\n    x = 1\n    def g():\n        nonlocal x\n        x = 2"
                         "\n    g()\n    return x\nassert f() == 2",
             "raise-from": "try:\n    raise ValueError('a') from None\nexcept ValueError:\n"
                           "    pass"}, None),
    Feature("math-sys", "math basics, sys.version_info, implementation, byteorder, exit",
            frozenset(),
            {"math": "import math\nassert math.sqrt(4) == 2 and math.floor(1.5) == 1 and "
                     "math.isfinite(1.0)",
             "sys": "import sys\nassert sys.version_info[0] == 3 and sys.implementation.name"
                    " and sys.byteorder == 'little' and sys.exit"}, None),
]

FEATURES = LACKING + PRESENT


# -- scope: which micro:bit firmwares run a firmware module ---------------------------------
def builds() -> dict[str, set[str]]:
    """Module name -> the micro:bit firmwares its build runs on: build.BOARDS' v1 build
    (``microbit``) and v2 build (``microbit-v2``)."""
    from connectm import build, fw

    available = {p.stem: p for p in fw.firmware_files()}
    out: dict[str, set[str]] = {m: set() for m in available}
    for board, firmware in (("microbit", V1), ("microbit-v2", V2)):
        for m in build.select_modules(build.BOARDS[board], available)[0]:
            out[m].add(firmware)
    return out


def pico_only() -> set[str]:
    """Modules only a Pico's build gets."""
    from connectm import build, fw

    available = {p.stem: p for p in fw.firmware_files()}
    picos = {m for b in build.BOARDS.values() if not b.fixed
             for m in build.select_modules(b, available)[0]}
    return {m for m, fws in builds().items() if not fws and m in picos}


def scope(module: str, feature: Feature, built: dict[str, set[str]],
          pico: set[str]) -> set[str]:
    """The micro:bit firmwares lacking ``feature`` that may run ``module``: those whose
    build holds it; both for a module that no micro:bit build holds (host-side modules,
    run on the emulated v1 by the tests, and a Pico's), except that a port's module or I/O
    (select, sys.stdin, file.seek) is the Pico's business in a module only a Pico gets."""
    runs = built.get(module) or set(MICROBIT)
    if not built.get(module) and feature.port and module in pico:
        runs = set()
    return runs & feature.lacks


# -- the check -------------------------------------------------------------------------------
def tree(source: str) -> ast.Module:
    """The syntax tree, each node knowing its parent (cm_parent)."""
    t = ast.parse(source)
    for n in ast.walk(t):
        for c in ast.iter_child_nodes(n):
            c.cm_parent = n  # type: ignore[attr-defined]
    return t


def found(source: str, features: list[Feature] = LACKING) -> Iterator[tuple[ast.AST, Feature]]:
    """(node, feature) for every use in the source of a feature with a finder."""
    for n in ast.walk(tree(source)):
        for f in features:
            if f.uses is not None and f.uses(n):
                yield n, f


def offences(path: Path) -> list[str]:
    """'file:line: the line -- the feature (lacking on v1, v2); instead: ...' for every use in
    this firmware file of a feature that a micro:bit firmware running it lacks."""
    source = path.read_text()
    lines = source.splitlines()
    built, pico = builds(), pico_only()
    out = []
    for n, f in found(source):
        where = scope(path.stem, f, built, pico)
        if where:
            line = getattr(n, "lineno", 0)
            out.append((line, "%s:%d: %s -- %s (lacking on %s); instead: %s"
                        % (path.name, line, lines[line - 1].strip(), f.title,
                           ", ".join(sorted(where)), f.instead)))
    return [text for _, text in sorted(set(out))]
