"""``connectm bench --study``: how much each part of the search saves, in nodes.

On fixed positions, count the nodes (moves tried, leaves included: cmsearch's count) at
depths 1..N of four searches with the engine's leaf evaluation:

    minimax      plain negamax, every move (the reference, recursive: host code)
    ab-left      alpha-beta, columns left to right
    ab-centre    alpha-beta, the board's centre-out order
    engine       cmsearch.Search: iterative deepening 1..d + TT + best move first

and fit nodes = a * b**depth (least squares on log nodes) for the effective branching
factor b.  Also each variant's nodes per second (CPython): the three host variants call
Board.play/undo for every move, the engine makes and unmakes moves inline in one loop and
scores the last ply from its parent, so the rates show what that inlining buys per node.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from connectm import fw

fw.load()

import cmboard  # noqa: E402
import cmmoves  # noqa: E402
import cmsearch  # noqa: E402

Board = Any
INF = 1 << 29
WIN = cmboard.WIN
VARIANTS = ("minimax", "ab-left", "ab-centre", "engine")
TESTSET = "Test_L2_R1"
TT_BYTES = 1 << 18


@dataclass
class Position:
    name: str
    w: int
    h: int
    m: int
    moves: str

    def board(self, keys: int = 1) -> Board:
        b = cmboard.Board(self.w, self.h, self.m, keys)
        cmmoves.play_moves(b, self.moves)
        return b


@dataclass
class Result:
    position: str
    variant: str
    depth: int
    nodes: int
    score: int
    seconds: float


@dataclass
class Fit:
    a: float
    b: float
    points: int = 0
    extra: dict[str, float] = field(default_factory=dict)


def negamax(b: Board, depth: int, alpha: int, beta: int, order: list[int], prune: bool,
            count: list[int]) -> int:
    """Score for the side to move of a position that is not over, ``depth`` >= 1 plies deep,
    exactly as cmsearch scores it (the heuristic after the last ply, wins by disc count).  With
    ``prune`` fail-hard alpha-beta inside (alpha, beta); count[0] += moves tried."""
    best = -INF
    size, h = b.size, b.h
    for col in order:
        if b.heights[col] >= h:
            continue
        count[0] += 1
        b.play(col)
        if b.won:
            s = WIN * ((size + 2 - b.n) // 2)
        elif b.n == size:
            s = 0
        elif depth == 1:
            s = b.score if b.n & 1 else -b.score  # the heuristic, for the mover
        else:
            s = -negamax(b, depth - 1, -beta, -alpha, order, prune, count)
        b.undo()
        if s > best:
            best = s
            if prune and s > alpha:
                alpha = s
                if s >= beta:
                    break
    return best


def search_variant(b: Board, variant: str, depth: int) -> tuple[int, int]:
    """(nodes, score) of one variant at one depth from the position."""
    if variant == "engine":
        s = cmsearch.Search(b, TT_BYTES)
        s.go(depth)
        return int(s.nodes), int(s.score)
    order = list(b.order) if variant == "ab-centre" else list(range(b.w))
    count = [0]
    score = negamax(b, depth, -INF, INF, order, variant != "minimax", count)
    return count[0], score


def positions(testset: Path | None, n_testset: int = 2) -> list[Position]:
    """Empty 5x4 c4, empty 7x6 c4 and the first ``n_testset`` positions of the test set
    (read now: ``<moves> <score>`` a line, 7x6 connect 4)."""
    out = [Position("5x4 empty", 5, 4, 4, ""), Position("7x6 empty", 7, 6, 4, "")]
    if testset is None:
        return out
    if not testset.is_file():
        print("study: %s not found: the mid-game positions are left out" % testset)
        return out
    for line in testset.read_text().splitlines():
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(out) - 2 >= n_testset:
            break
        k = len(out) - 1
        print("study: position %s#%d = %s (%d plies, exact score %s)"
              % (testset.name, k, parts[0], len(parts[0]), parts[1] if len(parts) > 1 else "?"))
        out.append(Position("7x6 %s#%d" % (testset.stem.replace("Test_", ""), k), 7, 6, 4,
                            parts[0]))
    return out


def default_testset() -> Path:
    """Pons' middle-game set beside the project ($CONNECTM_TESTSETS or ../shared/testsets),
    else the late 7x6 positions that ship in tests/data/."""
    import os

    root = fw.firmware_dir().parent
    env = os.environ.get("CONNECTM_TESTSETS")
    path = (Path(env) if env else root.parent / "shared" / "testsets") / TESTSET
    return path if path.is_file() else root / "tests" / "data" / "7x6c4_late.txt"


def measure(pos: Position, variants: list[str], max_depth: int, limit_s: float,
            log: Callable[[str], None] = print) -> list[Result]:
    """Every variant from depth 1 up; a variant stops deepening once one depth took more
    than ``limit_s`` seconds (the next would take b times longer)."""
    out = []
    b = pos.board()
    for v in variants:
        for d in range(1, min(max_depth, b.size - b.n) + 1):
            t0 = time.perf_counter()
            nodes, score = search_variant(b, v, d)
            dt = time.perf_counter() - t0
            out.append(Result(pos.name, v, d, nodes, score, dt))
            log("  %-22s %-9s depth %2d  %10d nodes  %7.2fs  score %d"
                % (pos.name, v, d, nodes, dt, score))
            if dt > limit_s:
                break
    return out


def fit(results: list[Result], min_depth: int = 2) -> Fit:
    """nodes = a * b**depth: least squares of log(nodes) on depth (depths >= min_depth when
    there are at least two, the first ply being all leaves)."""
    pts = [(r.depth, math.log(r.nodes)) for r in results if r.nodes > 0]
    if len([p for p in pts if p[0] >= min_depth]) >= 2:
        pts = [p for p in pts if p[0] >= min_depth]
    if len(pts) < 2:
        return Fit(float("nan"), float("nan"), len(pts))
    n = len(pts)
    mx = sum(p[0] for p in pts) / n
    my = sum(p[1] for p in pts) / n
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    sxy = sum((p[0] - mx) * (p[1] - my) for p in pts)
    slope = sxy / sxx
    return Fit(math.exp(my - slope * mx), math.exp(slope), n)


def speeds(results: list[Result], position: str) -> dict[str, float]:
    """variant -> nodes per second over every depth it searched from the position (nan
    when it searched none)."""
    out = {}
    for v in VARIANTS:
        rs = [r for r in results if r.position == position and r.variant == v]
        secs = sum(r.seconds for r in rs)
        out[v] = sum(r.nodes for r in rs) / secs if secs else float("nan")
    return out


def plot(results: list[Result], fits: dict[tuple[str, str], Fit], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(r.position for r in results))
    cols = min(2, len(names))
    rows_n = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(6 * cols, 4.2 * rows_n), squeeze=False)
    colors = dict(zip(VARIANTS, ("tab:red", "tab:orange", "tab:blue", "tab:green")))
    for k, name in enumerate(names):
        ax = axes[k // cols][k % cols]
        for v in VARIANTS:
            rs = [r for r in results if r.position == name and r.variant == v]
            if not rs:
                continue
            f = fits.get((name, v))
            lab = v + (" (b=%.2f)" % f.b if f and not math.isnan(f.b) else "")
            ax.plot([r.depth for r in rs], [r.nodes for r in rs], "o-", label=lab,
                    color=colors[v])
        ax.set_yscale("log")
        ax.set_xlabel("depth (plies)")
        ax.set_ylabel("nodes")
        ax.set_title(name if len(name) < 40 else name[:37] + "...", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    for k in range(len(names), rows_n * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle("Nodes per depth: minimax vs alpha-beta vs engine (log scale)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("--study (node counts of minimax, alpha-beta and the engine)")
    g.add_argument("--study", action="store_true",
                   help="run the search study instead of the benchmark")
    g.add_argument("--study-depth", type=int, default=7,
                   help="deepest depth (default %(default)s)")
    g.add_argument("--study-limit", type=float, default=3.0, metavar="SECONDS",
                   help="stop deepening a variant after a depth that took longer (default "
                   "%(default)s)")
    g.add_argument("--study-testset", default=None,
                   help="test set for the mid-game positions (default ../shared/testsets/"
                   + TESTSET + ", else tests/data/7x6c4_late.txt)")
    g.add_argument("--study-png", default="study.png", help="plot (default %(default)s)")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    if args.study_depth < 1:
        raise ValueError("--study-depth must be >= 1")
    testset = Path(args.study_testset) if args.study_testset else default_testset()
    pos_list = positions(testset)
    results: list[Result] = []
    for pos in pos_list:
        results += measure(pos, list(VARIANTS), args.study_depth, args.study_limit)
    fits = {}
    table = Table(title="Nodes at the deepest depth every variant reached")
    btab = Table(title="Effective branching factor b (nodes = a * b^depth, depths >= 2)")
    for t in (table, btab):
        t.add_column("position")
        t.add_column("depth" if t is table else "depths", justify="right")
        for v in VARIANTS:
            t.add_column(v, justify="right")
    for pos in pos_list:
        mine = [r for r in results if r.position == pos.name]
        d = min(max((r.depth for r in mine if r.variant == v), default=0) for v in VARIANTS)
        counts = []
        for v in VARIANTS:
            fits[(pos.name, v)] = fit([r for r in mine if r.variant == v])
            counts.append(str(next((r.nodes for r in mine if r.variant == v and r.depth == d),
                                   "-")))
        table.add_row(pos.name, str(d), *counts)
        btab.add_row(pos.name, "1-%d" % max(r.depth for r in mine),
                     *["%.2f" % fits[(pos.name, v)].b for v in VARIANTS])
    con = Console()
    con.print(table)
    con.print(btab)
    ptab = Table(title="Speed (CPython): nodes per second over the depths each variant "
                 "searched")
    ptab.add_column("position")
    for v in VARIANTS:
        ptab.add_column(v, justify="right")
    ptab.add_column("engine / minimax", justify="right")
    for pos in pos_list:
        sp = speeds(results, pos.name)
        ptab.add_row(pos.name, *["%.0f" % sp[v] for v in VARIANTS],
                     "%.1fx" % (sp["engine"] / sp["minimax"]) if sp["minimax"] else "-")
    con.print(ptab)
    con.print("minimax, ab-left and ab-centre are recursive host code that calls Board.play "
              "and Board.undo for every move; the engine (cmsearch) makes and unmakes moves "
              "inline and scores the last ply from its parent without playing it. Its extra "
              "work per node (transposition table, move ordering) is in its rate too.")
    plot(results, fits, Path(args.study_png))
    print("wrote", args.study_png)
    return 0
