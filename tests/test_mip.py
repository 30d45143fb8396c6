"""mip on a Pico: `mpremote mip install --target / <package>` gives the board the game.

The board here is the MicroPython unix port made to look like a Pico: a LittleFS file system
mounted at / (MicroPython's own VfsLfs2, as a Pico's flash, in a file of the test's), a
Pico's sys.path, and its REPL on a pseudo-terminal, which mpremote opens as it would the
Pico's USB serial port. mpremote's own mip installs the package from the repository, served
on 127.0.0.1 (mip reads a github: package the same way: the package file, then each of its
`urls` relative to it). Then the installed main.py boots from that file system, with the
tests' fake machine and neopixel modules for the hardware, and a game is played over the
serial line. The same packages from the page's site (`connectm web --out`, which the Pages
workflow publishes: the page shows mip's line with its own address; the README's lines
read the packages from that folder, or from a clone) give the board the same files.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import pty
import re
import select
import subprocess
import sys
import threading
import tty
from pathlib import Path
from typing import Any, Iterator

import pytest

from harness import FAKES, REPO
from connectm import build, fw, mip_package, unixport, webpage

from test_deploy import Serial  # the game's serial line (docs/serial.md)

# The Pico's boot, on the unix port: its flash (LittleFS in a file of the host's, 1,408 KB
# as a Pico's), the fakes mounted beside it, the root the current folder, its sys.path.
PICO = """import os, sys, vfs
class Flash:
    def __init__(self, f, n):
        self.f, self.n = f, n
    def readblocks(self, b, buf, off=0):
        self.f.seek(b * 4096 + off)
        self.f.readinto(buf)
    def writeblocks(self, b, buf, off=0):
        self.f.seek(b * 4096 + off)
        self.f.write(buf)
    def ioctl(self, op, arg):
        return self.n if op == 4 else 4096 if op == 5 else 0
vfs.mount(vfs.VfsPosix(%r), '/host')
vfs.mount(vfs.VfsPosix(%r), '/fakes')
vfs.umount('/')
flash = Flash(open('/host/flash.bin', 'r+b'), 352)
vfs.VfsLfs2.mkfs(flash)
vfs.mount(vfs.VfsLfs2(flash), '/')
os.chdir('/')
sys.path[:] = ['', '.frozen', '/lib']
"""
MOUNTS = {"host", "fakes"}
# What the board then runs, as its boot would run main.py: the hardware faked (a released
# button reads high: the buttons pull up), then main.
RUN_MAIN = """import sys
sys.path.append('/fakes')
import machine
class Pin(machine.Pin):
    def __init__(self, id, mode=-1, pull=-1, value=None):
        super().__init__(id, mode, pull, value)
        if pull == self.PULL_UP:
            self._value = 1
machine.Pin = Pin
import main
"""
LIST = """import os, hashlib, binascii
for n in sorted(os.listdir('/')):
    if n not in %r:
        f = open(n, 'rb')
        h = hashlib.sha256()
        while True:
            b = f.read(1024)
            if not b:
                break
            h.update(b)
        f.close()
        print(n, binascii.hexlify(h.digest()).decode())
"""
B_LINE = r"B 7x6 lv=(\d) you=(\d) moves=(\d*) turn=(\d) over=(\d)"
HEAP = "192K"  # a Pico's heap (the port's 64-bit objects are larger than a Pico's)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def index() -> Iterator[str]:
    """The repository served on 127.0.0.1 (an ephemeral port): the packages' base URL."""
    yield from served(REPO)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page's site, as `connectm web --out` writes it."""
    from conftest import unavailable

    try:
        webpage.npm_dir()
    except webpage.WebError as e:
        unavailable(str(e))
    folder = tmp_path_factory.mktemp("site")
    webpage.build(folder)
    return folder


@pytest.fixture(scope="module")
def page(site: Path) -> Iterator[str]:
    """The page's site served on 127.0.0.1, as GitHub Pages serves it."""
    yield from served(site)


def served(folder: Path) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield "http://127.0.0.1:%d" % server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


class Pico:
    """The unix port as a Pico (PICO), its REPL on a pseudo-terminal; ``port``: the
    serial port's name for mpremote (a second pseudo-terminal, bytes relayed both ways)."""

    def __init__(self, folder: Path) -> None:
        exe = unixport.executable()
        assert exe is not None
        (folder / "flash.bin").write_bytes(b"\xff" * 352 * 4096)
        (folder / "pico.py").write_text(PICO % (str(folder), str(FAKES)))
        board, board_tty = pty.openpty()
        self.host, host_tty = pty.openpty()
        for fd in (board_tty, host_tty):
            tty.setraw(fd)
        self.port = os.ttyname(host_tty)
        self.proc = subprocess.Popen([str(exe), "-X", "heapsize=" + HEAP, "-i", "pico.py"],
                                     stdin=board_tty, stdout=board_tty, stderr=board_tty,
                                     cwd=folder)
        os.close(board_tty)
        self._host_tty = host_tty  # kept open: the relay's side stays up between clients
        self.board = board
        self.running = True
        self.relay = threading.Thread(target=self._relay, daemon=True)
        self.relay.start()

    def _relay(self) -> None:
        while self.running:
            ready, _, _ = select.select([self.board, self.host], [], [], 0.2)
            for fd in ready:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    continue
                os.write(self.host if fd == self.board else self.board, data)

    def mpremote(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """mpremote on the board's port (`resume`: no soft reset, which the unix port's raw
        REPL does not have; on a Pico it would start main.py before the command), run in
        ``cwd`` (None: this process's folder)."""
        return subprocess.run([sys.executable, "-m", "mpremote", "connect", self.port,
                               "resume", *args], capture_output=True, text=True, timeout=300,
                              cwd=cwd)

    def close(self) -> None:
        self.running = False
        self.relay.join(5)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        for fd in (self.board, self.host, self._host_tty):
            os.close(fd)


def listing(t: Any) -> dict[str, str]:
    """The board's files at its root (but the mounts), with their sha256."""
    listed = t.exec(LIST % sorted(MOUNTS)).decode().split()
    return dict(zip(listed[::2], listed[1::2]))


def planned(board: str) -> dict[str, str]:
    """deploy's files for the board (build.plan), with their sha256."""
    return {i.name: hashlib.sha256(i.data).hexdigest()
            for i in build.plan(build.BOARDS[board]).items}


def test_packages_are_in_step() -> None:
    # package.json, package-neopixel.json and the files deploy changes for a board are the
    # ones connectm.mip_package writes from today's firmware, and nothing stale is left in
    # mip/; each package is its board's build.plan, main.py last
    hint = "regenerate: python -m connectm.mip_package"
    want = mip_package.files()
    for path, data in want.items():
        assert (REPO / path).read_bytes() == data, (path, hint)
    made = {str(p.relative_to(REPO)) for p in (REPO / mip_package.BOARD_FILES).rglob("*")
            if p.is_file()}
    assert made == {p for p in want if p.startswith("mip/")}, hint
    for name, board in mip_package.PACKAGES.items():
        urls = json.loads((REPO / name).read_text())["urls"]
        plan = build.plan(build.BOARDS[board])
        assert [u[0] for u in urls] == [i.name for i in plan.items], name
        assert urls[-1][0] == "main.py" and ["book.bin", "firmware/7x6c4.bin"] in urls
        for dest, path in urls:  # relative, inside the repository: mip's github: reads them
            assert not re.match(r"\w+:|/|.*\.\.", path) and (REPO / path).is_file(), path


@pytest.mark.parametrize("package", list(mip_package.PACKAGES))
def test_mip_install_gives_a_pico_the_game(package: str, index: str, tmp_path: Path,
                                           record_property: Any) -> None:
    # `mpremote mip install --target / PACKAGE` writes the board's files at the root of its
    # LittleFS, byte for byte build.plan's for the package's board (no /lib, nothing else);
    # main.py then boots from there (cmmain.py read from the root, the modules and the
    # book beside it, the display of the package's cmhw.py: the package has no other
    # driver) and a game is played over the serial line to its end.
    from conftest import unavailable
    from mpremote.transport_serial import SerialTransport

    why = unixport.missing()
    if why:
        unavailable(why)
    board = mip_package.PACKAGES[package]
    pico = Pico(tmp_path)
    try:
        p = pico.mpremote("mip", "install", "--target", "/", "%s/%s" % (index, package))
        assert p.returncode == 0 and p.stdout.rstrip().endswith("Done"), p.stdout + p.stderr
        print(p.stdout.strip().splitlines()[-2:])
        t = SerialTransport(pico.port, baudrate=115200)
        t.serial.timeout = 0.5
        try:
            t.enter_raw_repl(soft_reset=False)
            assert listing(t) == planned(board)
            t.exec_raw_no_follow(RUN_MAIN)
            io = Serial(pico.port, line=t.serial)
            m = io.send("?", r"M (\d+)$", timeout=120)
            assert m is not None
            boot = io.lines[:-1]
            print("boot output:", boot)
            record_property("mip_%s_boot" % board, " | ".join(boot))
            # the table's bytes at boot; the port's 64-bit heap, fragmented by compiling the
            # source, can make the board take a smaller table, which it says (docs/serial.md)
            assert re.fullmatch(r"T \d+", boot[-1]) and all(
                re.fullmatch(r"E low memory, table \d+", ln) for ln in boot[:-1]), boot
            io.s.write(b"d")  # the menu: a game at level 1, the human first
            moves = ""
            while True:
                col = next(c for c in range(7) if moves.count(str(c + 1)) < 6)
                io.s.write(str(col + 1).encode())
                while True:  # the human's move, then the board's reply
                    m = io.send("", B_LINE, timeout=120)
                    assert m is not None and m.group(3).startswith(moves), (moves, m)
                    if m.group(4) == m.group(2) or m.group(5) != "0":
                        break
                moves = m.group(3)
                if m.group(5) != "0":
                    break
            print("game:", moves, "over:", m.group(5))
            assert not [ln for ln in io.lines if ln.startswith("Traceback")], io.lines
            assert not [ln for ln in io.lines[len(boot):] if ln.startswith("E ")], io.lines
        finally:
            t.close()
    finally:
        pico.close()


def test_mip_install_from_the_page(page: str, site: Path, tmp_path: Path) -> None:
    # the page's line (page.js: its own address, where the Pages workflow publishes the site
    # `connectm web --out` writes; tests/test_web.py reads it on the page), then the
    # README's lines as written, run in that folder: each gives the board deploy's files for
    # the package's board, byte for byte (the site's files are the repository's)
    from conftest import unavailable
    from mpremote.transport_serial import SerialTransport

    readme = (REPO / "README.md").read_text()
    for package in mip_package.PACKAGES:
        line = "    mpremote mip install --target / %s " % package
        assert line in readme, line
    why = unixport.missing()
    if why:
        unavailable(why)
    for i, (package, where) in enumerate((("package.json", page + "/"), ("package.json", ""),
                                          ("package-neopixel.json", ""))):
        flash = tmp_path / str(i)  # a new flash each
        flash.mkdir()
        pico = Pico(flash)
        try:
            p = pico.mpremote("mip", "install", "--target", "/", where + package, cwd=site)
            assert p.returncode == 0 and p.stdout.rstrip().endswith("Done"), p.stdout + p.stderr
            t = SerialTransport(pico.port, baudrate=115200)
            t.serial.timeout = 0.5
            try:
                t.enter_raw_repl(soft_reset=False)
                assert listing(t) == planned(mip_package.PACKAGES[package]), (where, package)
            finally:
                t.close()
        finally:
            pico.close()


def test_packaging_lists_the_firmware() -> None:
    # (package.json: a Pico's game for mip, tests/test_mip.py)
    modules = sorted(p.name for p in fw.firmware_dir().glob("*.py"))
    hint = "regenerate: python -m connectm.mip_package"
    manifest = (REPO / "manifest.py").read_text()
    frozen = re.findall(r'^module\("([^"]+)", base_path="firmware"\)', manifest, re.M)
    assert sorted(frozen) == modules, hint
    assert "metadata(" in manifest
    assert (REPO / "package.json").read_text() == mip_package.package_json("pico-max7219"), hint
    assert manifest == mip_package.manifest_py(), hint
