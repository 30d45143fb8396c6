"""Computer-vs-computer tournaments: a grid of (board size, side 1, side 2), N games a cell.

Every game is a job named by (size, side 1, side 2, game index); its seed comes from those
and the base seed, so each game replays exactly and a rerun can skip the games already in
the CSV.  Finished games are appended to the CSV (and flushed) as they complete, so Ctrl-C
loses only the games in progress.
"""

from __future__ import annotations

import csv
import hashlib
import io
import multiprocessing
import os
import random
import signal
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from connectm import players as P

HEADER = ["size", "w", "h", "m", "side1", "side2", "game", "seed", "opening", "moves",
          "result", "winner", "plies", "seconds", "seconds1", "seconds2", "moves1", "moves2"]
# The columns read back as numbers when a run resumes or summarises.
NUMBERS = ["game", "result", "plies", "seconds", "seconds1", "seconds2", "moves1", "moves2"]
BASELINES = ["random", "greedy", "mc:200"]
LEVEL_SIZES = "5x4:4,7x6:4"


@dataclass(frozen=True)
class Job:
    w: int
    h: int
    m: int
    side1: str
    side2: str
    game: int
    seed: int
    opening_plies: int
    safe: bool = False  # the opening hands no side a win in one (random_opening)
    fair: int = 0  # ... nor a win it can force within this many plies

    @property
    def size(self) -> str:
        return size_name(self.w, self.h, self.m)

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.size, self.side1, self.side2, self.game)


def size_name(w: int, h: int, m: int) -> str:
    return "%dx%d:%d" % (w, h, m)


def parse_sizes(text: str) -> list[tuple[int, int, int]]:
    """``3x3:3,7x6:4`` -> [(3, 3, 3), (7, 6, 4)] (checked by cmboard.Board)."""
    out = []
    for item in text.split(","):
        item = item.strip().lower()
        try:
            wh, m = item.split(":")
            w, h = wh.split("x")
            size = (int(w), int(h), int(m))
        except ValueError:
            raise ValueError("bad --sizes item %r: expected WxH:M, e.g. 7x6:4" % item) from None
        P.cmboard.Board(*size, keys=0)  # raises SizeError (a ValueError) when out of range
        if size not in out:
            out.append(size)
    if not out:
        raise ValueError("--sizes is empty")
    return out


def parse_depths(text: str) -> list[int]:
    """``1-4`` or ``1,2,4`` (or a mix: ``1-3,6``) -> sorted depths."""
    out: set[int] = set()
    for item in text.split(","):
        item = item.strip()
        try:
            if "-" in item:
                a, b = item.split("-")
                lo, hi = int(a), int(b)
            else:
                lo = hi = int(item)
        except ValueError:
            raise ValueError("bad --depths item %r: expected D or D1-D2" % item) from None
        if lo < 1 or hi < lo:
            raise ValueError("bad --depths item %r: depths must be >= 1, low-high" % item)
        out.update(range(lo, hi + 1))
    return sorted(out)


def parse_players(text: str) -> list[str]:
    names = [P.canonical(s) for s in text.split(",") if s.strip()]
    if not names:
        raise ValueError("--players is empty")
    return list(dict.fromkeys(names))


def game_seed(base: int, size: str, side1: str, side2: str, game: int) -> int:
    text = "%d|%s|%s|%s|%d" % (base, size, side1, side2, game)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") % 1000000 + 1


def make_jobs(sizes: list[tuple[int, int, int]], pairs: Iterable[tuple[str, str]], games: int,
              seed: int, opening_plies: int, safe: bool = False, fair: int = 0,
              paired: bool = False) -> list[Job]:
    """``paired`` (--levels): game g of every level against one baseline and colour gets one
    seed, so every level meets the same openings and the same seeded opponent."""
    jobs = []
    pairs = list(pairs)

    def same(name: str) -> str:  # (a Pico's levels, pico:L, too: the same games as level:L)
        if name.startswith("picobook:"):
            return "pico"  # always: a book's gain is measured on pico's games
        if name.startswith("pico-search"):  # and the search's, without the book: pico's too
            return "pico" + name[len("pico-search"):]
        return "level" if paired and name.startswith(("level:", "pico:")) else name

    for w, h, m in sizes:
        for a, b in pairs:
            for g in range(games):
                s = game_seed(seed, size_name(w, h, m), same(a), same(b), g)
                jobs.append(Job(w, h, m, a, b, g, s, opening_plies, safe, fair))
    return jobs


def all_pairs(names: list[str]) -> list[tuple[str, str]]:
    """Every ordered pair, self-play included: both colours of every match-up."""
    return [(a, b) for a in names for b in names]


def level_pairs(baselines: list[str], kind: str = "level") -> list[tuple[str, str]]:
    """Each level (``level:L``, or as a Pico plays it: ``pico:L``) against each baseline,
    both colours."""
    levels = ["%s:%d" % (kind, i + 1) for i in range(P.levels.count())]
    return [p for lv in levels for base in baselines for p in ((lv, base), (base, lv))]


def random_opening(w: int, h: int, m: int, plies: int, seed: int, safe: bool = False,
                   fair: int = 0) -> str:
    """``plies`` seeded random moves that do not end the game; ``safe``: nor let the
    opponent win at its next move where another move does not (a random opening is
    otherwise often won in one: the games would measure the opening, not the players);
    ``fair``: nor leave a side a win it can force within ``fair`` plies, where another
    move does not (two discs side by side on an open bottom row win in 3)."""
    b = P.cmboard.Board(w, h, m, keys=0)
    rng = random.Random("opening:%d" % seed)
    for _ in range(plies):
        me = 1 + (b.n & 1)
        cols = [c for c in P.legal(b) if not P.wins_now(b, c, me)]
        if safe:
            cols = [c for c in cols if not hands_win(b, c)] or cols
        if fair:
            cols = [c for c in cols if not forced_win_after(b, c, fair)] or cols
        if not cols or b.n + 1 >= b.size:
            break
        b.play(rng.choice(cols))
    return P.cmmoves.moves(b)


def hands_win(b: Any, col: int) -> bool:
    """Can the opponent win at once after the mover plays ``col``?"""
    b.play(col)
    them = 1 + (b.n & 1)
    out = any(P.wins_now(b, c, them) for c in P.legal(b))
    b.undo()
    return out


def forced_win_after(b: Any, col: int, plies: int) -> bool:
    """After the mover plays ``col``, can a side force a win within ``plies`` plies?"""
    import cmsolve  # the firmware's, on sys.path since connectm.players loaded it

    b.play(col)
    out = b.n < b.size and cmsolve.Solver(b).wins_within(plies) != 0
    b.undo()
    return out


def start(job: Job) -> tuple[str, Any, Any]:
    """A job's opening (moves, 1-based) and its two players, seeded as every game of the job
    plays them (tools that watch a game's positions start it here too)."""
    opening = random_opening(job.w, job.h, job.m, job.opening_plies, job.seed, job.safe,
                             job.fair)
    return opening, P.make_player(job.side1, job.seed), P.make_player(job.side2, job.seed + 1)


def play_job(job: Job) -> dict[str, Any]:
    """Play one game; the CSV row as a dict."""
    t0 = time.perf_counter()
    opening, p1, p2 = start(job)
    result, moves, spent = P.play_game(job.w, job.h, job.m, p1, p2, opening)
    k = len(opening)
    n = len(moves) - k  # moves chosen by the players; side 1 moves first after the opening
    m1 = (n + (k % 2 == 0)) // 2
    return {"size": job.size, "w": job.w, "h": job.h, "m": job.m, "side1": job.side1,
            "side2": job.side2, "game": job.game, "seed": job.seed, "opening": opening,
            "moves": moves, "result": result,
            "winner": {1: job.side1, 2: job.side2}.get(result, "draw"), "plies": len(moves),
            "seconds": "%.4f" % (time.perf_counter() - t0), "seconds1": "%.4f" % spent[0],
            "seconds2": "%.4f" % spent[1], "moves1": m1, "moves2": n - m1}


# ---- CSV: resume and append -------------------------------------------------------------

def read_csv(path: Path) -> list[dict[str, str]]:
    """The rows of an existing results CSV ([] when missing or empty).

    A half-written last line (no final newline: the run was killed mid-write) is cut off
    the file with a message.  A file with another header raises ValueError.
    """
    if not path.exists() or path.stat().st_size == 0:
        return []
    data = path.read_bytes()
    if not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        print("%s: dropping a half-written last line (%d bytes)" % (path, len(data) - cut),
              file=sys.stderr)
        with open(path, "r+b") as f:
            f.truncate(cut)
        data = data[:cut]
    text = data.decode("utf-8", errors="replace")
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, None)
        if header is None:
            return []
        if header != HEADER:
            raise ValueError("%s is not a tournament CSV (header %s); use another --out"
                             % (path, ",".join(header)[:60]))
        rows = []
        for i, rec in enumerate(reader, 2):
            if len(rec) != len(HEADER):
                raise ValueError("%s line %d: %d fields, expected %d"
                                 % (path, i, len(rec), len(HEADER)))
            row = dict(zip(HEADER, rec))
            for name in NUMBERS:
                try:
                    float(row[name]) if name.startswith("seconds") else int(row[name])
                except ValueError:
                    raise ValueError("%s line %d: %s %r is not a number"
                                     % (path, i, name, row[name][:20])) from None
            rows.append(row)
    except csv.Error as e:
        # A damaged file (a stray carriage return, an endless field) is not a results file.
        raise ValueError("%s line %d: not CSV (%s)" % (path, reader.line_num, e)) from None
    return rows


def row_key(row: dict[str, Any]) -> tuple[str, str, str, int]:
    return (str(row["size"]), str(row["side1"]), str(row["side2"]), int(row["game"]))


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's business


def run_jobs(jobs: list[Job], jobs_n: int) -> Iterator[dict[str, Any]]:
    """Rows of finished games, in completion order (a pool when jobs_n > 1)."""
    if jobs_n <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield play_job(job)
        return
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    pool = ctx.Pool(jobs_n, initializer=_worker_init)
    try:
        # Longest games first (bigger boards, deeper players) keep the cores busy to the end.
        yield from pool.imap_unordered(play_job, jobs, chunksize=1)
        pool.close()
    finally:
        pool.terminate()  # our own workers only; on Ctrl-C the games in progress are lost
        pool.join()


def play_all(jobs: list[Job], out: Path, jobs_n: int, quiet: bool = False) -> list[dict[str, Any]]:
    """Play the jobs not yet in ``out``; return every row of ``out`` afterwards. ValueError
    when ``out`` cannot be opened for appending, or another run holds it."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        f = open(out, "a", newline="", encoding="utf-8")
    except OSError as e:
        raise ValueError("cannot write %s: %s" % (out, e.strerror or e)) from None
    with f:
        lock_results(f, out)  # before reading: a half-written last line may be a live run's
        rows: list[dict[str, Any]] = []
        done: set[tuple[str, str, str, int]] = set()
        for r in read_csv(out):
            if row_key(r) not in done:  # (two runs on one file before the lock) count once
                done.add(row_key(r))
                rows.append(r)
        todo = [j for j in jobs if j.key not in done]
        todo.sort(key=lambda j: -(j.w * j.h))
        if len(todo) < len(jobs):
            print("%s: %d of %d games already played, resuming"
                  % (out, len(jobs) - len(todo), len(jobs)))
        if not todo:
            return rows
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)
        progress = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), TimeRemainingColumn(), disable=quiet)
        with progress:
            writer = csv.DictWriter(f, HEADER, lineterminator="\n")
            if out.stat().st_size == 0:
                writer.writeheader()
                f.flush()
            task = progress.add_task("games", total=len(todo))
            try:
                for row in run_jobs(todo, jobs_n):
                    writer.writerow(row)
                    f.flush()
                    rows.append({k: str(v) for k, v in row.items()})
                    progress.advance(task)
            except KeyboardInterrupt:
                progress.stop()
                print("interrupted: %d games in %s; rerun the same command to resume"
                      % (len(rows), out), file=sys.stderr)
                raise
    return rows


def lock_results(f: Any, out: Path) -> None:
    """Lock the open results file f for this run (released when f is closed): a second run
    on the same --out stops at once instead of interleaving its rows with this one's."""
    if sys.platform == "win32":  # no flock: two runs on one file remain the user's care
        return
    import fcntl

    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ValueError("%s is being written by another connectm tournament; let it finish "
                         "or use another --out" % out) from None


# ---- summaries and plots ----------------------------------------------------------------

@dataclass
class Tally:
    win: int = 0
    loss: int = 0
    draw: int = 0
    plies: int = 0
    seconds: float = 0.0

    @property
    def games(self) -> int:
        return self.win + self.loss + self.draw

    @property
    def share(self) -> float:
        """Score share of side 1: (wins + draws / 2) / games."""
        return (self.win + 0.5 * self.draw) / self.games if self.games else float("nan")


def tally(rows: list[dict[str, Any]]) -> dict[tuple[str, str, str], Tally]:
    """(size, side1, side2) -> W/L/D of side 1."""
    out: dict[tuple[str, str, str], Tally] = defaultdict(Tally)
    for r in rows:
        t = out[(str(r["size"]), str(r["side1"]), str(r["side2"]))]
        res = int(r["result"])
        if res == 1:
            t.win += 1
        elif res == 2:
            t.loss += 1
        else:
            t.draw += 1
        t.plies += int(r["plies"])
        t.seconds += float(r["seconds"])
    return dict(out)


def print_summary(rows: list[dict[str, Any]], sizes: list[str], names: list[str]) -> None:
    from rich.console import Console
    from rich.table import Table
    tab = tally(rows)
    table = Table(title="Tournament: side 1 (moves first) vs side 2, W/L/D from side 1")
    for col in ("size", "side 1", "side 2", "games", "W", "L", "D", "score 1",
                "plies", "s/game"):
        table.add_column(col, justify="left" if col.startswith(("size", "side ")) else "right")
    for size in sizes:
        for a in names:
            for b in names:
                t = tab.get((size, a, b))
                if t is None:
                    continue
                table.add_row(size, a, b, str(t.games), str(t.win), str(t.loss), str(t.draw),
                              "%.2f" % t.share, "%.1f" % (t.plies / t.games),
                              "%.2f" % (t.seconds / t.games))
    Console().print(table)


def plot_heatmaps(rows: list[dict[str, Any]], sizes: list[str], names: list[str],
                  prefix: Path, label: str = "player") -> list[Path]:
    """One heatmap per board size (side 1 down, side 2 across) and a bar chart of draws per
    size.  Returns the PNG paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    tab = tally(rows)
    paths = []
    n = len(names)
    short = [x.replace("engine:", "") if label == "depth" else x for x in names]
    for size in sizes:
        grid = np.full((n, n), np.nan)
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                t = tab.get((size, a, b))
                if t is not None and t.games:
                    grid[i, j] = t.share
        if np.isnan(grid).all():
            continue
        cell = max(0.9, 6.0 / n)
        fig, ax = plt.subplots(figsize=(1.6 + cell * n, 1.3 + cell * n))
        im = ax.imshow(grid, cmap="RdYlGn", vmin=0.0, vmax=1.0, origin="upper")
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                t = tab.get((size, a, b))
                if t is None:
                    continue
                v = grid[i, j]
                ax.text(j, i, "%.2f\n%d/%d/%d" % (v, t.win, t.loss, t.draw), ha="center",
                        va="center", fontsize=8 if n <= 6 else 6,
                        color="black" if 0.2 < v < 0.8 else "white")
        ax.set_xticks(range(n), short, rotation=30 if label != "depth" else 0, ha="right"
                      if label != "depth" else "center")
        ax.set_yticks(range(n), short)
        ax.set_xlabel("side 2 %s (moves second)" % label)
        ax.set_ylabel("side 1 %s (moves first)" % label)
        w, h, m = size.replace(":", "x").split("x")
        games = sum(t.games for k, t in tab.items() if k[0] == size)
        ax.set_title("%sx%s connect %s: score share of side 1\n(cells: share, W/L/D of side "
                     "1; %d games)" % (w, h, m, games), fontsize=10)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="side 1 score share")
        fig.tight_layout()
        path = prefix.with_name("%s_%s.png" % (prefix.name, size.replace(":", "c")))
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    # Draws per board size.
    draws, totals = [], []
    for size in sizes:
        ts = [t for k, t in tab.items() if k[0] == size]
        draws.append(sum(t.draw for t in ts))
        totals.append(sum(t.games for t in ts))
    if any(totals):
        fig, ax = plt.subplots(figsize=(1.5 + 1.2 * len(sizes), 4))
        bars = ax.bar(range(len(sizes)), draws, color="tab:blue")
        for i, bar in enumerate(bars):
            pct = 100.0 * draws[i] / totals[i] if totals[i] else 0.0
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(),
                    "%d/%d\n(%.0f%%)" % (draws[i], totals[i], pct), ha="center", va="bottom",
                    fontsize=8)
        ax.set_xticks(range(len(sizes)), [s.replace(":", " c") for s in sizes])
        ax.set_xlabel("board (W x H, connect M)")
        ax.set_ylabel("drawn games")
        ax.set_ylim(0, max(max(draws), 1) * 1.3)
        ax.set_title("Draws per board size")
        fig.tight_layout()
        path = prefix.with_name(prefix.name + "_draws.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


def level_stats(rows: list[dict[str, Any]],
                baselines: list[str]) -> dict[tuple[str, str, str], list[float]]:
    """(size, level, baseline) -> [wins, draws, losses, seconds, moves] of the level, both
    colours."""
    acc: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0, 0, 0, 0.0, 0])
    for r in rows:
        for side, other, sec, mv in (("side1", "side2", "seconds1", "moves1"),
                                     ("side2", "side1", "seconds2", "moves2")):
            if not r[side].startswith(("level:", "pico:")) or r[other] not in baselines:
                continue
            a = acc[(r["size"], r[side], r[other])]
            res = int(r["result"])
            me = 1 if side == "side1" else 2
            a[0 if res == me else 1 if res == 3 else 2] += 1
            a[3] += float(r[sec])
            a[4] += int(r[mv])
    return acc


def level_report(rows: list[dict[str, Any]], sizes: list[str], baselines: list[str]) -> str:
    """Per level, size and baseline: W/D/L share of the level (both colours) and its mean
    ms per move.  Plain text, one line each (also for the cmlevels.py comment)."""
    acc = level_stats(rows, baselines)
    lines = ["%-7s %-8s %-8s %5s %5s %5s %5s %9s" % ("size", "level", "vs", "games", "W%",
                                                     "D%", "L%", "ms/move")]
    levels = sorted({k[1] for k in acc}, key=lambda s: int(s.split(":")[1]))
    for size in sizes:
        for lv in levels:
            for base in baselines:
                if (size, lv, base) not in acc:
                    continue
                a = acc[(size, lv, base)]
                g = a[0] + a[1] + a[2]
                lines.append("%-7s %-8s %-8s %5d %5.0f %5.0f %5.0f %9.1f" % (
                    size, lv, base, g, 100 * a[0] / g, 100 * a[1] / g, 100 * a[2] / g,
                    1000 * a[3] / max(a[4], 1)))
    lines.append("%-7s %-8s %s" % ("size", "level", "points (win 1, draw 1/2) of games"))
    for size in sizes:
        for lv in levels:
            got = [acc[k] for k in acc if k[0] == size and k[1] == lv]
            if got:
                lines.append("%-7s %-8s %g of %d" % (size, lv, sum(a[0] + a[1] / 2 for a in got),
                                                    sum(a[0] + a[1] + a[2] for a in got)))
    return "\n".join(lines)


def plot_levels(rows: list[dict[str, Any]], sizes: list[str], baselines: list[str],
                path: Path, kept: list[dict[str, Any]] | None = None) -> Path | None:
    """One panel per board size: each level's score share (wins + draws/2, both colours)
    against each baseline, and with ``kept`` (connectm.keeping rows) its share of
    value-keeping moves.  None when no level played."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    acc = level_stats(rows, baselines)
    levels = sorted({k[1] for k in acc}, key=lambda s: int(s.split(":")[1]))
    shown = [s for s in sizes if any(k[0] == s for k in acc)]
    if not levels or not shown:
        return None
    fig, axes = plt.subplots(1, len(shown), figsize=(1.5 + 4.5 * len(shown), 4),
                             squeeze=False)
    xs = [int(lv.split(":")[1]) for lv in levels]
    for ax, size in zip(axes[0], shown):
        for base in baselines:
            pts = [(x, acc[(size, lv, base)]) for x, lv in zip(xs, levels)
                   if (size, lv, base) in acc]
            if pts:
                ax.plot([x for x, _ in pts],
                        [(a[0] + a[1] / 2) / (a[0] + a[1] + a[2]) for _, a in pts], "o-",
                        label="vs " + base)
        share = [r for r in kept or () if r["size"] == size and str(r["level"]).isdigit()]
        if share:
            ax.plot([int(r["level"]) for r in share], [float(r["share"]) for r in share],
                    "k--s", label="value-keeping moves (%s positions)" % share[0]["positions"])
        w, h, m = size.replace(":", "x").split("x")
        ax.set_title("%sx%s connect %s" % (w, h, m), fontsize=10)
        ax.set_xlabel("level")
        ax.set_xticks(xs)
        ax.set_ylabel("score share (win 1, draw 1/2); moves' share")
        ax.set_ylim(-0.05, 1.05)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Levels against the baselines (%d games)" % len(rows))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)
