"""connectm solve: exact scores (the test sets' convention) of one position or a test file."""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from connectm import engine
from connectm.cmd_search import add_position_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("solve", help="exact score of a position, or check a test-set file")
    add_position_args(p)
    p.add_argument("--file", type=Path, help="test set: lines of 'MOVES SCORE' to check")
    p.add_argument("--tt", type=engine.tt_bytes, default=engine.TT_BYTES,
                   help="transposition table bytes, 0..%d (0: none)" % engine.TT_MAX)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def solve(size: str, connect: int, moves: str, tt: int, want_move: bool) -> dict:
    import cmsolve

    board = engine.position(size, connect, moves)
    if board.over():
        raise ValueError("the game is already over after %s" % (moves or "no moves"))
    solver = cmsolve.Solver(board, tt)
    t0 = time.perf_counter()
    score = solver.solve()
    ms = (time.perf_counter() - t0) * 1000
    out = {"score": score, "nodes": solver.nodes, "ms": round(ms, 2)}
    if want_move:
        # Found after the score, with its own nodes: the node count is the score's alone.
        out["move"] = solver.best_move(score) + 1
    return out


def parse_line(line: str, lineno: int) -> tuple[str, int]:
    parts = line.split()
    if len(parts) != 2 or not re.fullmatch(r"[0-9]+", parts[0]) or \
            not re.fullmatch(r"-?[0-9]+", parts[1]):
        raise ValueError("line %d: expected 'MOVES SCORE', got %r" % (lineno, line.strip()))
    return parts[0], int(parts[1])


def run(args: argparse.Namespace) -> int:
    if args.file is None:
        out = solve(args.size, args.connect, args.moves, args.tt, True)
        if args.json:
            print(json.dumps(out))
        else:
            print("score %(score)d  move %(move)d  nodes %(nodes)d  %(ms).2f ms" % out)
        return 0
    try:
        text = args.file.read_text()
    except OSError as e:
        raise ValueError("cannot read %s: %s" % (args.file, e.strerror)) from None
    cases = [parse_line(line, i) for i, line in enumerate(text.splitlines(), 1) if line.strip()]
    passed = failed = nodes = 0
    ms = 0.0
    for i, (moves, expected) in enumerate(cases, 1):
        try:
            out = solve(args.size, args.connect, moves, args.tt, False)
        except ValueError as e:
            raise ValueError("%s line %d: %s" % (args.file, i, e)) from None
        nodes += out["nodes"]
        ms += out["ms"]
        if out["score"] == expected:
            passed += 1
        else:
            failed += 1
            print("FAIL %s: expected %d, got %d" % (moves, expected, out["score"]))
    n = max(1, len(cases))
    print("%d passed, %d failed" % (passed, failed))
    print("mean nodes %.1f, mean time %.3f ms over %d positions" % (nodes / n, ms / n, n))
    return 1 if failed else 0
