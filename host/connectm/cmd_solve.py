"""connectm solve: exact scores (the test sets' convention) of one position or a test file.

A long solve prints its progress on stderr (nodes, the window the score is known to lie in,
elapsed time); ``--max-seconds`` or Ctrl-C stops it with the bounds proven so far.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Callable

from connectm import engine
from connectm.cmd_search import add_position_args

CHECK_NODES = 20000  # the solver calls back this often (0.1-0.5 s of CPython)
FIRST_REPORT = 1.0  # seconds before the first progress line


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve", help="exact score of a position, or check a test-set file",
        description="Exact score of a position for the side to move: a side that wins with "
        "its disc placed when n are down scores (W*H + 1 - n) // 2, a loss is negative, a "
        "draw 0. Long solves print progress on stderr; --max-seconds or Ctrl-C stops with "
        "the bounds proven so far.")
    add_position_args(p)
    p.add_argument("--file", type=Path,
                   help="test set: lines of 'MOVES SCORE' to check ('#' lines: comments)")
    p.add_argument("--tt", type=engine.tt_bytes, default=engine.TT_BYTES,
                   help="transposition table bytes, 0..%d (0: none)" % engine.TT_MAX)
    p.add_argument("--max-seconds", type=float, default=0, metavar="S",
                   help="stop after S seconds with the bounds proven so far (default: none)")
    p.add_argument("--json", action="store_true", help="print JSON (one object)")
    p.set_defaults(func=run)


class Stop(Exception):
    """--max-seconds spent."""


def solve(size: str, connect: int, moves: str, tt: int, want_move: bool,
          max_seconds: float = 0, progress: Callable[[str], None] | None = None) -> dict:
    """{"score", "nodes", "ms"[, "move"]}; stopped early (max_seconds or Ctrl-C):
    {"score": None, "lo", "hi", "nodes", "ms", "stopped": "max-seconds" | "interrupted"}."""
    import cmsolve

    board = engine.position(size, connect, moves)
    if board.over():
        raise ValueError("the game is already over after %s" % (moves or "no moves"))
    solver = cmsolve.Solver(board, tt)
    t0 = time.perf_counter()
    report = [FIRST_REPORT]

    def poll() -> None:
        elapsed = time.perf_counter() - t0
        # The progress line first: a stop at --max-seconds shows the bounds it reached too,
        # however slow the machine that got there.
        if progress and elapsed >= report[0]:
            progress("solve: %d nodes, score in %d..%d, %.1f s"
                     % (solver.nodes, solver.lo, solver.hi, elapsed))
            report[0] = elapsed + (1 if elapsed < 10 else 10)
        if max_seconds and elapsed >= max_seconds:
            raise Stop
        solver.limit = solver.nodes + CHECK_NODES

    if max_seconds or progress:
        solver.limit = CHECK_NODES
        solver.poll = poll
    stopped = ""
    try:
        score = solver.solve()
    except Stop:
        stopped = "max-seconds"
    except KeyboardInterrupt:
        stopped = "interrupted"
    ms = (time.perf_counter() - t0) * 1000
    if stopped:
        return {"score": None, "lo": solver.lo, "hi": solver.hi, "nodes": solver.nodes,
                "ms": round(ms, 2), "stopped": stopped}
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


def stderr_progress() -> Callable[[str], None]:
    """Progress lines on stderr: rewritten in place on a terminal, else one a line."""
    tty = sys.stderr.isatty()

    def show(text: str) -> None:
        sys.stderr.write(("\r%s\033[K" if tty else "%s\n") % text)
        sys.stderr.flush()

    return show


def run(args: argparse.Namespace) -> int:
    if args.max_seconds < 0:
        raise ValueError("--max-seconds must be >= 0")
    if args.file is None:
        show = stderr_progress()
        out = solve(args.size, args.connect, args.moves, args.tt, True, args.max_seconds,
                    show)
        if out["ms"] >= FIRST_REPORT * 1000 and sys.stderr.isatty():
            sys.stderr.write("\n")
        if args.json:
            print(json.dumps(out))
        elif out["score"] is None:
            print("score in %(lo)d..%(hi)d (stopped: %(stopped)s)  nodes %(nodes)d  "
                  "%(ms).2f ms" % out)
        else:
            print("score %(score)d  move %(move)d  nodes %(nodes)d  %(ms).2f ms" % out)
        return 130 if out.get("stopped") == "interrupted" else 0
    if args.max_seconds:
        raise ValueError("--max-seconds is for one position, not --file")
    try:
        text = args.file.read_text()
    except OSError as e:
        raise ValueError("cannot read %s: %s" % (args.file, e.strerror)) from None
    cases = [parse_line(line, i) for i, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.startswith("#")]
    passed = failed = nodes = 0
    ms = 0.0
    failures = []
    interrupted = False
    for i, (moves, expected) in enumerate(cases, 1):
        try:
            out = solve(args.size, args.connect, moves, args.tt, False)
        except ValueError as e:
            raise ValueError("%s position %d: %s" % (args.file, i, e)) from None
        except KeyboardInterrupt:  # between two solves
            out = {"score": None}
        if out["score"] is None:  # Ctrl-C: report the positions checked so far
            print("interrupted at position %d (%s)" % (i, moves), file=sys.stderr)
            cases = cases[:i - 1]
            interrupted = True
            break
        nodes += out["nodes"]
        ms += out["ms"]
        if out["score"] == expected:
            passed += 1
        else:
            failed += 1
            failures.append({"moves": moves, "expected": expected, "got": out["score"]})
            if not args.json:
                print("FAIL %s: expected %d, got %d" % (moves, expected, out["score"]))
    n = max(1, len(cases))
    if args.json:
        print(json.dumps({"passed": passed, "failed": failed, "positions": len(cases),
                          "mean_nodes": round(nodes / n, 1), "mean_ms": round(ms / n, 3),
                          "failures": failures}))
    else:
        print("%d passed, %d failed" % (passed, failed))
        print("mean nodes %.1f, mean time %.3f ms over %d positions" % (nodes / n, ms / n, n))
    return 130 if interrupted else 1 if failed else 0
