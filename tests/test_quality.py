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
