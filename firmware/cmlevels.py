# cmlevels: difficulty levels as search limits, (depth, milliseconds), easiest first.
# The time budget keeps the display alive on slow boards; the depth caps strength.
LEVELS = ((1, 300), (2, 500), (4, 1000), (6, 2000), (8, 3000))
