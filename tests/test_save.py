"""cmsave: the saved game survives a reset at any point of its write, and a bad file is
skipped with a message (CPython for the file cases, the emulated micro:bit for power loss)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

import harness
from connectm import fw
from connectm.minify import strip_source


@pytest.fixture
def save(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    fw.load()
    import importlib

    import cmsave

    monkeypatch.chdir(tmp_path)
    yield importlib.reload(cmsave)


def test_round_trip_and_turns(save: Any, tmp_path: Path) -> None:
    assert save.load() is None
    save.save("0 1 44 " + "00" * 15)
    save.save("0 1 443 " + "00" * 15)
    assert sorted(os.listdir(tmp_path)) == ["cm0.sav", "cm1.sav"]  # written by turns
    assert (tmp_path / "cm1.sav").read_text().startswith("CM2 1 ")
    assert (tmp_path / "cm0.sav").read_text().startswith("CM2 2 ")
    save.n = 0  # a reboot: load() finds the newest and numbers on from it
    assert save.load() == "0 1 443 " + "00" * 15
    assert save.n == 2


@pytest.mark.parametrize("bad", [
    "",  # empty: a reset just after the file was opened
    "CM2 3 9999 0 1 4435 0 0",  # wrong sum: cut short or damaged
    "CM2 3",  # cut short
    "hello world",  # foreign
    "CM 3 %d 0 1 4435 0 0",  # an older format (no version)
    "CM1 3 %d 0 1 4435 0 0",  # the older version (scores in decimal)
    "CM3 3 %d 0 1 4435 0 0",  # a newer one
    "CM2 x %d 0 1 4435 0 0",  # a bad sequence number
])
def test_bad_file_skipped_with_a_message(save: Any, tmp_path: Path, bad: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    save.save("0 1 44")  # cm1.sav, seq 1: the good one
    payload = "0 1 4435 0 0"
    (tmp_path / "cm0.sav").write_text(bad % sum(payload.encode()) if "%d" in bad else bad)
    save.n = 0
    assert save.load() == "0 1 44"
    assert capsys.readouterr().out == "E bad file cm0.sav\n"


# The board saves in a loop; its file operations (cmsave's open, the file's write and close:
# names in cmsave's globals come before the builtins) stop the board at one step of one save
# (N: which save, STEP: where), where it spins, saying so, until the host resets it: the
# reset lands at that step, whatever the host's speed. The text goes in two writes, so a
# reset can land half-way through it.
SAVE_STEPS = """import cmsave
from utime import sleep_ms
cmsave.load()
real = open
def stop(step):
    if i == N and step == STEP:
        while 1:
            print('at', step)
            sleep_ms(50)
class F:
    def __init__(s, f):
        s.f = f
    def write(s, t):
        s.f.write(t[:len(t) // 2])
        stop('half')
        s.f.write(t[len(t) // 2:])
        stop('written')
    def close(s):
        s.f.close()
        stop('closed')
def opened(name, mode):
    f = real(name, mode)
    stop('opened')
    return F(f)
cmsave.open = opened
for i in range(1, 9):
    cmsave.save('TRIAL ' + str(i) + ' ' + 'x' * 60)
    print('ack', i)
"""
STEPS = ["opened", "half", "written", "closed"]


def acks(text: str) -> list[int]:
    # whole lines only: the reset may cut the last one short ("ack 1" of "ack 109")
    return [int(x) for x in re.findall(r"ack (\d+)\r?\n", text)]


def damaged(out: str) -> bool:
    """The raw REPL's output says the command ended (the end marks of its stdout and its
    stderr) on an error of its own text: the last frame of the traceback is <stdin>, not
    cmsave. A byte the emulated UART lost on the way in does that (`cmsave.save` arrived
    as `cmsavesave`)."""
    frames = re.findall(r'File "([^"]+)"', out)
    return out.count("\x04") == 2 and bool(frames) and frames[-1] == "<stdin>"


def start_loop(dev: Any, code: str, step: str, record: Any) -> str:
    """Send the save loop and read until the board stops at ``step`` (its `at` line); a
    loop that arrived damaged is sent again (twice at most, counted in the test's
    properties), as deploy's writes are."""
    serial = dev.transport.serial
    for tries in (2, 1, 0):
        dev.transport.exec_raw_no_follow(code)
        out = ""
        deadline = time.monotonic() + 300  # an outer cap: the `at` line is the event
        while "at %s\r\n" % step not in out and out.count("\x04") < 2 and \
                time.monotonic() < deadline:
            out += serial.read(max(1, serial.in_waiting)).decode(errors="replace")
        if "at %s\r\n" % step in out or not tries or not damaged(out):
            return out
        record("loops_resent", 3 - tries)
        dev.soft_reset()
    raise AssertionError("not reached")


def test_save_survives_reset_mid_write(microbit_v1: harness.MicrobitV1,
                                       record_property: Any) -> None:
    """Power loss: the QEMU monitor's system_reset while the board saves, at each step of a
    save (the file opened, so emptied; half the text written; all of it, not closed; closed)
    of its 2nd and 3rd saves (cm0.sav, then cm1.sav). After the reboot the newest readable
    save is the last finished one: while a write was under way the save before it, with
    one line for the spoilt file (every reset that hit a write is counted: 4 at least, the
    opened and half steps); never an older one, never another trial's, never garbage."""
    dev = microbit_v1.device
    dev.soft_reset()
    dev.put("cmsave.py", strip_source((fw.firmware_dir() / "cmsave.py").read_text()))
    dev.exec("import os\nfor f in os.listdir():\n    if f.endswith('.sav') or f == 'main.py':"
             "\n        os.remove(f)\n")
    results = []
    hit = 0  # resets that hit a write: the file being written spoilt, and said so
    for trial, (n, step) in enumerate((n, step) for n in (2, 3) for step in STEPS):
        dev.soft_reset()
        code = SAVE_STEPS.replace("N and", "%d and" % n).replace("STEP:", "%r:" % step)
        out = start_loop(dev, code.replace("TRIAL", "T%d" % trial), step, record_property)
        assert "at %s\r\n" % step in out, "the save loop did not stop at %s: %r" % (step, out)
        assert acks(out) == list(range(1, n)), out  # the saves before the n-th, acknowledged
        out += dev.reset()  # and what the board printed until the reset
        loaded = dev.exec("import cmsave\nprint(repr(cmsave.load()))").strip().splitlines()
        text = eval(loaded[-1])
        assert text is not None and text.startswith("T%d " % trial), loaded
        got = int(text.split()[1])
        assert text == "T%d %d " % (trial, got) + "x" * 60
        spoilt = loaded[:-1]
        results.append((step, n, got, spoilt))
        # (the file written goes cm0.sav, cm1.sav by turns, counted on from the last trial)
        bad = spoilt in (["E bad file cm0.sav"], ["E bad file cm1.sav"])
        if step in ("opened", "half"):  # a reset inside the write
            assert got == n - 1 and bad, results[-1]
        elif step == "written":  # all written, not closed: either, said so if spoilt
            assert (got == n and not spoilt) or (got == n - 1 and bad), results[-1]
        else:  # closed: the save is whole
            assert got == n and not spoilt, results[-1]
        hit += bad
    print("step, save, restored, messages:", results)
    print("resets that hit a write:", hit)
    record_property("resets_hitting_a_write", hit)
    assert hit >= 4
