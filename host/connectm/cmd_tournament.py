"""``connectm tournament``: computer vs computer over a grid of board sizes and players.

    connectm tournament --sizes 3x3:3,4x4:3,5x4:4,7x6:4 --depths 1-4 --games 4
    connectm tournament --players engine:2,greedy,random,mc:100 --sizes 7x6:4
    connectm tournament --levels --games 4          # cmlevels.LEVELS vs the baselines
    connectm tournament --levels --sizes 5x4:4 --share 500   # ... and value-keeping moves

Every game goes to the CSV (--out) as it ends; rerunning the same command resumes. One run
at a time writes a CSV: a second run on it stops with an error.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from connectm import keeping, levels
from connectm import tournament as T


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "tournament", help="computer vs computer over board sizes and players",
        description="Play every ordered pair of players (both colours) on every board size, "
        "--games games each; write a CSV of every game, a summary table and PNG plots.")
    p.add_argument("--sizes", default="3x3:3,4x4:3,5x4:4,7x6:4",
                   help="board sizes WxH:M, comma-separated (default %(default)s)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--depths", default=None,
                     help="engine depths for each side, e.g. 1-4 or 1,2,4 (default 1-4)")
    who.add_argument("--players", default=None,
                     help="players, e.g. engine:2,engine:4:500,level:3,greedy,random,mc:200,"
                     "perfect")
    who.add_argument("--levels", action="store_true",
                     help="each level of cmlevels.LEVELS against --baselines, both colours "
                     "(sizes default to %s)" % T.LEVEL_SIZES)
    p.add_argument("--pico", action="store_true",
                   help="with --levels: the levels as a Pico plays them (pico:L: its table, "
                   "levels 3 to 5 to cmhw.tabled's depths and nodes)")
    p.add_argument("--baselines", default=",".join(T.BASELINES),
                   help="opponents for --levels (default %(default)s)")
    p.add_argument("--share", type=int, default=0, metavar="N",
                   help="with --levels: each level's share of value-keeping moves over N "
                   "seeded positions a size (connectm.keeping), to <prefix>_share.csv")
    p.add_argument("--share-from", type=int, default=0, metavar="PLY",
                   help="--share's positions have at least PLY discs down (default 0)")
    p.add_argument("--share-nodes", type=int, default=0, metavar="NODES",
                   help="--share keeps positions whose moves' exact solves take at most "
                   "NODES solver nodes each (default 0: no limit)")
    p.add_argument("--games", type=int, default=4, help="games per cell (default 4)")
    p.add_argument("--seed", type=int, default=1,
                   help="base seed: game seeds, seeded ties and openings derive from it")
    p.add_argument("--opening", type=int, default=0, metavar="PLIES",
                   help="random opening plies before the players take over (default 0)")
    p.add_argument("--safe-opening", action="store_true",
                   help="the opening's random moves let no side win at its next move (where "
                   "another move does not): late openings not decided at once")
    p.add_argument("--fair-opening", type=int, default=0, metavar="PLIES",
                   help="the opening's random moves leave no side a win it can force within "
                   "PLIES plies (where another move does not; the exact solver, bounded): "
                   "openings the players decide, not the dice (default 0: off)")
    p.add_argument("--jobs", type=int, default=T.default_jobs(),
                   help="worker processes (default: every core, %(default)s)")
    p.add_argument("--out", default="tournament.csv",
                   help="results CSV, appended to and resumed; one run at a time "
                        "(default %(default)s)")
    p.add_argument("--plots", default=None,
                   help="PNG prefix (default: the CSV path without .csv)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--quiet", action="store_true", help="no progress bar or table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise ValueError("--games must be >= 1")
    if args.jobs < 1:
        raise ValueError("--jobs must be >= 1")
    if args.opening < 0 or args.fair_opening < 0:
        raise ValueError("--opening and --fair-opening must be >= 0")
    if min(args.share, args.share_from, args.share_nodes) < 0:
        raise ValueError("--share, --share-from and --share-nodes must be >= 0")
    if args.share and not args.levels:
        raise ValueError("--share needs --levels")
    if args.pico and not args.levels:
        raise ValueError("--pico needs --levels")
    sizes_text = args.sizes
    if args.levels and sizes_text == "3x3:3,4x4:3,5x4:4,7x6:4":
        sizes_text = T.LEVEL_SIZES
    sizes = T.parse_sizes(sizes_text)
    label = "player"
    if args.levels:
        baselines = T.parse_players(args.baselines)
        pairs = T.level_pairs(baselines, "pico" if args.pico else "level")
        names = list(dict.fromkeys([a for a, _ in pairs]))
    else:
        if args.players:
            names = T.parse_players(args.players)
        else:
            names = ["engine:%d" % d for d in T.parse_depths(args.depths or "1-4")]
            label = "depth"
        pairs = T.all_pairs(names)
    out = Path(args.out)
    jobs = T.make_jobs(sizes, pairs, args.games, args.seed, args.opening, args.safe_opening,
                       args.fair_opening, paired=args.levels)
    try:
        rows = T.play_all(jobs, out, args.jobs, quiet=args.quiet)
    except KeyboardInterrupt:
        return 130
    wanted = {j.key for j in jobs}
    rows = [r for r in rows if T.row_key(r) in wanted]
    size_names = [T.size_name(*s) for s in sizes]
    prefix = Path(args.plots) if args.plots else out.with_suffix("")
    kept: list[dict] = []
    if args.levels:
        print(T.level_report(rows, size_names, baselines))
        if args.share:
            kept = shares(sizes, args)
            path = prefix.with_name(prefix.name + "_share.csv")
            keeping.write_csv(kept, path)
            print(keeping.report(kept))
            print("wrote %s" % path)
    elif not args.quiet:
        T.print_summary(rows, size_names, names)
    if args.no_plots:
        print("no plots (--no-plots)")
    elif args.levels:
        png = T.plot_levels(rows, size_names, baselines,
                            prefix.with_name(prefix.name + "_levels.png"), kept)
        print("wrote %s" % png if png else "no plot: no level played a baseline")
    else:
        for path in T.plot_heatmaps(rows, size_names, names, prefix, label):
            print("wrote", path)
    print("%d games in %s" % (len(rows), out))
    return 0


def shares(sizes: list[tuple[int, int, int]], args: argparse.Namespace) -> list[dict]:
    """--share: the levels' value-keeping rows of every size, with the sample's settings."""
    rows = []
    for w, h, m in sizes:
        sample = keeping.sample(w, h, m, args.share, args.seed, args.share_from,
                                args.share_nodes)
        for r in keeping.shares(w, h, m, sample, levels.PICO_TABLE if args.pico else 0):
            rows.append(dict(r, seed=args.seed, from_ply=args.share_from,
                             max_nodes=args.share_nodes))
    return rows
