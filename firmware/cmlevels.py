# Levels measured on CPython (host, 2 cores), not on the micro:bit: there the ms budget
# binds long before the depth does, here the depth binds (ms/move below is CPython time).
#   connectm tournament --levels --games 4 --out levels.csv --jobs 2
# (each level vs random, greedy, mc:200; both colours, 8 games a line; 240 games, 59 s)
# W/D/L % of the level, ms per level move:
#   5x4 c4 L1: random 100/0/0, greedy 25/75/0, mc:200 0/12/88; 0.1 ms
#   5x4 c4 L2: random 75/25/0, greedy 50/0/50, mc:200 0/38/62; 0.1 ms
#   5x4 c4 L3: random 100/0/0, greedy 50/25/25, mc:200 38/12/50; 0.8 ms
#   5x4 c4 L4: random 100/0/0, greedy 75/25/0, mc:200 25/75/0; 8.8 ms
#   5x4 c4 L5: random 100/0/0, greedy 12/88/0, mc:200 25/38/38; 33.0 ms
#   7x6 c4 L1: random 100/0/0, greedy 50/0/50, mc:200 25/0/75; 0.1 ms
#   7x6 c4 L2: random 100/0/0, greedy 50/50/0, mc:200 62/0/38; 0.1 ms
#   7x6 c4 L3: random 100/0/0, greedy 100/0/0, mc:200 62/0/38; 2.1 ms
#   7x6 c4 L4: random 100/0/0, greedy 100/0/0, mc:200 75/0/25; 16.0 ms
#   7x6 c4 L5: random 100/0/0, greedy 100/0/0, mc:200 100/0/0; 100.3 ms
# LEVELS unchanged: on 7x6 c4 the score against mc:200 rises with the level (25, 62, 62,
# 75, 100% won). On 5x4 c4 (a draw with perfect play) level 5 still loses 3 of 8 to mc:200:
# the losses come from zugzwang endgames decided on the last disc, beyond depth 8 (checked
# with cmsolve: in the 3 games checked, the losing move turned exact 0 into -1 by ply 10).
# cmlevels: difficulty levels as search limits, (depth, milliseconds), easiest first.
# The time budget keeps the display alive on slow boards; the depth caps strength.
LEVELS = ((1, 300), (2, 500), (4, 1000), (6, 2000), (8, 3000))
