"""Copy the connectm firmware to a MicroPython board over its serial REPL (mpremote's API).

Steps: find the port, open it (``mpremote.transport_serial.SerialTransport``), enter the
raw REPL, identify the board, pick the files it needs, remove the old ``main.py``, write
and verify every other module, write ``main.py`` last, reset the board.  An interrupted
deploy therefore never leaves a ``main.py`` that imports missing or stale modules, nor
half a ``main.py``: it is written in one command, or whole to a scratch file first and
copied by one command (``Device.write``). Running it again completes the copy.

Every error a user can hit is a :class:`DeployError` (a ``ValueError``: the CLI prints it
as one line and exits with status 2).
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from connectm import fw
from connectm.build import ALIASES, BOARDS, Plan, heap_code, heap_modules, human, plan, print_plan
from connectm.device import (
    MAIN_TMP, Device, detect_board, enter_raw_repl, find_port, full_speed, open_port,
    pico_display, remember,
)
from connectm.minify import rom_names


def deploy(
    port: str | None = None,
    board: str = "auto",
    dry_run: bool = False,
    reset: bool = True,
    console: Any = None,
    open_transport: Callable[[str], Any] = open_port,
) -> Plan:
    """Deploy to the board on ``port`` (None: the first USB board); returns the plan."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    con = console if console is not None else Console(highlight=False, soft_wrap=True)
    if dry_run and port is None and board != "auto":
        # nothing to ask the board: list what would be copied (--board microbit: both
        # micro:bit builds, the v2's last)
        both = ("microbit", "microbit-v2")
        for name in both if board == "microbit" else (ALIASES.get(board, board),):
            p = plan(BOARDS[name])
            con.print("dry run for %s: would copy" % p.board.title)
            print_plan(p, con.print)
        return p
    port = port or find_port()
    t = open_transport(port)
    try:
        dev = Device(t, port)
        # A program stopped by Ctrl-C keeps its heap (e.g. the game on a micro:bit, or one
        # that failed to boot): a soft reset in the raw REPL frees it for identification and
        # the copy, and does not run main.py again.
        enter_raw_repl(t, port, reset=True)
        info = dev.identify()
        if not info.microbit:
            full_speed(t)
        spec = detect_board(info, board)
        con.print("found %s on %s: %s" % (spec.title, port, info.describe()))
        if board == "auto" and not spec.fixed:
            con.print("display: " + pico_display(info)[1])
        p = plan(spec, info)
        if dry_run:
            con.print("dry run: would copy")
            print_plan(p, con.print)
            if spec.fixed:  # and the other micro:bit's build, for comparison
                other = plan(BOARDS["microbit" if spec.v2 else "microbit-v2"])
                con.print("(a %s would get %d files, %s: --board %s)" % (
                    other.board.title, len(other.items), human(other.total),
                    "microbit-v2" if other.board.v2 else "microbit-v1"))
            return p
        print_plan(p, con.print)
        if not any(i.name == "main.py" for i in p.items):
            con.print("warning: no main.py: nothing will start after the reset")
        # 1. no main.py while the modules change; also drop stale copies (other format,
        #    modules this board does not need) so the small flash has room
        keep = {i.name for i in p.items}
        fw_names = {f.stem for f in fw.firmware_files()} | {"main"}
        if spec.fixed:  # an earlier micro:bit build's modules have ROM names
            fw_names |= set(rom_names())
        stale = [f for f in info.files if f not in keep and f.endswith((".py", ".mpy"))
                 and f.rsplit(".", 1)[0] in fw_names]
        #    and the files about to be rewritten: the micro:bit's flash cannot hold two
        #    copies (main.py is gone, so nothing boots the modules half-written)
        old = [f for f in info.files if f in keep and f != "main.py"]
        dev.remove(["main.py", "main.mpy", MAIN_TMP]
                   + [f for f in stale if f not in ("main.py", "main.mpy")] + old)
        # 2. every module but main.py, each verified; 3. main.py last
        with Progress(
            TextColumn("{task.description:<22}"), BarColumn(), DownloadColumn(),
            console=con, transient=False,
        ) as prog:
            total = prog.add_task("copying", total=p.total)
            done = 0
            for item in p.items:
                prog.update(total, description="copying " + item.name)
                base = done

                def step(n: int, _size: int, base: int = base) -> None:
                    prog.update(total, completed=base + n)

                dev.write(item, step)
                done += len(item.data)
                prog.update(total, completed=done)
            prog.update(total, description="copied, verified")
        remember(info, spec)
        mods = heap_modules(p)
        if mods:
            # from a soft reset: the copy's own objects freed
            enter_raw_repl(t, port, reset=True)
            held, free, block = (int(x) for x in dev.exec(heap_code(mods), "the heap's "
                                                            "measure").split()[-3:])
            con.print("heap: the %d compiled modules hold %s once imported; %s free, the "
                      "largest block %s (no compiler ran: connectm bench --device unix shows "
                      "what source costs)" % (len(mods), human(held), human(free), human(block)))
        if reset:
            dev.reset()
            con.print("reset: the board starts main.py" if "main.py" in keep
                      else "reset")
        else:
            con.print("done (no reset)")
        return p
    finally:
        with contextlib.suppress(Exception):
            t.close()
