"""connectm web: a static page that plays the real firmware in a browser.

``build(out)`` writes a folder that any static web server can publish as it is:

- the page (``host/connectm/web/``: index.html, page.js, worker.js, style.css) and its model
  of the boards' hardware (hw/: microbit, music, machine, webhw, MicroPython modules);
- MicroPython-WebAssembly (micropython.mjs and micropython.wasm, MIT), copied from the npm
  package the tests use (``make npm``), or from the copy a wheel carries (``WASM``): nothing
  is downloaded when the page runs;
- for each board in BOARDS, the files ``connectm deploy`` copies to it (``connectm.build.plan``)
  and webmain.py: that build's main.py as a generator, its game loop's ``sleep_ms(20)`` a
  ``yield``, so that the page's worker runs the loop a step at a time (a browser cannot
  sleep inside a running program) and feeds the buttons and the serial line in between;
- mip's packages for a Pico (``connectm.mip_package``: package.json, package-neopixel.json
  and the files they name, at the same paths as in the repository), so that the published
  page's address is also the one of ``mpremote mip install --target / URL/package.json``.

``serve(out, port)`` serves the folder on 127.0.0.1 with http.server.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any, Callable

from connectm import build as builds
from connectm import fw, mip_package
from connectm.minify import rename

WEB = Path(__file__).resolve().parent / "web"
PAGE = ("index.html", "page.js", "worker.js", "style.css")
HW = ("microbit.py", "music.py", "machine.py", "webhw.py")
NPM_PKG = "@micropython/micropython-webassembly-pyscript"
NPM_FILES = ("micropython.mjs", "micropython.wasm")
# the page's boards, the default first
BOARDS = ("microbit-v2", "microbit", "pico-max7219")
# A Pico's heap (webhw.model_heap), of which the firmware sees free what the page's MicroPython
# has not allocated since the boot began: its table takes that, less cmhw.RESERVE. The page's
# boot compiles source and collects no garbage inside a step, so it keeps more than a Pico's
# (T 141312 here, where a Pico prints ~166 to 200 KB): the T line says which.
PICO_HEAP = 192 * 1024
# the copy of them a wheel carries (``make npm`` puts the npm package's files there; not
# committed), with MicroPython's MIT notice (LICENSE: the npm package has no file of it)
WASM = WEB / "wasm"
LOOP_SLEEP = "sleep_ms(20)"
# cmgame's state after a step, for the page (webhw.report); renamed with the build's names
GAME_STATE = """
def game():
    b = g.b
    return g.st, g.lv, g.hp, g.cur, b.n, b.over(), b.hist
"""
STEP = """
import webhw
gen = run()


def step(events):
    webhw.apply(events)
    next(gen)
    return webhw.report(game)
"""


class WebError(ValueError):
    """A page build problem, in one line."""


def npm_dir() -> Path:
    """The npm package's folder: under $CONNECTM_NPM_PREFIX, else the package's copy (WASM),
    else the checkout's .cache/npm."""
    dirs = [Path(os.environ["CONNECTM_NPM_PREFIX"]) / "node_modules" / NPM_PKG] if \
        os.environ.get("CONNECTM_NPM_PREFIX") else []
    dirs += [WASM, fw.firmware_dir().parent / ".cache" / "npm" / "node_modules" / NPM_PKG]
    for d in dirs:
        if all((d / f).is_file() for f in NPM_FILES + ("package.json",)):
            return d
    raise WebError("MicroPython-WebAssembly not found in %s: run `make npm` in the checkout, or "
                   "npm install --prefix DIR %s@1.27.0 and set CONNECTM_NPM_PREFIX=DIR" % (
                       " or ".join(str(d) for d in dirs), NPM_PKG))


def notice(version: str) -> str:
    """MicroPython's notice for the copies of micropython.mjs and .wasm."""
    return "micropython.mjs and micropython.wasm: MicroPython %s, the npm package %s.\n\n%s" % (
        version, NPM_PKG, (WASM / "LICENSE").read_text())


def stepped_main(main: str) -> str:
    """main.py as ``def run():``, a generator: each ``sleep_ms(20)`` of its game loop a yield.
    Its boot runs at the first step; exec() there still gives cmmain's names to the globals."""
    if LOOP_SLEEP not in main:
        raise WebError("main.py has no %s in its game loop for the page to step" % LOOP_SLEEP)
    indent = "\t" if re.search(r"(?m)^\t", main) else "    "
    body = [indent + ln if ln.strip() else "" for ln in
            main.replace(LOOP_SLEEP, "(yield)").splitlines()]
    return "def run():\n" + "\n".join(body) + "\n"


def firmware_value(module: str, name: str) -> Any:
    """The literal a firmware module gives a name at its top level (cmhw's BUTTONS)."""
    for n in ast.parse((fw.firmware_dir() / (module + ".py")).read_text()).body:
        if isinstance(n, ast.Assign) and [t.id for t in n.targets if isinstance(t, ast.Name)] \
                == [name]:
            return ast.literal_eval(n.value)
    raise WebError("%s.py gives %s no literal value" % (module, name))


def board_files(name: str) -> tuple[dict[str, bytes], dict[str, object]]:
    """The board's files (deploy's plan and webmain.py) and its entry in boards.json."""
    spec = builds.BOARDS[name]
    plan = builds.plan(spec, emitter=False)  # (the page's MicroPython has no viper)
    files = {i.name: i.data for i in plan.items}
    files["webmain.py"] = (stepped_main(files["main.py"].decode()) +
                           rename(GAME_STATE, plan.names) + STEP).encode()
    levels = firmware_value("cmlevels", "LEVELS")
    entry: dict[str, object] = {
        "title": spec.title, "files": sorted(files), "levels": len(levels) // 3,
        "size": list(spec.fixed[:2]) if spec.fixed else [7, 6],
    }
    if spec.display == "max7219":
        buttons = firmware_value("cmhw", "BUTTONS")
        entry.update(display="max7219", pins=dict(zip(("left", "right", "drop"), buttons)),
                     heap=PICO_HEAP, hold=100)  # drv_buttons' 50 ms debounce, and a step
    elif spec.fixed:
        entry.update(display="microbit", logo=spec.v2, sound=spec.v2, hold=0)
    else:
        raise WebError("the page has no display for %s" % spec.title)
    return files, entry


def build(out: Path) -> list[Path]:
    """Write the page's folder; returns the files written."""
    npm = npm_dir()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for f in PAGE:
        written.append(Path(shutil.copyfile(WEB / f, out / f)))
    (out / "hw").mkdir(exist_ok=True)
    for f in HW:
        written.append(Path(shutil.copyfile(WEB / f, out / "hw" / f)))
    for f in NPM_FILES:
        written.append(Path(shutil.copyfile(npm / f, out / f)))
    version = json.loads((npm / "package.json").read_text()).get("version", "?")
    (out / "MICROPYTHON-LICENSE.txt").write_text(notice(version))
    written.append(out / "MICROPYTHON-LICENSE.txt")
    boards = {}
    for name in BOARDS:
        files, boards[name] = board_files(name)
        d = out / "boards" / name
        d.mkdir(parents=True, exist_ok=True)
        for fname, data in files.items():
            (d / fname).write_bytes(data)
            written.append(d / fname)
    for path, data in mip_package.site_files().items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_bytes(data)
        written.append(out / path)
    manifest = {"boards": boards, "default": BOARDS[0], "hw": list(HW),
                "micropython": "%s %s" % (NPM_PKG, version)}
    (out / "boards.json").write_text(json.dumps(manifest, indent=1) + "\n")
    written.append(out / "boards.json")
    return written


def serve(out: Path, port: int, ready: Callable[[str], None] = print) -> None:
    """Serve ``out`` on 127.0.0.1:port (0: a free port) until interrupted; ready(address)."""
    import functools
    import http.server

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".js": "text/javascript", ".mjs": "text/javascript",
                          ".wasm": "application/wasm", ".py": "text/plain; charset=utf-8",
                          ".json": "application/json"}

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet: the address is all the terminal shows

    handler = functools.partial(Handler, directory=str(out))
    try:
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as e:
        raise WebError("cannot serve on 127.0.0.1:%d: %s" % (port, e.strerror or e)) from None
    with httpd:
        ready("http://127.0.0.1:%d/" % httpd.server_address[1])
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass
