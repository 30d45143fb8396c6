"""firmware/ uses nothing that a micro:bit firmware running it lacks (the list:
tests/firmware_features.py, docs/firmware-features.md), and the list is true: its probes
fail on the emulated v1 (both firmwares) where it says the v1 lacks a feature and work where
it says the v1 has one, and CPython, MicroPython-WebAssembly and the unix port have what it
says they have.

The v2 firmware is not emulated: its column is its configuration (MicroPython 1.23 at the
core feature level with the overrides of its mpconfigport.h), as the doc says."""

from __future__ import annotations

from pathlib import Path

import pytest

import firmware_features as ff
import harness

FILES = sorted(p.name for p in harness.firmware_dir().glob("*.py"))
DOC = harness.REPO / "docs" / "firmware-features.md"


@pytest.mark.parametrize("name", FILES)
def test_firmware_uses_only_what_the_microbit_has(name: str) -> None:
    bad = ff.offences(harness.firmware_dir() / name)
    assert not bad, "\n".join(bad)


def test_each_finder_finds_its_probes() -> None:
    # the probes are the features' uses: the finder that misses one would miss it in
    # firmware/ too
    for f in ff.LACKING:
        if f.uses is None:
            continue
        for item, code in f.probes.items():
            assert any(g is f for _, g in ff.found(code, [f])), (f.name, item)


def test_what_the_microbit_has_is_not_flagged() -> None:
    for f in ff.PRESENT:
        for item, code in f.probes.items():
            assert [g.name for _, g in ff.found(code)] == [], (f.name, item)


def test_the_scope_of_a_module_comes_from_the_builds(tmp_path: Path) -> None:
    built, pico = ff.builds(), ff.pico_only()
    assert built["cmsearch"] == {"v1", "v2"} and built["cmtt"] == {"v2"}
    assert built["cmmoves"] == set() and built["cmpico"] == set()
    assert pico == {"cmbook", "cmfit7", "cmpico", "cmponder", "cmsearch7", "drv_buttons",
                    "drv_max7219", "drv_neopixel"}
    by_name = {f.name: f for f in ff.LACKING}
    # the v1 never gets cmtt: its memoryview is the v2's, which has one
    assert ff.scope("cmtt", by_name["memoryview"], built, pico) == set()
    assert ff.scope("cmtt", by_name["slice-assignment"], built, pico) == {"v2"}
    assert ff.scope("cmsearch", by_name["memoryview"], built, pico) == {"v1"}
    # a module no micro:bit build gets counts as run by both (the tests run cmmoves and
    # the solver on the emulated v1) ...
    assert ff.scope("cmmoves", by_name["slice-assignment"], built, pico) == {"v1", "v2"}
    assert ff.scope("cmmoves", by_name["sys-stdio"], built, pico) == {"v1", "v2"}
    # ... and a Pico's module keeps to the micro:bit's language, not to its modules
    assert ff.scope("cmpico", by_name["slice-assignment"], built, pico) == {"v1", "v2"}
    assert ff.scope("cmpico", by_name["sys-stdio"], built, pico) == set()
    assert ff.scope("cmpico", by_name["modules"], built, pico) == set()
    # the check names the file, the line, the feature and the firmwares
    bad = tmp_path / "cmsearch.py"
    bad.write_text("def f(b, t):\n    b[1:3] = t\n    return memoryview(b)\n")
    got = ff.offences(bad)
    assert len(got) == 2
    assert got[0].startswith("cmsearch.py:2: b[1:3] = t -- slice assignment")
    assert "(lacking on v1, v2); instead: a loop" in got[0]
    assert got[1].startswith("cmsearch.py:3: return memoryview(b) -- memoryview (lacking on v1)")


def test_the_doc_lists_every_feature() -> None:
    text = DOC.read_text()
    missing = [f.name for f in ff.FEATURES if "`%s`" % f.name not in text]
    assert missing == []


# -- the probes ----------------------------------------------------------------------------
PROBE = "_features.txt"
# Each line: number TAB code (newlines as \x01); prints number TAB ok|no. The v1's flash
# (~11 KB of files) holds them as a file, and its heap runs one line at a time.
RUN = """def probe(line):
    n, c = line.split('\\t')
    try:
        exec(c.replace('\\x01', '\\n'), {})
        r = 'ok'
    except Exception:
        r = 'no'
    print(n + '\\t' + r)
"""
RUN_LIST = RUN + "for line in %r:\n    probe(line)\n"
RUN_FILE = RUN + """import gc
f = open(%r)
while 1:
    s = f.readline()
    if not s:
        break
    gc.collect()
    probe(s.rstrip('\\n'))
f.close()
"""
CLEAN = "import os\ntry:\n    os.remove('_cmprobe')\nexcept OSError:\n    pass\n"
KEYS = [(f.name, item) for f in ff.FEATURES for item in f.probes]


def probe_lines() -> list[str]:
    codes = [code for f in ff.FEATURES for code in f.probes.values()]
    return ["%d\t%s" % (i, code.replace("\n", "\x01")) for i, code in enumerate(codes)]


def results(out: str) -> dict[tuple[str, str], bool]:
    """(feature, item) -> whether its probe ran without an error."""
    got = {}
    for line in out.splitlines():
        i, r = line.split("\t")
        got[KEYS[int(i)]] = r == "ok"
    return got


def expected(where: str) -> dict[tuple[str, str], bool]:
    """(feature, item) -> whether it works there: cpython, v1, mpy-wasm or mpy-unix."""
    out = {}
    for f in ff.FEATURES:
        for item in f.probes:
            if where == "cpython":
                ok = True
            elif where == "v1":
                ok = ff.V1 not in f.lacks
            else:
                ok = ff.MPY not in f.lacks and not (where == "mpy-unix" and item in f.unix_lacks)
            out[f.name, item] = ok
    return out


def differences(got: dict[tuple[str, str], bool], want: dict[tuple[str, str], bool]) -> list[str]:
    """What ran otherwise than the list says (a probe that printed nothing counts)."""
    return ["%s %s: %s, the list says %s" % (
        f, i, {True: "works", False: "fails", None: "no answer"}[got.get((f, i))],
        "works" if ok else "lacking") for (f, i), ok in want.items() if got.get((f, i)) != ok]


@pytest.mark.parametrize("fixture", ["microbit_v1", "microbit_v1_1_1"])
def test_the_v1_lacks_what_the_list_says(fixture: str, request: pytest.FixtureRequest) -> None:
    mb: harness.MicrobitV1 = request.getfixturevalue(fixture)
    # the probes come as a file: as one script they would not compile in the v1's heap
    mb.device.put(PROBE, "".join(line + "\n" for line in probe_lines()))
    mb.device.put("cmversion.py", harness.strip_source(
        (harness.firmware_dir() / "cmversion.py").read_text()))
    got = results(mb.run(RUN_FILE % PROBE + CLEAN, files=[]))
    wrong = differences(got, expected("v1"))
    assert not wrong, "\n".join(wrong)


def test_cpython_has_every_feature(cpython: harness.CPython, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the file probes write _cmprobe
    got = results(cpython.run(RUN_LIST % probe_lines(), files=["cmversion"]))
    wrong = differences(got, expected("cpython"))
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("fixture", ["mpy_wasm", "mpy_unix"])
def test_micropython_has_what_the_list_says(fixture: str,
                                            request: pytest.FixtureRequest) -> None:
    mpy = request.getfixturevalue(fixture)
    got = results(mpy.run(RUN_LIST % probe_lines() + CLEAN, files=["cmversion"]))
    wrong = differences(got, expected(mpy.name))
    assert not wrong, "\n".join(wrong)
