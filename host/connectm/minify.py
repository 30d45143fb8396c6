"""Strip MicroPython sources for deployment: comments, docstrings and blank lines go.

Code, indentation and string literals are kept byte-for-byte; only whole
comment tokens, bare string statements (docstrings) and blank lines are removed.
A block whose only content was a docstring gets ``pass``.
"""

from __future__ import annotations

import io
import tokenize

_SKIP = (tokenize.NL, tokenize.COMMENT)
_STMT_START = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)


def _bare_string_statements(toks: list[tokenize.TokenInfo]) -> list[tuple[int, int, bool]]:
    """(first token index, last token index, needs_pass) of string-only statements."""
    out = []
    n = len(toks)
    i = 0
    while i < n:
        tok = toks[i]
        if tok.type != tokenize.STRING:
            i += 1
            continue
        # previous significant token must start a statement
        j = i - 1
        while j >= 0 and toks[j].type in _SKIP:
            j -= 1
        if j >= 0 and toks[j].type not in _STMT_START:
            i += 1
            continue
        # following tokens: only STRING/NL/COMMENT up to NEWLINE (or ENDMARKER)
        k = i + 1
        while k < n and toks[k].type in (tokenize.STRING,) + _SKIP:
            k += 1
        if k < n and toks[k].type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            last = k - 1
            while toks[last].type in _SKIP:
                last -= 1
            m = k + 1 if toks[k].type == tokenize.NEWLINE else k
            while m < n and toks[m].type in _SKIP:
                m += 1
            needs_pass = m >= n or toks[m].type in (tokenize.DEDENT, tokenize.ENDMARKER)
            out.append((i, last, needs_pass))
            i = k
        else:
            i = k
    return out


def strip_source(text: str) -> str:
    """Return ``text`` without comments, docstrings and blank lines."""
    toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    lines = text.splitlines()
    # edits: (srow, scol, erow, ecol, replacement); rows are 1-based
    edits: list[tuple[int, int, int, int, str]] = []
    removed: set[int] = set()
    for first, last, needs_pass in _bare_string_statements(toks):
        s, e = toks[first].start, toks[last].end
        edits.append((s[0], s[1], e[0], e[1], "pass" if needs_pass else ""))
        removed.update(range(first, last + 1))
    protected: set[int] = set()  # rows inside kept multi-line strings: untouched
    for idx, tok in enumerate(toks):
        if tok.type == tokenize.COMMENT:
            edits.append((tok.start[0], tok.start[1], tok.end[0], tok.end[1], ""))
        elif tok.type == tokenize.STRING and idx not in removed and tok.end[0] > tok.start[0]:
            protected.update(range(tok.start[0], tok.end[0]))
    # apply edits from the end so positions stay valid
    for srow, scol, erow, ecol, repl in sorted(edits, reverse=True):
        head = lines[srow - 1][:scol]
        tail = lines[erow - 1][ecol:]
        lines[srow - 1 : erow] = [head + repl + tail] + [""] * (erow - srow)
    out = []
    for row, line in enumerate(lines, start=1):
        if row in protected:
            out.append(line)
            continue
        line = line.rstrip()
        if line.strip():
            out.append(line)
    return "\n".join(out) + "\n" if out else ""
