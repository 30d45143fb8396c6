# cmlevels: the difficulty levels, easiest first, 3 numbers each: depth, nodes, book plies
# (one flat tuple: a tuple per level would cost a micro:bit ~100 B of RAM). A level's move
# is a function of the position alone (cmgame.cpu): its opening book while fewer than
# `book plies` discs are down (a board size without a book file: none), then a search to
# `depth` that keeps the last iteration done within `nodes` (0: no node limit). No wall
# clock: the host's `connectm move` gives the device's move. The top level reads the whole
# book: on 5x4 it keeps every position's exact value (`connectm prove`). Each level below is
# a measured step on 5x4 (more points, more draws against perfect play, more value-keeping
# moves than the one below: docs/levels.md, `connectm tournament --levels --share`).
LEVELS = (1, 0, 0,  2, 0, 8,  4, 256, 8,  8, 640, 12,  8, 1024, 99)
