"""``connectm deploy``: copy the firmware to a MicroPython board (see connectm.deploy)."""

from __future__ import annotations

import argparse

from connectm import device
from connectm.build import BOARD_CHOICES, BOARDS
from connectm.deploy import deploy


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "deploy",
        help="copy the firmware to a MicroPython board",
        description="Copy the firmware to a MicroPython board (micro:bit or Pico) over USB "
        "serial, verify every file, write main.py last and reset the board.",
    )
    p.add_argument("--port", help="serial port (default: the first USB board found)")
    p.add_argument("--dry-run", action="store_true",
                   help="list the files and sizes that would be copied, write nothing (no "
                   "board attached: for every board kind, or the --board given)")
    p.add_argument("--board", choices=BOARD_CHOICES, default="auto",
                   help="board type (default: auto-detect; microbit: v1 or v2 as the board "
                   "says, and with --dry-run and no --port both builds)")
    p.add_argument("--no-reset", dest="reset", action="store_false",
                   help="do not reset the board after the copy")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.dry_run and args.port is None and args.board == "auto" and not device.list_ports():
        # Nothing to ask: show what each kind of board would get.
        print("dry run: no board found (give --port PORT or --board NAME); what each board "
              "kind would get:")
        for name in BOARDS:
            print()
            print("--board %s:" % name)
            # (--board microbit alone lists the v1's build and the v2's, which comes next)
            deploy(board="microbit-v1" if name == "microbit" else name, dry_run=True)
        return 0
    deploy(port=args.port, board=args.board, dry_run=args.dry_run, reset=args.reset)
    return 0
