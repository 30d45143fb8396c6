"""The real game (firmware/main.py: the boot, then the game loop) under a seeded stream of
random serial bytes and button presses, on CPython with the fakes (tests/fakes: the
micro:bit's buttons and UART) and a virtual clock; and failures injected into each kind of
step (input, display, search, save).

After the fuzz the game must answer ``?``, play a legal move, and every ``B`` line must be a
legal continuation of the one before. The seed and the counts are in the test ids and in
the output (``-s``). The emulated micro:bit v1's fuzz is in test_fuzz_device.py.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import sys
import types
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import harness
from connectm import fw

B_LINE = re.compile(r"B (\d)x(\d) lv=(\d) you=(\d) moves=(\d*) turn=(\d) over=(\d)$")
REPL_KEYS = range(1, 6)  # Ctrl-A..Ctrl-E: the REPL's own (raw REPL, soft reset): left out


class Stop(BaseException):
    """Ends the run: raised by the virtual clock once the script is done (no Exception,
    so main.py's loop does not catch it)."""


class Reset(BaseException):
    """machine.reset() on the fake board: the test boots main.py again."""


class Silent(BaseException):
    """The virtual clock ran LIMIT ms past the script's last event and the run was not done:
    the game went silent (a BaseException: main.py's loop does not catch it)."""


LIMIT = 600_000  # virtual ms: the search's ticks and the loop's sleeps, far beyond a reply's


class Clock:
    """utime for main.py on CPython: virtual ms. sleep_ms() advances it and delivers the
    script's events that are due; ticks_ms() moves 1 ms a call (the search's budget runs
    out in virtual time). Once the events are out, the run ends when done() holds, and fails
    (Silent) when it has not after ``limit`` ms more."""

    def __init__(self, events: list[tuple[int, Callable[[], None]]],
                 limit: int = LIMIT) -> None:
        self.now = 0
        self.events = sorted(events, key=lambda e: e[0])  # (time, action)
        self.i = 0
        self.done: Callable[[], bool] = lambda: True
        self.limit = limit

    def module(self) -> types.ModuleType:
        m = types.ModuleType("utime")
        m.ticks_ms = self.ticks_ms  # type: ignore[attr-defined]
        m.ticks_diff = lambda a, b: a - b  # type: ignore[attr-defined]
        m.ticks_add = lambda a, b: a + b  # type: ignore[attr-defined]
        m.sleep_ms = self.sleep_ms  # type: ignore[attr-defined]
        m.sleep = lambda s: self.sleep_ms(int(s * 1000))  # type: ignore[attr-defined]
        return m

    def ticks_ms(self) -> int:
        self.now += 1
        self.check()
        return self.now

    def sleep_ms(self, ms: int) -> None:
        self.now += ms
        while self.i < len(self.events) and self.events[self.i][0] <= self.now:
            self.events[self.i][1]()
            self.i += 1
        if self.i >= len(self.events) and self.done():
            raise Stop
        self.check()

    def check(self) -> None:
        last = self.events[-1][0] if self.events else 0
        if self.now > last + self.limit:
            raise Silent("the run was not done %d virtual s after its last event, at %d s"
                         % (self.limit // 1000, last // 1000))


class Game:
    """main.py run on CPython: the fakes' micro:bit, a temp dir for cmmain.py and the save
    files, this Clock; output captured."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.out = io.StringIO()
        self.boots = 0
        (tmp / "cmmain.py").write_text((fw.firmware_dir() / "cmmain.py").read_text())
        self.main = compile((fw.firmware_dir() / "main.py").read_text(), "main.py", "exec")

    @contextlib.contextmanager
    def board(self) -> Iterator[None]:
        fw.load()
        names = set(harness.firmware_modules()) | set(harness.fake_modules()) | {"utime", "gc"}
        saved = {n: sys.modules[n] for n in names if n in sys.modules}
        path = list(sys.path)
        cwd = os.getcwd()
        for n in names:
            sys.modules.pop(n, None)
        sys.path[:0] = [str(harness.FAKES)]
        os.chdir(self.tmp)
        try:
            yield
        finally:
            os.chdir(cwd)
            sys.path[:] = path
            for n in names:
                sys.modules.pop(n, None)
            sys.modules.update(saved)

    def run(self, clock: Clock, inject: Callable[[], None] | None = None) -> None:
        """Boot main.py (again after each machine.reset()) until the clock stops it."""
        with self.board():
            import gc as real_gc

            fake_gc = types.ModuleType("gc")
            fake_gc.collect = real_gc.collect  # type: ignore[attr-defined]
            fake_gc.mem_free = lambda: 100000  # type: ignore[attr-defined]
            sys.modules["utime"] = clock.module()
            sys.modules["gc"] = fake_gc
            import machine
            import microbit

            self.mb = microbit

            def reset() -> None:
                raise Reset

            machine.reset = reset  # type: ignore[attr-defined]
            while True:
                for n in set(harness.firmware_modules()):
                    sys.modules.pop(n, None)
                self.boots += 1
                try:
                    with contextlib.redirect_stdout(self.out):
                        env: dict[str, Any] = {"__name__": "__main__"}
                        if inject:
                            inject()
                        exec(self.main, env)
                except Reset:
                    continue
                except Stop:
                    self.n = sys.modules["cmgame"].b.n  # the moves on the board at the end
                    break
                except Silent as e:
                    pytest.fail("%s; its last lines: %s" % (e, self.lines()[-4:]), pytrace=False)
                finally:
                    sys.modules["gc"] = fake_gc

    def lines(self) -> list[str]:
        return self.out.getvalue().splitlines()


def check_b_lines(lines: list[str]) -> int:
    """Every B line is a legal continuation of the one before (or the first of a new game
    after a finished one); returns how many there were."""
    fw.load()
    import cmboard

    prev = None
    count = 0
    for ln in lines:
        m = B_LINE.match(ln)
        if not ln.startswith("B "):
            continue
        assert m, ln
        count += 1
        w, h, lv, you, moves, turn, over = m.groups()
        b = cmboard.Board(int(w), int(h), 4, 0)
        for c in moves:
            assert b.can_play(int(c) - 1), (ln, prev)
            b.play(int(c) - 1)
        assert int(turn) == 1 + (b.n & 1) and int(over) == b.over(), ln
        if prev is not None:
            pm = prev.group(5)
            if prev.group(7) != "0":  # the game was over: a new one starts (its empty board
                # when the human moves first, else the computer's first move)
                assert len(moves) <= 1 or moves == pm, (prev.group(0), ln)
            else:
                assert moves[:len(pm)] == pm and len(moves) == len(pm) + 1, (prev.group(0), ln)
                assert (lv, you) == prev.group(3, 4), (prev.group(0), ln)
        prev = m
    return count


def fuzz_events(game: Game, seed: int, n_bytes: int, n_buttons: int
                ) -> list[tuple[int, Callable[[], None]]]:
    """Random bytes (no Ctrl-A..Ctrl-E), in bursts, and random button press/release
    timings (bounces of a few ms, both held, long holds), spread over virtual time."""
    rng = random.Random(seed)
    events: list[tuple[int, Callable[[], None]]] = []
    t = 0
    sent = 0
    while sent < n_bytes:
        burst = bytes(rng.choice([b for b in range(256) if b not in REPL_KEYS])
                      for _ in range(min(n_bytes - sent, rng.choice([1, 1, 2, 5, 20]))))
        sent += len(burst)
        t += rng.choice([5, 20, 40, 200, 1000])
        events.append((t, lambda d=burst: game.mb.uart.feed(d)))
    span = t
    t = 0
    pressed = 0
    while pressed < n_buttons:
        t += rng.randrange(1, 2 * span // n_buttons + 2)
        kind = rng.choice(["a", "b", "ab", "bounce", "long"])
        btns = ["a", "b"] if kind == "ab" else [rng.choice("ab")]
        hold = {"long": rng.randrange(1000, 4000), "bounce": rng.randrange(1, 8)}.get(
            kind, rng.randrange(30, 400))
        for x in btns:
            events.append((t, lambda x=x: game.button(x, True)))
            events.append((t + hold, lambda x=x: game.button(x, False)))
            if kind == "bounce":  # down, up, down again, up for good
                events.append((t + hold + 2, lambda x=x: game.button(x, True)))
                events.append((t + hold + 9, lambda x=x: game.button(x, False)))
        pressed += len(btns)
    return events


def button(self: Game, x: str, down: bool) -> None:
    b = self.mb.button_a if x == "a" else self.mb.button_b
    if down and not b.is_pressed():
        b.press()  # was_pressed() counts the press when the button goes down
    b.hold(down)


Game.button = button  # type: ignore[attr-defined]


def finish(game: Game, clock: Clock) -> dict[str, Any]:
    """Events after the fuzz's: ``?`` (must be answered), then keys chosen from the game's
    state until the human has played a move; the clock stops once that move's B line is
    out. Returns the state: "start", the index of the first line after the fuzz."""
    state: dict[str, Any] = {}

    def step() -> None:
        import cmgame as g

        if "start" not in state:
            state["start"] = len(game.lines())
            game.mb.uart.feed(b"?")
        elif g.st != 1:
            game.mb.uart.feed(b"d")
        elif 1 + (g.b.n & 1) == g.hp and "move" not in state:
            c = next(c for c in range(g.b.w) if g.b.can_play(c))
            game.mb.uart.feed(str(c + 1).encode())
            state["move"] = len(game.lines())
            state["at"] = max(len(game.out.getvalue()) - 1, 0)  # (from the last line end)

    end = max(t for t, _ in clock.events)
    clock.events += [(end + 3000 + 500 * i, step) for i in range(12)]
    # (the output read from where it was at the move: not split into lines at every step)
    clock.done = lambda: "at" in state and "\nB " in game.out.getvalue()[state["at"]:]
    return state


CASES = [(20260, 20_000, 2_000), (7, 20_000, 2_000)]


@pytest.mark.parametrize("seed,n_bytes,n_buttons", CASES,
                         ids=["seed%d-%dbytes-%dbuttons" % c for c in CASES])
def test_fuzz_game_cpython(tmp_path: Path, seed: int, n_bytes: int, n_buttons: int,
                           record_property: Any) -> None:
    game = Game(tmp_path)
    events = fuzz_events(game, seed, n_bytes, n_buttons)
    clock = Clock(events)
    state = finish(game, clock)
    game.run(clock)
    lines = game.lines()
    after = lines[state["start"]:]
    print("fuzz seed %d: %d bytes, %d button events, %d virtual s, %d lines" % (
        seed, n_bytes, n_buttons, clock.now // 1000, len(lines)))
    # (L: a level chosen, R: a game's result; docs/serial.md)
    assert not [ln for ln in lines if not ln.startswith(("B ", "E bad key", "E full", "M ",
                                                         "L ", "R "))], lines[-20:]
    bad = sum(ln.startswith("E bad key") for ln in lines)
    n_b = check_b_lines(lines)
    print("fuzz seed %d: %d B lines, %d 'E bad key' lines, %d boots" % (
        seed, n_b, bad, game.boots))
    record_property("fuzz seed %d" % seed, "%d bytes %d buttons" % (n_bytes, n_buttons))
    assert any(ln.startswith("M ") for ln in after), after
    assert any(ln.startswith("B ") for ln in lines[state["move"]:]), after
    assert game.boots == 1  # no reset
    assert bad <= clock.now // 1024 + 2  # one line a second at most


class Muted(io.StringIO):
    """The game's output without its B lines: a game gone silent (print writes a line's
    text, then its end)."""

    drop = False

    def write(self, s: str) -> int:
        if s.startswith("B ") or s == "\n" and self.drop:
            self.drop = not self.drop
            return len(s)
        return super().write(s)


def test_a_silent_game_fails_the_fuzz_within_its_limit(tmp_path: Path) -> None:
    # the fuzz's wait for the human's B line, on a game that prints none: it fails once the
    # virtual clock is LIMIT past the script's last event (it waited for ever)
    game = Game(tmp_path)
    game.out = Muted()
    clock = Clock(fuzz_events(game, 3, 200, 20))
    finish(game, clock)
    with pytest.raises(pytest.fail.Exception, match="not done 600 virtual s after its last"):
        game.run(clock)
    assert clock.now <= clock.events[-1][0] + LIMIT + 1000
    assert "M " in game.out.getvalue() and "B " not in game.out.getvalue()


# ---- a failure in each kind of step -------------------------------------------------------

class Injected(Exception):
    pass


def failing(fn: Callable[..., Any], at: int, exc: BaseException, count: list[int],
            when: Callable[[], bool] = lambda: True) -> Callable[..., Any]:
    """fn, but its call number ``at`` of those made while when() holds (counted in
    ``count`` across boots) raises exc."""

    def wrapper(*a: Any) -> Any:
        if when():
            count[0] += 1
            if count[0] == at:
                raise exc
        return fn(*a)
    return wrapper


def moved() -> bool:
    """The human's first disc is down (its move's draw, or the search after it)."""
    g = sys.modules["cmgame"]
    return bool(g.b and g.b.n == 1)


# where: (what fails, at which of its calls, the exception, a reset expected (the step had
# changed the moves or the state: the boot restores the last save), an E line expected)
FAILURES = {
    "input": ("uart", 3, Injected("input"), False, True),
    "input-memory": ("uart", 3, MemoryError(), False, False),  # retried: no line
    "display": ("display", 1, Injected("display"), True, True),  # the first move's draw
    "display-memory": ("display", 1, MemoryError(), True, True),
    "blink-memory": ("blink", 40, MemoryError(), False, False),  # in the menu: retried
    # the draw after 'r' in the menu (the level is up): not retried (the level would go up
    # twice), one line, no reset: the game goes on at that level
    "level-memory": ("level", 1, MemoryError(), False, True),
    "search": ("search", 1, Injected("search"), True, True),
    "save": ("save", 2, OSError(28), True, True),  # the computer's first move: not saved
}


@pytest.mark.parametrize("where", list(FAILURES))
def test_a_failing_step_is_reported_and_the_game_goes_on(tmp_path: Path, where: str) -> None:
    what, at, exc, reset, line = FAILURES[where]
    game = Game(tmp_path)
    # 'r': level 2; 'd': starts a game (again after a reset to the menu), or drops
    keys = b"?r?d1?d2?d3?d4?d5?"
    events = [(500 * (i + 1), lambda k=k: game.mb.uart.feed(bytes([k])))
              for i, k in enumerate(keys)]
    clock = Clock(events)
    count = [0]

    def inject() -> None:
        if what == "uart":
            uart = game.mb.uart
            if not hasattr(uart, "real_any"):
                uart.real_any = uart.any
            uart.any = failing(uart.real_any, at, exc, count)
        elif what in ("display", "blink", "level"):
            disp = game.mb.display
            if not hasattr(disp, "real_set_pixel"):
                disp.real_set_pixel = disp.set_pixel
            disp.set_pixel = failing(disp.real_set_pixel, at, exc, count, {
                "display": moved, "blink": lambda: True,
                "level": lambda: sys.modules["cmgame"].lv == 1}[what])
        elif what == "search":
            import cmsearch

            go = cmsearch.Search.go
            bad = failing(go, at, exc, count)

            def game_go(self: Any, *a: Any) -> Any:
                # the game's reply fails, not pondering's search (which a micro:bit has not)
                return (bad if self is sys.modules["cmgame"].s else go)(self, *a)

            cmsearch.Search.go = game_go
        else:
            import cmsave

            cmsave.save = failing(cmsave.save, at, exc, count)

    game.run(clock, inject)
    lines = game.lines()
    print(where, lines)
    assert count[0] >= at  # the failure happened
    errors = [ln for ln in lines if ln.startswith("E ") and not ln.startswith("E bad key")]
    assert errors == (["E " + repr(exc)] if line else []), lines
    assert game.boots == (2 if reset else 1), lines
    after = lines[lines.index(errors[0]) + 1:] if errors else lines
    assert sum(ln.startswith("M ") for ln in after) >= 2, lines  # answers `?`
    moves = [B_LINE.match(ln).group(5) for ln in after if ln.startswith("B ")]  # type: ignore
    assert len(moves) >= 4, lines  # the game goes on
    check_b_lines(after)  # after a reset: from the position of the last save on
    if not reset:  # 'r' took the level to 2, once (a reset: the boot's new game, at 1)
        assert all(ln.startswith("B 5x4 lv=2 ") for ln in after if ln.startswith("B ")), lines
    assert game.n in (len(moves[-1]), 0)  # (0: a new game started after the last B line)


def test_the_v1_build_runs_the_plain_loop() -> None:
    # GUARD is 0 in the micro:bit v1's build: no try in its main.py (its boot has no room),
    # the guarded loop everywhere else (the source, as copied to other boards)
    from connectm import build

    main = next(i for i in build.plan(build.BOARDS["microbit"]).items if i.name == "main.py")
    v1 = main.data.decode()
    assert "try:" not in v1 and "machine" not in v1 and "while True:" in v1
    src = (fw.firmware_dir() / "main.py").read_text()
    assert "GUARD = const(1)" in src and "except Exception as e:" in src
    # (the v2 build switches pondering off, as the v1's, and keeps the guard)
    assert build.switches(src, v2=True) == build.NO_PONDER.sub(r"\1=const(0)", src) != src


@pytest.mark.parametrize("interp", ["cpython", "mpy_wasm", "mpy_unix"])
def test_microbit_key_maps_every_byte(interp: str, request: pytest.FixtureRequest) -> None:
    # drv_microbit.key() on the fakes' UART: each of the 256 bytes once; the protocol's
    # bytes come out as their characters, any other is dropped (None)
    mpy = request.getfixturevalue(interp)
    code = """import drv_microbit
from microbit import uart
out = []
for i in range(256):
    uart.feed(bytes([i]))
    k = drv_microbit.key()
    if k is not None:
        out.append(ord(k))
print(out, uart.any())
"""
    out = mpy.run(code, files=["drv_microbit"], fakes=True).strip()
    assert out == "%s 0" % sorted(b"lrd123456789?")
