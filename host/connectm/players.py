"""Computer players for analysis: the engine and simple baselines behind one interface.

Every player has ``name`` and ``choose(board) -> column`` (0-based, a legal move of a game
that is not over).  Players with randomness draw from an RNG keyed by (seed, moves so far),
so a player's move depends only on its seed and the position: games replay exactly, in any
process and in any order.

Specs for the command line (``parse_spec`` / ``make_player``)::

    engine:D        Search to depth D (no time limit)       engine:D:MS  ... and MS ms
    level:L         the game's level L (1-based), as the     perfect      cmsolve (small boards;
                    device plays it (cmgame.cpu, its book)               7x6: bitbully)
    random          uniform legal move                      greedy       win, block, centre
    mc:N            Monte-Carlo, N random playouts per legal move
    pico[:L]        level L (default: the top) as a Pico plays it: its table (PICO_TABLE
                    bytes), levels 3 to 5 to cmhw.tabled's depths and nodes
    pico-search[:L] pico without its 7x6 opening book (firmware/7x6c4.bin): its search alone
    picobook:P      pico with a perfect 7x6 book before ply P (needs bitbully: BookDepth)
    wasp[:D]        the wasp-os watch's AI, easyai[:D] easyAI's Negamax (connectm.rivals)
    SPEC@K          SPEC with its moves before ply K random (seeded): varied openings made
                    by this player alone, so that the other one meets them as a device
                    meets a human's (from its own book, not from the dice's moves)
"""

from __future__ import annotations

import random
import time
from typing import Any, Protocol

from connectm import book, exact7x6, fw, levels

fw.load()

import cmboard  # noqa: E402
import cmmoves  # noqa: E402
import cmsearch  # noqa: E402

Board = Any  # cmboard.Board (firmware: untyped)
TT_BYTES = 1 << 16


class Player(Protocol):
    name: str

    def choose(self, board: Board) -> int: ...


legal = book.legal  # the legal columns, left to right


def _rng(seed: int, board: Board, salt: str) -> random.Random:
    # str seeds are hashed with SHA-512: stable across processes (unlike hash()).
    return random.Random("%s:%d:%s" % (salt, seed, cmmoves.moves(board)))


def wins_now(board: Board, col: int, player: int) -> bool:
    """Would ``player`` complete a line by dropping a disc in ``col`` (a legal column)?

    Reads only ``cells`` and ``heights``: independent of the firmware's window tables."""
    w, h, m, cells = board.w, board.h, board.m, board.cells
    row = board.heights[col]
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sgn in (1, -1):
            c, r = col + sgn * dc, row + sgn * dr
            while 0 <= c < w and 0 <= r < h and cells[c * h + r] == player:
                run += 1
                c, r = c + sgn * dc, r + sgn * dr
        if run >= m:
            return True
    return False


class Engine:
    """cmsearch.Search to ``depth`` plies (and ``ms`` milliseconds when > 0).

    seed > 0 picks at random among equally scored root moves (Search's seeded ties), with a
    fresh search seed per position.
    """

    def __init__(self, depth: int, ms: int = 0, seed: int = 0, tt_bytes: int = TT_BYTES,
                 name: str = "") -> None:
        if depth < 1:
            raise ValueError("engine depth must be >= 1, not %d" % depth)
        self.depth, self.ms, self.seed, self.tt_bytes = depth, ms, seed, tt_bytes
        self.name = name or ("engine:%d" % depth + (":%d" % ms if ms else ""))
        self.last: Any = None  # the last Search (score, depth, nodes)

    def choose(self, board: Board) -> int:
        s = cmsearch.Search(board, self.tt_bytes)
        seed = _rng(self.seed, board, "engine").randrange(1, 65536) if self.seed else 0
        col = s.go(self.depth, max_ms=self.ms, seed=seed)
        self.last = s
        return int(col)


class Level:
    """A level of the game as the device plays it: cmgame.cpu() (its opening book where the
    board size has one, then its node-limited search), through connectm.book.Player. The
    move is a function of the position: the seed plays no part."""

    def __init__(self, level: int, name: str = "", table: int = 0,
                 seek_file: Any = None) -> None:
        self.level, self.table = level, table  # table: the board's (book.Player)
        self.seek_file = seek_file  # the binary book (None: the project's; book.NO_BOOK: none)
        self.name = name or "level:%d" % (level + 1)
        self.players: dict[tuple[int, int, int], Any] = {}

    def choose(self, board: Board) -> int:
        size = (board.w, board.h, board.m)
        if size not in self.players:
            self.players[size] = book.Player(*size, self.level, table=self.table,
                                             seek_file=self.seek_file)
        p = self.players[size]
        p.board.reset()
        for i in range(board.n):
            p.board.play(board.hist[i])
        return p.move()


class RandomPlayer:
    """A uniformly random legal move."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.name = "random"

    def choose(self, board: Board) -> int:
        return _rng(self.seed, board, "random").choice(legal(board))


class Greedy:
    """Wins at once if it can, else blocks the opponent's win in one, else the most central
    legal column (the board's centre-out order)."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed  # deterministic: the seed is ignored

    def choose(self, board: Board) -> int:
        me = 1 + (board.n & 1)
        cols = [c for c in board.order if board.can_play(c)]
        for c in cols:
            if wins_now(board, c, me):
                return c
        for c in cols:
            if wins_now(board, c, 3 - me):
                return c
        return cols[0]


def playout(board: Board, rng: random.Random) -> int:
    """Random moves to the end of the game; returns over() and restores the board."""
    played = 0
    w, h, heights = board.w, board.h, board.heights
    while not board.over():
        c = rng.randrange(w)
        while heights[c] >= h:
            c = rng.randrange(w)
        board.play(c)
        played += 1
    result = int(board.over())
    for _ in range(played):
        board.undo()
    return result


class MonteCarlo:
    """``playouts`` random games after each legal move; the best score share wins (win 1,
    draw 1/2), ties to the more central column.  A winning move is taken at once."""

    def __init__(self, playouts: int = 200, seed: int = 0) -> None:
        if playouts < 1:
            raise ValueError("mc playouts must be >= 1, not %d" % playouts)
        self.playouts, self.seed = playouts, seed
        self.name = "mc:%d" % playouts

    def choose(self, board: Board) -> int:
        me = 1 + (board.n & 1)
        rng = _rng(self.seed, board, "mc")
        best, best_col = -1.0, -1
        for c in board.order:
            if not board.can_play(c):
                continue
            if wins_now(board, c, me):
                return c
            board.play(c)
            total = 0
            for _ in range(self.playouts):
                r = playout(board, rng)
                total += 2 if r == me else 1 if r == 3 else 0
            board.undo()
            share = total / (2.0 * self.playouts)
            if share > best:
                best, best_col = share, c
        return best_col


class Perfect:
    """Exact play: a seeded random choice among the moves that keep the game-theoretic
    score, from cmsolve.Solver (only cheap on small boards or late positions), or on 7x6
    connect 4 from bitbully where it is installed (connectm.exact7x6: the same scores)."""

    name = "perfect"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.exact: Any = None

    def choose(self, board: Board) -> int:
        if (board.w, board.h, board.m) == exact7x6.SIZE and exact7x6.available():
            scores = exact7x6.scores(board)
        else:
            if self.exact is None or self.exact.board is not board:
                self.exact = book.Exact(board)  # each move's exact score, memoised per game
            scores = self.exact.scores()
        return _rng(self.seed, board, "perfect").choice(book.best_columns(board.order, scores))


class BookDepth:
    """What a perfect 7x6 opening book before ply P would add to the Pico's top level
    (``picobook:P``, an analysis player): before ply P, where the top level's move drops
    the exact value (connectm.exact7x6), the first value-keeping column in centre-out
    order; from ply P on, the top level's own move. ``booked`` collects the positions
    (move strings) such a book would need."""

    def __init__(self, plies: int, name: str = "") -> None:
        if not exact7x6.available():
            raise ValueError("picobook: needs bitbully (pip install bitbully, or the test "
                             "extras)")
        self.plies, self.name = plies, name or "picobook:%d" % plies
        self.pico = Level(levels.count() - 1, table=levels.PICO_TABLE)
        self.booked: set[str] = set()

    def choose(self, board: Board) -> int:
        col = self.pico.choose(board)
        if board.n >= self.plies:
            return col
        best = book.best_columns(board.order, exact7x6.scores(board))
        if col in best:
            return col
        self.booked.add(cmmoves.moves(board))
        return best[0]


class RandomStart:
    """``SPEC@K``: another player whose moves before ply K are seeded random legal ones."""

    def __init__(self, player: Player, plies: int, seed: int, name: str) -> None:
        self.player, self.plies, self.seed, self.name = player, plies, seed, name

    def choose(self, board: Board) -> int:
        if board.n < self.plies:
            return _rng(self.seed, board, "start").choice(legal(board))
        return self.player.choose(board)


KINDS = ("engine", "level", "random", "greedy", "mc", "perfect", "pico", "pico-search",
         "picobook", "wasp", "easyai")


def parse_spec(spec: str) -> tuple[str, list[int]]:
    """Check a player spec (see the module doc); returns (kind, integer arguments)."""
    parts = split_start(spec)[0].strip().lower().split(":")
    kind = parts[0]
    try:
        nums = [int(x) for x in parts[1:]]
    except ValueError:
        raise ValueError("bad player %r: arguments must be integers" % spec) from None
    nargs = {"engine": (1, 2), "level": (1, 1), "mc": (0, 1), "random": (0, 0),
             "greedy": (0, 0), "perfect": (0, 0), "pico": (0, 1), "pico-search": (0, 1),
             "picobook": (1, 1),
             "wasp": (0, 1), "easyai": (0, 1)}
    if kind not in nargs:
        raise ValueError("bad player %r: expected one of engine:D[:MS], level:L, random, "
                         "greedy, mc[:N], perfect, pico[:L], pico-search[:L], picobook:P, "
                         "wasp[:D], easyai[:D]" % spec)
    lo, hi = nargs[kind]
    if not lo <= len(nums) <= hi:
        raise ValueError("bad player %r: %s takes %d to %d ':' arguments" % (spec, kind, lo, hi))
    if kind == "engine" and (nums[0] < 1 or len(nums) > 1 and nums[1] < 0):
        raise ValueError("bad player %r: depth must be >= 1, ms >= 0" % spec)
    if kind in ("level", "pico", "pico-search") and nums and not 1 <= nums[0] <= levels.count():
        raise ValueError("bad player %r: levels are 1..%d" % (spec, levels.count()))
    if kind == "picobook" and nums[0] < 0:
        raise ValueError("bad player %r: the book's plies must be >= 0" % spec)
    if kind == "mc" and nums and nums[0] < 1:
        raise ValueError("bad player %r: playouts must be >= 1" % spec)
    if kind == "wasp" and nums and not 1 <= nums[0] <= 7:
        raise ValueError("bad player %r: the watch's depths are 1..7" % spec)
    if kind == "easyai" and nums and nums[0] < 1:
        raise ValueError("bad player %r: depth must be >= 1" % spec)
    return kind, nums


def split_start(spec: str) -> tuple[str, int]:
    """(the spec before ``@K``, K: its random plies; 0 without ``@``)."""
    base, at, plies = spec.partition("@")
    if not at:
        return spec, 0
    try:
        k = int(plies)
    except ValueError:
        k = -1
    if k < 1:
        raise ValueError("bad player %r: @K takes a number of plies >= 1" % spec)
    return base, k


def canonical(spec: str) -> str:
    """The spec in normal form (lower case, no spaces): the name used in CSVs and plots."""
    kind, nums = parse_spec(spec)
    plies = split_start(spec)[1]
    return ":".join([kind] + [str(x) for x in nums]) + ("@%d" % plies if plies else "")


def make_player(spec: str, seed: int = 0) -> Player:
    """A player from a spec such as ``engine:4``, ``level:2``, ``random``, ``mc:200``."""
    base, plies = split_start(spec)
    if plies:
        return RandomStart(make_player(base, seed), plies, seed, canonical(spec))
    kind, nums = parse_spec(spec)
    name = canonical(spec)
    if kind == "engine":
        return Engine(nums[0], nums[1] if len(nums) > 1 else 0, seed=seed, name=name)
    if kind == "level":
        return Level(nums[0] - 1, name)
    if kind == "random":
        return RandomPlayer(seed)
    if kind == "greedy":
        return Greedy(seed)
    if kind == "mc":
        p = MonteCarlo(nums[0] if nums else 200, seed)
        p.name = name
        return p
    if kind == "pico":
        return Level(nums[0] - 1 if nums else levels.count() - 1, name, table=levels.PICO_TABLE)
    if kind == "pico-search":
        return Level(nums[0] - 1 if nums else levels.count() - 1, name, table=levels.PICO_TABLE,
                     seek_file=book.NO_BOOK)
    if kind == "picobook":
        return BookDepth(nums[0], name)
    if kind in ("wasp", "easyai"):
        from connectm import rivals

        r: Player = (rivals.Wasp(nums[0] if nums else 7, seed) if kind == "wasp"
                     else rivals.EasyAI(nums[0] if nums else 6, seed))
        r.name = name
        return r
    return Perfect(seed)


def play_game(w: int, h: int, m: int, first: Player, second: Player, opening: str = ""
              ) -> tuple[int, str, list[float]]:
    """Play one game from ``opening`` (1-based column digits, played for both sides).

    Returns (result: 1 or 2 winner, 3 draw; all moves as digits; seconds spent by side 1
    and side 2 choosing their moves).
    """
    b = cmboard.Board(w, h, m)
    cmmoves.play_moves(b, opening)
    players = (first, second)
    spent = [0.0, 0.0]
    while not b.over():
        side = b.n & 1
        t0 = time.perf_counter()
        col = players[side].choose(b)
        spent[side] += time.perf_counter() - t0
        if not b.can_play(col):
            raise RuntimeError("%s chose illegal column %r after %r"
                               % (players[side].name, col, cmmoves.moves(b)))
        b.play(col)
    return int(b.over()), cmmoves.moves(b), spent
