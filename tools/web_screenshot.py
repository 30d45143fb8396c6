#!/usr/bin/env python3
"""docs/web.png: the page of `connectm web` mid-game, in headless Chromium (as tests/test_web.py
drives it: Debian's chromium, Playwright).

    .venv/bin/python tools/web_screenshot.py [OUT.png] [--moves 3342]

Starts `connectm web --port 0`, goes to the top level, starts a game and types the human's
moves on the serial line (each waits for the board's reply), waits for the cursor's blink to
be lit, and saves the page as a 64-colour PNG (Pillow) to keep it small.
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", type=Path, default=REPO / "docs" / "web.png")
    ap.add_argument("--moves", default="3342", help="the human's columns (default 3342)")
    args = ap.parse_args()
    from PIL import Image
    from playwright.sync_api import sync_playwright

    srv = subprocess.Popen([sys.executable, "-m", "connectm.cli", "web", "--port", "0"],
                           stdout=subprocess.PIPE, text=True)
    try:
        m = re.search(r"(http://\S+/)", srv.stdout.readline() if srv.stdout else "")
        if not m:
            print("web_screenshot: connectm web did not start", file=sys.stderr)
            return 1
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 940, "height": 760})
            page.goto(m.group(1))
            page.wait_for_function("window.connectm && window.connectm.loadMs !== null")
            count = "n => window.connectm.lines.filter(l => l.text.startsWith('B ')).length >= n"
            for _ in range(4):
                page.keyboard.press("r")
            page.wait_for_function("document.body.dataset.lv == '5'")
            page.keyboard.press("d")
            for i, c in enumerate(args.moves):
                page.keyboard.press(c)
                page.wait_for_function(count, arg=2 * i + 2, timeout=60_000)
            page.wait_for_function("document.querySelector('#leds .led').dataset.v == '9' || "
                                   "[...document.querySelectorAll('#leds .led')].slice(0, 5)"
                                   ".some(d => d.dataset.v == '9')")
            png = page.screenshot()
            browser.close()
    finally:
        srv.terminate()
        srv.wait(timeout=30)
    img = Image.open(io.BytesIO(png)).convert("RGB").quantize(64)
    img.save(args.out, optimize=True)
    print("%s: %d bytes" % (args.out, args.out.stat().st_size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
