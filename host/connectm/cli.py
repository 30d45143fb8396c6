"""connectm command line: ``connectm <command> [options]``.

Each command lives in ``connectm.cmd_<name>`` with ``register(subparsers)``, which
adds its parser and sets ``func=run`` (``run(args) -> int | None``).  Commands whose
module does not exist (yet) are skipped.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys
from typing import Any, NoReturn

from connectm import __version__

COMMANDS = [
    "play", "search", "solve", "perft", "move", "prove", "book", "bench", "deploy", "hex",
    "tournament", "web",
]


class OneLineParser(argparse.ArgumentParser):
    """Usage errors in one line (the subcommands' parsers are of this class too)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, "connectm: error: %s (see %s --help)\n" % (message, self.prog))

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        # CPython 3.11's argparse drops a "--" given as an option's value (--moves=--) and
        # passes [] on, where every command expects text: keep the text.
        if action.nargs is None and arg_strings == ["--"]:
            return self._get_value(action, "--")
        return super()._get_values(action, arg_strings)


@functools.lru_cache(maxsize=1)
def build_parser() -> argparse.ArgumentParser:
    """The parser, built once: a process that runs many commands (tests) reuses it."""
    parser = OneLineParser(prog="connectm", description="Connect-M game engine")
    parser.add_argument("--version", action="version", version="connectm " + __version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        modname = "connectm.cmd_" + name
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError as e:
            if e.name == modname:
                continue  # command not written yet
            raise
        mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version, usage errors
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    try:
        status = args.func(args)
    except ValueError as e:
        print("connectm: error: %s" % " ".join(str(e).split()), file=sys.stderr)
        return 2
    except MemoryError:
        print("connectm: error: out of memory (a smaller --tt?)", file=sys.stderr)
        return 2
    except (RuntimeError, OSError) as e:
        # a board or an emulator that failed (tools/emulator.py's EmulatorError and
        # DeviceError are RuntimeErrors), a file or a port: one line, not a traceback
        print("connectm: error: %s" % " ".join(str(e).split())[:400], file=sys.stderr)
        return 1
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main())
