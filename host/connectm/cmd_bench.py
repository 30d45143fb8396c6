"""``connectm bench``: the search benchmark (connectm.benchmark), or with ``--study`` the
node-count study of minimax, alpha-beta and the engine (connectm.study).

connectm.benchmark may define ``add_arguments(parser)`` for its own options and must define
``run(args)``; it is imported only when present (and for ``run`` only without --study).
"""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType


def _benchmark() -> ModuleType | None:
    try:
        return importlib.import_module("connectm.benchmark")
    except ModuleNotFoundError as e:
        if e.name == "connectm.benchmark":
            return None
        raise


def register(subparsers: argparse._SubParsersAction) -> None:
    from connectm import study

    p = subparsers.add_parser("bench", help="search benchmark (--study: node-count study)")
    study.add_arguments(p)
    bench = _benchmark()
    if bench is not None and hasattr(bench, "add_arguments"):
        bench.add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int | None:
    if getattr(args, "study", False):
        from connectm import study

        return study.run(args)
    bench = _benchmark()
    if bench is None:
        raise ValueError("the benchmark (connectm.benchmark) is not written yet; "
                         "try connectm bench --study")
    result: int | None = bench.run(args)
    return result
