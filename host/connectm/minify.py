"""Shrink firmware sources for a board that compiles them itself (the micro:bit v1 has an
11 KB file system and a 9 KB heap).

python-minifier drops comments and docstrings and gives local variables short names.
Module-level names and attributes keep theirs: the flat modules import each other's names,
and MicroPython's ``const()`` must stay a module-level ``NAME = const(...)``.
"""

from __future__ import annotations

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
