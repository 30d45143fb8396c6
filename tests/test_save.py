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


SAVE_LOOP = """import cmsave
cmsave.load()
for i in range(1, 1000):
    cmsave.save('T%d %%d ' %% i + 'x' * 60)
    print('ack', i)
"""


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


def start_loop(dev: Any, code: str, record: Any) -> str:
    """Send the save loop and read until it has acknowledged two saves; a loop that arrived
    damaged is sent again (twice at most, counted in the test's properties), as
    deploy's writes are."""
    serial = dev.transport.serial
    for tries in (2, 1, 0):
        dev.transport.exec_raw_no_follow(code)
        out = ""
        deadline = time.monotonic() + 300  # an outer cap: the loop's acks are the event
        while len(acks(out)) < 2 and out.count("\x04") < 2 and time.monotonic() < deadline:
            out += serial.read(max(1, serial.in_waiting)).decode(errors="replace")
        if len(acks(out)) >= 2 or not tries or not damaged(out):
            return out
        record("loops_resent", 3 - tries)
        dev.soft_reset()
    raise AssertionError("not reached")


def test_save_survives_reset_mid_write(microbit_v1: harness.MicrobitV1,
                                       record_property: Any) -> None:
    """Power loss: the QEMU monitor's system_reset while the board saves in a loop, so that
    the reset lands at a different point of a save each time (opening, writing, closing).
    After the reboot the newest readable save is the last one the board acknowledged, or a
    later one that finished while its acknowledgement was still in the UART: never an older
    one, never another run's, never garbage."""
    dev = microbit_v1.device
    dev.soft_reset()
    dev.put("cmsave.py", strip_source((fw.firmware_dir() / "cmsave.py").read_text()))
    dev.exec("import os\nfor f in os.listdir():\n    if f.endswith('.sav') or f == 'main.py':"
             "\n        os.remove(f)\n")
    results = []
    for trial in range(16):
        dev.soft_reset()
        out = start_loop(dev, SAVE_LOOP % trial, record_property)
        assert len(acks(out)) >= 2, "the save loop did not run: %r" % out
        serial = dev.transport.serial
        end = time.monotonic() + 0.0037 * trial  # a different moment of the loop each time
        while time.monotonic() < end:  # reading on: a full pty would drop acks
            out += serial.read(max(1, serial.in_waiting)).decode(errors="replace")
        out += dev.reset()  # and what the board printed until the reset
        last = acks(out)[-1]
        loaded = dev.exec("import cmsave\nprint(repr(cmsave.load()))").strip().splitlines()
        text = eval(loaded[-1])
        assert text is not None and text.startswith("T%d " % trial), loaded
        got = int(text.split()[1])
        assert text == "T%d %d " % (trial, got) + "x" * 60
        assert last <= got <= last + 2, (last, got, loaded)
        results.append((last, got, loaded[:-1]))
    print("acknowledged, restored, messages:", results)
