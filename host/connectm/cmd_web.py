"""``connectm web``: the page that plays the firmware in a browser (see connectm.webpage)."""

from __future__ import annotations

import argparse
import signal
import tempfile
import threading
from pathlib import Path

from connectm import webpage


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "web", help="serve the page that plays the firmware in a browser",
        description="Build the page that runs the firmware's game on MicroPython-WebAssembly "
        "in a browser (micro:bit v2 by default; v1 and Pico selectable) and serve it on "
        "127.0.0.1, or only write its folder (--out: a static site, publish it as it is).")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--port", type=int, default=8000,
                   help="port to serve on (default 8000; 0: any free port)")
    g.add_argument("--out", type=Path, metavar="DIR", help="only write the page's folder")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.out is not None:
        if args.out.exists() and not args.out.is_dir():
            raise webpage.WebError("--out %s is not a directory" % args.out)
        n = len(webpage.build(args.out))
        print("wrote %d files to %s: publish the folder as it is on a web server (e.g. "
              "python3 -m http.server -d %s) and open its index.html" % (n, args.out, args.out))
        return 0
    if not 0 <= args.port <= 65535:
        raise webpage.WebError("--port %d is not a port number (0 to 65535)" % args.port)
    if threading.current_thread() is threading.main_thread():
        # a SIGTERM stops the server as Ctrl-C does: the temporary folder is removed
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    with tempfile.TemporaryDirectory(prefix="connectm-web-") as tmp:
        webpage.build(Path(tmp))
        webpage.serve(Path(tmp), args.port, lambda url: print(
            "connectm web: serving the page at %s (Ctrl-C stops)" % url, flush=True))
    return 0
