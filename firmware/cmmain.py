# cmmain: the boot. main.py runs this file one top-level statement at a time, each
# compiled alone and freed once run: a micro:bit v1 compiles source into a 10 KB heap, and
# the parse of a whole boot module would not fit next to the game. So: top-level
# statements only, a new one at each unindented line (no else/except at the left edge).
# The largest modules compile first, into the emptiest heap. Code that runs once is freed
# by giving its name None: `del` leaves the function referenced from the dict's table.
# ruff: noqa: E402
# mypy: disable-error-code=assignment
import micropython
micropython.opt_level(3)  # no line numbers in the bytecode compiled from here on
import cmsearch  # first: its go() is one block of bytecode, the largest
import cmsave
text = cmsave.parse(cmsave.load())
cmsave.load = cmsave.parse = None  # run once: freed before the others compile
import cmgame as g
import cmboard
import cmlines
import cmhw
g.d, key, w, h, tt = cmhw.setup()  # the display driver compiles now
cmhw.setup = None
if g:  # (always true) one statement, compiled before the board and search take RAM
    g.b = cmboard.Board(w, h, 4, tt)  # with hash keys if it has a table
    if g.PONDER:  # a board of its own (~3 KB on 7x6, with the search), the game's table
        import cmponder
        g.pd = cmboard.Board(w, h, 4, tt)
    cmlines.build = None  # the tables stay with the board
    if g.FRESH and tt:  # a board with a table: its levels' depths and nodes (cmhw.tabled)
        g.LEVELS = cmhw.tabled(g.LEVELS, w, h)
        cmhw.tabled = None
    g.s = cmsearch.Search(g.b, tt, g.LEVELS[-3])  # no deeper than the top level
    if g.PONDER:
        g.pd = cmponder.Ponder(g.pd, g.s)
        g.s.poll = g.pd.alive  # the display's blink while the computer thinks
        if tt == 1:  # (cmpico) the table last, from the heap all the rest has left
            import cmpico
            g.s.tt = g.pd.s.tt = cmpico.fit()
    if g.FRESH and g.s.tt:  # the table's bytes: `connectm move --table` (docs/serial.md)
        print('T', len(g.s.tt.t))
    g.sv = cmsave.save
    cmsave.restore(text)  # the save parsed at the start: its moves, on the board
    cmsave.restore = text = w = h = tt = None
    cmsearch.Search.__init__ = cmboard.Board.__init__ = None  # one board and search made
