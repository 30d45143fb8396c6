"""Lint and type checks: ruff everywhere, mypy on host/, mypy on firmware/ with MicroPython
stubs (tools/mypy_firmware.py)."""

from __future__ import annotations

import subprocess
import sys

from harness import REPO


def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)


def test_ruff() -> None:
    p = run([sys.executable, "-m", "ruff", "check", "host", "firmware", "tests", "tools"])
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy_host() -> None:
    p = run([sys.executable, "-m", "mypy"])  # config: [tool.mypy] in pyproject.toml
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy_firmware() -> None:
    p = run([sys.executable, "tools/mypy_firmware.py"])
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_plain_run_leaves_out_the_extended_tier() -> None:
    # conftest's hook: a test marked extended (here test_book's book rebuilds) is deselected
    # unless pytest runs with --extended (make test-all)
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
           "-p", "no:xdist", "tests/test_book.py"]
    plain, every = run(cmd).stdout, run(cmd + ["--extended"]).stdout
    assert "test_book_build_is_reproducible" not in plain, plain
    assert "deselected" in plain.splitlines()[-1], plain
    assert "tests/test_book.py::test_book_build_is_reproducible[0]" in every, every
    assert "deselected" not in every.splitlines()[-1], every
