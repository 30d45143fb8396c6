"""The connectm command line dispatches to connectm.cmd_<name> modules."""

from __future__ import annotations

import argparse
import json
import re
import signal
import subprocess
import sys
import types
from pathlib import Path

import pytest

from connectm import cli


def test_play_prints_empty_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["play"]) == 0
    out = capsys.readouterr().out.split("\n\n")[1].split()  # after the legend
    assert len(out) >= 6 and all(set(r) <= set(".") for r in out[:6])


def test_no_command_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 2


def test_value_error_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(args: argparse.Namespace) -> int:
        raise ValueError("bad board size 99x1")

    def register(sub: argparse._SubParsersAction) -> None:
        sub.add_parser("boom").set_defaults(func=run)

    fake = types.ModuleType("connectm.cmd_boom")
    fake.register = register  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "connectm.cmd_boom", fake)
    monkeypatch.setattr(cli, "COMMANDS", cli.COMMANDS + ["boom"])
    cli.build_parser.cache_clear()  # the parser is built once per process
    monkeypatch.setattr(cli, "build_parser", cli.build_parser.__wrapped__)
    assert cli.main(["boom"]) == 2
    assert capsys.readouterr().err == "connectm: error: bad board size 99x1\n"


@pytest.mark.parametrize("error", ["EmulatorError", "Damaged"])
def test_a_failed_emulator_is_one_line(
    error: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # connectm bench --device on an emulated board that stops answering (the emulator's
    # EmulatorError, a RuntimeError, or its Damaged: a prompt that never came): one line and
    # status 1, not a traceback
    from connectm import benchmark

    emulator = benchmark.emulator()

    def start(self: object) -> None:
        raise getattr(emulator, error)("QEMU did not report its serial pty (exit status 1)")

    monkeypatch.setattr(emulator.Microbit, "start", start)
    monkeypatch.setattr(benchmark, "search_speed", lambda: None)  # (the host's part first)
    monkeypatch.setattr(benchmark, "solver_means", lambda limit: None)
    assert cli.main(["bench", "--device"]) == 1
    err = capsys.readouterr().err
    assert err == "connectm: error: QEMU did not report its serial pty (exit status 1)\n"


# ---- connectm solve: --file --json, progress, --max-seconds, Ctrl-C ------------------------

DATA = Path(__file__).resolve().parent / "data"


def test_solve_file_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["solve", "--file", str(DATA / "5x4c4.txt"), "--size", "5x4",
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["passed"] == out["positions"] >= 40 and out["failed"] == 0
    assert out["failures"] == [] and out["mean_nodes"] > 0


def test_solve_file_json_reports_a_failure(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "set.txt"
    f.write_text("# one wrong score\n1121 5\n")  # 4x4 c3: 1121 is not worth 5
    assert cli.main(["solve", "--file", str(f), "--size", "4x4", "--connect", "3",
                     "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["passed"], out["failed"]) == (0, 1)
    assert out["failures"][0]["moves"] == "1121" and out["failures"][0]["got"] != 5


class Clock:
    """Virtual time for connectm solve: each reading is 1/8 s after the one before (the
    solver reads it once every cmd_solve.CHECK_NODES nodes), whatever the machine's speed."""

    def __init__(self) -> None:
        self.readings = 0

    def perf_counter(self) -> float:
        self.readings += 1
        return self.readings / 8


def test_solve_max_seconds_gives_proven_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    from connectm import cmd_solve

    clock = Clock()
    monkeypatch.setattr(cmd_solve, "time", clock)
    monkeypatch.setattr(cmd_solve, "FIRST_REPORT", 0.0)  # a progress line at the first poll
    lines: list[str] = []
    out = cmd_solve.solve("7x6", 4, "", 1 << 16, True, 0.5, lines.append)
    # The empty 7x6 board is a first-player win (score 1), not proven in 80,000 nodes: the
    # start, then 4 polls (0.5 s of the clock), then the end's reading
    assert clock.readings == 6 and out["nodes"] == 4 * cmd_solve.CHECK_NODES
    assert out == {"score": None, "lo": -21, "hi": 21, "nodes": 80000, "ms": 625.0,
                   "stopped": "max-seconds"}
    # one progress line: the next is due a second after it
    assert lines == ["solve: 20000 nodes, score in -21..21, 0.1 s"]


def test_solve_ctrl_c_prints_bounds_not_a_traceback() -> None:
    # The first progress line at the first poll (FIRST_REPORT 0, not a second of wall time):
    # the solve is under way, and Ctrl-C reaches it there (it runs for minutes). Ctrl-C as
    # in a terminal: a run started in the background by a shell inherits SIGINT ignored.
    code = ("import signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from connectm import cli, cmd_solve\ncmd_solve.FIRST_REPORT = 0\n"
            "sys.exit(cli.main(['solve', '--moves', '4444']))")
    p = subprocess.Popen([sys.executable, "-c", code],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stderr is not None
        first = p.stderr.readline()  # the first progress line: the solve is under way
        assert first.startswith("solve: ") and "score in" in first
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 130
    assert re.fullmatch(r"score in -?\d+\.\.-?\d+ \(stopped: interrupted\)  nodes \d+  "
                        r"[\d.]+ ms\n", out)
    assert "Traceback" not in err


# ---- connectm deploy --dry-run without a board ----------------------------------------------

def test_deploy_dry_run_without_a_board(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from connectm import build, device

    def no_port(port: str) -> None:
        raise AssertionError("a dry run opened %s" % port)

    monkeypatch.setattr(device, "list_ports", lambda: [])
    monkeypatch.setattr(device, "open_port", no_port)
    assert cli.main(["deploy", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "no board found" in out
    for name, spec in build.BOARDS.items():
        assert "--board %s:" % name in out and "dry run for %s" % spec.title in out
    assert len(re.findall(r"^  main\.py ", out, re.M)) == len(build.BOARDS)


def test_solve_file_ctrl_c_reports_what_was_checked(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from connectm import cmd_solve

    real = cmd_solve.solve
    calls = []

    def solve(*a: object, **kw: object) -> dict:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(cmd_solve, "solve", solve)
    assert cli.main(["solve", "--file", str(DATA / "4x4c3.txt"), "--size", "4x4",
                     "--connect", "3"]) == 130
    cap = capsys.readouterr()
    assert "interrupted at position 3" in cap.err and "Traceback" not in cap.err
    assert "2 passed, 0 failed" in cap.out and "over 2 positions" in cap.out
